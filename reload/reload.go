// Package reload asks the platform's Dagster webserver to reload one
// code-location: `codeloc-jobs reload`, which the PostSync hook pod
// `<codeLocation>-reload` runs after every successful sync when the cluster
// contract sets dagster.webserverURL. Without it the webserver keeps serving
// the definitions it loaded from the code server's previous pods.
//
// It sends Dagster's own reloadRepositoryLocation mutation (the one the
// webserver's "Reload" button and dagster-graphql's Python client send)
// through package dagster/graphql, whose client decodes the answer, and
// returns a Result or an *Error with a stable code (codes.go), retrying
// what may heal with a bounded backoff. What each of Dagster's answers
// means is the client's (dagster/graphql's package comment cites the
// schema); which answers are retried, the codes, the hints and the lines
// written are this package's.
package reload

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/codeloc/codeloc/dagster/graphql"
	"github.com/codeloc/codeloc/internal/names"
)

// Defaults of Options.
const (
	DefaultAttempts       = 8
	DefaultRequestTimeout = 60 * time.Second
	DefaultBackoff        = time.Second
	DefaultMaxBackoff     = 15 * time.Second
)

// MaxMessageBytes bounds the part of a message (Dagster's, or an HTTP
// body's) that goes into a result line.
const MaxMessageBytes = graphql.MaxMessageBytes

// Options configure Run.
type Options struct {
	// WebserverURL is the Dagster webserver's base URL, path prefix
	// included when it serves under one; /graphql is appended.
	WebserverURL string
	// Location is the code-location's name in Dagster's workspace.
	Location string
	// Attempts bounds the requests sent (DefaultAttempts when zero).
	Attempts int
	// RequestTimeout bounds each request, answer included
	// (DefaultRequestTimeout when zero): a reload waits for Dagster to
	// fetch the code server's definitions.
	RequestTimeout time.Duration
	// Backoff is the wait after the first failed attempt, doubled after
	// each next one up to MaxBackoff (DefaultBackoff, DefaultMaxBackoff
	// when zero). Run never waits past ctx's deadline: the caller's
	// deadline bounds the whole run.
	Backoff, MaxBackoff time.Duration
	// HTTPClient sends the requests; nil: a client of its own that
	// follows no redirect (a POST must not turn into a GET) and honours
	// the proxy environment.
	HTTPClient *http.Client
	// UserAgent is sent as User-Agent (default codeloc-jobs-reload/VERSION).
	UserAgent string
	// Webserver is what the requests go through; nil: a dagster/graphql
	// client of the webserver at WebserverURL (with HTTPClient, UserAgent
	// and RequestTimeout), and WebserverURL is ignored otherwise.
	Webserver Webserver
}

// Webserver is what Run asks of Dagster's webserver; *graphql.Client is
// one. ReloadLocation's error is a *graphql.Error, whose Kind decides the
// code and whether it is retried; any other error is CodeUnreachable and
// retried. ReloadWorkspace's error is not read: its outcome shows in the
// next ReloadLocation.
type Webserver interface {
	ReloadLocation(ctx context.Context, name string) (graphql.LocationEntry, error)
	ReloadWorkspace(ctx context.Context) error
}

// Result is a successful reload: Dagster answered a WorkspaceLocationEntry
// whose locationOrLoadError is a RepositoryLocation.
type Result struct {
	// Location is the reloaded location's name, as Dagster gives it.
	Location string
	// LoadStatus is the entry's loadStatus (LOADED).
	LoadStatus string
	// Repositories is how many repositories the location holds.
	Repositories int
	// Attempts is how many requests were sent, this one included.
	Attempts int
	// Elapsed is the wall time of Run.
	Elapsed time.Duration
}

// Line is the outcome on one line: "reload citation: ok (LOADED, 1
// repository; 1 attempt, 85ms)".
func (r Result) Line() string {
	return fmt.Sprintf("reload %s: ok (%s, %s; %s, %s)", r.Location, r.LoadStatus,
		plural(r.Repositories, "repository", "repositories"), plural(r.Attempts, "attempt", "attempts"), r.Elapsed.Round(time.Millisecond))
}

// Error is a failed reload: a stable code, Dagster's message (or the
// transport's), bounded to one line without any stack trace, and how far
// the retries went.
type Error struct {
	Code string
	// Message says what failed, on one line.
	Message string
	// Hint says what to do, when there is something to say.
	Hint string
	// HTTPStatus is the answer's status; 0 when none came.
	HTTPStatus int
	// Location is the code-location asked for.
	Location string
	// Attempts is how many requests were sent; MaxAttempts how many were
	// allowed.
	Attempts, MaxAttempts int
	// Elapsed is the wall time of Run.
	Elapsed time.Duration
	// Stopped says why the retries stopped early (the deadline), or "".
	Stopped string
	// retryable: another attempt may succeed.
	retryable bool
}

// Error is "CODE: message (hint)".
func (e *Error) Error() string {
	s := e.Code + ": " + e.Message
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Retryable reports whether the failure was one Run retries.
func (e *Error) Retryable() bool { return e.retryable }

// Line is the outcome on one line, for stderr and the termination message:
// "reload citation: FAILED (8 attempts, 61s): reload-load-error: ...".
func (e *Error) Line() string {
	tries := plural(e.Attempts, "attempt", "attempts")
	if e.Stopped != "" {
		tries += ", " + e.Stopped
	}
	return fmt.Sprintf("reload %s: FAILED (%s, %s): %s", e.Location, tries, e.Elapsed.Round(time.Millisecond), e.Error())
}

// Endpoint is the GraphQL endpoint of the webserver at base: base's path
// followed by /graphql (graphql.Endpoint). base must be an absolute
// http(s) URL with a host, without credentials, query or fragment.
func Endpoint(base string) (string, error) { return graphql.Endpoint(base) }

// Run reloads opts.Location in the webserver at opts.WebserverURL. It
// retries, with a doubling backoff, what may heal: the webserver
// unreachable or slow, a 5xx or 429 answer, a PythonError, a load error of
// the location, and RepositoryLocationNotFound. It does not retry what
// another identical request would get again: UnauthorizedError,
// ReloadNotSupported, a query the schema rejects (400), an answer that is
// not Dagster's. A failure is an *Error; invalid options are another error.
func Run(ctx context.Context, opts Options) (Result, error) {
	o := opts.withDefaults()
	ws := o.Webserver
	if ws == nil {
		client, err := graphql.NewClient(o.WebserverURL, graphql.Options{HTTPClient: o.HTTPClient, UserAgent: o.UserAgent, RequestTimeout: o.RequestTimeout})
		if err != nil {
			return Result{}, err
		}
		defer client.Close()
		ws = client
	}
	if strings.TrimSpace(o.Location) == "" {
		return Result{}, errors.New("no code-location name given")
	}
	start := time.Now()
	var last *Error
	for attempt := 1; ; attempt++ {
		entry, err := ws.ReloadLocation(ctx, o.Location)
		if err == nil {
			return Result{Location: entry.Name, LoadStatus: entry.LoadStatus, Repositories: entry.Repositories,
				Attempts: attempt, Elapsed: time.Since(start)}, nil
		}
		last = failure(err)
		last.Attempts = attempt
		if !last.retryable || attempt >= o.Attempts {
			break
		}
		if last.Code == CodeLocationNotFound {
			// A location added since the webserver started is unknown to it
			// until it reads workspace.yaml again, which only
			// reloadWorkspace makes it do (_core/workspace/context.py).
			_ = ws.ReloadWorkspace(ctx)
		}
		if stopped := o.wait(ctx, attempt); stopped != "" {
			last.Stopped = stopped
			break
		}
	}
	last.Location, last.MaxAttempts, last.Elapsed = o.Location, o.Attempts, time.Since(start)
	return Result{}, last
}

func (o Options) withDefaults() Options {
	if o.Attempts <= 0 {
		o.Attempts = DefaultAttempts
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.UserAgent == "" {
		o.UserAgent = names.BinaryJobs + "-reload/" + names.Version()
	}
	return o
}

// wait sleeps before attempt+1; it returns why it will not be made when
// ctx ends first or its deadline falls before the wait is over.
func (o Options) wait(ctx context.Context, attempt int) string {
	d := o.delay(attempt)
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
		return "deadline reached"
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return "run interrupted"
	case <-t.C:
		return ""
	}
}

// delay is the wait after failed attempt n (from 1): Backoff doubled n-1
// times, at most MaxBackoff.
func (o Options) delay(n int) time.Duration {
	d := o.Backoff
	for i := 1; i < n && d < o.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, o.MaxBackoff)
}

// newClient is an HTTP client that follows no redirect: a 3xx is reported

// Hints of the failures that have something to say.
const (
	hintWebserverURL = "is dagster.webserverURL Dagster's webserver?"
	hintUnreachable  = "check the contract's dagster.webserverURL, that the webserver runs, and the NetworkPolicies"
)

// failure is the *Error of a failed ReloadLocation: its code, hint and
// whether Run retries it, by the client's Kind.
func failure(err error) *Error {
	var ge *graphql.Error
	if !errors.As(err, &ge) {
		return &Error{Code: CodeUnreachable, retryable: true, Message: oneLine(err.Error())}
	}
	e := &Error{Message: ge.Message, HTTPStatus: ge.HTTPStatus}
	status := ge.HTTPStatus
	switch ge.Kind {
	case graphql.RequestFailed:
		e.Code = CodeUnreachable
	case graphql.Unreachable:
		e.Code, e.retryable, e.Hint = CodeUnreachable, true, hintUnreachable
	case graphql.Canceled:
		// The run's own deadline, or a signal: no time for another one.
		e.Code = CodeTimeout
	case graphql.Timeout:
		e.Code, e.retryable, e.Hint = CodeTimeout, true, "a large code-location may need a longer --request-timeout"
	case graphql.HTTPStatus:
		e.Code, e.retryable = CodeHTTPError, status >= 500 || status == http.StatusTooManyRequests
		switch {
		case status >= 300 && status < 400:
			e.Hint = "the webserver redirects to " + ge.Redirect + "; give that URL as dagster.webserverURL"
		case status == http.StatusNotFound:
			e.Hint = "no GraphQL endpoint at this URL; check dagster.webserverURL and the webserver's --path-prefix"
		}
	case graphql.GraphQLErrors:
		e.Code, e.retryable = CodeGraphQLError, status >= 500
		if status < 500 {
			e.Hint = "the webserver's Dagster does not have the reloadRepositoryLocation mutation codeloc sends; check its version"
		}
	case graphql.NotGraphQL:
		e.Code, e.Hint = CodeBadResponse, hintWebserverURL
	case graphql.LocationNotFound:
		// Retried: the webserver's workspace is what it last read of
		// workspace.yaml. A first sync of a new code-location can run its
		// PostSync hook while the webserver still runs on the old
		// workspace (its pod is being replaced after a workspace change,
		// or another replica answers), so the name can appear within the
		// attempts.
		e.Code, e.retryable = CodeLocationNotFound, true
		e.Hint = "the webserver's workspace must list the code-location under this name; it reads workspace.yaml at start and on a workspace reload"
	case graphql.ReloadNotSupported:
		e.Code, e.Hint = CodeNotSupported, "declare the location as a gRPC server (grpc_server) in the workspace"
	case graphql.Unauthorized:
		e.Code, e.Hint = CodeUnauthorized, "the webserver must not run with --read-only, and must let this client reload locations"
	case graphql.PythonError:
		// An exception in the webserver while reloading: retried, it may
		// be a passing failure of its storage.
		e.Code, e.retryable = CodePythonError, true
	case graphql.Loading:
		e.Code, e.retryable = CodeLoadError, true
	case graphql.LoadError:
		// An error in the user code, or the code server not reachable
		// yet. Retried, since the latter heals; the former is reported
		// after the attempts.
		e.Code, e.retryable, e.Hint = CodeLoadError, true, "see the code server's logs; the webserver shows the whole error"
	default: // graphql.BadResponse
		e.Code = CodeBadResponse
	}
	return e
}

// oneLine folds a whole text onto one line, bounded to MaxMessageBytes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= MaxMessageBytes {
		return s
	}
	return names.TruncateUTF8(s, MaxMessageBytes-len("…")) + "…"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
