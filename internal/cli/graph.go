package cli

import (
	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/appofapps"
	"github.com/codeloc/codeloc/validate"
)

// Formats of `codeloc graph`.
const (
	formatMermaid = "mermaid"
	formatDOT     = "dot"
)

// graphRepoURL fills the Application fields the picture never shows:
// Generate executes the (embedded) template, which needs a repo URL.
const graphRepoURL = "https://codeloc.invalid/atlas.git"

// NewGraphCmd prints the code-location graph as Mermaid or Graphviz DOT.
func NewGraphCmd() *cobra.Command {
	var opts appofapps.Options
	var contract, format string
	cmd := &cobra.Command{
		Use:   "graph [flags] [DIR...]",
		Short: "Print the code-location graph (waves, readiness, databases, buckets) as Mermaid or DOT",
		Long: `Print the code-location graph: one node per code-location with its sync
wave and whether its declaration says ready, one node per database and per
bucket they consume, an arrow from each dependsOn.codeLocations entry, each
database and each bucket to the code-location that needs it (dashed for a
database or a bucket), and one group per wave. A code-location whose
declaration says ready: false has a dashed border.

The waves are the ones codeloc application gives the Applications: the same
graph of every declaration under the repo root, the same checks (a cycle, a
dependency without a folder, an invalid declaration is an error, nothing is
printed). Without DIR, every code-location under --repo-root is drawn; with
DIRs, those, and a dependency outside them is a node "not given".

--format mermaid (the default) prints a Mermaid flowchart, as the README that
codeloc application --output-dir writes into the cluster/apps repo holds it;
--format dot prints a Graphviz digraph (dot -Tsvg). Node ids are derived from
the names (letters and digits kept, any other character as _<hex>_); labels
are quoted, any character but letters, digits and " .-_:/," written as a
character reference, so that no name leaves its label.`,
		Example: `  codeloc graph --repo-root atlas
  codeloc graph --repo-root atlas --contract contract.yaml --format dot | dot -Tsvg > graph.svg
  codeloc graph --repo-root atlas atlas/citation`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, dirs []string) error {
			if format != formatMermaid && format != formatDOT {
				return Usagef("--format %q: want %s or %s", format, formatMermaid, formatDOT)
			}
			picture, err := graphPicture(dirs, opts, contract)
			if err != nil {
				return err
			}
			out := picture.Mermaid()
			if format == formatDOT {
				out = picture.DOT()
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.RepoRoot, "repo-root", "", "atlas repo folder whose declarations make the graph; without DIR, every code-location under it is drawn (default: the git top level of each DIR)")
	f.StringVar(&contract, "contract", "", "cluster contract file (default: the embedded example)")
	f.StringVar(&format, "format", formatMermaid, "output format: mermaid or dot")
	return cmd
}

// graphPicture is the picture of the code-locations in dirs, or of every
// one under the repo root when none is given, from their Applications
// (appofapps.Generate: the waves codeloc application gives).
func graphPicture(dirs []string, opts appofapps.Options, contract string) (appofapps.Picture, error) {
	if len(dirs) == 0 && opts.RepoRoot == "" {
		return appofapps.Picture{}, Usagef("give DIR arguments, or --repo-root to draw every code-location under it")
	}
	c, problems := validate.LoadContract(contract)
	if len(problems) > 0 {
		return appofapps.Picture{}, problems.Sorted()
	}
	if len(dirs) == 0 {
		var err error
		if dirs, err = appofapps.CodeLocationDirs(opts.RepoRoot); err != nil {
			return appofapps.Picture{}, err
		}
		if len(dirs) == 0 {
			return appofapps.Picture{}, nil
		}
	}
	opts.Contract, opts.RepoURL = c, graphRepoURL
	apps, err := appofapps.Generate(dirs, opts)
	if err != nil {
		return appofapps.Picture{}, err
	}
	return appofapps.PictureOf(apps)
}
