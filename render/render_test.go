package render_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/validate"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func exampleContract(t testing.TB) *validate.Contract {
	t.Helper()
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		t.Fatalf("embedded contract: %v", problems)
	}
	return c
}

// TestGolden renders the good fixtures and compares with testdata/golden.
func TestGolden(t *testing.T) {
	t.Chdir("..") // messages and golden files are written from the repo root
	c := exampleContract(t)
	for _, name := range []string{"citation", "mediawatch"} {
		t.Run(name, func(t *testing.T) {
			res, err := render.Render(render.Request{Dir: filepath.Join("fixtures", name), Contract: c})
			if err != nil {
				t.Fatal(err)
			}
			got, err := render.Write(res.Objects)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("render", "testdata", "golden", name+".yaml")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./render -run Golden -update)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("render differs from %s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// TestDeterministic renders the same fixture twice and expects equal bytes.
func TestDeterministic(t *testing.T) {
	c := exampleContract(t)
	var outs [2][]byte
	for i := range outs {
		res, err := render.Render(render.Request{Dir: "../fixtures/citation", Contract: c})
		if err != nil {
			t.Fatal(err)
		}
		if outs[i], err = render.Write(res.Objects); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(string(outs[0]), string(outs[1])); diff != "" {
		t.Errorf("two renders differ:\n%s", diff)
	}
}
