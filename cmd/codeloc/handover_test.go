package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloc/codeloc/cmd/codeloc/commands"
)

// TestHandOverLive builds the two binaries of the image and checks that
// the per-render codeloc hands `validate --live` to codeloc-jobs next to
// it, with its own arguments, and says what to install when it is missing.
func TestHandOverLive(t *testing.T) {
	dir := t.TempDir()
	build := func(pkg string) string {
		path := filepath.Join(dir, filepath.Base(pkg))
		if b, err := exec.Command("go", "build", "-o", path, pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, b)
		}
		return path
	}
	codeloc := build("github.com/codeloc/codeloc/cmd/codeloc")
	args := []string{"validate", "--live", "--contract", "../../validate/contract.example.yaml",
		"--kubeconfig", filepath.Join(dir, "no-such-kubeconfig"), "../../fixtures/citation"}
	out, err := exec.Command(codeloc, args...).CombinedOutput()
	if code := exitCode(err); code != commands.ExitUsage || !strings.Contains(string(out), "go build ./cmd/codeloc-jobs") {
		t.Errorf("without codeloc-jobs: exit %d, output %q", code, out)
	}
	build("github.com/codeloc/codeloc/cmd/codeloc-jobs")
	out, err = exec.Command(codeloc, args...).CombinedOutput()
	if code := exitCode(err); code != commands.ExitUsage || !strings.HasPrefix(string(out), "codeloc-jobs: kubernetes configuration") {
		t.Errorf("through codeloc-jobs: exit %d, output %q", code, out)
	}
}

func exitCode(err error) int {
	if err == nil {
		return commands.ExitOK
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}
