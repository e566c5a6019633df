package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/appofapps"
	"github.com/codeloc/codeloc/validate"
)

// writeOutput syncs outDir with what atlas and the contract give
// (appofapps.Sync), reporting on stderr what it added, changed and
// removed; with check it writes nothing, prints the diff on stdout and
// fails (exit 1) when outDir differs.
func writeOutput(cmd *cobra.Command, opts appofapps.Options, contract, outDir string, check bool) error {
	changes, err := appofapps.Sync(appofapps.SyncOptions{Options: opts, OutputDir: outDir,
		HeaderFlags: headerFlags(contract, opts.Template), Check: check})
	if err != nil {
		return err
	}
	if !check {
		_, err = io.WriteString(cmd.ErrOrStderr(), appofapps.Report(changes, ""))
		return err
	}
	if len(changes) == 0 {
		return nil
	}
	diff, err := appofapps.Diff(changes)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(cmd.OutOrStdout(), diff); err != nil {
		return err
	}
	return ExitError{Code: ExitInvalid, Msg: strings.TrimSuffix(appofapps.Report(changes, "would be "), "\n") +
		fmt.Sprintf("\n%s differs from what atlas and the contract give: %s (nothing written)", outDir, countFiles(len(changes)))}
}

// countFiles says n files in words.
func countFiles(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

// headerFlags are the flags the generated files' header names: the
// contract and the template files, by base name (never a machine's path).
func headerFlags(contract, template string) []string {
	var out []string
	if contract != "" {
		out = append(out, "--contract "+filepath.Base(contract))
	}
	if template != "" {
		out = append(out, "--template "+filepath.Base(template))
	}
	return out
}

// NewApplicationCmd prints the plain Argo CD Applications of code-locations
// for the cluster/apps repo.
func NewApplicationCmd() *cobra.Command {
	var opts appofapps.Options
	var contract, outDir string
	var check bool
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

--output-dir DIR (with --repo-root, without DIR arguments) writes the whole
generated part of a cluster/apps checkout, one file per object, from every
code-location under the repo root and the contract: <name>.yaml (the
Application) and <name>.admission.yaml (its bindings) per code-location,
<bucket>.bucket.yaml per bucket the contract provides (an ObjectBucketClaim,
sync wave -2, never pruned or deleted by Argo CD), the workspace ConfigMap as
<its name>.yaml, README.md (the code-location graph of codeloc graph in a
mermaid block, and a table: code-location, wave, target revision, declared
revision, ready, what it consumes; Gitea and GitHub draw it), and
codeloc-generated.txt, the index of the files it owns.
Each opens with a "# Generated by codeloc application" header. Files it does
not own are left alone; files it owns that no longer follow from the inputs
(a removed code-location's) are removed. It prints on stderr what it added,
changed and removed. Every declaration under the repo root is checked: one
invalid code-location, or a dependency whose folder is gone, writes nothing.
A file it does not own with the name of one it writes is refused: a
hand-written README.md is moved away first.

--check compares DIR with what --output-dir would write and writes nothing:
exit 0 when equal; else exit 1, a unified diff per file on stdout (--- a/<file>
+++ b/<file>, added and removed files against nothing) and the list of files
on stderr. A platform CI runs it on every atlas or contract change.`,
		Example: `  codeloc application --repo-url https://git.example/atlas.git atlas/citation
  codeloc application --repo-url "$ATLAS_URL" --contract contract.yaml --repo-root atlas --output-dir cluster-apps
  codeloc application --repo-url "$ATLAS_URL" --contract contract.yaml --repo-root atlas --output-dir cluster-apps --check`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, dirs []string) error {
			if outDir == "" {
				if check {
					return Usagef("--check compares a cluster/apps checkout: give it with --output-dir")
				}
				if len(dirs) == 0 {
					return Usagef("requires at least 1 arg(s), only received 0")
				}
			} else {
				if len(dirs) > 0 {
					return Usagef("--output-dir writes every code-location under --repo-root: give no DIR (got %s)", dirs[0])
				}
				if opts.RepoRoot == "" {
					return Usagef("--output-dir needs --repo-root: the atlas folder whose every code-location it writes")
				}
			}
			c, problems := validate.LoadContract(contract)
			if len(problems) > 0 {
				return problems.Sorted()
			}
			opts.Contract = c
			if outDir != "" {
				return writeOutput(cmd, opts, contract, outDir, check)
			}
			out, err := appofapps.StreamOf(dirs, opts, nil)
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.RepoURL, "repo-url", "", "atlas repo URL the Applications point at (required)")
	f.StringVar(&opts.RepoRoot, "repo-root", "", "atlas repo folder: the source paths are relative to it and its declarations make the graph (default: the git top level of each DIR)")
	f.StringVar(&opts.Revision, "revision", appofapps.DefaultRevision, "target revision: branch, tag or commit")
	f.StringVar(&opts.Template, "template", "", "Application template file (default: the embedded example)")
	f.StringVar(&opts.Project, "project", appofapps.DefaultProject, "Argo CD project")
	f.StringVar(&outDir, "output-dir", "", "write the generated files of every code-location under --repo-root into DIR (a cluster/apps checkout) instead of stdout")
	f.BoolVar(&check, "check", false, "with --output-dir: write nothing, print a unified diff of what would change and exit 1 when DIR differs")
	f.StringVar(&contract, "contract", "", "cluster contract file (default: the embedded example)")
	_ = cmd.MarkFlagRequired("repo-url")
	return cmd
}
