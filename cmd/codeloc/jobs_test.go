//go:build !jobs

package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHandOverToJobs builds the two binaries of the image and checks that the
// per-render codeloc hands the Job commands to codeloc-jobs next to it, and
// says what to install when it is missing.
func TestHandOverToJobs(t *testing.T) {
	dir := t.TempDir()
	build := func(out string, tags ...string) string {
		path := filepath.Join(dir, out)
		args := append([]string{"build"}, tags...)
		if b, err := exec.Command("go", append(args, "-o", path, ".")...).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", out, err, b)
		}
		return path
	}
	codeloc := build("codeloc")
	out, err := exec.Command(codeloc, "migrate", "--dir", dir, "--code-location", "x").CombinedOutput()
	if code := exitCode(err); code != exitUsage || !strings.Contains(string(out), "go build -tags jobs -o codeloc-jobs") {
		t.Errorf("without codeloc-jobs: exit %d, output %q", code, out)
	}
	build("codeloc-jobs", "-tags", "jobs")
	out, err = exec.Command(codeloc, "migrate", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "codeloc_schema_migrations") {
		t.Errorf("migrate --help through codeloc-jobs: %v\n%s", err, out)
	}
	out, err = exec.Command(codeloc, "preflight", "--dir", dir).CombinedOutput()
	if code := exitCode(err); code == exitOK || !strings.Contains(string(out), "contract") {
		t.Errorf("preflight without a contract through codeloc-jobs: exit %d, output %q", code, out)
	}
}

func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}
