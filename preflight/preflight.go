// Package preflight runs the live checks of a code-location at sync time:
// the facts that live in the cluster, not in git. It runs in the PreSync
// preflight pod (`codeloc-jobs preflight`) and from a laptop (`codeloc-jobs
// validate --live`):
//
//   - every declared secret exists (metadata only), and holds the keys the
//     pods read (the render lists them): such a secret is read whole, only
//     its key names are kept, no value is ever printed;
//   - every declared platform ConfigMap and ServiceAccount (the Dagster
//     chart's, offered by the contract) exists (metadata only);
//   - the first declared database answers SELECT 1 with the Job's credentials;
//   - every declared bucket's ObjectBucketClaim exists, is Bound, is on the
//     declared storage class and has at least the declared maxSize;
//   - every required code-location has its record ConfigMap with ready
//     "true" and, when the contract names Argo CD's namespace, a Synced and
//     Healthy Application;
//   - the declared cpu, memory, disk and buckets fit the live capacity with
//     the contract's headroom.
//
// Every problem is reported, each as a problem.Problem with a stable code.
package preflight

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"k8s.io/client-go/rest"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// Defaults of Options.
const (
	DefaultCallTimeout = 10 * time.Second
	DefaultDBTimeout   = 5 * time.Second
	DefaultRetryFor    = 45 * time.Second
)

// Options configure Run.
type Options struct {
	// Config reaches the Kubernetes API (required).
	Config *rest.Config
	// Database connects to the first declared database; nil skips the
	// database check with a note (see DatabaseFromEnv).
	Database *pgx.ConnConfig
	// CallTimeout bounds each API call (DefaultCallTimeout when zero).
	CallTimeout time.Duration
	// DBTimeout bounds the database connection and query (DefaultDBTimeout).
	DBTimeout time.Duration
	// RetryFor bounds how long an API call failing transiently (refused
	// or reset connection, EOF, 503, 429, timeout: an API server
	// restarting) is retried, with backoff, before it becomes an
	// api-error problem (DefaultRetryFor; negative: no retry).
	RetryFor time.Duration
}

// Report is the outcome of Run.
type Report struct {
	CodeLocation string
	// Problems are every failed check, unsorted.
	Problems problem.Problems
	// Checked lists one line per check that passed, for --verbose.
	Checked []string
	// Notes are checks skipped or degraded (no database credentials,
	// capacity from the contract's budgets...), printed on stderr.
	Notes []string
	// Requests is the number of HTTP requests sent to the API server.
	Requests int64
	// Elapsed is the wall time of Run.
	Elapsed time.Duration
}

// OK reports whether every check passed.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

// Headline is the outcome without the problems: "preflight citation: ok
// (7 checks passed in 85ms, 7 API requests)".
func (r *Report) Headline() string {
	stats := fmt.Sprintf("%d checks passed in %s, %d API requests", len(r.Checked), r.Elapsed.Round(time.Millisecond), r.Requests)
	switch n := len(r.Problems); n {
	case 0:
		return fmt.Sprintf("preflight %s: ok (%s)", r.CodeLocation, stats)
	case 1:
		return fmt.Sprintf("preflight %s: 1 problem (%s)", r.CodeLocation, stats)
	default:
		return fmt.Sprintf("preflight %s: %d problems (%s)", r.CodeLocation, n, stats)
	}
}

// Summary is the one-line outcome for the termination message: the
// headline followed by every problem, separated by "; ".
func (r *Report) Summary() string {
	if r.OK() {
		return r.Headline()
	}
	return r.Headline() + ": " + strings.ReplaceAll(r.Problems.Error(), "\n", "; ")
}

// result is what one check group found.
type result struct {
	problems problem.Problems
	checked  []string
	notes    []string
}

func (r *result) fail(p problem.Problem) { r.problems = append(r.problems, p) }
func (r *result) pass(format string, args ...any) {
	r.checked = append(r.checked, fmt.Sprintf(format, args...))
}
func (r *result) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

// checker holds what every check needs.
type checker struct {
	decl *validate.Declaration
	con  *validate.Contract
	c    *client
	opts Options
}

// Run checks the declaration d against the live cluster described by the
// contract c. It returns an error only when the checks cannot run at all
// (bad client configuration); everything the cluster says is a Problem.
func Run(ctx context.Context, d *validate.Declaration, c *validate.Contract, opts Options) (*Report, error) {
	start := time.Now()
	if opts.Config == nil {
		return nil, fmt.Errorf("preflight: no Kubernetes client configuration")
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.DBTimeout <= 0 {
		opts.DBTimeout = DefaultDBTimeout
	}
	if opts.RetryFor == 0 {
		opts.RetryFor = DefaultRetryFor
	}
	cl, err := newClient(opts.Config, opts.CallTimeout, opts.RetryFor)
	if err != nil {
		return nil, fmt.Errorf("preflight: Kubernetes client: %w", err)
	}
	ck := &checker{decl: d, con: c, c: cl, opts: opts}
	groups := []func(context.Context) result{ck.secrets, ck.platformObjects, ck.database, ck.buckets, ck.dependencies, ck.capacity}
	results := make([]result, len(groups))
	var wg sync.WaitGroup
	for i, g := range groups {
		wg.Go(func() { results[i] = g(ctx) })
	}
	wg.Wait()
	rep := &Report{CodeLocation: d.CodeLocation}
	for _, r := range results {
		rep.Problems = append(rep.Problems, r.problems...)
		rep.Checked = append(rep.Checked, r.checked...)
		rep.Notes = append(rep.Notes, r.notes...)
	}
	if n := cl.outages.note(); n != "" {
		rep.Notes = append(rep.Notes, n)
	}
	rep.Requests = cl.requests.Load()
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// index formats path[i].
func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }
