package cli

import (
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/plugin"
	"github.com/codeloc/codeloc/render"
)

// NewGenerateCmd is plugin.yaml's generate command, run by Argo CD's stock
// argocd-cmp-server in the Application's folder.
func NewGenerateCmd() *cobra.Command {
	var contract string
	var bounds boundFlags
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Render the code-location in the working directory for Argo CD (plugin.yaml's generate command)",
		Long: `Generate is the command Argo CD's argocd-cmp-server runs for the codeloc
plugin (plugin.yaml). The working directory is the Application's path; the
Application comes from the environment Argo CD sets: ARGOCD_APP_NAMESPACE
(must be the contract's namespace), KUBE_API_VERSIONS (the APIs the output
needs must be served), ARGOCD_APP_SOURCE_PATH (paths in messages) and the
parameters in ARGOCD_APP_PARAMETERS (or PARAM_<NAME> when run by hand):

  kustomize-root  kustomization folder, relative to the Application's path
  contract        which mounted contract to use when several are mounted

The cluster contract is required: --contract or CODELOC_CONTRACT names a
contract file or a folder of <name>.yaml contracts (a mounted ConfigMap).
There is no fallback to the example contract.

On success the YAML stream is printed; on any problem nothing is printed,
stderr carries one line per problem (Argo CD shows it) and the exit code is 1.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if contract == "" {
				contract = os.Getenv(names.EnvContract)
			}
			dir, err := os.Getwd()
			if err != nil {
				return err
			}
			limits, err := bounds.limits()
			if err != nil {
				return err
			}
			budget, err := bounds.budget()
			if err != nil {
				return err
			}
			res, err := generate(dir, contract, plugin.Bounds{YAML: limits, Budget: budget}, os.Environ(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			return res.WriteYAML(cmd.OutOrStdout())
		},
	}
	bounds.register(cmd)
	cmd.Flags().StringVar(&contract, "contract", "", "cluster contract file, or folder of <name>.yaml contracts (default $"+names.EnvContract+"; required)")
	return cmd
}

// generate renders the code-location at dir (absolute) for the plugin
// environment environ against the contract at contractPath. Warnings go
// to notes (the plugin server logs a successful command's stderr; Argo CD
// shows stderr only when the command fails).
func generate(dir, contractPath string, bounds plugin.Bounds, environ []string, notes io.Writer) (*render.Result, error) {
	if contractPath != "" {
		if abs, err := filepath.Abs(contractPath); err == nil {
			contractPath = abs
		}
	}
	_, res, err := plugin.Generate(plugin.Source{AppDir: dir, Environ: environ, Contracts: plugin.NewContracts(contractPath), Bounds: bounds})
	if err != nil {
		return nil, err
	}
	printWarnings(notes, res.Warnings)
	return res, nil
}
