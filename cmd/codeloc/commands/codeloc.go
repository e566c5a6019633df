package commands

import (
	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/internal/names"
)

// Codeloc is the lean per-render CLI's command tree; live runs
// `validate --live` (the lean binary hands it over to codeloc-jobs).
func Codeloc(live LiveFunc) *cobra.Command {
	return NewRoot(names.BinaryCLI, "Validate and render atlas code-locations for Argo CD",
		NewRenderCmd(),
		NewValidateCmd(live),
		NewSchemaCmd(),
		NewContractCmd(),
		NewApplicationCmd(),
		NewGenerateCmd(),
		NewVersionCmd(names.BinaryCLI),
	)
}
