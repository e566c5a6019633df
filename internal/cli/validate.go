package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render"
)

// validationReport is the JSON form of `validate -o json`.
type validationReport struct {
	Valid        bool              `json:"valid"`
	CodeLocation string            `json:"codeLocation,omitempty"`
	Objects      int               `json:"objects,omitempty"`
	Problems     []problem.Problem `json:"problems"`
}

// NewValidateCmd runs the render-time checks and, with --live, live: the
// preflight's checks against a cluster.
func NewValidateCmd(live LiveFunc) *cobra.Command {
	var f renderFlags
	var output, kubeconfig string
	var isLive bool
	cmd := &cobra.Command{
		Use:   "validate [DIR]",
		Short: "Check a code-location without printing its manifests",
		Long: `Validate runs every render-time check (declaration, contract, repo, kustomize
build, policy) and reports all problems. -o json prints a report with each
problem's code, path, file, line, column, message and hint.

--live then runs the sync-time checks of the preflight pod against a cluster
(--kubeconfig, else in-cluster or the default kubeconfig); it needs the real
contract (--contract or $CODELOC_CONTRACT), never the embedded example.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return Usagef("-o must be text or json, not %q", output)
			}
			if isLive && f.contract == "" {
				f.contract = os.Getenv(names.EnvContract)
			}
			if isLive && (output == "json" || f.contract == "") {
				return Usagef("--live needs the cluster contract (--contract or %s) and text output", names.EnvContract)
			}
			report, err := validateDir(&f, dirArg(args), cmd.InOrStdin())
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSONReport(cmd, report)
			}
			if !report.Valid {
				return problem.Problems(report.Problems)
			}
			if isLive {
				printWarnings(cmd.ErrOrStderr(), report.Problems)
				return live(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), dirArg(args), f.contract, kubeconfig)
			}
			printWarnings(cmd.ErrOrStderr(), report.Problems)
			fmt.Fprintf(cmd.OutOrStdout(), "%s: valid (%d objects)\n", report.CodeLocation, report.Objects)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	cmd.Flags().BoolVar(&isLive, "live", false, "also run the preflight's live checks against the cluster")
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig for --live (default: in-cluster, then $KUBECONFIG or ~/.kube/config)")
	return cmd
}

// validateDir renders dir and turns the outcome into a report; only
// internal errors are returned as errors.
func validateDir(f *renderFlags, dir string, stdin io.Reader) (*validationReport, error) {
	report := &validationReport{Problems: []problem.Problem{}}
	req, err := f.request(dir, stdin)
	if err == nil {
		var res *render.Result
		res, err = f.render(req)
		if err == nil {
			report.Valid, report.CodeLocation, report.Objects = true, res.Declaration.CodeLocation, len(res.Objects)
			report.Problems = append(report.Problems, res.Warnings...)
			return report, nil
		}
	}
	var problems problem.Problems
	if !errors.As(err, &problems) {
		return nil, err
	}
	report.Problems = problems.Sorted()
	return report, nil
}

// writeJSONReport prints the report; an invalid input still exits 1, with
// the JSON on stdout (the machine-readable channel) and nothing on stderr.
func writeJSONReport(cmd *cobra.Command, report *validationReport) error {
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	if err := enc.Encode(report); err != nil {
		return err
	}
	if !report.Valid {
		return ExitError{Code: ExitInvalid}
	}
	return nil
}

// printWarnings writes warnings on w, one per line: codeloc's own lines,
// never kustomize's raw output.
func printWarnings(w io.Writer, warnings []problem.Problem) {
	for _, p := range warnings {
		fmt.Fprintln(w, p.String())
	}
}
