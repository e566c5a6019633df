package graphql

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// maxBodyBytes bounds the answer read: the one asked for is a few hundred
// bytes.
const maxBodyBytes = 1 << 20

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

// Options configure a Client.
type Options struct {
	// HTTPClient sends the requests; nil: a client of its own that
	// follows no redirect (a POST must not turn into a GET) and honours
	// the proxy environment.
	HTTPClient *http.Client
	// UserAgent is sent as User-Agent when not empty.
	UserAgent string
	// RequestTimeout bounds each request, answer included; zero: only
	// the caller's context does.
	RequestTimeout time.Duration
}

// Client sends codeloc's mutations to one Dagster webserver.
type Client struct {
	endpoint string
	http     *http.Client
	own      bool
	opts     Options
}

// NewClient is a client of the webserver at webserverURL, its base URL
// (path prefix included when it serves under one; see Endpoint).
func NewClient(webserverURL string, opts Options) (*Client, error) {
	endpoint, err := Endpoint(webserverURL)
	if err != nil {
		return nil, err
	}
	c := &Client{endpoint: endpoint, http: opts.HTTPClient, opts: opts}
	if c.http == nil {
		c.http, c.own = newHTTPClient(), true
	}
	return c, nil
}

// Endpoint is the GraphQL endpoint the client posts to.
func (c *Client) Endpoint() string { return c.endpoint }

// Close releases the idle connections of the client's own HTTP client
// (none of one given in Options).
func (c *Client) Close() {
	if c.own {
		c.http.CloseIdleConnections()
	}
}

// newHTTPClient is an HTTP client that follows no redirect: a 3xx is
// reported with its Location, so that the URL given gets fixed.
func newHTTPClient() *http.Client {
	return &http.Client{
		Transport:     http.DefaultTransport.(*http.Transport).Clone(),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// LocationEntry is a reloaded location: Dagster answered a
// WorkspaceLocationEntry whose locationOrLoadError is a RepositoryLocation.
type LocationEntry struct {
	// Name is the location's name, as Dagster gives it.
	Name string
	// LoadStatus is the entry's loadStatus (LOADED).
	LoadStatus string
	// Repositories is how many repositories the location holds.
	Repositories int
}

// ReloadLocation sends reloadRepositoryLocation for the location name and
// decodes the answer. A failure is an *Error.
func (c *Client) ReloadLocation(ctx context.Context, name string) (LocationEntry, error) {
	body, err := json.Marshal(request{
		Query:         ReloadLocationMutation,
		Variables:     map[string]string{"repositoryLocationName": name},
		OperationName: ReloadLocationOperation,
	})
	if err != nil {
		return LocationEntry{}, &Error{Kind: RequestFailed, Message: oneLine(err.Error())}
	}
	entry, failure := c.reloadLocation(ctx, body)
	if failure != nil {
		return LocationEntry{}, failure
	}
	return entry, nil
}

func (c *Client) reloadLocation(ctx context.Context, body []byte) (LocationEntry, *Error) {
	rctx, cancel := c.requestContext(ctx)
	defer cancel()
	req, err := c.newRequest(rctx, body)
	if err != nil {
		return LocationEntry{}, &Error{Kind: RequestFailed, Message: oneLine(err.Error())}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return LocationEntry{}, c.transportError(ctx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes+1))
	if err != nil {
		return LocationEntry{}, c.transportError(ctx, err)
	}
	if len(data) > maxBodyBytes {
		return LocationEntry{}, &Error{Kind: BadResponse, HTTPStatus: resp.StatusCode, Message: fmt.Sprintf("the answer of %s is larger than %d bytes", c.endpoint, maxBodyBytes)}
	}
	return decode(resp, data)
}

// ReloadWorkspace sends reloadWorkspace, which makes the webserver read its
// workspace.yaml again. Its answer is not read: its outcome shows in the
// next ReloadLocation. The error is the request's, when it got no answer.
func (c *Client) ReloadWorkspace(ctx context.Context) error {
	body, err := json.Marshal(request{Query: ReloadWorkspaceMutation, Variables: map[string]string{}, OperationName: ReloadWorkspaceOperation})
	if err != nil {
		return err
	}
	rctx, cancel := c.requestContext(ctx)
	defer cancel()
	req, err := c.newRequest(rctx, body)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBodyBytes))
	return resp.Body.Close()
}

func (c *Client) requestContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.opts.RequestTimeout > 0 {
		return context.WithTimeout(ctx, c.opts.RequestTimeout)
	}
	return context.WithCancel(ctx)
}

// newRequest is a POST of body to the endpoint.
func (c *Client) newRequest(ctx context.Context, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.opts.UserAgent != "" {
		req.Header.Set("User-Agent", c.opts.UserAgent)
	}
	return req, nil
}

// transportError classifies a request that got no (whole) answer; ctx is
// the caller's, which bounds its whole run.
func (c *Client) transportError(ctx context.Context, err error) *Error {
	if ctx.Err() != nil { // the run's own deadline, or a signal
		return &Error{Kind: Canceled, Message: fmt.Sprintf("no answer from %s before the run ended (%v)", c.endpoint, context.Cause(ctx))}
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &Error{Kind: Timeout, Message: fmt.Sprintf("no answer from %s within %s", c.endpoint, c.opts.RequestTimeout)}
	}
	return &Error{Kind: Unreachable, Message: oneLine(err.Error())}
}
