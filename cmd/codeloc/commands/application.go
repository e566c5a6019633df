package commands

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/appofapps"
	"github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/validate"
)

// workspaceOf locates the code server of each code-location folder and
// returns the workspace ConfigMap of them all.
func workspaceOf(dirs []string, c *validate.Contract) ([]byte, error) {
	var locs []appofapps.Location
	for _, dir := range dirs {
		if !hasKustomization(dir) {
			continue // nothing to deploy yet, so no code server
		}
		loc, err := render.Locate(render.Request{Dir: dir, Contract: c})
		if err != nil {
			return nil, err
		}
		if loc != nil {
			locs = append(locs, appofapps.Location{Name: loc.Name, Host: loc.Host, Port: loc.Port})
		}
	}
	return appofapps.WorkspaceConfigMap(c.Namespace, c.Dagster.WorkspaceConfigMap, locs)
}

// hasKustomization reports whether dir holds a kustomize root.
func hasKustomization(dir string) bool {
	for _, name := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

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
wave of its depth in the dependsOn.codeLocations graph: a code-location
without dependencies is wave 0, any other one wave 1 + the highest wave of
its dependencies.

The graph is made of every declaration under the repo root (--repo-root, else
the git top level of each DIR), not only of the directories given, so that
one Application generated alone gets the wave it gets among all. The walk
skips hidden folders (.git), node_modules and vendor, does not search a
code-location's own subfolders, and stops with an error past 16 folders deep
or 100,000 entries.

A dependency that no folder under the repo root declares is an error naming
the chain that reaches it (a -> b -> c); so is a dependency cycle (a -> b ->
a). A folder is the code-location it declares: when several folders declare
one name, the one named after it is it; a directory given that is not, or a
dependency that no such single folder settles, is an error. Declarations that
no directory given depends on are not checked: one broken code-location does
not block the others. Readiness is not checked here: a code-location with
ready: false gets its Application (its render refuses the revision, in Argo
CD), and the preflight checks its dependencies' readiness at sync time.

The documents come from a sprig template: the embedded example or --template.
The repo URL is a deployment value, injected here and never versioned.

Each Application is followed by the code-location's two
ValidatingAdmissionPolicyBindings (codeloc-<name> and codeloc-<name>.dagster,
sync wave -1) of the install bundle's policy codeloc-code-location: they hold
every pod labelled codeloc.dev/code-location=<name> or
dagster/code-location=<name> in the contract's namespace, Dagster's run and
step pods included, to what the code-location declares, with the ConfigMap
<name>-admission its render emits as params (docs/rendering.md, "Admission for
run pods").

The stream ends with the platform Dagster's workspace: a ConfigMap (the
contract's dagster.workspaceConfigMap, in its namespace) holding a
workspace.yaml with one grpc_server per code-location given, where its
render finds its code server (the Service and port the record publishes),
sorted by name. A code-location without a code server (or without a
kustomization yet) is left out; one whose
code server cannot be located is an error. It is meant for the Dagster
chart's dagsterWebserver.workspace.externalConfigmap (docs/operator-guide.md).

--output-dir writes one <name>.yaml per Application, its bindings as
<name>.admission.yaml, and the workspace ConfigMap as <its name>.yaml, into a
cluster/apps checkout: the files to commit and push.`,
		Example: `  codeloc application --repo-url https://git.example/atlas.git atlas/citation
  codeloc application --repo-url "$ATLAS_URL" --template application.yaml --output-dir cluster-apps atlas/*/`,
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
			workspace, err := workspaceOf(dirs, c)
			if err != nil {
				return err
			}
			if outDir != "" {
				if err := appofapps.WriteFiles(outDir, apps); err != nil {
					return err
				}
				return appofapps.WriteWorkspaceFile(outDir, c.Dagster.WorkspaceConfigMap, workspace)
			}
			_, err = cmd.OutOrStdout().Write(slices.Concat(appofapps.Stream(apps), []byte("---\n"), workspace))
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.RepoURL, "repo-url", "", "atlas repo URL the Applications point at (required)")
	f.StringVar(&opts.RepoRoot, "repo-root", "", "atlas repo folder: the source paths are relative to it and its declarations make the graph (default: the git top level of each DIR)")
	f.StringVar(&opts.Revision, "revision", appofapps.DefaultRevision, "target revision: branch, tag or commit")
	f.StringVar(&opts.Template, "template", "", "Application template file (default: the embedded example)")
	f.StringVar(&opts.Project, "project", appofapps.DefaultProject, "Argo CD project")
	f.StringVar(&outDir, "output-dir", "", "write each Application to DIR/<name>.yaml (a cluster/apps checkout) instead of stdout")
	f.StringVar(&contract, "contract", "", "cluster contract file (default: the embedded example)")
	_ = cmd.MarkFlagRequired("repo-url")
	return cmd
}
