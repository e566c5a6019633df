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

	"github.com/codeloc/codeloc/internal/fsys"
	"github.com/codeloc/codeloc/validate"
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
func lines(dir string, ps validate.Problems) []string {
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

// TestRemoteRefusedAtAnyDepth nests 2,000 kustomizations, each the only
// base of the one above, with remote references at the bottom: an http
// resource on a server of the test's own, a git base and a forced git::
// one, with a `git` on PATH that records any call. The build is refused
// with each reference at its line, and nothing is fetched: the server sees
// no request and git never runs.
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

	const depth = 2000
	files := map[string]string{}
	dir := ""
	for i := range depth {
		files[dir+"kustomization.yaml"] = "resources:\n- settings.yaml\n- l\n"
		files[dir+"settings.yaml"] = strings.Replace(configMap, "citation-settings", fmt.Sprintf("citation-settings-%d", i), 1)
		dir += "l/"
	}
	files[dir+"kustomization.yaml"] = "resources:\n- " + srv.URL + "/settings.yaml\n- github.com/argoproj/argo-cd//manifests?ref=v2.14.21\n- git::https://example.invalid/repo.git\n"
	root := writeTree(t, files)

	out := Build(fsys.Disk(), root, false)
	if out.Objects != nil {
		t.Fatalf("built %d objects from a tree with remote references", len(out.Objects))
	}
	bottom := strings.Repeat("l/", depth) + "kustomization.yaml"
	want := []string{
		"kustomize-remote " + bottom + ":2:3 resources",
		"kustomize-remote " + bottom + ":3:3 resources",
		"kustomize-remote " + bottom + ":4:3 resources",
	}
	if diff := cmp.Diff(want, lines(realDir(t, root), out.Problems)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the http resource was fetched %d times", n)
	}
	if data, err := os.ReadFile(calls); err == nil {
		t.Errorf("git ran: %s", data)
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
	out := Build(fsys.Disk(), root, false)
	want := []string{
		"kustomize-helm kustomization.yaml:16:1 helmCharts",
		"kustomize-remote base/kustomization.yaml:2:3 bases",
		"kustomize-remote kustomization.yaml:11:3 configMapGenerator.files",
		"kustomize-remote kustomization.yaml:13:3 configMapGenerator.envs",
		"kustomize-remote kustomization.yaml:15:9 openapi.path",
		"kustomize-remote kustomization.yaml:5:3 components",
		"kustomize-remote kustomization.yaml:7:9 patches.path",
		"kustomize-vars kustomization.yaml:18:1 vars",
		"kustomize-warning base/kustomization.yaml:1:1 bases",
	}
	if diff := cmp.Diff(want, lines(realDir(t, root), out.Problems)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
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
	printed := captureOutput(t, func() { out = Build(fsys.Disk(), root, true) })
	if printed != "" {
		t.Errorf("kustomize printed:\n%s", printed)
	}
	if out.Objects == nil {
		t.Fatalf("no object: %v", out.Problems)
	}
	want := []string{
		"kustomize-warning kustomization.yaml:1:1 bases",
		"kustomize-warning kustomization.yaml:11:1 patchesJson6902",
		"kustomize-warning kustomization.yaml:3:1 commonLabels",
		"kustomize-warning kustomization.yaml:5:1 imageTags",
		"kustomize-warning kustomization.yaml:9:1 patchesStrategicMerge",
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
	out := Build(fsys.Disk(), root, true)
	want := []string{"object-metadata bad.yaml:5:16 ConfigMap/citation-bad.metadata.annotations"}
	if diff := cmp.Diff(want, lines(realDir(t, root), out.Problems)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}
