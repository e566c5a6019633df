package jobscmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/codeloc/codeloc/internal/cli"
	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/preflight"
	"github.com/codeloc/codeloc/validate"
)

// defaultPreflightTimeout bounds a whole `codeloc-jobs preflight` run.
const defaultPreflightTimeout = 2 * time.Minute

// liveAPIRetry is how long `validate --live` retries an API server failing
// transiently: a person waits, and runs it again (the pod waits longer:
// preflight.DefaultRetryFor).
const liveAPIRetry = 5 * time.Second

// liveRun is one run of the live checks, from `preflight` or `validate --live`.
type liveRun struct {
	dir, contract, kubeconfig string
	terminationLog            string        // "" = none
	timeout                   time.Duration // whole run
	apiRetry                  time.Duration // preflight.Options.RetryFor
	verbose                   bool
	static                    bool // also run validate.Check (render-time checks)
}

func newPreflightCmd() *cobra.Command {
	lr := liveRun{dir: ".", terminationLog: defaultTerminationLog, timeout: defaultPreflightTimeout, apiRetry: preflight.DefaultRetryFor, static: true}
	cmd := &cobra.Command{
		Use:   "preflight",
		Short: "Run the live checks of a code-location (the PreSync preflight pod)",
		Long: `Preflight checks what only the live cluster knows, before the migration and
the app run: declared secrets exist and hold the keys the pods read (key
names only: no value is ever printed), the database answers
SELECT 1 with the Job's PG* credentials, each declared ObjectBucketClaim is
Bound with the declared class and at least the declared maxSize, required
code-locations are ready (record ConfigMap, Argo CD Application Synced and
Healthy), and cpu/memory/disk/buckets fit the live capacity with the
contract's headroom. Every problem is printed on stderr, one per line, and
the command exits 1; a one-line summary goes to stdout (on success) and to
the termination message file.

Without --kubeconfig it uses the in-cluster configuration, else the usual
kubeconfig ($KUBECONFIG, ~/.kube/config).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if lr.contract == "" {
				lr.contract = os.Getenv(names.EnvContract)
			}
			return lr.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&lr.dir, "dir", lr.dir, "folder holding "+validate.ManifestFile)
	fl.StringVar(&lr.contract, "contract", "", "cluster contract file (default $"+names.EnvContract+"; required)")
	fl.StringVar(&lr.kubeconfig, "kubeconfig", "", "kubeconfig file (default: in-cluster, then $KUBECONFIG or ~/.kube/config)")
	fl.StringVar(&lr.terminationLog, "termination-log", lr.terminationLog, "file receiving the one-line summary (ignored when not writable; empty: none)")
	fl.DurationVar(&lr.timeout, "timeout", lr.timeout, "bound on the whole run")
	fl.DurationVar(&lr.apiRetry, "api-retry", lr.apiRetry, "how long an API server failing transiently (restarting: refused or reset connections, 503) is retried")
	fl.BoolVarP(&lr.verbose, "verbose", "v", false, "print every check that passed")
	return cmd
}

// runLive runs the live checks for `validate --live` (a cli.LiveFunc):
// the declaration in dir, the contract at contractPath (else
// $CODELOC_CONTRACT), the cluster of kubeconfig (else in-cluster or the
// default kubeconfig). Problems come back as problem.Problems; notes and
// the summary go to stderr and stdout.
func runLive(ctx context.Context, stdout, stderr io.Writer, dir, contractPath, kubeconfig string) error {
	if contractPath == "" {
		contractPath = os.Getenv(names.EnvContract)
	}
	lr := liveRun{dir: dir, contract: contractPath, kubeconfig: kubeconfig, timeout: defaultPreflightTimeout, apiRetry: liveAPIRetry}
	return lr.run(ctx, stdout, stderr)
}

// run loads the inputs, runs the checks and reports. Problems are returned
// as problem.Problems (exit 1); the termination message is written in
// every case.
func (lr liveRun) run(ctx context.Context, stdout, stderr io.Writer) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, lr.timeout)
	defer cancel()
	var rep *preflight.Report
	defer func() {
		if err != nil {
			lr.terminate(failureSummary(err, rep))
		}
	}()
	d, c, problems := preflight.Load(lr.dir, lr.contract)
	if len(problems) > 0 {
		return problems
	}
	cfg, err := restConfig(lr.kubeconfig)
	if err != nil {
		return err
	}
	db, err := preflight.DatabaseFromEnv()
	if err != nil {
		return cli.UsageError{Err: err}
	}
	rep, err = preflight.Run(ctx, d, c, preflight.Options{Config: cfg, Database: db, RetryFor: lr.apiRetry})
	if err != nil {
		return err
	}
	if lr.static {
		rep.Problems = append(validate.Check(d, c), rep.Problems...)
	}
	lr.print(rep, stdout, stderr)
	if !rep.OK() {
		return rep.Problems
	}
	lr.terminate(rep.Summary())
	return nil
}

// print writes the notes (and, verbose, the passed checks) and the
// headline on stderr, and on success the summary on stdout. The problems
// themselves are printed by cli.Run, one per line.
func (lr liveRun) print(rep *preflight.Report, stdout, stderr io.Writer) {
	for _, n := range rep.Notes {
		fmt.Fprintln(stderr, "note: "+n)
	}
	if lr.verbose {
		for _, c := range rep.Checked {
			fmt.Fprintln(stderr, "ok: "+c)
		}
	}
	if rep.OK() {
		fmt.Fprintln(stdout, rep.Summary())
		return
	}
	fmt.Fprintln(stderr, rep.Headline())
}

// failureSummary is the termination message of a failed run: one line.
func failureSummary(err error, rep *preflight.Report) string {
	if rep != nil {
		return rep.Summary()
	}
	var problems problem.Problems
	if errors.As(err, &problems) {
		return fmt.Sprintf("preflight: %d problem(s): %s", len(problems), strings.ReplaceAll(problems.Error(), "\n", "; "))
	}
	return "preflight: " + err.Error()
}

// terminate writes msg to the termination message file, if any.
func (lr liveRun) terminate(msg string) { writeTermination(lr.terminationLog, msg) }

// restConfig builds the client configuration: the kubeconfig file when
// given, else in-cluster, else the default kubeconfig loading rules.
func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig == "" {
		if cfg, err := rest.InClusterConfig(); err == nil {
			return withUserAgent(cfg), nil
		}
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, cli.Usagef("kubernetes configuration: %w", err)
	}
	return withUserAgent(cfg), nil
}

func withUserAgent(cfg *rest.Config) *rest.Config {
	cfg.UserAgent = names.BinaryJobs + "-preflight/" + names.Version()
	return cfg
}
