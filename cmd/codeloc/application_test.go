package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloc/codeloc/cmd/codeloc/commands"
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
			if code != commands.ExitOK || errOut != "" {
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
		{"no repo URL", []string{"../../fixtures/mediawatch"}, commands.ExitUsage, `required flag(s) "repo-url" not set`},
		{"no directory", []string{"--repo-url", "u"}, commands.ExitUsage, "requires at least 1 arg"},
		{"unknown flag", []string{"--repo-url", "u", "--bogus", "../../fixtures/mediawatch"}, commands.ExitUsage, "unknown flag: --bogus"},
		{"cycle", []string{"--repo-url", "u", "../../fixtures/appofapps/cycle/alpha", "../../fixtures/appofapps/cycle/beta", "../../fixtures/appofapps/cycle/gamma"},
			commands.ExitInvalid, "dependency cycle: alpha -> gamma -> beta -> alpha"},
		{"no folder", []string{"--repo-url", "u", "../../fixtures/appofapps/unknown/relay"},
			commands.ExitInvalid, `orphan/code-location.manifest.yaml:9:19: dependency-without-folder dependsOn.codeLocations[0]: relay -> orphan -> ghost: no folder under ../.. declares codeLocation "ghost"`},
		{"not its name", []string{"--repo-url", "u", "--repo-root", "../../fixtures", "../../fixtures/invalid/not-ready"},
			commands.ExitInvalid, `not-ready/code-location.manifest.yaml:1:15: duplicate-code-location codeLocation: "mediawatch" is declared by ../../fixtures/mediawatch/code-location.manifest.yaml, the folder named after it`},
		// Names: media owns every object of media-watch; a codeLocation codeloc
		// keeps, or that owns a platform name, is refused as by the render.
		{"prefix", []string{"--repo-url", "u", "--repo-root", "../../fixtures/appofapps", "../../fixtures/appofapps/prefix/media", "../../fixtures/appofapps/prefix/media-watch"},
			commands.ExitInvalid, `prefix/media/code-location.manifest.yaml:1:15: code-location-prefix codeLocation: code-location "media" (../../fixtures/appofapps/prefix/media/code-location.manifest.yaml) owns the names of code-location "media-watch" (../../fixtures/appofapps/prefix/media-watch/code-location.manifest.yaml)`},
		{"record name", []string{"--repo-url", "u", "--repo-root", "../../fixtures", "../../fixtures/invalid/names-reserved-codelocation"},
			commands.ExitInvalid, `names-reserved-codelocation/code-location.manifest.yaml:3:15: code-location-reserved codeLocation: "codeloc-mediawatch" is a name codeloc keeps for itself`},
		{"preflight name", []string{"--repo-url", "u", "--repo-root", "../../fixtures", "../../fixtures/invalid/names-suffix-codelocation"},
			commands.ExitInvalid, `code-location-reserved codeLocation: "mediawatch-preflight" is a name codeloc keeps for itself`},
		{"root Application's name", []string{"--repo-url", "u", "--repo-root", "../../fixtures", "../../fixtures/invalid/names-app-of-apps"},
			commands.ExitInvalid, `code-location-reserved codeLocation: "app-of-apps" is a name codeloc keeps for itself: the root Application of the app-of-apps`},
		{"platform owner", []string{"--repo-url", "u", "--repo-root", "../../fixtures", "../../fixtures/invalid/names-platform-owner", "../../fixtures/invalid/names-platform-bucket"},
			commands.ExitInvalid, `code-location-owns-platform codeLocation: "dagster" would own the platform's dagster-instance (configMaps)`},
		{"bad contract", []string{"--repo-url", "u", "--contract", "absent.yaml", "../../fixtures/mediawatch"},
			commands.ExitInvalid, "absent.yaml: contract-unreadable"},
		{"env template", []string{"--repo-url", "u", "--template", "../../appofapps/testdata/templates/env.yaml", "../../fixtures/mediawatch"},
			commands.ExitInvalid, `env.yaml:6:1: template-function-removed: function "env" is not available`},
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

// TestApplicationRefusedWritesNothing: a refused set of code-locations
// writes no file, not even the Applications of the others.
func TestApplicationRefusedWritesNothing(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runApplication(t, "--repo-url", "u", "--repo-root", "../../fixtures", "--output-dir", dir,
		"../../fixtures/mediawatch", "../../fixtures/invalid/names-platform-owner")
	if code != commands.ExitInvalid || out != "" || !strings.Contains(errOut, "code-location-owns-platform") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
		t.Errorf("%s holds %v (%v), want nothing", dir, entries, err)
	}
}

func TestApplicationOutputDir(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runApplication(t, "--repo-url", "u", "--output-dir", dir, "../../fixtures/mediawatch", "../../fixtures/citation")
	if code != commands.ExitOK || out != "" || errOut != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, name := range []string{"mediawatch", "citation"} {
		data, err := os.ReadFile(filepath.Join(dir, name+".yaml"))
		if err != nil || !bytes.Contains(data, []byte("  name: "+name+"\n")) {
			t.Errorf("%s.yaml: %v\n%s", name, err, data)
		}
		data, err = os.ReadFile(filepath.Join(dir, name+".admission.yaml"))
		if err != nil || !bytes.Contains(data, []byte("  name: codeloc-"+name+"\n")) || !bytes.Contains(data, []byte("  name: codeloc-"+name+".dagster\n")) {
			t.Errorf("%s.admission.yaml: %v\n%s", name, err, data)
		}
	}
}
