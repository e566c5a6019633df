package reload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/codeloc/codeloc/dagster/graphql"
)

// Dagster cannot run here: these tests stand it in with an HTTP server
// that reads requests as dagster-webserver's graphql_http_endpoint does
// (dagster_webserver/graphql.py) and answers what Dagster's schema answers
// for each outcome (dagster_graphql/schema/roots/mutation.py, external.py,
// errors.py): the fields asked for only, with the HTTP status the
// webserver sets (_determine_status_code: 500 when an exception was
// captured, which is how a PythonError result arrives; 400 for a query the
// schema rejects).

// answer is one HTTP answer of the stand-in webserver.
type answer struct {
	status int
	body   string
	header map[string]string
	delay  time.Duration // before answering (the request's end cuts it short)
}

// Members of ReloadRepositoryLocationMutationResult, as Dagster serializes
// them for the query graphql.ReloadLocationMutation asks.
func result(member string) string {
	return `{"data":{"reloadRepositoryLocation":` + member + `}}`
}

func entry(name, loadStatus, locationOrLoadError string) string {
	return result(`{"__typename":"WorkspaceLocationEntry","name":"` + name + `","loadStatus":"` + loadStatus +
		`","locationOrLoadError":` + locationOrLoadError + `}`)
}

func repositoryLocation(name string, repos ...string) string {
	rs := make([]string, len(repos))
	for i, r := range repos {
		rs[i] = `{"name":"` + r + `"}`
	}
	return `{"__typename":"RepositoryLocation","name":"` + name + `","repositories":[` + strings.Join(rs, ",") + `]}`
}

// pythonErr is a PythonError: message and cause (stack is not asked for,
// so Dagster does not send it). Messages are traceback.format_exception_only
// lines: "Class: text\n", possibly several lines.
func pythonErr(message, cause string) string {
	m, _ := json.Marshal(message)
	c := "null"
	if cause != "" {
		cm, _ := json.Marshal(cause)
		c = `{"message":` + string(cm) + `}`
	}
	return `{"__typename":"PythonError","message":` + string(m) + `,"cause":` + c + `}`
}

func errorType(typename, message string) string {
	return result(`{"__typename":"` + typename + `","message":"` + message + `"}`)
}

var (
	okAnswer = answer{status: 200, body: entry("citation", "LOADED", repositoryLocation("citation", "__repository__"))}
	// A query this Dagster's schema rejects: graphql-core's validation
	// error, answered 400 with data null.
	schemaErrors = answer{status: 400, body: `{"data":null,"errors":[{"message":"Cannot query field 'reloadRepositoryLocation' on type 'Mutation'.","locations":[{"line":2,"column":3}]}]}`}
)

// dagster is the stand-in webserver: it checks every request and serves
// the answers in order, the last one again once they are used up.
type dagster struct {
	t       *testing.T
	prefix  string
	answers []answer
	mu      sync.Mutex
	n       int
	// workspaceReloads counts the reloadWorkspace mutations, answered
	// apart: they do not use up the answers.
	workspaceReloads int
}

func (d *dagster) requests() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.n
}

func (d *dagster) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if strings.Contains(string(body), graphql.ReloadWorkspaceOperation) {
		d.mu.Lock()
		d.workspaceReloads++
		d.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"data": {"reloadWorkspace": {"__typename": "Workspace"}}}`)
		return
	}
	d.mu.Lock()
	i := min(d.n, len(d.answers)-1)
	d.n++
	d.mu.Unlock()
	if msg := checkRequest(r, d.prefix+"/graphql"); msg != "" {
		d.t.Errorf("request %d: %s", i+1, msg)
		http.Error(w, msg, http.StatusBadRequest)
		return
	}
	a := d.answers[i]
	if a.delay > 0 {
		select {
		case <-time.After(a.delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(a.status)
	io.WriteString(w, a.body)
}

// checkRequest checks a request as graphql_http_endpoint reads it: a POST
// to the endpoint, Content-Type application/json, a JSON body whose query
// is the reloadRepositoryLocation mutation and whose variables carry the
// location's name.
func checkRequest(r *http.Request, path string) string {
	if r.Method != http.MethodPost || r.URL.Path != path {
		return "got " + r.Method + " " + r.URL.Path + ", want POST " + path
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		return "Content-Type " + ct
	}
	var body struct {
		Query         string            `json:"query"`
		Variables     map[string]string `json:"variables"`
		OperationName string            `json:"operationName"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		return "body: " + err.Error()
	}
	switch {
	case !strings.HasPrefix(body.Query, "mutation "+graphql.ReloadLocationOperation+"($repositoryLocationName: String!)"):
		return "query does not declare the mutation and its variable: " + body.Query
	case !strings.Contains(body.Query, "reloadRepositoryLocation(repositoryLocationName: $repositoryLocationName)"):
		return "query does not call reloadRepositoryLocation with the variable"
	case strings.Contains(body.Query, "citation"):
		return "the location's name is spliced into the query"
	case strings.Contains(body.Query, "stack"):
		return "the query asks for PythonError.stack"
	case body.OperationName != graphql.ReloadLocationOperation:
		return "operationName " + body.OperationName
	case len(body.Variables) != 1 || body.Variables["repositoryLocationName"] != "citation":
		return "variables do not carry the location name"
	}
	return ""
}

// closedPort is an address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestRun(t *testing.T) {
	loadError := pythonErr(
		"dagster._core.errors.DagsterUserCodeUnreachableError: Could not reach user code server. gRPC Error code: UNAVAILABLE\n",
		"grpc._channel._InactiveRpcError: <_InactiveRpcError of RPC that terminated with:\n\tstatus = StatusCode.UNAVAILABLE\n\tdetails = \"failed to connect to all addresses\"\n>\n")
	importError := pythonErr(
		"dagster._core.errors.DagsterImportError: Encountered ImportError: `No module named 'citation'` while importing module citation.\nIf relative imports are failing, try setting --working-directory.\n",
		"ModuleNotFoundError: No module named 'citation'\n")
	tests := []struct {
		name     string
		answers  []answer // nil: nothing listens
		attempts int
		timeout  time.Duration // per request
		want     string        // the whole line, durations as D
		code     string        // "" on success
		requests int
		retry    bool
	}{{
		name:     "success",
		answers:  []answer{okAnswer},
		want:     "reload citation: ok (LOADED, 1 repository; 1 attempt, D)",
		requests: 1,
	}, {
		name: "success, several repositories",
		answers: []answer{{status: 200, body: entry("citation", "LOADED",
			repositoryLocation("citation", "citation_repo", "maintenance"))}},
		want:     "reload citation: ok (LOADED, 2 repositories; 1 attempt, D)",
		requests: 1,
	}, {
		name:     "location not found, every attempt",
		answers:  []answer{{status: 200, body: errorType("RepositoryLocationNotFound", "Location citation does not exist.")}},
		code:     CodeLocationNotFound,
		want:     "reload citation: FAILED (3 attempts, D): reload-location-not-found: Location citation does not exist. (the webserver's workspace must list the code-location under this name; it reads workspace.yaml at start and on a workspace reload)",
		requests: 3, retry: true,
	}, {
		name:     "location not found, then found",
		answers:  []answer{{status: 200, body: errorType("RepositoryLocationNotFound", "Location citation does not exist.")}, okAnswer},
		want:     "reload citation: ok (LOADED, 1 repository; 2 attempts, D)",
		requests: 2,
	}, {
		name:     "PythonError: the webserver failed (HTTP 500)",
		answers:  []answer{{status: 500, body: result(pythonErr("sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at \"dagster-postgresql\" failed\n\n(Background on this error at: https://sqlalche.me/e/20/e3q8)\n", ""))}},
		code:     CodePythonError,
		want:     "reload citation: FAILED (3 attempts, D): reload-python-error: the webserver failed: sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at \"dagster-postgresql\" failed",
		requests: 3, retry: true,
	}, {
		name:     "the code server failed to load: unreachable",
		answers:  []answer{{status: 200, body: entry("citation", "LOADED", loadError)}},
		code:     CodeLoadError,
		want:     "reload citation: FAILED (3 attempts, D): reload-load-error: Dagster could not load the code-location: dagster._core.errors.DagsterUserCodeUnreachableError: Could not reach user code server. gRPC Error code: UNAVAILABLE (caused by grpc._channel._InactiveRpcError: <_InactiveRpcError of RPC that terminated with:) (see the code server's logs; the webserver shows the whole error)",
		requests: 3, retry: true,
	}, {
		name:     "the code server failed to load, then loaded",
		answers:  []answer{{status: 200, body: entry("citation", "LOADED", importError)}, okAnswer},
		want:     "reload citation: ok (LOADED, 1 repository; 2 attempts, D)",
		requests: 2,
	}, {
		name:     "the code server failed to load: import error",
		answers:  []answer{{status: 200, body: entry("citation", "LOADED", importError)}},
		attempts: 1,
		code:     CodeLoadError,
		want:     "reload citation: FAILED (1 attempt, D): reload-load-error: Dagster could not load the code-location: dagster._core.errors.DagsterImportError: Encountered ImportError: `No module named 'citation'` while importing module citation. (caused by ModuleNotFoundError: No module named 'citation') (see the code server's logs; the webserver shows the whole error)",
		requests: 1, retry: true,
	}, {
		name:     "still loading: no location, no error",
		answers:  []answer{{status: 200, body: entry("citation", "LOADING", "null")}, okAnswer},
		want:     "reload citation: ok (LOADED, 1 repository; 2 attempts, D)",
		requests: 2,
	}, {
		name:     "ReloadNotSupported: not retried",
		answers:  []answer{{status: 200, body: errorType("ReloadNotSupported", "Location citation does not support reloading.")}},
		code:     CodeNotSupported,
		want:     "reload citation: FAILED (1 attempt, D): reload-not-supported: Location citation does not support reloading. (declare the location as a gRPC server (grpc_server) in the workspace)",
		requests: 1,
	}, {
		name:     "UnauthorizedError: not retried",
		answers:  []answer{{status: 200, body: errorType("UnauthorizedError", "Authorization failed")}},
		code:     CodeUnauthorized,
		want:     "reload citation: FAILED (1 attempt, D): reload-unauthorized: Authorization failed (the webserver must not run with --read-only, and must let this client reload locations)",
		requests: 1,
	}, {
		name:     "GraphQL errors (schema): not retried",
		answers:  []answer{schemaErrors},
		code:     CodeGraphQLError,
		want:     "reload citation: FAILED (1 attempt, D): reload-graphql-error: Dagster answered HTTP 400 with GraphQL errors: Cannot query field 'reloadRepositoryLocation' on type 'Mutation'. (the webserver's Dagster does not have the reloadRepositoryLocation mutation codeloc sends; check its version)",
		requests: 1,
	}, {
		name: "GraphQL errors (resolver, 500): retried",
		answers: []answer{{status: 500, body: `{"data":null,"errors":[{"message":"Permission reload_repository_location was never checked during the request","locations":[{"line":2,"column":3}],"path":["reloadRepositoryLocation"]},{"message":"second"}]}`},
			okAnswer},
		want:     "reload citation: ok (LOADED, 1 repository; 2 attempts, D)",
		requests: 2,
	}, {
		name:     "HTTP 500 then success",
		answers:  []answer{{status: 500, body: "Internal Server Error", header: map[string]string{"Content-Type": "text/plain"}}, okAnswer},
		want:     "reload citation: ok (LOADED, 1 repository; 2 attempts, D)",
		requests: 2,
	}, {
		name:     "HTTP 502 from a proxy, every attempt",
		answers:  []answer{{status: 502, body: "<html><head><title>502 Bad Gateway</title></head>\n<body>...</body></html>", header: map[string]string{"Content-Type": "text/html"}}},
		code:     CodeHTTPError,
		want:     "reload citation: FAILED (3 attempts, D): reload-http-error: HTTP 502 Bad Gateway: <html><head><title>502 Bad Gateway</title></head>",
		requests: 3, retry: true,
	}, {
		name:     "HTTP 404: wrong URL, not retried",
		answers:  []answer{{status: 404, body: "Not Found", header: map[string]string{"Content-Type": "text/plain"}}},
		code:     CodeHTTPError,
		want:     "reload citation: FAILED (1 attempt, D): reload-http-error: HTTP 404 Not Found: Not Found (no GraphQL endpoint at this URL; check dagster.webserverURL and the webserver's --path-prefix)",
		requests: 1,
	}, {
		name:     "redirect: not followed",
		answers:  []answer{{status: 307, header: map[string]string{"Location": "https://dagster.example.org/graphql"}}},
		code:     CodeHTTPError,
		want:     "reload citation: FAILED (1 attempt, D): reload-http-error: HTTP 307 Temporary Redirect (the webserver redirects to https://dagster.example.org/graphql; give that URL as dagster.webserverURL)",
		requests: 1,
	}, {
		name:     "not JSON",
		answers:  []answer{{status: 200, body: "<!doctype html><title>Dagster</title>", header: map[string]string{"Content-Type": "text/html"}}},
		code:     CodeBadResponse,
		want:     "reload citation: FAILED (1 attempt, D): reload-bad-response: the answer is not JSON: <!doctype html><title>Dagster</title> (is dagster.webserverURL Dagster's webserver?)",
		requests: 1,
	}, {
		name:     "unknown __typename",
		answers:  []answer{{status: 200, body: result(`{"__typename":"SomethingNew"}`)}},
		code:     CodeBadResponse,
		want:     `reload citation: FAILED (1 attempt, D): reload-bad-response: reloadRepositoryLocation answered an unknown __typename "SomethingNew"`,
		requests: 1,
	}, {
		name:     "unreachable (closed port)",
		code:     CodeUnreachable,
		want:     `reload citation: FAILED (3 attempts, D): reload-unreachable: Post "http://ADDR/graphql": dial tcp ADDR: connect: connection refused (check the contract's dagster.webserverURL, that the webserver runs, and the NetworkPolicies)`,
		requests: 0, retry: true,
	}, {
		name:     "slow server, past the request timeout",
		answers:  []answer{{status: 200, body: okAnswer.body, delay: 5 * time.Second}},
		attempts: 2,
		timeout:  100 * time.Millisecond,
		code:     CodeTimeout,
		want:     "reload citation: FAILED (2 attempts, D): reload-timeout: no answer from http://ADDR/graphql within 100ms (a large code-location may need a longer --request-timeout)",
		requests: 2, retry: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &dagster{t: t, answers: tt.answers}
			addr := closedPort(t)
			if tt.answers != nil {
				srv := httptest.NewServer(fake)
				t.Cleanup(srv.Close)
				addr = strings.TrimPrefix(srv.URL, "http://")
			}
			opts := Options{WebserverURL: "http://" + addr, Location: "citation", Attempts: cmpOr(tt.attempts, 3),
				RequestTimeout: tt.timeout, Backoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}
			res, err := Run(context.Background(), opts)
			var line string
			var failure *Error
			switch {
			case err == nil:
				line = res.Line()
			case errors.As(err, &failure):
				line = failure.Line()
				if failure.Code != tt.code || failure.Retryable() != tt.retry {
					t.Errorf("code %s (retryable %v), want %s (retryable %v)", failure.Code, failure.Retryable(), tt.code, tt.retry)
				}
			default:
				t.Fatalf("error %v is not an *Error", err)
			}
			if err == nil && tt.code != "" {
				t.Errorf("succeeded, want %s", tt.code)
			}
			if got := strings.ReplaceAll(normalizeDuration(line), addr, "ADDR"); got != tt.want {
				t.Errorf("line:\n got %s\nwant %s", got, tt.want)
			}
			if strings.ContainsAny(line, "\n\r\t") || len(line) > 2*MaxMessageBytes+400 {
				t.Errorf("not one bounded line (%d bytes): %q", len(line), line)
			}
			if n := fake.requests(); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
		})
	}
}

var elapsedTime = regexp.MustCompile(`(attempts?(?:, deadline reached)?), [0-9.hmsµn]+\)`)

// normalizeDuration replaces the elapsed time of "(3 attempts, 12ms)" and
// "(...; 1 attempt, 1.5s)" with D.
func normalizeDuration(s string) string { return elapsedTime.ReplaceAllString(s, "$1, D)") }

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// TestRunUnderPathPrefix: a webserver started with --path-prefix serves
// GraphQL under it.
func TestRunUnderPathPrefix(t *testing.T) {
	fake := &dagster{t: t, prefix: "/dagster", answers: []answer{okAnswer}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	res, err := Run(context.Background(), Options{WebserverURL: srv.URL + "/dagster/", Location: "citation"})
	if err != nil || res.Location != "citation" || res.LoadStatus != "LOADED" || res.Repositories != 1 || res.Attempts != 1 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
}

func TestRunInvalidOptions(t *testing.T) {
	for _, opts := range []Options{
		{WebserverURL: "ftp://dagster", Location: "citation"},
		{WebserverURL: "http://dagster", Location: " "},
	} {
		var failure *Error
		if _, err := Run(context.Background(), opts); err == nil || errors.As(err, &failure) {
			t.Errorf("Run(%+v) = %v, want a plain error", opts, err)
		}
	}
}

// TestRunDeadline: the caller's deadline bounds the whole run: no wait
// goes past it, and a request it cuts short is not retried.
func TestRunDeadline(t *testing.T) {
	t.Run("no time left for the backoff", func(t *testing.T) {
		fake := &dagster{t: t, answers: []answer{{status: 200, body: errorType("RepositoryLocationNotFound", "Location citation does not exist.")}}}
		srv := httptest.NewServer(fake)
		defer srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		start := time.Now()
		_, err := Run(ctx, Options{WebserverURL: srv.URL, Location: "citation", Backoff: time.Hour})
		var failure *Error
		if !errors.As(err, &failure) || failure.Code != CodeLocationNotFound || failure.Attempts != 1 || failure.Stopped != "deadline reached" {
			t.Fatalf("Run error %#v", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("Run took %s: it waited although the deadline fell before the next attempt", d)
		}
		if got := normalizeDuration(failure.Line()); !strings.HasPrefix(got, "reload citation: FAILED (1 attempt, deadline reached, D): reload-location-not-found: ") {
			t.Errorf("line %q", got)
		}
	})
	t.Run("a slow request cut by the deadline", func(t *testing.T) {
		fake := &dagster{t: t, answers: []answer{{status: 200, body: okAnswer.body, delay: 5 * time.Second}}}
		srv := httptest.NewServer(fake)
		defer srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_, err := Run(ctx, Options{WebserverURL: srv.URL, Location: "citation"})
		var failure *Error
		if !errors.As(err, &failure) || failure.Code != CodeTimeout || failure.Retryable() || failure.Attempts != 1 ||
			!strings.Contains(failure.Message, "before the run ended (context deadline exceeded)") {
			t.Fatalf("Run error %#v", err)
		}
	})
}

// TestMessagesBounded: however long Dagster's message, the line keeps its
// first line only, cut to MaxMessageBytes, never splitting a character.
func TestMessagesBounded(t *testing.T) {
	long := "dagster._core.errors.DagsterUserCodeLoadError: " + strings.Repeat("é", 2000) + "\nTraceback (most recent call last):\n  File \"x.py\", line 1\n"
	fake := &dagster{t: t, answers: []answer{{status: 200, body: entry("citation", "LOADED", pythonErr(long, strings.Repeat("cause ", 500)))}}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	_, err := Run(context.Background(), Options{WebserverURL: srv.URL, Location: "citation", Attempts: 1})
	var failure *Error
	if !errors.As(err, &failure) {
		t.Fatal(err)
	}
	line := failure.Line()
	if strings.Contains(line, "Traceback") || strings.Contains(line, "x.py") || !strings.Contains(failure.Message, "…") ||
		len(failure.Message) > len("Dagster could not load the code-location: ")+MaxMessageBytes || !utf8.ValidString(line) {
		t.Errorf("message not bounded to its first line (%d bytes): %s", len(failure.Message), line)
	}
}

func TestDelay(t *testing.T) {
	o := Options{Backoff: time.Second, MaxBackoff: 15 * time.Second}
	var got []time.Duration
	for n := 1; n <= 6; n++ {
		got = append(got, o.delay(n))
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 15 * time.Second, 15 * time.Second}
	if !slices.Equal(got, want) {
		t.Errorf("delays %v, want %v", got, want)
	}
}

// TestNotFoundReloadsWorkspace: a location the webserver does not know yet
// (added to workspace.yaml since it started) makes Run send reloadWorkspace
// before the next attempt, which then finds it.
func TestNotFoundReloadsWorkspace(t *testing.T) {
	fake := &dagster{t: t, answers: []answer{{status: 200, body: errorType("RepositoryLocationNotFound", "Location citation does not exist.")}, okAnswer}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	res, err := Run(context.Background(), Options{WebserverURL: srv.URL, Location: "citation", Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 2 || fake.requests() != 2 || fake.workspaceReloads != 1 {
		t.Errorf("attempts %d, requests %d, workspace reloads %d; want 2, 2, 1", res.Attempts, fake.requests(), fake.workspaceReloads)
	}
}

// fakeWebserver answers ReloadLocation from a list, the last one again
// once they are used up, without HTTP.
type fakeWebserver struct {
	answers          []error
	calls            int
	workspaceReloads int
}

func (f *fakeWebserver) ReloadLocation(ctx context.Context, name string) (graphql.LocationEntry, error) {
	err := f.answers[min(f.calls, len(f.answers)-1)]
	f.calls++
	if err != nil {
		return graphql.LocationEntry{}, err
	}
	return graphql.LocationEntry{Name: name, LoadStatus: "LOADED", Repositories: 1}, nil
}

func (f *fakeWebserver) ReloadWorkspace(context.Context) error {
	f.workspaceReloads++
	return nil
}

// TestRunWebserver: the loop driven through the Webserver interface: each
// Kind of the client's errors gets its code, its retries and its hint.
func TestRunWebserver(t *testing.T) {
	for _, tt := range []struct {
		name      string
		answers   []error
		code      string
		calls     int
		reloads   int
		retryable bool
		hint      string
	}{
		{name: "not found, then found", answers: []error{&graphql.Error{Kind: graphql.LocationNotFound, Message: "Location citation does not exist."}, nil}, calls: 2, reloads: 1},
		{name: "load error every time", answers: []error{&graphql.Error{Kind: graphql.LoadError, Message: "m"}}, code: CodeLoadError, calls: 3, retryable: true, hint: "see the code server's logs"},
		{name: "loading, no hint", answers: []error{&graphql.Error{Kind: graphql.Loading, Message: "m"}}, code: CodeLoadError, calls: 3, retryable: true},
		{name: "unauthorized", answers: []error{&graphql.Error{Kind: graphql.Unauthorized, Message: "Authorization failed"}}, code: CodeUnauthorized, calls: 1, hint: "--read-only"},
		{name: "429 retried", answers: []error{&graphql.Error{Kind: graphql.HTTPStatus, HTTPStatus: 429, Message: "HTTP 429"}}, code: CodeHTTPError, calls: 3, retryable: true},
		{name: "canceled", answers: []error{&graphql.Error{Kind: graphql.Canceled, Message: "m"}}, code: CodeTimeout, calls: 1},
		{name: "another error", answers: []error{errors.New("boom\nagain")}, code: CodeUnreachable, calls: 3, retryable: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeWebserver{answers: tt.answers}
			res, err := Run(context.Background(), Options{Webserver: f, Location: "citation", Attempts: 3, Backoff: time.Millisecond})
			var failure *Error
			switch {
			case tt.code == "" && (err != nil || res.Attempts != tt.calls):
				t.Fatalf("Run = %+v, %v", res, err)
			case tt.code != "" && (!errors.As(err, &failure) || failure.Code != tt.code || failure.Retryable() != tt.retryable ||
				failure.Attempts != tt.calls || !strings.Contains(failure.Hint, tt.hint) || (tt.hint == "" && failure.Hint != "") ||
				strings.Contains(failure.Line(), "\n")):
				t.Fatalf("Run error %#v", err)
			}
			if f.calls != tt.calls || f.workspaceReloads != tt.reloads {
				t.Errorf("%d calls, %d workspace reloads; want %d, %d", f.calls, f.workspaceReloads, tt.calls, tt.reloads)
			}
		})
	}
}
