// Package jobscmd holds codeloc-jobs's commands, what the PreSync and
// PostSync pods codeloc emits run: `preflight` (the live checks,
// client-go), `migrate` (the SQL migrations, pgx), `reload` (the Dagster
// webserver's reload) and `validate --live` for a local run of the same
// checks. They live apart from package cli so that the per-render codeloc,
// which Argo CD's plugin server starts at every render, links neither
// client-go nor pgx; cmd/codeloc-jobs only runs Root.
package jobscmd

import (
	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/internal/cli"
	"github.com/codeloc/codeloc/internal/names"
)

// Root is codeloc-jobs's command tree.
func Root() *cobra.Command {
	return cli.NewRoot(names.BinaryJobs, "Run codeloc's PreSync Jobs: the live preflight checks and the SQL migrations",
		newPreflightCmd(),
		newMigrateCmd(),
		newReloadCmd(),
		cli.NewValidateCmd(runLive),
		cli.NewVersionCmd(names.BinaryJobs),
	)
}
