// Command codeloc validates an atlas code-location against the cluster
// contract and renders its final manifests; it also runs inside the PreSync
// preflight and migration Jobs it emits.
//
// It must stay lean: it never links Argo CD packages.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/validate"
)

// Exit codes shared by every command.
const (
	exitOK      = 0
	exitInvalid = 1 // the input is invalid: problems on stderr
	exitUsage   = 2 // usage or I/O error
)

// usageError marks an error in the command line itself.
type usageError struct{ error }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the CLI and maps errors to exit codes. Commands that print
// manifests (render, generate, application) write nothing to stdout unless
// they succeed; the Jobs' commands (migrate, preflight) report progress there.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var problems validate.Problems
	var exit exitError
	switch {
	case errors.As(err, &problems):
		fmt.Fprintln(stderr, problems.Error())
		return exitInvalid
	case errors.As(err, &exit):
		if exit.msg != "" {
			fmt.Fprintln(stderr, exit.msg)
		}
		return exit.code
	default:
		fmt.Fprintln(stderr, "codeloc: "+err.Error())
		return exitUsage
	}
}

// exitError ends a command with a given code and an optional message.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "codeloc",
		Short:         "Validate and render atlas code-locations for Argo CD",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	for _, c := range subcommands() {
		root.AddCommand(c)
	}
	return root
}

// subcommands lists the commands; each lives in its own file.
func subcommands() []*cobra.Command {
	return []*cobra.Command{
		newRenderCmd(),
		newValidateCmd(),
		newSchemaCmd(),
		newContractCmd(),
		newApplicationCmd(),
		newPreflightCmd(),
		newGenerateCmd(),
		newMigrateCmd(),
		newVersionCmd(),
	}
}
