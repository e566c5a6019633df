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

func TestApplicationWaves(t *testing.T) {
	code, out, errOut := runApplication(t, "--repo-url", "https://git.example/atlas.git", "--repo-root", "../../fixtures",
		"../../fixtures/citation", "../../fixtures/mediawatch")
	if code != commands.ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	docs := strings.Split(out, "---\n")
	if len(docs) != 2 {
		t.Fatalf("want 2 documents, got %d:\n%s", len(docs), out)
	}
	for i, want := range []struct{ name, wave, path string }{
		{"mediawatch", `"0"`, `"mediawatch"`},
		{"citation", `"1"`, `"citation"`},
	} {
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
		{"strict", []string{"--repo-url", "u", "--strict", "../../fixtures/appofapps/unknown/orphan"},
			commands.ExitInvalid, `orphan -> ghost: "ghost" is not among the code-locations given`},
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
	}
}
