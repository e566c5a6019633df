package commands

import (
	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/appofapps"
	"github.com/codeloc/codeloc/validate"
)

// NewApplicationCmd prints the plain Argo CD Applications of code-locations
// for the cluster/apps repo.
func NewApplicationCmd() *cobra.Command {
	var opts appofapps.Options
	var contract, outDir string
	cmd := &cobra.Command{
		Use:   "application --repo-url URL [flags] DIR...",
		Short: "Print the Argo CD Application of each code-location, for the cluster/apps repo",
		Long: `Print one plain argoproj.io/v1alpha1 Application per code-location directory,
as one YAML stream sorted by sync wave then name. Each names the codeloc
plugin, points at the directory's path in the atlas repo and carries the sync
wave of its depth in the dependsOn.codeLocations graph of the directories
given: a code-location without dependencies among them is wave 0, any other
one wave 1 + the highest wave of its dependencies.

A dependency that is not among the directories counts as already deployed;
with --strict it is an error naming the chain that reaches it (a -> b -> c).
A dependency cycle is an error naming the cycle (a -> b -> a). Two
directories declaring the same name are an error too.

The documents come from a sprig template: the embedded example or --template.
The repo URL is a deployment value, injected here and never versioned.

Give every code-location of the atlas repo at once so that waves are right;
--output-dir writes one <name>.yaml per Application into a cluster/apps
checkout, the files to commit and push.`,
		Example: `  codeloc application --repo-url https://git.example/atlas.git atlas/mediawatch atlas/citation
  codeloc application --repo-url "$ATLAS_URL" --strict --template application.yaml --output-dir cluster-apps atlas/*/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error {
			c, problems := validate.LoadContract(contract)
			if len(problems) > 0 {
				return problems.Sorted()
			}
			opts.Contract = c
			apps, err := appofapps.Generate(dirs, opts)
			if err != nil {
				return err
			}
			if outDir != "" {
				return appofapps.WriteFiles(outDir, apps)
			}
			_, err = cmd.OutOrStdout().Write(appofapps.Stream(apps))
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.RepoURL, "repo-url", "", "atlas repo URL the Applications point at (required)")
	f.StringVar(&opts.RepoRoot, "repo-root", "", "directory the source paths are relative to (default: the git top level of each DIR)")
	f.StringVar(&opts.Revision, "revision", appofapps.DefaultRevision, "target revision: branch, tag or commit")
	f.StringVar(&opts.Template, "template", "", "Application template file (default: the embedded example)")
	f.StringVar(&opts.Project, "project", appofapps.DefaultProject, "Argo CD project")
	f.BoolVar(&opts.Strict, "strict", false, "refuse a dependency that is not among the directories given")
	f.StringVar(&outDir, "output-dir", "", "write each Application to DIR/<name>.yaml (a cluster/apps checkout) instead of stdout")
	f.StringVar(&contract, "contract", "", "cluster contract file (default: the embedded example)")
	_ = cmd.MarkFlagRequired("repo-url")
	return cmd
}
