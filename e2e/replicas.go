package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
)

// envRepoServers sets how many argocd-repo-servers run, each with its own
// plugin server (default 1): Argo CD scales out by adding repo-server
// replicas, and the plugin runs as a sidecar of each.
const envRepoServers = "E2E_REPO_SERVERS"

// repoServerCount is the number of repo-servers $E2E_REPO_SERVERS asks for.
func repoServerCount() int {
	if n, err := strconv.Atoi(os.Getenv(envRepoServers)); err == nil && n > 0 {
		return n
	}
	return 1
}

// replica is a repo-server after the first, with its own plugin server
// (own socket folder, metrics port, TMPDIR and cache), as another pod of
// the argocd-repo-server Deployment; all share the one redis. The first
// repo-server and its plugin server are the harness's own fields.
type replica struct {
	suffix         string // of its logs and folders: "-2", "-3", ...
	pluginDir      string
	plugin         *process
	sidecarMetrics string // codeloc-sidecar only
	repoServer     *process
	addr           string
}

// startReplicas starts repo-servers 2..N with their plugin servers, then
// the balancer over all N, whose address the controller and argocd-server
// are given instead of the first repo-server's.
func (h *harness) startReplicas(ctx context.Context) error {
	backends := []string{h.repoServerAddr}
	for i := 2; i <= repoServerCount(); i++ {
		r := &replica{suffix: fmt.Sprintf("-%d", i)}
		h.replicas = append(h.replicas, r)
		if err := h.startReplica(ctx, r); err != nil {
			return fmt.Errorf("repo-server %d: %w", i, err)
		}
		backends = append(backends, r.addr)
	}
	lb, err := startBalancer(backends)
	if err != nil {
		return err
	}
	h.lb = lb
	h.repoServerAddr = lb.Addr()
	return nil
}

func (h *harness) startReplica(ctx context.Context, r *replica) error {
	var err error
	if r.pluginDir, err = os.MkdirTemp("/tmp", "cl-"); err != nil {
		return err
	}
	if err := h.startReplicaPlugin(ctx, r); err != nil {
		return err
	}
	port, metrics, err := twoFreePorts()
	if err != nil {
		return err
	}
	r.addr = "127.0.0.1:" + strconv.Itoa(port)
	r.repoServer, err = h.runRepoServer(ctx, r.suffix, r.pluginDir, port, metrics)
	return err
}

func (h *harness) startReplicaPlugin(ctx context.Context, r *replica) error {
	var err error
	if h.pluginKind == pluginStock {
		r.plugin, err = h.runStock(ctx, r.suffix, r.pluginDir)
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	r.plugin, r.sidecarMetrics, err = h.runSidecar(ctx, r.suffix, r.pluginDir, port)
	return err
}

// pluginServers are the running plugin servers, the first repo-server's
// first.
func (h *harness) pluginServers() []*process {
	ps := []*process{h.plugin}
	for _, r := range h.replicas {
		ps = append(ps, r.plugin)
	}
	return ps
}

// sidecarMetricsURLs are the metrics URLs of every codeloc-sidecar.
func (h *harness) sidecarMetricsURLs() []string {
	urls := []string{h.sidecarMetrics}
	for _, r := range h.replicas {
		urls = append(urls, r.sidecarMetrics)
	}
	return urls
}

// skipIfReplicas skips a scenario that restarts the repo-server or its
// plugin server: it knows only the first of several.
func (h *harness) skipIfReplicas(t skipper) {
	t.Helper()
	if n := repoServerCount(); n > 1 {
		t.Skipf("%s=%d: this scenario restarts the one repo-server or plugin server; it runs with one only", envRepoServers, n)
	}
}

// skipper is the part of testing.TB skipIfReplicas needs.
type skipper interface {
	Helper()
	Skipf(format string, args ...any)
}
