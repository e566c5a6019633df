package preflight_test

import (
	"context"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/codeloc/codeloc/internal/kubetest"
	"github.com/codeloc/codeloc/preflight"
)

// TestAPIServerBackRetried: the API server's address refuses connections
// when the preflight starts (an API server restarting) and answers 1.5 s
// later: every check passes, and a note says what was retried.
func TestAPIServerBackRetried(t *testing.T) {
	env := sharedEnv(t)
	w := newWorld(t, env, nil)
	w.apply(t, good())
	front := freeAddr(t)
	go func() {
		time.Sleep(1500 * time.Millisecond)
		forward(t, front, env)
	}()
	rep := w.run(t, preflight.Options{Config: via(env, front)})
	w.expect(t, rep)
	notes := strings.Join(rep.Notes, "\n")
	t.Log(notes)
	if !strings.Contains(notes, "the Kubernetes API failed transiently for ") || !strings.Contains(notes, "connection refused ×") {
		t.Errorf("no note of the retries:\n%s", notes)
	}
}

// TestAPIServerGone: nothing answers at the API server's address: each
// call is retried for RetryFor, then is one api-error line naming the
// refused connection and the attempts; the summary is one line.
func TestAPIServerGone(t *testing.T) {
	env := sharedEnv(t)
	w := newWorld(t, env, nil)
	start := time.Now()
	rep := w.run(t, preflight.Options{Config: via(env, freeAddr(t)), RetryFor: time.Second})
	if elapsed := time.Since(start); elapsed > 30*time.Second {
		t.Errorf("the preflight took %s with RetryFor 1s", elapsed)
	}
	if len(rep.Problems) == 0 {
		t.Fatal("no problem with no API server")
	}
	for _, p := range rep.Problems {
		if p.Code != preflight.CodeAPIError || !strings.Contains(p.Message, "connection refused") ||
			!strings.Contains(p.Message, "(connection refused: gave up after ") || strings.Contains(p.Message, "\n") {
			t.Errorf("problem %s %s: %q, want one api-error line naming the refused connection and the attempts", p.Code, p.Path, p.Message)
		}
	}
	if s := rep.Summary(); strings.Contains(s, "\n") {
		t.Errorf("summary on several lines:\n%s", s)
	}
}

// freeAddr is a 127.0.0.1 address nothing listens on (yet).
func freeAddr(t *testing.T) string {
	t.Helper()
	ports, err := kubetest.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))
}

// via is the admin config reaching the API server through addr (its
// serving certificate is for 127.0.0.1, any port).
func via(env *kubetest.Env, addr string) *rest.Config {
	cfg := rest.CopyConfig(env.Admin)
	cfg.Host = "https://" + addr
	return cfg
}

// forward listens on addr and relays each connection to the API server,
// until the test ends.
func forward(t *testing.T, addr string, env *kubetest.Env) {
	u, err := url.Parse(env.Admin.Host)
	if err != nil {
		t.Error(err)
		return
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Error(err)
		return
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns { // the client keeps idle connections open
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	for {
		in, err := l.Accept()
		if err != nil {
			return
		}
		mu.Lock()
		conns = append(conns, in)
		mu.Unlock()
		wg.Go(func() {
			defer in.Close()
			out, err := net.Dial("tcp", u.Host)
			if err != nil {
				return
			}
			defer out.Close()
			ctx, cancel := context.WithCancel(context.Background())
			go func() { _, _ = io.Copy(out, in); cancel() }()
			go func() { _, _ = io.Copy(in, out); cancel() }()
			<-ctx.Done()
		})
	}
}

// TestForbiddenRightAfterOutage: a kube-apiserver just restarted refuses
// requests (403) until its authorizer has read the Roles. Without an
// outage a 403 is an answer: forbidden at once. Right after a lost
// connection it is retried: here the address refuses connections for 1 s,
// then the API server answers 403 until the preflight's Role is bound 1.5 s
// later, and every check passes.
func TestForbiddenRightAfterOutage(t *testing.T) {
	env := sharedEnv(t)
	ctx := ctxFor(t)
	w := newWorld(t, env, nil)
	w.apply(t, good())
	sa, err := env.ServiceAccountConfig(ctx, w.ns, "citation-preflight")
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	rep := w.run(t, preflight.Options{Config: sa})
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("a 403 without an outage was retried: the preflight took %s", elapsed)
	}
	if len(rep.Problems) == 0 {
		t.Fatal("no problem without RBAC")
	}
	for _, p := range rep.Problems {
		if p.Code != preflight.CodeForbidden {
			t.Errorf("without RBAC: %s %s: %s, want forbidden", p.Code, p.Path, p.Message)
		}
	}

	front := freeAddr(t)
	cfg := rest.CopyConfig(sa)
	cfg.Host = "https://" + front
	type result struct {
		rep *preflight.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := preflight.Run(ctx, w.decl, w.con, preflight.Options{Config: cfg})
		done <- result{rep, err}
	}()
	time.Sleep(time.Second)
	go forward(t, front, env)
	time.Sleep(1500 * time.Millisecond)
	env.ApplyYAML(t, w.ns, w.exampleNamespaces(readTestdata(t, "role.yaml")))
	env.ApplyYAML(t, w.ns, w.exampleNamespaces(readTestdata(t, "rbac-cluster.yaml")))
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	w.expect(t, r.rep)
	notes := strings.Join(r.rep.Notes, "\n")
	t.Log(notes)
	if !strings.Contains(notes, "403 Forbidden as it came back ×") {
		t.Errorf("no note of the 403s retried:\n%s", notes)
	}
}
