package kubetest

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// APIServer is the running kube-apiserver process (its Pid, its log).
func (e *Env) APIServer() *Process { return e.apiserver }

// RestartAPIServer stops kube-apiserver and starts a new one with the same
// flags: the same address and port, serving certificate, static tokens,
// service-account signing key and etcd, so that every client reconnects to
// it as to a restarted control plane. With kill the old process gets
// SIGKILL at once (a crashed or hung API server; it works on a stopped
// process too), else SIGTERM and SIGKILL after a grace period. It returns
// once /readyz answers; each start logs to kube-apiserver-<n>.log in Dir.
func (e *Env) RestartAPIServer(ctx context.Context, kill bool) error {
	old := e.apiserver
	if kill {
		old.Kill()
	} else {
		old.Stop()
	}
	e.restarts++
	l := e.launch
	l.log = filepath.Join(e.Dir, "kube-apiserver-"+strconv.Itoa(e.restarts)+".log")
	if err := e.launchAPIServerWith(l); err != nil {
		return err
	}
	if err := e.waitAPIServer(ctx, localURL("https", l.port), e.Admin.BearerToken); err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	return nil
}

// Kill sends SIGKILL to the process group and waits for the process.
func (p *Process) Kill() {
	if p == nil || p.Exited() {
		return
	}
	signalProcess(p.cmd, syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
	}
}
