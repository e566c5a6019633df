package jobscmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/codeloc/codeloc/internal/cli"
	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/reload"
)

// defaultReloadTimeout bounds a whole `codeloc-jobs reload` run; the
// PostSync pod passes --timeout below its activeDeadlineSeconds instead.
const defaultReloadTimeout = 5 * time.Minute

// reloadRun is one `codeloc-jobs reload`.
type reloadRun struct {
	webserverURL, location string
	terminationLog         string // "" = none
	attempts               int
	timeout                time.Duration // whole run
	requestTimeout         time.Duration // each request
}

func newReloadCmd() *cobra.Command {
	rr := reloadRun{
		terminationLog: defaultTerminationLog, attempts: reload.DefaultAttempts,
		timeout: defaultReloadTimeout, requestTimeout: reload.DefaultRequestTimeout,
	}
	cmd := &cobra.Command{
		Use:   "reload --webserver-url URL --location NAME [--termination-log FILE] [--attempts N] [--timeout D]",
		Short: "Reload a code-location in the Dagster webserver (the PostSync reload pod)",
		Long: `Reload sends Dagster's reloadRepositoryLocation mutation for the location
NAME to the webserver's GraphQL endpoint (URL/graphql, an HTTP POST), so that
Dagster loads the code server's new definitions after a sync.

It retries, with a doubling backoff (1s, 2s, 4s, ... at most 15s), what may
heal: the webserver unreachable or slow, a 5xx answer, a PythonError, the
location failing to load, and RepositoryLocationNotFound (the webserver may
not have read a new workspace yet). It does not retry UnauthorizedError,
ReloadNotSupported or a query the schema rejects.

On success one line goes to stdout; on failure one line goes to stderr, with
a stable code (reload-...) and Dagster's own message (never a stack trace),
and the command exits 1. The same line is written to the termination message
file. Exit codes: 0 reloaded, 1 failed, 2 usage.

The URL defaults to $` + names.EnvDagsterWebserverURL + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if rr.webserverURL == "" {
				rr.webserverURL = os.Getenv(names.EnvDagsterWebserverURL)
			}
			return rr.run(cmd.Context(), cmd.OutOrStdout())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&rr.webserverURL, "webserver-url", "", "base URL of the Dagster webserver (default $"+names.EnvDagsterWebserverURL+"; required)")
	fl.StringVar(&rr.location, "location", "", "the code-location's name in Dagster's workspace (required)")
	fl.StringVar(&rr.terminationLog, "termination-log", rr.terminationLog, "file receiving the one-line result (ignored when not writable; empty: none)")
	fl.IntVar(&rr.attempts, "attempts", rr.attempts, "requests sent at most, retries included")
	fl.DurationVar(&rr.timeout, "timeout", rr.timeout, "bound on the whole run, retries included")
	fl.DurationVar(&rr.requestTimeout, "request-timeout", rr.requestTimeout, "bound on each request")
	_ = cmd.MarkFlagRequired("location")
	return cmd
}

func (rr reloadRun) checkFlags() error {
	if rr.webserverURL == "" {
		return fmt.Errorf("--webserver-url is empty and $%s is not set", names.EnvDagsterWebserverURL)
	}
	if _, err := reload.Endpoint(rr.webserverURL); err != nil {
		return fmt.Errorf("--webserver-url: %w", err)
	}
	switch {
	case strings.TrimSpace(rr.location) == "" || strings.ContainsFunc(rr.location, unicode.IsControl):
		return fmt.Errorf("--location %q is not a location name", rr.location)
	case rr.attempts < 1 || rr.attempts > 100:
		return fmt.Errorf("--attempts %d is outside 1-100", rr.attempts)
	case rr.timeout <= 0:
		return errors.New("--timeout must be positive")
	case rr.requestTimeout <= 0:
		return errors.New("--request-timeout must be positive")
	}
	return nil
}

// run reloads the location and reports: the result line on stdout (exit
// 0) or stderr (exit 1), and in the termination message file.
func (rr reloadRun) run(ctx context.Context, stdout io.Writer) error {
	if err := rr.checkFlags(); err != nil {
		return cli.UsageError{Err: err}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := migrateSignals(ctx) // SIGTERM (the pod's deadline) ends the run
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, rr.timeout)
	defer cancel()
	res, err := reload.Run(ctx, reload.Options{
		WebserverURL: rr.webserverURL, Location: rr.location,
		Attempts: rr.attempts, RequestTimeout: rr.requestTimeout,
	})
	var line string
	var failure *reload.Error
	switch {
	case err == nil:
		line = res.Line()
	case errors.As(err, &failure):
		line = failure.Line()
	default:
		line = "reload " + rr.location + ": FAILED: " + err.Error()
	}
	writeTermination(rr.terminationLog, line)
	if err != nil {
		return cli.ExitError{Code: cli.ExitInvalid, Msg: line}
	}
	fmt.Fprintln(stdout, line)
	return nil
}
