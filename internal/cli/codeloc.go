package cli

import (
	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/internal/names"
)

// Codeloc is the lean per-render CLI's command tree: `validate --live`
// hands over to codeloc-jobs (handOverLive).
func Codeloc() *cobra.Command {
	return NewRoot(names.BinaryCLI, "Validate and render atlas code-locations for Argo CD",
		NewRenderCmd(),
		NewValidateCmd(handOverLive),
		NewSchemaCmd(),
		NewContractCmd(),
		NewApplicationCmd(),
		NewGraphCmd(),
		NewGenerateCmd(),
		NewCheckCmd(),
		NewExplainCmd(),
		NewVersionCmd(names.BinaryCLI),
	)
}
