// Command codeloc-jobs runs what the PreSync Jobs codeloc emits need:
// `preflight` (the live checks, client-go) and `migrate` (the SQL
// migrations, pgx), and `validate --live` for a local run of the same
// checks. It is a separate binary so that the per-render codeloc, which
// Argo CD's plugin server starts at every render, links neither.
package main

import (
	"io"
	"os"

	"github.com/codeloc/codeloc/cmd/codeloc/commands"
	"github.com/codeloc/codeloc/internal/names"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the CLI and returns its exit code.
func run(args []string, stdout, stderr io.Writer) int {
	root := commands.NewRoot(names.BinaryJobs, "Run codeloc's PreSync Jobs: the live preflight checks and the SQL migrations",
		newPreflightCmd(),
		newMigrateCmd(),
		newReloadCmd(),
		commands.NewValidateCmd(runLive),
		commands.NewVersionCmd(names.BinaryJobs),
	)
	return commands.Run(root, args, stdout, stderr)
}
