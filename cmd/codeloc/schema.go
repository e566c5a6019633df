package main

import (
	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/validate"
)

func newSchemaCmd() *cobra.Command {
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

func newContractCmd() *cobra.Command {
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
