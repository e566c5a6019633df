package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/cmd/codeloc/commands"

	"github.com/codeloc/codeloc/internal/golden"
)

// runCLI runs the CLI in-process and returns its exit code and outputs.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestRenderInvalidFixtures renders every fixtures/invalid case from the
// repo root: exit 1, nothing on stdout, exactly the pinned stderr lines.
func TestRenderInvalidFixtures(t *testing.T) {
	t.Chdir("../..")
	dirs, err := filepath.Glob("fixtures/invalid/*")
	if err != nil || len(dirs) < 20 {
		t.Fatalf("want at least 20 invalid fixtures, got %d (%v)", len(dirs), err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			args := []string{"render", dir}
			if _, err := os.Stat(filepath.Join(dir, "contract.yaml")); err == nil {
				args = append(args, "--contract", filepath.Join(dir, "contract.yaml"))
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != commands.ExitInvalid {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, commands.ExitInvalid, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout is not empty:\n%s", stdout)
			}
			golden.Check(t, filepath.Join(dir, "expected.txt"), []byte(stderr), "go test ./cmd/codeloc -run InvalidFixtures -update")
			for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if strings.Contains(line, "goroutine ") || strings.Contains(line, "Usage:") {
					t.Errorf("stderr carries a stack or usage text: %q", line)
				}
			}
		})
	}
}

// TestRenderGoodFixtures checks the CLI prints the golden stream.
func TestRenderGoodFixtures(t *testing.T) {
	t.Chdir("../..")
	for _, name := range []string{"citation", "mediawatch", "allpaths"} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "render", filepath.Join("fixtures", name))
			if code != commands.ExitOK || stderr != "" {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			want, err := os.ReadFile(filepath.Join("render", "testdata", "golden", name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), stdout); diff != "" {
				t.Errorf("stdout differs from the golden file (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateJSON(t *testing.T) {
	t.Chdir("../..")
	tests := []struct {
		args     []string
		code     int
		contains []string
	}{
		{[]string{"validate", "fixtures/citation", "-o", "json"}, commands.ExitOK, []string{`"valid": true`, `"codeLocation": "citation"`, `"problems": []`}},
		{[]string{"validate", "fixtures/invalid/bad-quantities", "-o", "json"}, commands.ExitInvalid, []string{`"valid": false`, `"code": "bad-quantity"`, `"path": "resources.cpu"`, `"line": 6`, `"column": 8`, `"hint": "write a Kubernetes quantity`}},
		{[]string{"validate", "fixtures/mediawatch"}, commands.ExitOK, []string{"mediawatch: valid (11 objects)"}},
		{[]string{"validate", "fixtures/citation", "-o", "yaml"}, commands.ExitUsage, nil},
		{[]string{"render", "fixtures/citation", "--bogus"}, commands.ExitUsage, nil},
		{[]string{"render", "a", "b"}, commands.ExitUsage, nil},
		{[]string{"render", "fixtures/citation", "--contract", "does-not-exist.yaml"}, commands.ExitInvalid, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.code, stderr)
			}
			for _, s := range tt.contains {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			if code != commands.ExitOK && !strings.Contains(strings.Join(tt.args, " "), "json") && stdout != "" {
				t.Errorf("stdout not empty on failure: %s", stdout)
			}
		})
	}
}

func TestSchemaAndContractCommands(t *testing.T) {
	for _, c := range []string{"schema", "contract", "version"} {
		code, stdout, stderr := runCLI(t, c)
		if code != commands.ExitOK || stdout == "" || stderr != "" {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %q", c, code, len(stdout), stderr)
		}
	}
}
