//go:build !jobs

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
)

// The default build of codeloc is the one Argo CD's stock plugin server
// starts at every render (`codeloc generate`): it leaves out what only the
// PreSync Jobs need. Their commands link client-go and pgx, which cost
// ~12 ms of CPU and ~6 MiB per process (render of the citation fixture); they are in the `jobs`
// build (go build -tags jobs ./cmd/codeloc), shipped in the image as
// codeloc-jobs next to codeloc. Here the Job commands hand over to it.
const jobsBinary = "codeloc-jobs"

func newPreflightCmd() *cobra.Command {
	return handOver("preflight", "Run the live checks of a code-location (the PreSync preflight Job)")
}

func newMigrateCmd() *cobra.Command {
	return handOver("migrate", "Apply a code-location's SQL migrations to PostgreSQL (the PreSync migration Job)")
}

// handOver is a command that runs codeloc-jobs with the same arguments.
func handOver(name, short string) *cobra.Command {
	return &cobra.Command{
		Use:                name,
		Short:              short + " [runs " + jobsBinary + "]",
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			return execJobs(append([]string{name}, args...))
		},
	}
}

// runLiveTo hands `validate --live` over to codeloc-jobs' preflight, once
// the render-time checks have passed here.
func runLiveTo(_ context.Context, _, _ io.Writer, dir, contractPath, kubeconfig string) error {
	args := []string{"preflight", "--dir", dir, "--contract", contractPath}
	if kubeconfig != "" {
		args = append(args, "--kubeconfig", kubeconfig)
	}
	return execJobs(args)
}

// execJobs replaces this process with codeloc-jobs: its output and exit
// code are the command's.
func execJobs(args []string) error {
	path, err := findJobs()
	if err != nil {
		return err
	}
	return syscall.Exec(path, append([]string{path}, args...), os.Environ())
}

// findJobs looks for codeloc-jobs next to this executable, then on PATH.
func findJobs() (string, error) {
	if self, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			sibling := filepath.Join(filepath.Dir(real), jobsBinary)
			if fi, err := os.Stat(sibling); err == nil && fi.Mode().IsRegular() {
				return sibling, nil
			}
		}
	}
	if path, err := exec.LookPath(jobsBinary); err == nil {
		return path, nil
	}
	return "", usageError{fmt.Errorf("this command runs in %s, which is neither next to codeloc nor on PATH: install it (go build -tags jobs -o %s ./cmd/codeloc), or build codeloc itself with -tags jobs", jobsBinary, jobsBinary)}
}
