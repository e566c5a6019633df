// Command codeloc-jobs runs what the PreSync Jobs codeloc emits need:
// `preflight` (the live checks, client-go) and `migrate` (the SQL
// migrations, pgx), `reload` (PostSync) and `validate --live` for a local
// run of the same checks. It is a separate binary so that the per-render
// codeloc, which Argo CD's plugin server starts at every render, links
// neither. The commands are package jobscmd's.
package main

import (
	"os"

	"github.com/codeloc/codeloc/internal/cli"
	"github.com/codeloc/codeloc/internal/cli/jobscmd"
)

func main() {
	os.Exit(cli.Run(jobscmd.Root(), os.Args[1:], os.Stdout, os.Stderr))
}
