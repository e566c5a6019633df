package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/docs"
)

// NewExplainCmd prints a problem code's documentation, from the reference
// the binary embeds (docs/codes): what hints point at.
func NewExplainCmd() *cobra.Command {
	var list bool
	cmd := &cobra.Command{
		Use:   "explain CODE",
		Short: "Print what a problem code means (the code a problem line names, e.g. consume-secret)",
		Long: `Print the documentation of a problem code: the code every problem line
names after its position (file:line:column: CODE path: message (hint)).
The text is the codes reference the binary carries. An unknown code is a
one-line error (exit 2); --list prints every code.`,
		Example: "  codeloc explain container-context-mount\n  codeloc explain --list",
		Args: func(_ *cobra.Command, args []string) error {
			switch {
			case list && len(args) > 0:
				return Usagef("--list takes no code")
			case !list && len(args) != 1:
				return Usagef("explain takes one problem code (or --list), got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if list {
				_, err := fmt.Fprintln(out, strings.Join(docs.Codes(), "\n"))
				return err
			}
			doc, ok := docs.Explain(args[0])
			if !ok {
				return Usagef("unknown problem code %q (codeloc explain --list prints every code)", args[0])
			}
			_, err := fmt.Fprintf(out, "%s (%s)\n\n%s\n", doc.Code, doc.Stage, doc.Text)
			return err
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "print every problem code, one a line")
	return cmd
}
