package graphql

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestEndpoint(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{in: "http://dagster-dagster-webserver.dagster.svc:80", want: "http://dagster-dagster-webserver.dagster.svc:80/graphql"},
		{in: "http://dagster-dagster-webserver.dagster.svc/", want: "http://dagster-dagster-webserver.dagster.svc/graphql"},
		{in: "https://dagster.example.org/dagster", want: "https://dagster.example.org/dagster/graphql"},
		{in: "https://dagster.example.org/dagster/", want: "https://dagster.example.org/dagster/graphql"},
		{in: "", err: `"" is not an http(s) URL of the Dagster webserver`},
		{in: "dagster-dagster-webserver:80", err: "is not an http(s) URL"},
		{in: "grpc://dagster:4000", err: "is not an http(s) URL"},
		{in: "http://", err: "is not an http(s) URL"},
		{in: "http://admin:s3cr3t@dagster/", err: `"http://admin:xxxxx@dagster/": give the webserver's base URL, without credentials, query or fragment`},
		{in: "http://dagster/?x=1", err: "without credentials, query or fragment"},
	} {
		got, err := Endpoint(tt.in)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("Endpoint(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("Endpoint(%q) error %v, want one containing %q", tt.in, err, tt.err)
		case err != nil && strings.Contains(err.Error(), "s3cr3t"):
			t.Errorf("Endpoint(%q) error shows the password: %v", tt.in, err)
		}
	}
}

// TestReloadLocationRequest: one POST to <base>/graphql as the webserver's
// graphql_http_endpoint reads it, the location's name a variable, never
// spliced into the query, and PythonError's stack never asked for.
func TestReloadLocationRequest(t *testing.T) {
	var got struct {
		method, path, contentType, userAgent string
		body                                 request
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.method, got.path, got.contentType, got.userAgent = r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("User-Agent")
		if err := json.NewDecoder(r.Body).Decode(&got.body); err != nil {
			t.Error(err)
		}
		_, _ = io.WriteString(w, `{"data":{"reloadRepositoryLocation":{"__typename":"WorkspaceLocationEntry","name":"citation","loadStatus":"LOADED","locationOrLoadError":{"__typename":"RepositoryLocation","name":"citation","repositories":[{"name":"a"},{"name":"b"}]}}}}`)
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL+"/dagster/", Options{UserAgent: "test/1"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	entry, err := c.ReloadLocation(context.Background(), "citation")
	if err != nil || entry != (LocationEntry{Name: "citation", LoadStatus: "LOADED", Repositories: 2}) {
		t.Fatalf("ReloadLocation = %+v, %v", entry, err)
	}
	switch {
	case got.method != http.MethodPost || got.path != "/dagster/graphql" || got.contentType != "application/json" || got.userAgent != "test/1":
		t.Errorf("request %+v", got)
	case got.body.OperationName != ReloadLocationOperation || got.body.Query != ReloadLocationMutation:
		t.Errorf("operation %q, query %q", got.body.OperationName, got.body.Query)
	case len(got.body.Variables) != 1 || got.body.Variables["repositoryLocationName"] != "citation":
		t.Errorf("variables %v", got.body.Variables)
	case strings.Contains(ReloadLocationMutation, "citation") || strings.Contains(ReloadLocationMutation, "stack"):
		t.Errorf("query %s", ReloadLocationMutation)
	}
}

// TestDecode: each answer of Dagster's schema, and what is not one, gives
// its Kind and one bounded line.
func TestDecode(t *testing.T) {
	entry := func(loc string) string {
		return `{"data":{"reloadRepositoryLocation":{"__typename":"WorkspaceLocationEntry","name":"citation","loadStatus":"LOADED","locationOrLoadError":` + loc + `}}}`
	}
	member := func(typename, message string) string {
		return `{"data":{"reloadRepositoryLocation":{"__typename":"` + typename + `","message":"` + message + `"}}}`
	}
	for _, tt := range []struct {
		name   string
		status int
		header http.Header
		body   string
		kind   Kind
		msg    string
	}{
		{"loading", 200, nil, entry("null"), Loading, "Dagster has neither loaded citation nor failed to (loadStatus LOADED)"},
		{"load error", 200, nil, entry(`{"__typename":"PythonError","message":"ImportError: no\nTraceback","cause":{"message":"ModuleNotFoundError: x\n"}}`), LoadError,
			"Dagster could not load the code-location: ImportError: no (caused by ModuleNotFoundError: x)"},
		{"unknown location member", 200, nil, entry(`{"__typename":"Other"}`), BadResponse, `locationOrLoadError has an unknown __typename "Other"`},
		{"not found", 200, nil, member("RepositoryLocationNotFound", "Location citation does not exist."), LocationNotFound, "Location citation does not exist."},
		{"not supported", 200, nil, member("ReloadNotSupported", "Location citation does not support reloading."), ReloadNotSupported, "Location citation does not support reloading."},
		{"unauthorized", 200, nil, member("UnauthorizedError", "Authorization failed"), Unauthorized, "Authorization failed"},
		{"python error", 500, nil, member("PythonError", "OperationalError: down"), PythonError, "the webserver failed: OperationalError: down"},
		{"unknown member", 200, nil, member("New", ""), BadResponse, `reloadRepositoryLocation answered an unknown __typename "New"`},
		{"graphql errors", 400, nil, `{"data":null,"errors":[{"message":"Cannot query field"},{"message":"x"}]}`, GraphQLErrors, "Dagster answered HTTP 400 with GraphQL errors: Cannot query field (and 1 more)"},
		{"redirect", 307, http.Header{"Location": {"https://d.example.org/graphql"}}, "", HTTPStatus, "HTTP 307 Temporary Redirect"},
		{"gateway", 502, nil, "<html>\nbad</html>", HTTPStatus, "HTTP 502 Bad Gateway: <html>"},
		{"not JSON", 200, nil, "<!doctype html>", NotGraphQL, "the answer is not JSON: <!doctype html>"},
		{"no data", 200, nil, `{"data":{}}`, NotGraphQL, "the answer has no data.reloadRepositoryLocation and no errors"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := &http.Response{StatusCode: tt.status, Status: fmt.Sprintf("%d %s", tt.status, http.StatusText(tt.status)), Header: tt.header}
			_, e := decode(resp, []byte(tt.body))
			if e == nil || e.Kind != tt.kind || e.Message != tt.msg || e.HTTPStatus != tt.status {
				t.Fatalf("decode = %#v, want kind %d, message %q", e, tt.kind, tt.msg)
			}
			if tt.status == 307 && e.Redirect != "https://d.example.org/graphql" {
				t.Errorf("redirect %q", e.Redirect)
			}
		})
	}
}

// TestTransportErrors: nothing listening, a request past the client's
// timeout, and the caller's context ending are three kinds.
func TestTransportErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // so that the server sees the client go
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()

	kind := func(base string, timeout time.Duration, ctx context.Context) Kind {
		c, err := NewClient(base, Options{RequestTimeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, err = c.ReloadLocation(ctx, "citation")
		var e *Error
		if !errors.As(err, &e) || strings.ContainsAny(e.Message, "\n\r") {
			t.Fatalf("error %#v", err)
		}
		return e.Kind
	}
	if k := kind(closed, 0, context.Background()); k != Unreachable {
		t.Errorf("closed port: kind %d", k)
	}
	if k := kind(slow.URL, 50*time.Millisecond, context.Background()); k != Timeout {
		t.Errorf("slow: kind %d", k)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if k := kind(slow.URL, time.Minute, ctx); k != Canceled {
		t.Errorf("caller's deadline: kind %d", k)
	}
}
