package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// clearEnv clears the environment variables that set flag defaults, as the
// generator does.
func clearEnv(t *testing.T) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, envPrefix) {
			t.Setenv(k, "")
		}
	}
}

// TestPagesAreCurrent fails while docs/cli differs from what the generator
// writes: a command, flag or help text changed without regenerating.
func TestPagesAreCurrent(t *testing.T) {
	clearEnv(t)
	root := filepath.Join("..", "..") // the module root, from cmd/<generator>
	want, err := Pages(roots())
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, outDir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	for _, f := range files {
		if got[filepath.Base(f)], err = os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if string(got[name]) != string(want[name]) {
			t.Errorf("%s/%s is stale or missing: run `go generate ./docs` and commit the result", outDir, name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s/%s documents no command: run `go generate ./docs` and commit the result", outDir, name)
		}
	}
}

// TestPages checks that every binary and command has its page, linked
// from the index.
func TestPages(t *testing.T) {
	clearEnv(t)
	pages, err := Pages(roots())
	if err != nil {
		t.Fatal(err)
	}
	index := string(pages[indexFile])
	for _, name := range []string{"codeloc.md", "codeloc_render.md", "codeloc_validate.md", "codeloc_generate.md", "codeloc_application.md",
		"codeloc-jobs.md", "codeloc-jobs_preflight.md", "codeloc-jobs_migrate.md", "codeloc-jobs_reload.md", "codeloc-jobs_validate.md",
		"codeloc-sidecar.md", "codeloc-sidecar_version.md"} {
		if _, ok := pages[name]; !ok {
			t.Errorf("no page %s", name)
		}
		if !strings.Contains(index, "]("+name+")") {
			t.Errorf("the index does not link %s", name)
		}
	}
	if !strings.Contains(string(pages["codeloc_render.md"]), "--max-render-seconds") {
		t.Error("codeloc render's page lacks its flags")
	}
}
