package e2e

import (
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
)

// balancer stands in for the Kubernetes Service in front of several
// argocd-repo-servers: an L4 TCP proxy that picks a backend for each
// connection it accepts, at random as kube-proxy's default iptables mode
// (and its nftables mode) does. Random rather than round robin also keeps
// the choice from locking step with a fixed pattern of calls per render.
//
// Per connection is per request here: the controller and argocd-server
// open a new gRPC connection for every repo-server call and close it after
// (Argo CD v3.6.2: reposerver/apiclient/clientset.go:113-118,
// NewRepoServerClient calls NewConnection, grpc.NewClient at :147; its
// callers, e.g. controller/state.go:190-194 and :315-319, defer
// utilio.Close(conn)). So kube-proxy, which balances connections and not
// gRPC calls, spreads the renders over the replicas, and so does this.
type balancer struct {
	ln       net.Listener
	backends []string
	conns    []atomic.Int64 // connections sent to each backend
	wg       sync.WaitGroup
}

// startBalancer listens on a free port of 127.0.0.1 and forwards every
// connection to one of backends.
func startBalancer(backends []string) (*balancer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &balancer{ln: ln, backends: backends, conns: make([]atomic.Int64, len(backends))}
	b.wg.Add(1)
	go b.serve()
	return b, nil
}

// Addr is the address the clients dial.
func (b *balancer) Addr() string { return b.ln.Addr().String() }

// Connections returns how many connections went to each backend.
func (b *balancer) Connections() []int64 {
	out := make([]int64, len(b.conns))
	for i := range b.conns {
		out[i] = b.conns[i].Load()
	}
	return out
}

// Close stops accepting; open connections end with their processes.
func (b *balancer) Close() error {
	err := b.ln.Close()
	b.wg.Wait()
	return err
}

func (b *balancer) serve() {
	defer b.wg.Done()
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		go b.forward(c, rand.IntN(len(b.backends)))
	}
}

// forward pipes client to backend i both ways until both sides are done.
// A backend that refuses drops the connection, as a Service does with an
// endpoint that just died: the client's retry dials again.
func (b *balancer) forward(client net.Conn, i int) {
	defer client.Close()
	backend, err := net.Dial("tcp", b.backends[i])
	if err != nil {
		return
	}
	defer backend.Close()
	b.conns[i].Add(1)
	done := make(chan struct{})
	go func() {
		pipe(backend, client)
		close(done)
	}()
	pipe(client, backend)
	<-done
}

// pipe copies src to dst, then passes the end of src on to dst.
func pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	if tc, ok := dst.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	} else {
		_ = dst.Close()
	}
}
