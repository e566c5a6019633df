package appofapps

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codeloc/codeloc/dagster/workspace"
	"github.com/codeloc/codeloc/validate"
)

// TestWorkspaceLocates checks that Workspace asks the locator only about
// folders holding a kustomization under any name kustomize recognizes,
// and keeps the code servers it finds.
func TestWorkspaceLocates(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for dir, file := range map[string]string{"a": "kustomization.yaml", "b": "kustomization.yml", "c": "Kustomization", "d": "README.md"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, file), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, filepath.Join(root, dir))
	}
	slices.Sort(dirs)
	var asked []string
	locate := func(dir string, _ *validate.Contract) (*workspace.Location, error) {
		asked = append(asked, filepath.Base(dir))
		if filepath.Base(dir) == "b" {
			return nil, nil // no code server
		}
		return &workspace.Location{Name: filepath.Base(dir), Host: filepath.Base(dir) + ".dagster.svc", Port: 4000}, nil
	}
	out, err := Workspace(dirs, exampleContract(t), locate)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "c"}; !slices.Equal(asked, want) {
		t.Errorf("located %v, want %v", asked, want)
	}
	for _, want := range []string{"a.dagster.svc", "c.dagster.svc"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the workspace lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "b.dagster.svc") {
		t.Errorf("the workspace holds b, which runs no code server:\n%s", out)
	}
}
