package render_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/render/emit"
	"github.com/codeloc/codeloc/validate"

	"github.com/codeloc/codeloc/internal/fsys"
	"github.com/codeloc/codeloc/internal/golden"
	"github.com/codeloc/codeloc/internal/problem"
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
			var got bytes.Buffer // what codeloc render prints
			if err := res.WriteYAML(&got); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("render", "testdata", "golden", name+".yaml"), got.Bytes(), "go test ./render -run Golden -update")
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

// memoryCopy copies a fixture's folder into a new in-memory file system at
// /repo/<name>, with edit applied to its kustomization.
func memoryCopy(t *testing.T, name string, edit func(string) string) (*fsys.Memory, string) {
	t.Helper()
	m := fsys.NewMemory()
	src := filepath.Join("..", "fixtures", name)
	dst := "/repo/" + name
	err := filepath.WalkDir(src, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if e.IsDir() {
			return m.MkdirAll(filepath.Join(dst, rel))
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == "kustomization.yaml" {
			data = []byte(edit(string(data)))
		}
		return m.WriteFile(filepath.Join(dst, rel), data)
	})
	if err != nil {
		t.Fatal(err)
	}
	return m, dst
}

// TestConcurrentWarnings renders two code-locations whose kustomizations
// use different deprecated fields, many times at once: each render gets
// its own warnings, at its own lines, and nothing else (run under -race
// in CI).
func TestConcurrentWarnings(t *testing.T) {
	c := exampleContract(t)
	type app struct {
		fs   *fsys.Memory
		dir  string
		want []string
	}
	withLabels, labelsDir := memoryCopy(t, "citation", func(k string) string {
		return k + "commonLabels:\n  team: citation\n"
	})
	withBases, basesDir := memoryCopy(t, "citation", func(k string) string {
		return strings.Replace(k, "resources:", "bases: []\nimageTags: []\nresources:", 1)
	})
	apps := []app{
		{withLabels, labelsDir, []string{"kustomize-warning citation/kustomization.yaml:26:1 commonLabels"}},
		{withBases, basesDir, []string{"kustomize-warning citation/kustomization.yaml:3:1 bases", "kustomize-warning citation/kustomization.yaml:4:1 imageTags"}},
	}
	const renders = 16
	errs := make(chan error, renders)
	for i := range renders {
		go func() {
			a := apps[i%len(apps)]
			res, err := render.Render(render.Request{FS: a.fs, Dir: a.dir, Contract: c, DisplayBase: "/repo"})
			if err != nil {
				errs <- err
				return
			}
			var got []string
			for _, w := range res.Warnings {
				got = append(got, fmt.Sprintf("%s %s:%d:%d %s", w.Code, w.File, w.Line, w.Column, w.Path))
			}
			if diff := cmp.Diff(a.want, got); diff != "" {
				errs <- fmt.Errorf("%s: warnings (-want +got):\n%s", a.dir, diff)
				return
			}
			errs <- nil
		}()
	}
	for range renders {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestObjectLimit: the contract's limits.objects bounds what the root
// yields, generated objects included (no resource file holds them).
func TestObjectLimit(t *testing.T) {
	// mediawatch's root: 2 resources and 1 generated ConfigMap, plus 2 more.
	generated, dir := memoryCopy(t, "mediawatch", func(k string) string {
		return strings.Replace(k, "configMapGenerator:\n", "configMapGenerator:\n  - name: mediawatch-a\n    literals: [a=b]\n  - name: mediawatch-b\n    literals: [a=b]\n", 1)
	})
	for _, tt := range []struct {
		limit int
		want  string
	}{
		{5, ""},
		{4, "mediawatch/kustomization.yaml: object-limit resources: the kustomize root yields 5 objects, more than the 4 objects"},
	} {
		c := exampleContract(t)
		c.Limits.Objects = tt.limit
		_, err := render.Render(render.Request{FS: generated, Dir: dir, Contract: c, DisplayBase: "/repo"})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("limit %d: %v", tt.limit, err)
		case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
			t.Errorf("limit %d: %v, want %q", tt.limit, err, tt.want)
		}
	}
}

// blockingFS holds every read of a kustomization until release is closed:
// a render that outlasts any budget.
type blockingFS struct {
	*fsys.Memory
	release chan struct{}
}

func (b blockingFS) ReadFile(p string) ([]byte, error) {
	if filepath.Base(p) == "kustomization.yaml" {
		<-b.release
	}
	return b.Memory.ReadFile(p)
}

// TestRenderWithin: past its budget a render is answered with the budget's
// problem at once; within it, with the render's own result.
func TestRenderWithin(t *testing.T) {
	m, dir := memoryCopy(t, "citation", func(k string) string { return k })
	c := exampleContract(t)
	slow := blockingFS{m, make(chan struct{})}
	defer close(slow.release)
	_, err := render.RenderWithin(render.Request{FS: slow, Dir: dir, Contract: c, DisplayBase: "/repo"}, 50*time.Millisecond, "citation")
	var problems problem.Problems
	if !errors.As(err, &problems) || len(problems) != 1 || problems[0].Code != render.CodeRenderBudget || problems[0].File != "citation" ||
		!strings.Contains(problems[0].Message, "budget of 50ms") {
		t.Errorf("past the budget: %v", err)
	}
	res, err := render.RenderWithin(render.Request{FS: m, Dir: dir, Contract: c, DisplayBase: "/repo"}, time.Minute, "citation")
	if err != nil || len(res.Objects) == 0 {
		t.Errorf("within the budget: %v", err)
	}
}

// eachGolden runs f in a subtest on every golden output's bytes.
func eachGolden(t *testing.T, f func(t *testing.T, data []byte)) {
	t.Helper()
	goldens, err := filepath.Glob("testdata/golden/*.yaml")
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no golden output: %v", err)
	}
	for _, golden := range goldens {
		t.Run(filepath.Base(golden), func(t *testing.T) {
			data, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			f(t, data)
		})
	}
}
