package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/internal/cli"
)

// runGraph runs `codeloc graph ARGS...` in-process.
func runGraph(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"graph"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestGraph: the command prints the picture appofapps pins in its goldens
// (appofapps/testdata/graph, `go test ./appofapps -run TestPictureGolden
// -update`), from an atlas of every code-location under --repo-root or of
// the DIRs given.
func TestGraph(t *testing.T) {
	atlas := newAtlas(t, "citation", "mediawatch")
	tests := []struct {
		name   string
		args   []string
		golden string
	}{
		{"default is mermaid", []string{"--repo-root", atlas}, "fixtures.mmd"},
		{"mermaid", []string{"--repo-root", atlas, "--format", "mermaid"}, "fixtures.mmd"},
		{"dot", []string{"--repo-root", atlas, "--format", "dot", "--contract", "../../sidecar/install/contract.yaml"}, "fixtures.dot"},
		{"DIRs given", []string{"--repo-root", atlas, filepath.Join(atlas, "mediawatch"), filepath.Join(atlas, "citation")}, "fixtures.mmd"},
		{"dependency not given", []string{"--repo-root", atlas, filepath.Join(atlas, "citation")}, "citation-alone.mmd"},
		{"no code-location", []string{"--repo-root", t.TempDir()}, "empty.mmd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runGraph(t, tt.args...)
			if code != cli.ExitOK || errOut != "" {
				t.Fatalf("exit %d, stderr:\n%s", code, errOut)
			}
			want, err := os.ReadFile(filepath.Join("../../appofapps/testdata/graph", tt.golden))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), out); diff != "" {
				t.Errorf("differs from %s (-want +got):\n%s", tt.golden, diff)
			}
		})
	}
}

func TestGraphErrors(t *testing.T) {
	cycle := "../../fixtures/appofapps/cycle"
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown format", []string{"--repo-root", "../../fixtures", "--format", "svg", "../../fixtures/mediawatch"}, cli.ExitUsage, `--format "svg": want mermaid or dot`},
		{"no DIR nor --repo-root", nil, cli.ExitUsage, "give DIR arguments, or --repo-root"},
		{"cycle", []string{"--repo-root", cycle}, cli.ExitInvalid, "dependency-cycle dependsOn.codeLocations[0]: dependency cycle: alpha -> gamma -> beta -> alpha"},
		{"missing contract", []string{"--repo-root", "../../fixtures", "--contract", "absent.yaml", "../../fixtures/mediawatch"}, cli.ExitInvalid, "absent.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runGraph(t, tt.args...)
			if code != tt.code || out != "" || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errOut, tt.code, tt.want)
			}
		})
	}
}
