package appofapps

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/validate"
)

// declaration is a minimal valid declaration of name depending on deps.
func declaration(name string, deps ...string) string {
	s := fmt.Sprintf("codeLocation: %s\nready: true\nrevision: abcdef0\ncontractVersion: 3\nresources: {cpu: 250m, memory: 512Mi}\n", name)
	if len(deps) > 0 {
		s += "dependsOn:\n  codeLocations: [" + strings.Join(deps, ", ") + "]\n"
	}
	return s
}

// writeTree creates files (slash-separated paths relative to root).
func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestScan(t *testing.T) {
	const m = "/" + validate.ManifestFile
	deep := func(n int) string { return strings.Repeat("d/", n) + "cl" + m }
	tests := []struct {
		name       string
		files      map[string]string
		link       bool // root/link -> a folder holding a declaration
		maxEntries int
		want       []string
		err        string
	}{
		{name: "skipped folders", files: map[string]string{
			"a" + m: "", ".git/x" + m: "", ".hidden/b" + m: "", "node_modules/c" + m: "", "vendor/d" + m: "", "e/sub" + m: "",
		}, want: []string{"a", "e/sub"}},
		{name: "a code-location's subfolders are its own", files: map[string]string{"a" + m: "", "a/inner" + m: ""}, want: []string{"a"}},
		{name: "links not followed", files: map[string]string{"a" + m: ""}, link: true, want: []string{"a"}},
		{name: "deepest allowed", files: map[string]string{deep(15): ""}, want: []string{strings.Repeat("d/", 15) + "cl"}},
		{name: "too deep", files: map[string]string{deep(16): ""}, err: "is more than 16 folders below the repo root"},
		{name: "too many entries", files: map[string]string{"a/1": "", "a/2": "", "a/3": ""}, maxEntries: 3, err: "more than 3 files and folders under"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tt.files)
			if tt.link {
				other := t.TempDir()
				writeTree(t, other, map[string]string{"linked" + m: ""})
				if err := os.Symlink(filepath.Join(other, "linked"), filepath.Join(root, "link")); err != nil {
					t.Fatal(err)
				}
			}
			s := &scan{root: root, maxDepth: MaxWalkDepth, maxEntries: MaxWalkEntries}
			if tt.maxEntries > 0 {
				s.maxEntries = tt.maxEntries
			}
			err := s.dir(root, 0)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("want an error containing %q, got %v", tt.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, dir := range s.found {
				rel, _ := filepath.Rel(root, dir)
				got = append(got, filepath.ToSlash(rel))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("found (-want +got):\n%s", diff)
			}
		})
	}
}

// wavesOf generates dirs and returns each Application's wave.
func wavesOf(t *testing.T, dirs []string, root string) map[string]int {
	t.Helper()
	apps, err := Generate(dirs, Options{RepoURL: repoURL, RepoRoot: root, Contract: exampleContract(t)})
	if err != nil {
		t.Fatalf("%v: %v", dirs, err)
	}
	out := map[string]int{}
	for _, a := range apps {
		out[a.Name] = a.Wave
	}
	return out
}

// TestOneAtATime: an Application generated alone gets the wave it gets
// among all.
func TestOneAtATime(t *testing.T) {
	dirs := in(graphs, "chain/marts", "chain/raw", "chain/staging", "diamond/left", "diamond/report",
		"diamond/right", "diamond/sources", "draft/pending", "draft/waiting", "unknown/known")
	all := wavesOf(t, dirs, graphs)
	if len(all) != len(dirs) {
		t.Fatalf("want %d Applications, got %v", len(dirs), all)
	}
	for _, dir := range dirs {
		for name, wave := range wavesOf(t, []string{dir}, graphs) {
			if wave != all[name] {
				t.Errorf("%s alone: wave %d, among all: %d", name, wave, all[name])
			}
		}
	}
}

// manyCodeLocations writes n code-locations, each depending on the previous
// one, three folders deep among other files, and returns the last one's folder.
func manyCodeLocations(t testing.TB, n int) (root, last string) {
	root = t.TempDir()
	files := map[string]string{"README.md": "", ".git/HEAD": ""}
	for i := range n {
		dir := fmt.Sprintf("team-%d/pipelines/cl-%d", i%10, i)
		var deps []string
		if i > 0 {
			deps = []string{fmt.Sprintf("cl-%d", i-1)}
		}
		files[dir+"/"+validate.ManifestFile] = declaration(fmt.Sprintf("cl-%d", i), deps...)
		files[dir+"/kustomization.yaml"] = "resources: []\n"
		files[dir+"/src/main.py"] = ""
		last = filepath.Join(root, filepath.FromSlash(dir))
	}
	writeTree(t, root, files)
	return root, last
}

func TestManyCodeLocations(t *testing.T) {
	root, last := manyCodeLocations(t, 200)
	if got := wavesOf(t, []string{last}, root); got["cl-199"] != 199 {
		t.Fatalf("want cl-199 at wave 199, got %v", got)
	}
}

// BenchmarkGenerateOne: one Application out of an atlas repo of 200
// code-locations, the walk and every declaration read included.
func BenchmarkGenerateOne(b *testing.B) {
	root, last := manyCodeLocations(b, 200)
	c, ps := validate.LoadContract("")
	if len(ps) > 0 {
		b.Fatal(ps)
	}
	opts := Options{RepoURL: repoURL, RepoRoot: root, Contract: c}
	for b.Loop() {
		if _, err := Generate([]string{last}, opts); err != nil {
			b.Fatal(err)
		}
	}
}
