package plugin

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestContractsResolve covers how the contract parameter picks a file.
func TestContractsResolve(t *testing.T) {
	dir := t.TempDir()
	single := filepath.Join(dir, "single", "prod.yaml")
	write(t, single, validate.ExampleContract)
	one := filepath.Join(dir, "one")
	write(t, filepath.Join(one, "..2026_01_01", "prod.yaml"), validate.ExampleContract)
	if err := os.Symlink("..2026_01_01", filepath.Join(one, "..data")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..data/prod.yaml", filepath.Join(one, "prod.yaml")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(one, "README.md"), []byte("not a contract"))
	write(t, filepath.Join(one, ".hidden.yaml"), []byte("skipped"))
	two := filepath.Join(dir, "two")
	write(t, filepath.Join(two, "prod.yaml"), validate.ExampleContract)
	write(t, filepath.Join(two, "staging.yml"), validate.ExampleContract)
	empty := filepath.Join(dir, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	const hint = "mount the cluster contract (a ConfigMap) where --contract or CODELOC_CONTRACT points"
	tests := []struct {
		name, path, param string
		want              string
		problems          problem.Problems
	}{
		{name: "file", path: single, want: single},
		{name: "file named", path: single, param: "prod", want: single},
		{name: "ConfigMap folder with one contract", path: one, want: filepath.Join(one, "prod.yaml")},
		{name: "folder, named", path: two, param: "staging", want: filepath.Join(two, "staging.yml")},
		{name: "not configured", problems: problem.Problems{{Code: CodeContractNotConfigured, Path: "contract",
			Message: "no cluster contract is configured; the plugin never falls back to the example contract",
			Hint:    "mount the contract ConfigMap and pass --contract FILE|DIR or set CODELOC_CONTRACT"}}},
		{name: "missing", path: filepath.Join(dir, "nope"), problems: problem.Problems{{Code: CodeContractNotFound, File: filepath.Join(dir, "nope"),
			Message: filepath.Join(dir, "nope") + " does not exist", Hint: hint}}},
		{name: "empty folder", path: empty, problems: problem.Problems{{Code: CodeContractNotFound, File: empty,
			Message: "no contract (<name>.yaml) in " + empty, Hint: hint}}},
		{name: "file, other name", path: single, param: "staging", problems: problem.Problems{{Code: CodeContractNotFound, File: single,
			Path: "spec.source.plugin.parameters.contract", Message: `contract "staging" is not mounted (mounted: prod)`,
			Hint: "set the parameter to one of the mounted contracts, or mount it"}}},
		{name: "path in the parameter", path: two, param: "../two/prod", problems: problem.Problems{{Code: CodeContractNotFound, File: two,
			Path: "spec.source.plugin.parameters.contract", Message: `contract "../two/prod" is not mounted (mounted: prod, staging)`,
			Hint: "set the parameter to one of the mounted contracts, or mount it"}}},
		{name: "ambiguous", path: two, problems: problem.Problems{{Code: CodeContractAmbiguous, File: two,
			Path:    "spec.source.plugin.parameters.contract",
			Message: "2 contracts are mounted (prod, staging) and the Application names none", Hint: "set the plugin parameter contract to one of them"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := NewContracts(tt.path).Resolve(tt.param)
			if got != tt.want {
				t.Errorf("file %q, want %q", got, tt.want)
			}
			if diff := cmp.Diff(tt.problems, problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestContractsReload checks a contract is parsed once and again only when
// its file changes, in place or by a ConfigMap-style link swap.
func TestContractsReload(t *testing.T) {
	dir := t.TempDir()
	v1 := filepath.Join(dir, "..v1", "prod.yaml")
	v2 := filepath.Join(dir, "..v2", "prod.yaml")
	write(t, v1, validate.ExampleContract)
	write(t, v2, bytes.Replace(validate.ExampleContract, []byte("namespace: dagster\n"), []byte("namespace: swapped\n"), 1))
	link := filepath.Join(dir, "prod.yaml")
	if err := os.Symlink(v1, link); err != nil {
		t.Fatal(err)
	}
	c := NewContracts(dir)
	loads := 0
	c.OnLoad = func(string, problem.Problems) { loads++ }
	load := func() *validate.Contract {
		t.Helper()
		got, problems := c.Load("")
		if len(problems) > 0 {
			t.Fatal(problems)
		}
		return got
	}
	first := load()
	if again := load(); again != first || loads != 1 {
		t.Errorf("unchanged file: reloaded (loads=%d)", loads)
	}
	// A ConfigMap update: the link now leads to another file.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(v2, link); err != nil {
		t.Fatal(err)
	}
	if got := load(); got.Namespace != "swapped" || loads != 2 {
		t.Errorf("after the swap: namespace %q, loads %d", got.Namespace, loads)
	}
	// An edit in place.
	write(t, v2, bytes.Replace(validate.ExampleContract, []byte("namespace: dagster\n"), []byte("namespace: edited\n"), 1))
	future := time.Now().Add(time.Minute)
	if err := os.Chtimes(v2, future, future); err != nil {
		t.Fatal(err)
	}
	if got := load(); got.Namespace != "edited" || loads != 3 {
		t.Errorf("after the edit: namespace %q, loads %d", got.Namespace, loads)
	}
}

// TestContractsConcurrent loads from many goroutines (run with -race).
func TestContractsConcurrent(t *testing.T) {
	file := filepath.Join(t.TempDir(), "prod.yaml")
	write(t, file, validate.ExampleContract)
	c := NewContracts(file)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if _, problems := c.Load(""); len(problems) > 0 {
					t.Error(problems)
				}
			}
		}()
	}
	wg.Wait()
}

// TestContractProblems checks an invalid contract's problems come back on
// each load, with its file.
func TestContractProblems(t *testing.T) {
	file := filepath.Join(t.TempDir(), "prod.yaml")
	write(t, file, []byte("apiVersion: codeloc.dev/v1\nkind: ClusterContract\n"))
	_, problems := NewContracts(file).Load("")
	if len(problems) == 0 || problems[0].File != file {
		t.Errorf("problems %v, want some in %s", problems, file)
	}
}
