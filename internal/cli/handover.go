package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/codeloc/codeloc/internal/names"
)

// handOverLive runs `validate --live` in codeloc-jobs, once the render-time
// checks have passed here: the live checks need client-go, which this
// binary leaves out. codeloc-jobs gets this process's own arguments (its
// validate command is the same, flags included) and replaces the process:
// its output and exit code are the command's.
func handOverLive(context.Context, io.Writer, io.Writer, string, string, string) error {
	path, err := findJobs()
	if err != nil {
		return err
	}
	return syscall.Exec(path, append([]string{path}, os.Args[1:]...), os.Environ())
}

// findJobs looks for codeloc-jobs next to this executable, then on PATH.
func findJobs() (string, error) {
	if self, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			sibling := filepath.Join(filepath.Dir(real), names.BinaryJobs)
			if fi, err := os.Stat(sibling); err == nil && fi.Mode().IsRegular() {
				return sibling, nil
			}
		}
	}
	if path, err := exec.LookPath(names.BinaryJobs); err == nil {
		return path, nil
	}
	return "", UsageError{Err: fmt.Errorf("--live runs in %s, which is neither next to codeloc nor on PATH: install it (go build ./cmd/%s)", names.BinaryJobs, names.BinaryJobs)}
}
