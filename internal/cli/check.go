package cli

import (
	"bytes"
	"os"

	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/check"
	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/plugin"
)

// checkFlags are `codeloc check`'s flags.
type checkFlags struct {
	repo, base, head      string
	contract, contractKey string
	format                string
	bounds                boundFlags
}

// NewCheckCmd checks a change of an atlas repo before merge.
func NewCheckCmd() *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check --base REV [--head REV] --contract FILE|- [--repo DIR]",
		Short: "Show what a change of the atlas repo does to its code-locations, against the contract the cluster serves",
		Long: `Check compares two revisions of the atlas git repo on disk (no network;
the git CLI reads them) and reports, for each code-location the change
touches: what its declaration now consumes or no longer consumes, the
migrations added and their lint findings, every problem of its render at
head with file:line, and the rendered objects added, removed or changed with
a diff per object; then the code-locations whose waves or dependencies
move. Only the touched code-locations are rendered, each through the
sidecar's own render path (plugin.Generate): the check refuses exactly what
Argo CD would.

--contract is the contract the cluster serves, never a copy in atlas (a file
inside --repo is refused): the cluster/apps checkout's file, or - for stdin,
either the contract itself or its ConfigMap as kubectl prints it:

  kubectl get configmap codeloc-contract -n argocd -o yaml |
    codeloc check --repo . --base origin/main --head HEAD --contract -

--head :index checks the staged change (what a pre-commit hook sees).
Exit 1 when the head would be refused (the report is still printed), 2 on a
usage, git or bound error (nothing on stdout).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCheck(cmd, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.repo, "repo", ".", "the atlas git repo (work tree or bare)")
	fl.StringVar(&f.base, "base", "", "base revision (required): the pull request's target")
	fl.StringVar(&f.head, "head", "HEAD", "head revision, or "+check.Index+" for the staged change")
	fl.StringVar(&f.contract, "contract", "", "the contract the cluster serves: a file outside --repo, or - for stdin; a ConfigMap manifest is read too (default $"+names.EnvContract+")")
	fl.StringVar(&f.contractKey, "contract-key", "", "the ConfigMap key holding the contract (default "+check.DefaultContractKey+", else the only *.yaml key)")
	fl.StringVar(&f.format, "format", "markdown", "report format: markdown or json")
	f.bounds.register(cmd)
	return cmd
}

func runCheck(cmd *cobra.Command, f *checkFlags) error {
	if f.format != "markdown" && f.format != "json" {
		return Usagef("--format must be markdown or json, not %q", f.format)
	}
	if f.base == "" {
		return Usagef("--base is required")
	}
	if f.contract == "" {
		f.contract = os.Getenv(names.EnvContract)
	}
	if f.contract == "" {
		return Usagef("--contract is required (or $%s): the contract the cluster serves", names.EnvContract)
	}
	limits, err := f.bounds.limits()
	if err != nil {
		return err
	}
	budget, err := f.bounds.budget()
	if err != nil {
		return err
	}
	c, problems := check.ReadContract(check.ContractSource{Arg: f.contract, Key: f.contractKey, Stdin: cmd.InOrStdin(), Repo: f.repo})
	if len(problems) > 0 {
		return problems
	}
	r, err := check.Run(cmd.Context(), check.Options{Repo: f.repo, Base: f.base, Head: f.head, Contract: c, Bounds: plugin.Bounds{YAML: limits, Budget: budget}})
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if f.format == "json" {
		err = r.WriteJSON(&out)
	} else {
		err = r.WriteMarkdown(&out)
	}
	if err != nil {
		return err
	}
	if _, err := cmd.OutOrStdout().Write(out.Bytes()); err != nil {
		return err
	}
	if r.Refused {
		return ExitError{Code: ExitInvalid}
	}
	return nil
}
