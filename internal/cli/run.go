// Package cli holds the cobra commands of codeloc's binaries: the lean
// per-render codeloc's whole tree (Codeloc: render, validate, generate,
// schema, contract, application, version) and what the other binaries
// share with it (NewRoot, Run and its exit codes, the validate and version
// commands). It links no client-go, pgx or Argo CD package: codeloc-jobs's
// commands live in internal/cli/jobscmd and hand their live checks in (see
// LiveFunc), codeloc-sidecar's in internal/cli/sidecarcmd.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/internal/problem"
)

// Exit codes shared by every command of every binary.
const (
	ExitOK      = 0
	ExitInvalid = 1 // the input is invalid: problems on stderr
	ExitUsage   = 2 // usage or I/O error
)

// UsageError marks an error in the command line itself (exit 2).
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e UsageError) Unwrap() error { return e.Err }

// Usagef is a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return UsageError{fmt.Errorf(format, args...)}
}

// ExitError ends a command with Code, printing Msg (when set) on stderr.
type ExitError struct {
	Code int
	Msg  string
}

func (e ExitError) Error() string { return e.Msg }

// LiveFunc runs the sync-time checks of `validate --live` for the
// declaration in dir against the contract file (never the example) and
// the cluster of kubeconfig ("" = in-cluster, then the default kubeconfig).
type LiveFunc func(ctx context.Context, stdout, stderr io.Writer, dir, contract, kubeconfig string) error

// NewRoot is a binary's root command holding cmds: errors and usage are
// printed by Run, never by cobra.
func NewRoot(use, short string, cmds ...*cobra.Command) *cobra.Command {
	root := &cobra.Command{
		Use:           use,
		Short:         short,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return UsageError{err} })
	root.AddCommand(cmds...)
	return root
}

// Run executes root with args and maps its error to an exit code: problems
// are printed one per line (exit 1), an ExitError with its own code, any
// other error on one line prefixed with the binary's name (exit 2).
// Commands that print manifests (render, generate, application) write
// nothing to stdout unless they succeed.
func Run(root *cobra.Command, args []string, stdout, stderr io.Writer) int {
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var problems problem.Problems
	var exit ExitError
	switch {
	case errors.As(err, &problems):
		fmt.Fprintln(stderr, problems.Error())
		return ExitInvalid
	case errors.As(err, &exit):
		if exit.Msg != "" {
			fmt.Fprintln(stderr, exit.Msg)
		}
		return exit.Code
	default:
		fmt.Fprintln(stderr, root.Name()+": "+err.Error())
		return ExitUsage
	}
}
