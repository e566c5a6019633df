package cli

import (
	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/validate"
)

// NewSchemaCmd prints the declaration's JSON Schema.
func NewSchemaCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of code-location.manifest.yaml (for editors)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := cmd.OutOrStdout().Write(validate.DeclarationSchema)
			return err
		},
	}
}
