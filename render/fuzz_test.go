package render_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codeloc/codeloc/internal/fsys"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/validate"
)

// fuzzBudget bounds one fuzzed render: a render past it is a finding
// (unbounded work on a small input), as a panic is.
const fuzzBudget = 10 * time.Second

// FuzzRender renders a small tree built from the fuzzer's bytes:
// mediawatch's declaration (nothing to read beside it), a kustomization,
// one resource file (resource.yaml) and one patch (patch.yaml) that the
// kustomization may list. Any input yields
// objects or documented problems, within the budget, never a panic or an
// internal error.
//
//	go test ./render -run '^$' -fuzz '^FuzzRender$' -fuzztime 60s
func FuzzRender(f *testing.F) {
	decl, err := os.ReadFile(filepath.Join("..", "fixtures", "mediawatch", validate.ManifestFile))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][3]string{
		{"resources: [resource.yaml]\n", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: mediawatch-a}\ndata: {a: b}\n", ""},
		{"resources: [resource.yaml]\npatches: [{path: patch.yaml}]\n", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: mediawatch-dagster}\nspec: {template: {spec: {containers: [{name: c, image: registry:80/mediawatch-dagster:5d2e8b4}]}}}\n",
			"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: mediawatch-dagster}\nspec: {replicas: 2}\n"},
		{"resources: [resource.yaml]\nconfigMapGenerator: [{name: mediawatch-g, literals: [a=b]}]\n", "a: &a [*a]\n", ""},
		{"resources: [https://example.com/x.yaml, ../x]\nhelmCharts: [{name: x}]\n", "", ""},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		f.Fatal(problems)
	}
	f.Fuzz(func(t *testing.T, kustomization, resource, patch string) {
		m := fsys.NewMemory()
		if err := m.MkdirAll("/repo/mediawatch"); err != nil {
			t.Fatal(err)
		}
		for name, data := range map[string]string{validate.ManifestFile: string(decl), "kustomization.yaml": kustomization, "resource.yaml": resource, "patch.yaml": patch} {
			if err := m.WriteFile("/repo/mediawatch/"+name, []byte(data)); err != nil {
				t.Fatal(err)
			}
		}
		res, err := render.RenderWithin(render.Request{FS: m, Dir: "/repo/mediawatch", Contract: c, DisplayBase: "/repo"}, fuzzBudget, "mediawatch")
		var problems problem.Problems
		switch {
		case err == nil:
			if len(res.Objects) == 0 {
				t.Fatal("no error and no object")
			}
		case errors.As(err, &problems):
			for _, p := range problems {
				if p.Code == render.CodeRenderBudget {
					t.Fatalf("a render of %d bytes outlasted %s", len(kustomization)+len(resource)+len(patch), fuzzBudget)
				}
				if _, ok := render.CodeDocs()[p.Code]; !ok {
					if _, ok := validate.CodeDocs()[p.Code]; !ok {
						t.Fatalf("undocumented code %q: %s", p.Code, p)
					}
				}
				if strings.Contains(p.String(), "\n") {
					t.Fatalf("a problem on more than one line: %q", p.String())
				}
			}
		default:
			t.Fatalf("internal error: %v", err)
		}
	})
}
