package preflight

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// Backoff of the retries of a call the API server failed transiently: an
// API server restarting (rolling upgrade, crash, failover behind a load
// balancer) refuses connections or answers 503 for seconds.
const (
	retryFirstWait = 250 * time.Millisecond
	retryMaxWait   = 4 * time.Second
	// forbiddenGrace: a kube-apiserver just started serves requests
	// before its RBAC authorizer has read the Roles, and refuses them
	// (403, seen in e2e/ right after a restart); a 403 this soon after a
	// lost connection is retried too, a later one is an answer.
	forbiddenGrace = 15 * time.Second
)

// transient names the failure when err is one an API server gives while it
// restarts or is overloaded, "" for any other error (an answer: 403, 404,
// 500...). client-go already retries a GET on a reset connection or an
// EOF, one second apart, but not a refused connection nor a 503 without
// Retry-After.
func transient(err error) string {
	switch {
	case err == nil:
		return ""
	case utilnet.IsConnectionRefused(err):
		return "connection refused"
	case utilnet.IsConnectionReset(err), utilnet.IsHTTP2ConnectionLost(err):
		return "connection reset"
	case utilnet.IsProbableEOF(err), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	case apierrors.IsServiceUnavailable(err):
		return "503 Service Unavailable"
	case apierrors.IsTooManyRequests(err):
		return "429 Too Many Requests"
	case apierrors.IsServerTimeout(err), apierrors.IsTimeout(err):
		return "server timeout"
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer within the call timeout"
	}
	return ""
}

// transientRoundTrip is transient for one HTTP exchange: its error, or
// the status of its response.
func transientRoundTrip(resp *http.Response, err error) string {
	if err != nil {
		return transient(err)
	}
	switch resp.StatusCode {
	case http.StatusServiceUnavailable:
		return "503 Service Unavailable"
	case http.StatusTooManyRequests:
		return "429 Too Many Requests"
	case http.StatusGatewayTimeout:
		return "server timeout"
	}
	return ""
}

// retried runs call, each attempt bounded by the call timeout, and runs it
// again after a transient failure, waiting 250 ms doubling to 4 s, while
// the API server has been failing for less than c.retryFor (one budget for
// every call of the run: calls made one after the other do not each wait
// it out) and ctx allows. Past that, the last error comes back wrapped in
// *retriesExhausted.
func retried[T any](ctx context.Context, c *client, call func(context.Context) (T, error)) (T, error) {
	start := time.Now()
	wait := retryFirstWait
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, c.timeout)
		v, err := call(actx)
		cancel()
		reason := transient(err)
		if reason == "" && apierrors.IsForbidden(err) && c.outages.lostWithin(forbiddenGrace) {
			reason = "403 Forbidden as it came back"
			c.outages.record(reason, false)
		}
		if reason == "" || ctx.Err() != nil {
			return v, err
		}
		if time.Since(c.outages.downSince(start))+wait > c.retryFor {
			return v, &retriesExhausted{err: err, reason: reason, attempts: attempt, elapsed: time.Since(start)}
		}
		select {
		case <-ctx.Done():
			return v, err
		case <-time.After(wait):
		}
		wait = min(2*wait, retryMaxWait)
	}
}

// retriesExhausted is a call still failing transiently when its retries
// ran out.
type retriesExhausted struct {
	err      error
	reason   string
	attempts int
	elapsed  time.Duration
}

func (e *retriesExhausted) Error() string { return e.err.Error() + e.suffix() }
func (e *retriesExhausted) Unwrap() error { return e.err }

// suffix is what statusMessage adds to the API's message.
func (e *retriesExhausted) suffix() string {
	return fmt.Sprintf(" (%s: gave up after %d attempts in %s)", e.reason, e.attempts, e.elapsed.Round(100*time.Millisecond))
}

// outages records the requests the API server failed transiently, for a
// note.
type outages struct {
	mu          sync.Mutex
	failed      int
	reasons     map[string]int
	first, last time.Time
	lost        time.Time // the last transient failure of the connection or the server
	down        time.Time // the first of the failures since the last answer, zero when answering
}

// record counts a request failed for reason; lost: by the connection or
// the server (not a 403 retried after one).
func (o *outages) record(reason string, lost bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.reasons == nil {
		o.reasons = map[string]int{}
		o.first = time.Now()
	}
	o.failed++
	o.reasons[reason]++
	o.last = time.Now()
	if lost {
		o.lost = o.last
		if o.down.IsZero() {
			o.down = o.last
		}
	}
}

// answered records a request the API server answered.
func (o *outages) answered() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.down = time.Time{}
}

// downSince is when the API server began failing, or start when it
// answers (a 403 retried right after an outage).
func (o *outages) downSince(start time.Time) time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.down.IsZero() {
		return start
	}
	return o.down
}

// lostWithin reports whether a request was lost less than d ago.
func (o *outages) lostWithin(d time.Duration) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return !o.lost.IsZero() && time.Since(o.lost) < d
}

// note says what failed transiently, "" when nothing did: "the Kubernetes
// API failed transiently for 6.2s (connection refused ×14, connection
// reset ×3): 17 requests failed".
func (o *outages) note() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.failed == 0 {
		return ""
	}
	var parts []string
	for r, n := range o.reasons {
		parts = append(parts, fmt.Sprintf("%s ×%d", r, n))
	}
	sort.Strings(parts)
	return fmt.Sprintf("the Kubernetes API failed transiently for %s (%s): %d requests failed, retried",
		o.last.Sub(o.first).Round(100*time.Millisecond), strings.Join(parts, ", "), o.failed)
}
