package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/internal/names"
)

// NewVersionCmd prints the binary's name and version.
func NewVersionCmd(binary string) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print " + binary + "'s version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "%s %s\n", binary, names.Version())
			return nil
		},
	}
}
