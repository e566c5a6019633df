// Package reload asks the platform's Dagster webserver to reload one
// code-location: `codeloc-jobs reload`, which the PostSync hook pod
// `<codeLocation>-reload` runs after every successful sync when the cluster
// contract sets dagster.webserverURL. Without it the webserver keeps serving
// the definitions it loaded from the code server's previous pods.
//
// It sends Dagster's own reloadRepositoryLocation mutation (the one the
// webserver's "Reload" button and dagster-graphql's Python client send) as
// an HTTP POST of {"query", "variables", "operationName"} to
// <webserverURL>/graphql, decodes the result union by __typename, and
// returns a Result or an *Error with a stable code (codes.go), retrying
// what may heal with a bounded backoff.
//
// The schema followed is Dagster's, read from its sources
// (github.com/dagster-io/dagster, python_modules/):
//
//   - dagster-graphql/dagster_graphql/schema/roots/mutation.py: the field
//     Mutation.reloadRepositoryLocation(repositoryLocationName: String!),
//     non-null, of the union ReloadRepositoryLocationMutationResult =
//     WorkspaceLocationEntry | ReloadNotSupported |
//     RepositoryLocationNotFound | UnauthorizedError | PythonError; its
//     resolver answers RepositoryLocationNotFound when the current workspace
//     has no entry of that name, ReloadNotSupported when the entry's origin
//     cannot reload, else reloads and returns the new WorkspaceLocationEntry;
//     @capture_error turns an exception into a PythonError.
//   - dagster-graphql/dagster_graphql/schema/external.py:
//     WorkspaceLocationEntry {name, loadStatus: RepositoryLocationLoadStatus
//     (LOADING | LOADED), locationOrLoadError: RepositoryLocationOrLoadError
//     (nullable) = RepositoryLocation | PythonError}, RepositoryLocation
//     {name, repositories {name}}.
//   - dagster-graphql/dagster_graphql/schema/errors.py: every error type
//     has message (ReloadNotSupported "Location X does not support
//     reloading.", RepositoryLocationNotFound "Location X does not exist.",
//     UnauthorizedError "Authorization failed" by default); PythonError also
//     has stack, cause, errorChain. The stack is never asked for.
//   - dagster-graphql/dagster_graphql/implementation/utils.py:
//     capture_error reports the exception to ErrorCapture's observer;
//     UnauthorizedError is raised as a UserFacingGraphQLError and returned
//     as data.
//   - dagster-webserver/dagster_webserver/graphql.py: graphql_http_endpoint
//     takes a POST whose Content-Type contains application/json, reads
//     query, variables and operationName; a parse or validation error is
//     HTTP 400 {"data": null, "errors": [...]}; an execution is HTTP 500
//     when an exception was captured (so a PythonError result arrives with
//     status 500 and its data), 400 for other errors, else 200.
//   - dagster-graphql/dagster_graphql/client/client_queries.py:
//     RELOAD_REPOSITORY_LOCATION_MUTATION, Dagster's own client query, whose
//     shape the query below follows.
package reload

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/codeloc/codeloc/internal/names"
)

// OperationName names the mutation's operation in the request.
const OperationName = "CodelocReloadRepositoryLocation"

// Mutation is the GraphQL document sent: Dagster's reloadRepositoryLocation
// with the location name as a variable (never spliced into the text). Every
// member of the result union is asked for its __typename and message;
// PythonError for its message and its cause's, never its stack.
const Mutation = `mutation ` + OperationName + `($repositoryLocationName: String!) {
  reloadRepositoryLocation(repositoryLocationName: $repositoryLocationName) {
    __typename
    ... on WorkspaceLocationEntry {
      name
      loadStatus
      locationOrLoadError {
        __typename
        ... on RepositoryLocation {
          name
          repositories {
            name
          }
        }
        ... on PythonError {
          message
          cause {
            message
          }
        }
      }
    }
    ... on ReloadNotSupported {
      message
    }
    ... on RepositoryLocationNotFound {
      message
    }
    ... on UnauthorizedError {
      message
    }
    ... on PythonError {
      message
      cause {
        message
      }
    }
  }
}`

// Defaults of Options.
const (
	DefaultAttempts       = 8
	DefaultRequestTimeout = 60 * time.Second
	DefaultBackoff        = time.Second
	DefaultMaxBackoff     = 15 * time.Second
)

// MaxMessageBytes bounds the part of a message (Dagster's, or an HTTP
// body's) that goes into a result line.
const MaxMessageBytes = 300

// maxBodyBytes bounds the answer read: the one asked for is a few hundred
// bytes.
const maxBodyBytes = 1 << 20

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
// followed by /graphql. base must be an absolute http(s) URL with a host,
// without credentials, query or fragment.
func Endpoint(base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL of the Dagster webserver (for example http://dagster-dagster-webserver.dagster.svc:80)", base)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q: give the webserver's base URL, without credentials, query or fragment", u.Redacted())
	}
	return u.JoinPath("graphql").String(), nil
}

// Run reloads opts.Location in the webserver at opts.WebserverURL. It
// retries, with a doubling backoff, what may heal: the webserver
// unreachable or slow, a 5xx or 429 answer, a PythonError, a load error of
// the location, and RepositoryLocationNotFound. It does not retry what
// another identical request would get again: UnauthorizedError,
// ReloadNotSupported, a query the schema rejects (400), an answer that is
// not Dagster's. A failure is an *Error; invalid options are another error.
func Run(ctx context.Context, opts Options) (Result, error) {
	o := opts.withDefaults()
	endpoint, err := Endpoint(o.WebserverURL)
	if err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(o.Location) == "" {
		return Result{}, errors.New("no code-location name given")
	}
	client := o.HTTPClient
	if client == nil {
		client = newClient()
		defer client.CloseIdleConnections()
	}
	body, err := json.Marshal(graphqlRequest{
		Query:         Mutation,
		Variables:     map[string]string{"repositoryLocationName": o.Location},
		OperationName: OperationName,
	})
	if err != nil {
		return Result{}, err
	}
	start := time.Now()
	var last *Error
	for attempt := 1; ; attempt++ {
		res, failure := o.attempt(ctx, client, endpoint, body)
		if failure == nil {
			res.Attempts, res.Elapsed = attempt, time.Since(start)
			return res, nil
		}
		last = failure
		last.Attempts = attempt
		if !failure.retryable || attempt >= o.Attempts {
			break
		}
		if failure.Code == CodeLocationNotFound {
			// A location added since the webserver started is unknown to it
			// until it reads workspace.yaml again, which only
			// reloadWorkspace makes it do (_core/workspace/context.py).
			o.reloadWorkspace(ctx, client, endpoint)
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
// with its Location, so that the contract's URL gets fixed.
func newClient() *http.Client {
	return &http.Client{
		Transport:     http.DefaultTransport.(*http.Transport).Clone(),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// WorkspaceOperationName names the reloadWorkspace mutation's operation.
const WorkspaceOperationName = "CodelocReloadWorkspace"

// WorkspaceMutation makes the webserver read its workspace.yaml again
// (dagster-graphql schema/roots/mutation.py: reloadWorkspace, whose result
// is Workspace, UnauthorizedError or PythonError).
const WorkspaceMutation = `mutation ` + WorkspaceOperationName + ` {
  reloadWorkspace {
    __typename
    ... on PythonError { message }
    ... on UnauthorizedError { message }
  }
}`

// reloadWorkspace asks the webserver to read its workspace again; its
// outcome shows in the next reloadRepositoryLocation, so it is not read.
func (o Options) reloadWorkspace(ctx context.Context, client *http.Client, endpoint string) {
	body, err := json.Marshal(graphqlRequest{Query: WorkspaceMutation, Variables: map[string]string{}, OperationName: WorkspaceOperationName})
	if err != nil {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, o.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", o.UserAgent)
	if resp, err := client.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBodyBytes))
		resp.Body.Close()
	}
}

// graphqlRequest is the body of a GraphQL POST, as the webserver's
// graphql_http_endpoint reads it.
type graphqlRequest struct {
	Query         string            `json:"query"`
	Variables     map[string]string `json:"variables"`
	OperationName string            `json:"operationName"`
}

// attempt sends one request and classifies its outcome.
func (o Options) attempt(ctx context.Context, client *http.Client, endpoint string, body []byte) (Result, *Error) {
	rctx, cancel := context.WithTimeout(ctx, o.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return Result{}, &Error{Code: CodeUnreachable, Message: oneLine(err.Error())}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", o.UserAgent)
	resp, err := client.Do(req)
	if err != nil {
		return Result{}, o.transportError(ctx, endpoint, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes+1))
	if err != nil {
		return Result{}, o.transportError(ctx, endpoint, err)
	}
	if len(data) > maxBodyBytes {
		return Result{}, &Error{Code: CodeBadResponse, HTTPStatus: resp.StatusCode, Message: fmt.Sprintf("the answer of %s is larger than %d bytes", endpoint, maxBodyBytes)}
	}
	return classify(resp, data)
}

// transportError classifies a request that got no (whole) answer.
func (o Options) transportError(ctx context.Context, endpoint string, err error) *Error {
	if ctx.Err() != nil { // the run's own deadline, or a signal
		return &Error{Code: CodeTimeout, Message: fmt.Sprintf("no answer from %s before the run ended (%v)", endpoint, context.Cause(ctx))}
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &Error{Code: CodeTimeout, retryable: true,
			Message: fmt.Sprintf("no answer from %s within %s", endpoint, o.RequestTimeout),
			Hint:    "a large code-location may need a longer --request-timeout"}
	}
	return &Error{Code: CodeUnreachable, retryable: true, Message: oneLine(err.Error()),
		Hint: "check the contract's dagster.webserverURL, that the webserver runs, and the NetworkPolicies"}
}

// graphqlResponse is what the webserver answers: the data asked for and/or
// GraphQL errors.
type graphqlResponse struct {
	Data *struct {
		Reload *reloadResult `json:"reloadRepositoryLocation"`
	} `json:"data"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

// pythonError is Dagster's PythonError, without its stack.
type pythonError struct {
	Message string `json:"message"`
	Cause   *struct {
		Message string `json:"message"`
	} `json:"cause"`
}

// text is the error's first line, then its cause's first line.
func (p pythonError) text() string {
	s := firstLine(p.Message)
	if p.Cause != nil {
		if c := firstLine(p.Cause.Message); c != "" {
			s += " (caused by " + c + ")"
		}
	}
	return bound(s)
}

// reloadResult is one member of ReloadRepositoryLocationMutationResult;
// __typename tells which, and which fields are set.
type reloadResult struct {
	Typename string `json:"__typename"`
	// Error types (ReloadNotSupported, RepositoryLocationNotFound,
	// UnauthorizedError, PythonError).
	pythonError
	// WorkspaceLocationEntry.
	Name                string `json:"name"`
	LoadStatus          string `json:"loadStatus"`
	LocationOrLoadError *struct {
		Typename string `json:"__typename"`
		pythonError
		Name         string `json:"name"`
		Repositories []struct {
			Name string `json:"name"`
		} `json:"repositories"`
	} `json:"locationOrLoadError"`
}

// classify turns an answer into a Result or an *Error. The body is read
// as GraphQL whatever the status: Dagster answers a PythonError with 500.
func classify(resp *http.Response, data []byte) (Result, *Error) {
	status := resp.StatusCode
	var r graphqlResponse
	isJSON := json.Unmarshal(data, &r) == nil
	switch {
	case isJSON && r.Data != nil && r.Data.Reload != nil:
		res, err := union(r.Data.Reload)
		if err != nil {
			err.HTTPStatus = status
		}
		return res, err
	case isJSON && len(r.Errors) > 0:
		msg := firstLine(r.Errors[0].Message)
		if n := len(r.Errors) - 1; n > 0 {
			msg += fmt.Sprintf(" (and %d more)", n)
		}
		e := &Error{Code: CodeGraphQLError, HTTPStatus: status, retryable: status >= 500,
			Message: fmt.Sprintf("Dagster answered HTTP %d with GraphQL errors: %s", status, bound(msg))}
		if status < 500 {
			e.Hint = "the webserver's Dagster does not have the reloadRepositoryLocation mutation codeloc sends; check its version"
		}
		return Result{}, e
	case status < 200 || status > 299:
		return Result{}, httpError(resp, data)
	case !isJSON:
		return Result{}, &Error{Code: CodeBadResponse, HTTPStatus: status,
			Message: "the answer is not JSON: " + bound(firstLine(string(data))), Hint: "is dagster.webserverURL Dagster's webserver?"}
	default:
		return Result{}, &Error{Code: CodeBadResponse, HTTPStatus: status,
			Message: "the answer has no data.reloadRepositoryLocation and no errors", Hint: "is dagster.webserverURL Dagster's webserver?"}
	}
}

// httpError is a non-2xx answer without a GraphQL body.
func httpError(resp *http.Response, data []byte) *Error {
	status := resp.StatusCode
	e := &Error{Code: CodeHTTPError, HTTPStatus: status, retryable: status >= 500 || status == http.StatusTooManyRequests,
		Message: "HTTP " + resp.Status}
	if line := firstLine(string(data)); line != "" {
		e.Message += ": " + bound(line)
	}
	switch {
	case status >= 300 && status < 400:
		e.Hint = "the webserver redirects to " + resp.Header.Get("Location") + "; give that URL as dagster.webserverURL"
	case status == http.StatusNotFound:
		e.Hint = "no GraphQL endpoint at this URL; check dagster.webserverURL and the webserver's --path-prefix"
	}
	return e
}

// union decodes ReloadRepositoryLocationMutationResult by __typename.
func union(u *reloadResult) (Result, *Error) {
	switch u.Typename {
	case "WorkspaceLocationEntry":
		l := u.LocationOrLoadError
		switch {
		case l == nil:
			// locationOrLoadError is nullable: no location and no error
			// yet, the entry is still LOADING.
			return Result{}, &Error{Code: CodeLoadError, retryable: true,
				Message: fmt.Sprintf("Dagster has neither loaded %s nor failed to (loadStatus %s)", u.Name, u.LoadStatus)}
		case l.Typename == "RepositoryLocation":
			return Result{Location: cmp.Or(l.Name, u.Name), LoadStatus: u.LoadStatus, Repositories: len(l.Repositories)}, nil
		case l.Typename == "PythonError":
			// The code server could not be loaded: an error in the user
			// code, or the server not reachable yet. Retried, since the
			// latter heals; the former is reported after the attempts.
			return Result{}, &Error{Code: CodeLoadError, retryable: true,
				Message: "Dagster could not load the code-location: " + l.text(),
				Hint:    "see the code server's logs; the webserver shows the whole error"}
		default:
			return Result{}, &Error{Code: CodeBadResponse, Message: fmt.Sprintf("locationOrLoadError has an unknown __typename %q", l.Typename)}
		}
	case "RepositoryLocationNotFound":
		// Retried: Dagster answers it when its current workspace has no
		// entry of that name, and the workspace is what the webserver last
		// read of workspace.yaml. A first sync of a new code-location can
		// run its PostSync hook while the webserver still runs on the old
		// workspace (its pod is being replaced after a workspace change,
		// or another replica answers), so the name can appear within the
		// attempts.
		return Result{}, &Error{Code: CodeLocationNotFound, retryable: true, Message: bound(firstLine(u.Message)),
			Hint: "the webserver's workspace must list the code-location under this name; it reads workspace.yaml at start and on a workspace reload"}
	case "ReloadNotSupported":
		return Result{}, &Error{Code: CodeNotSupported, Message: bound(firstLine(u.Message)),
			Hint: "declare the location as a gRPC server (grpc_server) in the workspace"}
	case "UnauthorizedError":
		return Result{}, &Error{Code: CodeUnauthorized, Message: bound(firstLine(u.Message)),
			Hint: "the webserver must not run with --read-only, and must let this client reload locations"}
	case "PythonError":
		// An exception in the webserver while reloading (answered with
		// HTTP 500): retried, it may be a passing failure of its storage.
		return Result{}, &Error{Code: CodePythonError, retryable: true, Message: "the webserver failed: " + u.text()}
	default:
		return Result{}, &Error{Code: CodeBadResponse, Message: fmt.Sprintf("reloadRepositoryLocation answered an unknown __typename %q", u.Typename)}
	}
}

// firstLine is s's first non-blank line, with control characters turned
// into spaces: a Python message's first line never holds its traceback.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// oneLine folds a whole text onto one line, bounded.
func oneLine(s string) string {
	return bound(strings.Join(strings.Fields(s), " "))
}

// bound cuts s to MaxMessageBytes, marking the cut.
func bound(s string) string {
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
