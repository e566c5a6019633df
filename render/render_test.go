package render_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/render/emit"
	"github.com/codeloc/codeloc/validate"

	"github.com/codeloc/codeloc/internal/golden"
)

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
	for _, name := range []string{"citation", "mediawatch", "allpaths"} {
		t.Run(name, func(t *testing.T) {
			res, err := render.Render(render.Request{Dir: filepath.Join("fixtures", name), Contract: c})
			if err != nil {
				t.Fatal(err)
			}
			got, err := emit.Write(res.Objects)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("render", "testdata", "golden", name+".yaml"), got, "go test ./render -run Golden -update")
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
		if outs[i], err = emit.Write(res.Objects); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(string(outs[0]), string(outs[1])); diff != "" {
		t.Errorf("two renders differ:\n%s", diff)
	}
}
