package validate_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// FuzzParseDeclaration: any input yields a declaration or problems, never a
// panic; every problem carries a code and a message. The seed corpus is the
// fixtures plus testdata/fuzz/FuzzParseDeclaration.
func FuzzParseDeclaration(f *testing.F) {
	seeds, _ := filepath.Glob("../fixtures/*/" + validate.ManifestFile)
	more, _ := filepath.Glob("../fixtures/invalid/*/" + validate.ManifestFile)
	for _, s := range append(seeds, more...) {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, problems := validate.ParseDeclaration("m.yaml", data)
		if d == nil && len(problems) == 0 {
			t.Fatal("no declaration and no problem")
		}
		checkProblems(t, problems)
	})
}

// FuzzParseContract does the same for the cluster contract.
func FuzzParseContract(f *testing.F) {
	f.Add(validate.ExampleContract)
	if data, err := os.ReadFile("../fixtures/invalid/contract-invalid/contract.yaml"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, problems := validate.ParseContract("c.yaml", data)
		if c == nil && len(problems) == 0 {
			t.Fatal("no contract and no problem")
		}
		checkProblems(t, problems)
	})
}

func checkProblems(t *testing.T, problems problem.Problems) {
	t.Helper()
	for _, p := range problems {
		if p.Code == "" || p.Message == "" {
			t.Fatalf("problem without code or message: %+v", p)
		}
		if _, ok := validate.CodeDocs()[p.Code]; !ok {
			t.Fatalf("undocumented code %q", p.Code)
		}
	}
	_ = problems.Error()
}
