package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestLeanCLI checks cmd/codeloc links no Argo CD package: the stock
// cmp-server starts it for every render.
func TestLeanCLI(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/argoproj/") {
			t.Errorf("cmd/codeloc depends on %s", pkg)
		}
	}
	if !strings.Contains(string(out), "github.com/codeloc/codeloc/plugin") {
		t.Error("cmd/codeloc does not link the plugin package: is generate wired?")
	}
}
