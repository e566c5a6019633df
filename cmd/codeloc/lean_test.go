package main

import (
	"os"
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

// TestMethodDeadCodeElimination checks the linker still drops the exported
// methods nothing calls: one reachable call of text/template's method lookup
// by name (evalField) makes it keep every exported method of every type,
// 6 MB more of a binary started at every render (appofapps runs its
// templates on a copy of text/template without method calls).
func TestMethodDeadCodeElimination(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/codeloc")
	}
	bin := filepath.Join(t.TempDir(), "codeloc")
	// Static, as the image builds it: with cgo, kustomize's Go plugin
	// loader links package plugin and the linker keeps every method anyway.
	build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	for line := range strings.Lines(string(out)) {
		if strings.HasSuffix(strings.TrimSpace(line), " text/template.(*state).evalField") {
			t.Fatalf("cmd/codeloc links text/template's method calls (%s): something executes a text/template template", strings.TrimSpace(line))
		}
	}
}
