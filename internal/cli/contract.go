package cli

import (
	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/validate"
)

// NewContractCmd prints the embedded example cluster contract.
func NewContractCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "contract",
		Short: "Print the embedded example cluster contract (the operator's starting point)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := cmd.OutOrStdout().Write(validate.ExampleContract)
			return err
		},
	}
}
