package build

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/codeloc/codeloc/internal/fsys"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/internal/yamlbound"
)

// writeTree writes files (path: content) under a new folder and returns it.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: citation-settings\ndata:\n  a: b\n"

// lines are problems as `code file:line:col path`, files relative to dir.
func lines(dir string, ps problem.Problems) []string {
	var out []string
	for _, p := range ps.Sorted() {
		file := p.File
		if rel, err := filepath.Rel(dir, file); err == nil && !strings.HasPrefix(rel, "..") {
			file = filepath.ToSlash(rel)
		}
		out = append(out, fmt.Sprintf("%s %s:%d:%d %s", p.Code, file, p.Line, p.Column, p.Path))
	}
	return out
}

// realDir is dir with its links resolved: the guard names files as
// kustomize reads them.
func realDir(t testing.TB, dir string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// memTree writes files under /repo of a new in-memory file system.
func memTree(t testing.TB, files map[string]string) (*fsys.Memory, string) {
	t.Helper()
	m := fsys.NewMemory()
	for name, content := range files {
		p := "/repo/" + name
		if err := m.MkdirAll(filepath.Dir(p)); err != nil {
			t.Fatal(err)
		}
		if err := m.WriteFile(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	return m, "/repo"
}

// nested is a tree of depth kustomizations, each the only base of the one
// above with a ConfigMap of its own, and bottom as the last one.
func nested(depth int, bottom string) map[string]string {
	files := map[string]string{}
	dir := ""
	for i := range depth {
		files[dir+"kustomization.yaml"] = "resources:\n- settings.yaml\n- l\n"
		files[dir+"settings.yaml"] = strings.Replace(configMap, "citation-settings", fmt.Sprintf("citation-settings-%d", i), 1)
		dir += "l/"
	}
	files[dir+"kustomization.yaml"] = bottom
	return files
}

// TestRemoteRefusedAtAnyDepth puts remote references at the bottom of
// nested kustomizations, on the disk and in memory: an http resource on a
// server of the test's own, a git base and a forced git:: one, with a `git`
// on PATH that records any call. Within the bounds each reference is
// refused at its line; past them (2,000 levels) the entry that goes past is
// refused at its line and kustomize reads nothing below it. Either way
// nothing is fetched: the server sees no request and git never runs.
func TestRemoteRefusedAtAnyDepth(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		_, _ = io.WriteString(w, configMap)
	}))
	defer srv.Close()
	bin := t.TempDir()
	calls := filepath.Join(bin, "calls")
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho \"$@\" >> "+calls+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	remote := "resources:\n- " + srv.URL + "/settings.yaml\n- github.com/argoproj/argo-cd//manifests?ref=v3.6.2\n- git::https://example.invalid/repo.git\n"

	within := MaxNesting
	bottom := strings.Repeat("l/", within) + "kustomization.yaml"
	past := strings.Repeat("l/", MaxNesting) + "kustomization.yaml"
	for _, tt := range []struct {
		name  string
		depth int
		disk  bool
		want  []string
	}{
		{"disk, at the bound", within, true, []string{
			"kustomize-remote " + bottom + ":2:3 resources",
			"kustomize-remote " + bottom + ":3:3 resources",
			"kustomize-remote " + bottom + ":4:3 resources",
		}},
		{"memory, at the bound", within, false, []string{
			"kustomize-remote " + bottom + ":2:3 resources",
			"kustomize-remote " + bottom + ":3:3 resources",
			"kustomize-remote " + bottom + ":4:3 resources",
		}},
		{"disk, 2,000 levels", 2000, true, []string{"kustomize-limit " + past + ":3:3 resources"}},
		{"memory, 2,000 levels", 2000, false, []string{"kustomize-limit " + past + ":3:3 resources"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := nested(tt.depth, remote)
			var fs fsys.FS
			var root, shown string
			if tt.disk {
				root = writeTree(t, files)
				fs, shown = fsys.Disk(), realDir(t, root)
			} else {
				fs, root = memTree(t, files)
				shown = root
			}
			out := Build(fs, root, Options{})
			if out.Objects != nil {
				t.Fatalf("built %d objects from a tree with remote references", len(out.Objects))
			}
			if diff := cmp.Diff(tt.want, lines(shown, out.Problems)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the http resource was fetched %d times", n)
	}
	if data, err := os.ReadFile(calls); err == nil {
		t.Errorf("git ran: %s", data)
	}
}

// TestTooManyKustomizations: a flat tree of more folders than a build
// reads is refused at the entry past the bound.
func TestTooManyKustomizations(t *testing.T) {
	files := map[string]string{}
	var list strings.Builder
	list.WriteString("resources:\n")
	for i := range MaxKustomizations + 1 {
		fmt.Fprintf(&list, "- b%d\n", i)
		files[fmt.Sprintf("b%d/kustomization.yaml", i)] = "resources:\n- settings.yaml\n"
		files[fmt.Sprintf("b%d/settings.yaml", i)] = strings.Replace(configMap, "citation-settings", fmt.Sprintf("citation-settings-%d", i), 1)
	}
	files["kustomization.yaml"] = list.String()
	fs, root := memTree(t, files)
	out := Build(fs, root, Options{})
	want := []string{fmt.Sprintf("kustomize-limit kustomization.yaml:%d:3 resources", MaxKustomizations+2)}
	if diff := cmp.Diff(want, lines(root, out.Problems)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestRefusedEverywhere lists, in one kustomization and its base, every
// place a remote reference or a refused field can stand: all are reported
// at once, at their lines.
func TestRefusedEverywhere(t *testing.T) {
	root := writeTree(t, map[string]string{
		"kustomization.yaml": `resources:
- settings.yaml
- base
components:
- https://example.invalid/component
patches:
- path: https://example.invalid/patch.yaml
configMapGenerator:
- name: citation-gen
  files:
  - key=https://example.invalid/file
  envs:
  - git@example.invalid:org/env
openapi:
  path: https://example.invalid/schema.json
helmCharts:
- name: x
vars:
- name: X
  objref: {kind: ConfigMap, name: citation-settings, apiVersion: v1}
`,
		"settings.yaml":           configMap,
		"base/kustomization.yaml": "bases:\n- ssh://git@example.invalid/org/repo\n",
	})
	out := Build(fsys.Disk(), root, Options{})
	want := []string{
		"kustomize-warning base/kustomization.yaml:1:1 bases",
		"kustomize-remote base/kustomization.yaml:2:3 bases",
		"kustomize-remote kustomization.yaml:5:3 components",
		"kustomize-remote kustomization.yaml:7:9 patches.path",
		"kustomize-remote kustomization.yaml:11:5 configMapGenerator.files",
		"kustomize-remote kustomization.yaml:13:5 configMapGenerator.envs",
		"kustomize-openapi kustomization.yaml:14:1 openapi",
		"kustomize-helm kustomization.yaml:16:1 helmCharts",
		"kustomize-vars kustomization.yaml:18:1 vars",
	}
	if diff := cmp.Diff(want, lines(realDir(t, root), out.Problems)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestRemoteInPluginConfigs: the configurations of kustomize's built-in
// generators and transformers load files too, listed as files, inline, or
// as the objects of a kustomization folder listed under generators. Every
// remote file they name is refused at its line, and the server of the
// test's own sees no request.
func TestRemoteInPluginConfigs(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		_, _ = io.WriteString(w, "a=b\n")
	}))
	defer srv.Close()
	gen := func(name string) string {
		return "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata:\n  name: " + name + "\nfiles:\n- " + srv.URL + "/f\n"
	}
	for _, tt := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"a file under generators", map[string]string{
			"kustomization.yaml": "resources:\n- settings.yaml\ngenerators:\n- gen.yaml\n",
			"gen.yaml":           gen("citation-gen"),
		}, []string{"kustomize-remote gen.yaml:6:3 files"}},
		{"inline under transformers", map[string]string{
			"kustomization.yaml": "resources:\n- settings.yaml\ntransformers:\n- |\n  apiVersion: builtin\n  kind: PatchTransformer\n  metadata:\n    name: citation-patch\n  path: " + srv.URL + "/p.yaml\n",
		}, []string{"kustomize-remote kustomization.yaml:4:3 path"}},
		{"a folder under generators", map[string]string{
			"kustomization.yaml":      "resources:\n- settings.yaml\ngenerators:\n- gens\n",
			"gens/kustomization.yaml": "resources:\n- gen.yaml\n",
			"gens/gen.yaml":           gen("citation-gen"),
		}, []string{"kustomize-remote gens/gen.yaml:6:3 files"}},
		{"a kind behind an alias", map[string]string{
			"kustomization.yaml": "resources:\n- settings.yaml\ngenerators:\n- gen.yaml\n",
			"gen.yaml":           "x: &k ConfigMapGenerator\napiVersion: builtin\nkind: *k\nmetadata:\n  name: citation-gen\nfiles:\n- " + srv.URL + "/f\n",
		}, []string{"kustomize-build gen.yaml:3:7 "}},
		{"Helm as a generator", map[string]string{
			"kustomization.yaml": "resources:\n- settings.yaml\ngenerators:\n- helm.yaml\n",
			"helm.yaml":          "apiVersion: builtin\nkind: HelmChartInflationGenerator\nmetadata:\n  name: citation-chart\nchartName: x\n",
		}, []string{"kustomize-helm helm.yaml:1:1 kind"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.files["settings.yaml"] = configMap
			fs, root := memTree(t, tt.files)
			out := Build(fs, root, Options{})
			if out.Objects != nil {
				t.Fatalf("built %d objects", len(out.Objects))
			}
			if diff := cmp.Diff(tt.want, lines(root, out.Problems)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("a remote file was fetched %d times", n)
	}
}

// TestLinkedKustomization: a kustomization file that is a link inside the
// root is read by kustomize under its target's name; it is inspected all
// the same, on the disk and in memory.
func TestLinkedKustomization(t *testing.T) {
	files := map[string]string{
		"settings.yaml": configMap,
		"base/k.txt":    "resources:\n- https://example.invalid/x.yaml\n",
	}
	want := []string{"kustomize-remote base/k.txt:2:3 resources"}
	disk := writeTree(t, files)
	mem, memRoot := memTree(t, files)
	for _, root := range []string{disk, memRoot} {
		fs := fsys.Disk()
		if root == memRoot {
			fs = mem
		}
		for name, content := range map[string]string{"kustomization.yaml": "resources:\n- settings.yaml\n- base\n"} {
			if err := fs.WriteFile(filepath.Join(root, name), []byte(content)); err != nil {
				t.Fatal(err)
			}
		}
		link := filepath.Join(root, "base", "kustomization.yaml")
		var err error
		if root == memRoot {
			err = mem.Symlink("k.txt", link)
		} else {
			err = os.Symlink("k.txt", link)
		}
		if err != nil {
			t.Fatal(err)
		}
		out := Build(fs, root, Options{})
		shown := root
		if root == disk {
			shown = realDir(t, root)
		}
		if diff := cmp.Diff(want, lines(shown, out.Problems)); diff != "" {
			t.Errorf("%s: problems (-want +got):\n%s", root, diff)
		}
	}
}

// TestHiddenReferences: what kustomize would read otherwise than a first
// look does (an alias it expands, a key given twice of which it keeps the
// last) is refused, so that no reference hides from the guard.
func TestHiddenReferences(t *testing.T) {
	for _, tt := range []struct{ name, kustomization, want string }{
		{"an alias for the list", "x: &r\n- https://example.invalid/a.yaml\nresources: *r\n", "kustomize-build kustomization.yaml:3:12 "},
		{"an alias for an item", "x: &u https://example.invalid/a.yaml\nresources:\n- settings.yaml\n- *u\n", "kustomize-build kustomization.yaml:4:3 "},
		{"a merge key", "base: &b\n  resources: [https://example.invalid/a.yaml]\n<<: *b\n", "kustomize-build kustomization.yaml:3:5 "},
		{"a key given twice", "resources:\n- settings.yaml\nresources:\n- https://example.invalid/a.yaml\n", "kustomize-build kustomization.yaml:3:1 resources"},
		{"two documents", "resources:\n- settings.yaml\n---\nresources:\n- https://example.invalid/a.yaml\n", "kustomize-build kustomization.yaml:0:0 "},
		{"not YAML", "resources: [settings.yaml\n", "kustomize-build kustomization.yaml:0:0 "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs, root := memTree(t, map[string]string{"kustomization.yaml": tt.kustomization, "settings.yaml": configMap})
			out := Build(fs, root, Options{})
			if out.Objects != nil {
				t.Fatalf("built %d objects", len(out.Objects))
			}
			if diff := cmp.Diff([]string{tt.want}, lines(root, out.Problems)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAnchorsInObjects: an object that uses YAML anchors, which kustomize
// expands, is no generator: it builds as written.
func TestAnchorsInObjects(t *testing.T) {
	fs, root := memTree(t, map[string]string{
		"kustomization.yaml": "resources:\n- settings.yaml\n",
		"settings.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: citation-settings\n  labels: {a: &v x, b: *v}\n",
	})
	out := Build(fs, root, Options{})
	if out.Objects == nil || len(out.Problems) > 0 {
		t.Fatalf("objects %d, problems %v", len(out.Objects), out.Problems)
	}
	if got := out.Objects[0].GetLabels()["b"]; got != "x" {
		t.Errorf("label b = %q, want x", got)
	}
}

// TestKustomizePrintsNothing builds roots that make kustomize v0.17 print
// on the process's stderr or through the log package when it reads them
// as written (every deprecated field, sortOptions beside codeloc's own
// order): nothing reaches either, and the deprecated fields come back as
// warnings at their lines.
func TestKustomizePrintsNothing(t *testing.T) {
	root := writeTree(t, map[string]string{
		"kustomization.yaml": `bases:
- base
commonLabels:
  team: citation
imageTags:
- name: registry:80/citation
  newTag: a3f9c1d
patchesStrategicMerge:
- patch.yaml
patchesJson6902:
- target: {version: v1, kind: ConfigMap, name: citation-settings}
  path: json-patch.yaml
sortOptions:
  order: fifo
`,
		"base/kustomization.yaml": "resources:\n- settings.yaml\n",
		"base/settings.yaml":      configMap,
		"patch.yaml":              "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: citation-settings\ndata:\n  c: d\n",
		"json-patch.yaml":         "- op: add\n  path: /data/e\n  value: f\n",
	})
	var out *Output
	printed := captureOutput(t, func() { out = Build(fsys.Disk(), root, Options{Track: true}) })
	if printed != "" {
		t.Errorf("kustomize printed:\n%s", printed)
	}
	if out.Objects == nil {
		t.Fatalf("no object: %v", out.Problems)
	}
	want := []string{
		"kustomize-warning kustomization.yaml:1:1 bases",
		"kustomize-warning kustomization.yaml:3:1 commonLabels",
		"kustomize-warning kustomization.yaml:5:1 imageTags",
		"kustomize-warning kustomization.yaml:8:1 patchesStrategicMerge",
		"kustomize-warning kustomization.yaml:10:1 patchesJson6902",
	}
	if diff := cmp.Diff(want, lines(realDir(t, root), out.Problems)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	got, _ := out.Objects[0].String()
	for _, s := range []string{"team: citation", "c: d", "e: f"} {
		if !strings.Contains(got, s) {
			t.Errorf("the fixed kustomization lost %q:\n%s", s, got)
		}
	}
}

// captureOutput runs f with the process's stderr and the log package's
// output captured, and returns what they received.
func captureOutput(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, logOut := os.Stderr, log.Writer()
	os.Stderr = w
	log.SetOutput(w)
	defer func() { os.Stderr = stderr; log.SetOutput(logOut) }()
	done := make(chan string)
	go func() { b, _ := io.ReadAll(r); done <- string(b) }()
	f()
	_ = w.Close()
	return <-done
}

// TestNullMetadataMaps: labels and annotations written with no value (YAML
// null, as chart output often has) are absent to the API server, kubectl
// and Argo CD, and to codeloc; wrong shapes are still refused.
func TestNullMetadataMaps(t *testing.T) {
	root := writeTree(t, map[string]string{
		"kustomization.yaml": "resources:\n- settings.yaml\n- bad.yaml\n",
		"settings.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: citation-settings\n  annotations:\n  labels: ~\n",
		"bad.yaml":           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: citation-bad\n  annotations: [a]\n  labels: null\n",
	})
	out := Build(fsys.Disk(), root, Options{Track: true})
	want := []string{"object-metadata bad.yaml:5:16 ConfigMap/citation-bad.metadata.annotations"}
	if diff := cmp.Diff(want, lines(realDir(t, root), out.Problems)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestMetadataOfALargeFile: the metadata check reads every object file the
// bounds let through, whatever its size (it once skipped files past 8 MiB).
func TestMetadataOfALargeFile(t *testing.T) {
	big := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: citation-big\n  labels: [1, 2]\ndata:\n  blob: " + strings.Repeat("x", 9<<20) + "\n"
	fs, root := memTree(t, map[string]string{"kustomization.yaml": "resources:\n- big.yaml\n", "big.yaml": big})
	out := Build(fs, root, Options{})
	want := []string{"object-metadata big.yaml:5:11 ConfigMap/citation-big.metadata.labels"}
	if diff := cmp.Diff(want, lines(root, out.Problems)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestYAMLBounds: every file kustomize reads is bounded before kustomize
// parses it, with the build's limits; what stays within them builds.
func TestYAMLBounds(t *testing.T) {
	anchored := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: citation-settings\n  labels: &l {a: b, c: d}\n  annotations: *l\ndata: {a: b}\n"
	deep := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: citation-settings\n  annotations:\n    x: y\ndata: {a: b}\nz: " +
		strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n"
	patch := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: citation-settings\n  labels: &l {a: b, c: d, e: f}\n  annotations: *l\n"
	for _, tt := range []struct {
		name   string
		files  map[string]string
		limits yamlbound.Limits
		want   []string
	}{
		{"anchors within the limits", map[string]string{"kustomization.yaml": "resources:\n- a.yaml\n", "a.yaml": anchored}, yamlbound.Limits{}, nil},
		{"a resource's aliases", map[string]string{"kustomization.yaml": "resources:\n- a.yaml\n", "a.yaml": anchored},
			yamlbound.Limits{AliasNodes: 3}, []string{"yaml-limit a.yaml:6:16 "}},
		{"a patch's aliases", map[string]string{"kustomization.yaml": "resources:\n- a.yaml\npatches:\n- path: p.yaml\n", "a.yaml": configMap, "p.yaml": patch},
			yamlbound.Limits{AliasNodes: 3}, []string{"yaml-limit p.yaml:6:16 "}},
		{"the kustomization's own aliases", map[string]string{"kustomization.yaml": "resources: &r\n- a.yaml\nx: [*r, *r]\n", "a.yaml": configMap},
			yamlbound.Limits{AliasNodes: 2}, []string{"yaml-limit kustomization.yaml:3:9 "}},
		{"nesting", map[string]string{"kustomization.yaml": "resources:\n- a.yaml\n", "a.yaml": deep},
			yamlbound.Limits{Depth: 20}, []string{"yaml-limit a.yaml:8:22 "}},
		{"a file's size, before it is read", map[string]string{"kustomization.yaml": "resources:\n- a.yaml\n", "a.yaml": configMap + "# " + strings.Repeat("x", 200) + "\n"},
			yamlbound.Limits{Bytes: 100}, []string{"yaml-limit a.yaml:0:0 "}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs, root := memTree(t, tt.files)
			out := Build(fs, root, Options{YAML: tt.limits})
			if got := lines(root, out.Problems); !cmp.Equal(tt.want, got, cmpopts.EquateEmpty()) {
				t.Errorf("problems = %q, want %q", got, tt.want)
			}
			if (tt.want == nil) != (out.Objects != nil) {
				t.Errorf("built %d objects", len(out.Objects))
			}
		})
	}
}

// TestObjectLimit: the build stops reading resource files at the document
// past the limit, wherever it is in the tree; a List counts its items.
func TestObjectLimit(t *testing.T) {
	doc := func(i int) string {
		return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: citation-%d\n", i)
	}
	files := map[string]string{
		"kustomization.yaml":      "resources:\n- a.yaml\n- base\n",
		"a.yaml":                  doc(1) + "---\n" + doc(2),
		"base/kustomization.yaml": "resources:\n- b.yaml\n",
		"base/b.yaml":             doc(3) + "---\n" + doc(4) + "---\n" + doc(5),
	}
	list := map[string]string{
		"kustomization.yaml": "resources:\n- l.yaml\n",
		"l.yaml":             "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n",
	}
	fs, root := memTree(t, list)
	if got := lines(root, Build(fs, root, Options{MaxObjects: 2}).Problems); !cmp.Equal(got, []string{"object-limit l.yaml:6:3 resources"}) {
		t.Errorf("a List of 3 under a limit of 2: %q", got)
	}
	for _, tt := range []struct {
		limit int
		want  []string
	}{
		{0, nil},
		{5, nil},
		{4, []string{"object-limit base/b.yaml:11:1 resources"}},
		{1, []string{"object-limit a.yaml:6:1 resources"}},
	} {
		t.Run(fmt.Sprint(tt.limit), func(t *testing.T) {
			fs, root := memTree(t, files)
			out := Build(fs, root, Options{MaxObjects: tt.limit})
			if got := lines(root, out.Problems); !cmp.Equal(tt.want, got, cmpopts.EquateEmpty()) {
				t.Errorf("problems = %q, want %q", got, tt.want)
			}
		})
	}
}
