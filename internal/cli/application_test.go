package cli_test

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codeloc/codeloc/internal/cli"
)

// runApplication runs `codeloc application ARGS...` in-process.
func runApplication(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"application"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

// appDoc is what TestApplicationWaves expects of one document.
type appDoc struct{ name, wave, path string }

func TestApplicationWaves(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []appDoc
	}{
		{"both", []string{"--repo-root", "../../fixtures", "../../fixtures/citation", "../../fixtures/mediawatch"},
			[]appDoc{{"mediawatch", `"0"`, `"mediawatch"`}, {"citation", `"1"`, `"citation"`}}},
		// One Application alone gets the wave it gets among all.
		{"citation alone", []string{"--repo-root", "../../fixtures", "../../fixtures/citation"},
			[]appDoc{{"citation", `"1"`, `"citation"`}}},
		{"git top level", []string{"../../fixtures/citation"},
			[]appDoc{{"citation", `"1"`, `"fixtures/citation"`}}},
		// Readiness is the render's: pending (ready: false) gets its Application.
		{"not ready", []string{"--repo-root", "../../fixtures/appofapps", "../../fixtures/appofapps/draft/pending"},
			[]appDoc{{"pending", `"1"`, `"draft/pending"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runApplication(t, append([]string{"--repo-url", "https://git.example/atlas.git"}, tt.args...)...)
			if code != cli.ExitOK || errOut != "" {
				t.Fatalf("exit %d, stderr:\n%s", code, errOut)
			}
			checkDocs(t, out, tt.want)
		})
	}
}

func checkDocs(t *testing.T, out string, want []appDoc) {
	t.Helper()
	docs := strings.Split(out, "---\n")
	if last := docs[len(docs)-1]; strings.Contains(last, "\nkind: ConfigMap\n") && strings.Contains(last, "workspace.yaml") {
		docs = docs[:len(docs)-1] // the Dagster workspace closes the stream
	}
	docs = applicationsOnly(t, docs)
	if len(docs) != len(want) {
		t.Fatalf("want %d documents, got %d:\n%s", len(want), len(docs), out)
	}
	for i, want := range want {
		for _, line := range []string{
			"  name: " + want.name + "\n",
			"argocd.argoproj.io/sync-wave: " + want.wave + "\n",
			"path: " + want.path + "\n",
			"repoURL: \"https://git.example/atlas.git\"\n",
			"name: codeloc-v1\n",
		} {
			if !strings.Contains(docs[i], line) {
				t.Errorf("document %d lacks %q:\n%s", i, line, docs[i])
			}
		}
	}
}

// applicationsOnly drops from docs the two admission bindings that follow
// each Application, checking that they name its code-location.
func applicationsOnly(t *testing.T, docs []string) []string {
	t.Helper()
	var apps []string
	for len(docs) > 0 {
		app := docs[0]
		_, rest, _ := strings.Cut(app, "\n  name: ")
		name, _, _ := strings.Cut(rest, "\n")
		for i, want := range []string{"codeloc-" + name, "codeloc-" + name + ".dagster"} {
			if len(docs) <= i+1 || !strings.Contains(docs[i+1], "kind: ValidatingAdmissionPolicyBinding\n") || !strings.Contains(docs[i+1], "\n  name: "+want+"\n") {
				t.Fatalf("Application %s is not followed by its binding %s", name, want)
			}
		}
		apps = append(apps, app)
		docs = docs[3:]
	}
	return apps
}

func TestApplicationErrors(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no repo URL", []string{"../../fixtures/mediawatch"}, cli.ExitUsage, `required flag(s) "repo-url" not set`},
		{"no directory", []string{"--repo-url", "u"}, cli.ExitUsage, "requires at least 1 arg"},
		{"unknown flag", []string{"--repo-url", "u", "--bogus", "../../fixtures/mediawatch"}, cli.ExitUsage, "unknown flag: --bogus"},
		{"cycle", []string{"--repo-url", "u", "../../fixtures/appofapps/cycle/alpha", "../../fixtures/appofapps/cycle/beta", "../../fixtures/appofapps/cycle/gamma"},
			cli.ExitInvalid, "dependency cycle: alpha -> gamma -> beta -> alpha"},
		{"no folder", []string{"--repo-url", "u", "../../fixtures/appofapps/unknown/relay"},
			cli.ExitInvalid, `orphan/code-location.manifest.yaml:9:19: dependency-without-folder dependsOn.codeLocations[0]: relay -> orphan -> ghost: no folder under ../.. declares codeLocation "ghost"`},
		{"not its name", []string{"--repo-url", "u", "--repo-root", "../../fixtures", "../../fixtures/invalid/not-ready"},
			cli.ExitInvalid, `not-ready/code-location.manifest.yaml:1:15: duplicate-code-location codeLocation: "mediawatch" is declared by ../../fixtures/mediawatch/code-location.manifest.yaml, the folder named after it`},
		// Names: media owns every object of media-watch; a codeLocation codeloc
		// keeps, or that owns a platform name, is refused as by the render.
		{"prefix", []string{"--repo-url", "u", "--repo-root", "../../fixtures/appofapps", "../../fixtures/appofapps/prefix/media", "../../fixtures/appofapps/prefix/media-watch"},
			cli.ExitInvalid, `prefix/media/code-location.manifest.yaml:1:15: code-location-prefix codeLocation: code-location "media" (../../fixtures/appofapps/prefix/media/code-location.manifest.yaml) owns the names of code-location "media-watch" (../../fixtures/appofapps/prefix/media-watch/code-location.manifest.yaml)`},
		{"record name", []string{"--repo-url", "u", "--repo-root", "../../fixtures", "../../fixtures/invalid/names-reserved-codelocation"},
			cli.ExitInvalid, `names-reserved-codelocation/code-location.manifest.yaml:3:15: code-location-reserved codeLocation: "codeloc-mediawatch" is a name codeloc keeps for itself`},
		{"preflight name", []string{"--repo-url", "u", "--repo-root", "../../fixtures", "../../fixtures/invalid/names-suffix-codelocation"},
			cli.ExitInvalid, `code-location-reserved codeLocation: "mediawatch-preflight" is a name codeloc keeps for itself`},
		{"root Application's name", []string{"--repo-url", "u", "--repo-root", "../../fixtures", "../../fixtures/invalid/names-app-of-apps"},
			cli.ExitInvalid, `code-location-reserved codeLocation: "app-of-apps" is a name codeloc keeps for itself: the root Application of the app-of-apps`},
		{"platform owner", []string{"--repo-url", "u", "--repo-root", "../../fixtures", "../../fixtures/invalid/names-platform-owner", "../../fixtures/invalid/names-platform-bucket"},
			cli.ExitInvalid, `code-location-owns-platform codeLocation: "dagster" would own the platform's dagster-instance (configMaps)`},
		{"bad contract", []string{"--repo-url", "u", "--contract", "absent.yaml", "../../fixtures/mediawatch"},
			cli.ExitInvalid, "absent.yaml: contract-unreadable"},
		{"env template", []string{"--repo-url", "u", "--template", "../../appofapps/testdata/templates/env.yaml", "../../fixtures/mediawatch"},
			cli.ExitInvalid, `env.yaml:6:1: template-function-removed: function "env" is not available`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runApplication(t, tt.args...)
			if code != tt.code || out != "" || !strings.Contains(errOut, tt.stderr) {
				t.Errorf("exit %d (want %d), stdout %q, stderr %q (want %q)", code, tt.code, out, errOut, tt.stderr)
			}
		})
	}
}

// newAtlas is a temporary atlas repo root holding copies of the fixtures
// named, made in that order.
func newAtlas(t *testing.T, codeLocations ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, cl := range codeLocations {
		if err := os.CopyFS(filepath.Join(root, cl), os.DirFS(filepath.Join("../../fixtures", cl))); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// outputArgs are the arguments that write atlas's cluster/apps into dir.
func outputArgs(atlas, dir string, more ...string) []string {
	return append([]string{"--repo-url", "https://git.example/atlas.git", "--repo-root", atlas, "--output-dir", dir}, more...)
}

// readDir is every file of dir, by name.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(data)
	}
	return out
}

// TestApplicationRefusedWritesNothing: one refused code-location under the
// repo root writes no file, not even the others'.
func TestApplicationRefusedWritesNothing(t *testing.T) {
	atlas := newAtlas(t, "mediawatch", "invalid/names-platform-owner")
	dir := t.TempDir()
	code, out, errOut := runApplication(t, outputArgs(atlas, dir)...)
	if code != cli.ExitInvalid || out != "" || !strings.Contains(errOut, "code-location-owns-platform") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
		t.Errorf("%s holds %v (%v), want nothing", dir, entries, err)
	}
}

var wantFiles = []string{"README.md", "atlas-datalake.bucket.yaml", "citation.admission.yaml", "citation.yaml", "codeloc-generated.txt",
	"dagster-workspace.yaml", "mediawatch.admission.yaml", "mediawatch.yaml"}

// TestApplicationOutputDir: every code-location under the repo root,
// byte-stable (folders made in another order, in another place, give the
// same bytes), each file with the header; a hand-written file beside them
// is left alone; --check then exits 0 and prints nothing.
func TestApplicationOutputDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "platform.yaml"), []byte("kind: Mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runApplication(t, outputArgs(newAtlas(t, "mediawatch", "citation"), dir, "--contract", "../../sidecar/install/contract.yaml")...)
	var report []string
	for _, f := range wantFiles {
		report = append(report, "added "+f)
	}
	if code != cli.ExitOK || out != "" || errOut != strings.Join(report, "\n")+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	got := readDir(t, dir)
	if got["platform.yaml"] != "kind: Mine\n" {
		t.Errorf("platform.yaml: %q", got["platform.yaml"])
	}
	delete(got, "platform.yaml")
	if names := slices.Sorted(maps.Keys(got)); !slices.Equal(names, wantFiles) {
		t.Fatalf("files %v, want %v", names, wantFiles)
	}
	for name, data := range got {
		if !strings.HasPrefix(data, "# Generated by codeloc application (--contract contract.yaml): do not edit; edit atlas or the contract and regenerate.\n") {
			t.Errorf("%s lacks the header:\n%s", name, data)
		}
	}
	other := t.TempDir()
	if code, _, errOut := runApplication(t, outputArgs(newAtlas(t, "citation", "mediawatch"), other, "--contract", "../../sidecar/install/contract.yaml")...); code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if again := readDir(t, other); !maps.Equal(again, got) {
		t.Errorf("another atlas, folders made in another order, gives other bytes")
	}
	code, out, errOut = runApplication(t, outputArgs(newAtlas(t, "mediawatch", "citation"), dir, "--contract", "../../sidecar/install/contract.yaml", "--check")...)
	if code != cli.ExitOK || out != "" || errOut != "" {
		t.Errorf("--check: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestApplicationRemoval: a code-location removed from atlas: --check
// exits 1 with the diff that removes its files and writes nothing; the
// write then removes them and says so.
func TestApplicationRemoval(t *testing.T) {
	atlas, dir := newAtlas(t, "mediawatch", "citation"), t.TempDir()
	if code, _, errOut := runApplication(t, outputArgs(atlas, dir)...); code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	before := readDir(t, dir)
	if err := os.RemoveAll(filepath.Join(atlas, "citation")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runApplication(t, outputArgs(atlas, dir, "--check")...)
	wantErr := "would be changed README.md\nwould be removed citation.admission.yaml\nwould be removed citation.yaml\nwould be changed codeloc-generated.txt\nwould be changed dagster-workspace.yaml\n" +
		dir + " differs from what atlas and the contract give: 5 files (nothing written)\n"
	if code != cli.ExitInvalid || errOut != wantErr {
		t.Errorf("--check: exit %d, stderr %q, want %q", code, errOut, wantErr)
	}
	for _, want := range []string{
		"--- a/citation.yaml\n+++ b/citation.yaml\n@@ -1,", "\n-kind: Application\n", "\n-  name: citation\n",
		"--- a/codeloc-generated.txt\n", "\n-citation.yaml\n",
		"--- a/dagster-workspace.yaml\n",
		// The README's picture and table lose citation.
		"--- a/README.md\n+++ b/README.md\n", "\n-    cl_citation[\"citation<br/>ready\"]\n", "\n-| citation | 1 | HEAD |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--check diff lacks %q:\n%s", want, out)
		}
	}
	if after := readDir(t, dir); !maps.Equal(after, before) {
		t.Error("--check wrote")
	}
	code, out, errOut = runApplication(t, outputArgs(atlas, dir)...)
	if code != cli.ExitOK || out != "" || errOut != "changed README.md\nremoved citation.admission.yaml\nremoved citation.yaml\nchanged codeloc-generated.txt\nchanged dagster-workspace.yaml\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "citation.yaml")); !os.IsNotExist(err) {
		t.Errorf("citation.yaml stays: %v", err)
	}
	if code, _, _ := runApplication(t, outputArgs(atlas, dir, "--check")...); code != cli.ExitOK {
		t.Errorf("--check after the write: exit %d", code)
	}
}

// TestApplicationOutputRefused: bad input is one line per problem naming
// both sides, exit 1, nothing written.
func TestApplicationOutputRefused(t *testing.T) {
	tests := []struct {
		name  string
		atlas []string
		edit  func(t *testing.T, atlas, dir string)
		want  []string
	}{
		{"bucket larger and of another class", []string{"mediawatch", "citation"}, func(t *testing.T, atlas, _ string) {
			edit(t, filepath.Join(atlas, "citation", "code-location.manifest.yaml"), "size: 100Gi", "size: 1Ti")
			edit(t, filepath.Join(atlas, "citation", "code-location.manifest.yaml"), "storageClass: rook-ceph-datalake", "storageClass: rook-ceph-block")
		}, []string{
			`citation/code-location.manifest.yaml:26:13: bucket-too-large dependsOn.buckets[0].size: bucket "atlas-datalake" is provisioned with 500Gi, less than the declared 1Ti`,
			`citation/code-location.manifest.yaml:27:21: bucket-class-mismatch dependsOn.buckets[0].storageClass: bucket "atlas-datalake" is on "rook-ceph-datalake", not "rook-ceph-block"`,
		}},
		{"dependency's folder gone", []string{"citation"}, nil, []string{
			`citation/code-location.manifest.yaml:16:19: dependency-without-folder dependsOn.codeLocations[0]: citation -> mediawatch: no folder under `,
		}},
		{"hand-written file with a generated name", []string{"mediawatch"}, func(t *testing.T, _, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "mediawatch.yaml"), []byte("kind: Mine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{
			`mediawatch.yaml: generated-name-taken: exists and is not codeloc's (not listed in codeloc-generated.txt, no generated header), but is where the Application of code-location mediawatch (`,
		}},
		// A cluster/apps repo's own README is the platform's: moved away first.
		{"hand-written README", []string{"mediawatch"}, func(t *testing.T, _, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# cluster/apps\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{
			`README.md: generated-name-taken: exists and is not codeloc's (not listed in codeloc-generated.txt, no generated header), but is where the README of the code-location graph goes`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			atlas, dir := newAtlas(t, tt.atlas...), t.TempDir()
			if tt.edit != nil {
				tt.edit(t, atlas, dir)
			}
			before := readDir(t, dir)
			for _, check := range []bool{true, false} {
				args := outputArgs(atlas, dir)
				if check {
					args = append(args, "--check")
				}
				code, out, errOut := runApplication(t, args...)
				lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
				if code != cli.ExitInvalid || out != "" || len(lines) < len(tt.want) {
					t.Fatalf("check %v: exit %d, stdout %q, stderr %q", check, code, out, errOut)
				}
				for _, want := range tt.want {
					if !strings.Contains(errOut, want) {
						t.Errorf("check %v: stderr lacks %q:\n%s", check, want, errOut)
					}
				}
				if after := readDir(t, dir); !maps.Equal(after, before) {
					t.Errorf("check %v: wrote", check)
				}
			}
		})
	}
}

// edit replaces old by new in file, once.
func edit(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), old) {
		t.Fatalf("%s: %v, or no %q", file, err, old)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestApplicationOutputUsage(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"DIR with --output-dir", []string{"--repo-url", "u", "--repo-root", "../../fixtures", "--output-dir", "x", "../../fixtures/mediawatch"},
			"--output-dir writes every code-location under --repo-root: give no DIR"},
		{"no --repo-root", []string{"--repo-url", "u", "--output-dir", "x"}, "--output-dir needs --repo-root"},
		{"--check without --output-dir", []string{"--repo-url", "u", "--check", "../../fixtures/mediawatch"}, "--check compares a cluster/apps checkout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runApplication(t, tt.args...)
			if code != cli.ExitUsage || out != "" || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q, want %q", code, out, errOut, tt.want)
			}
		})
	}
}
