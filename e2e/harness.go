package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/internal/kubetest"
)

// Environment variables of the harness.
const (
	envCI     = "CI"              // "true": a missing component fails the tests
	envKeep   = "E2E_KEEP"        // set: keep the work directory (logs, repos)
	envNodes  = "E2E_NODES"       // number of KWOK nodes (default 3)
	envBin    = "CODELOC_E2E_BIN" // prebuilt codeloc binaries (default: go build)
	envPlugin = "E2E_PLUGIN"      // plugin server: sidecar (default) or stock
)

// harness is the running cluster: every process and the clients to it.
type harness struct {
	tools tools
	dir   string // work directory: logs/, bin/, repos/, ...
	logs  string
	bin   string // codeloc binaries built by the harness

	env        *kubetest.Env
	kube       kubernetes.Interface
	dyn        dynamic.Interface
	kubeconfig string // admin, namespace argocd

	redisAddr string
	// repoServerAddr is the address the controller and argocd-server dial:
	// the repo-server's, or with E2E_REPO_SERVERS > 1 the balancer's.
	repoServerAddr        string
	repoServerMetricsPort int
	repoServer            *process   // the running (first) argocd-repo-server
	argoCDServer          string     // http://host:port of argocd-server's API
	pluginDir             string     // ARGOCD_PLUGINSOCKFILEPATH, short
	plugin                *process   // the (first) plugin server: codeloc-sidecar or argocd-cmp-server
	pluginKind            string     // pluginSidecar or pluginStock
	sidecarMetrics        string     // http://host:port of (the first) codeloc-sidecar
	replicas              []*replica // repo-servers 2..N (E2E_REPO_SERVERS)
	lb                    *balancer  // in front of the N repo-servers when N > 1
	contractFile          string
	appTemplate           string // the Application template of cluster/apps (writeAppTemplate)
	healthLua             string
	pgDir, pgURL          string
	pgPort                int

	atlas, apps *gitRepo
	dagster     *dagsterWebserver
	codeServers *codeServers
	runWorkers  *runWorkers

	// controller is the running application-controller, controllerMetrics
	// its metrics server (also its pprof) as http://host:port;
	// controllerExits counts its exits (superviseController),
	// controllerHangs those the harness caused (watchController).
	controller        *process
	controllerMetrics string
	controllerExits   atomic.Int64
	controllerHangs   atomic.Int64
	out               io.Writer // where say writes (nil: stderr)

	mu       sync.Mutex
	procs    []*process
	jobs     *jobRunner
	stopc    chan struct{}
	stopOnce sync.Once
}

// newHarness starts everything, in dependency order. On error the
// processes already started are stopped.
func newHarness(ctx context.Context) (*harness, error) {
	t, err := findTools()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "codeloc-e2e-")
	if err != nil {
		return nil, err
	}
	// PostgreSQL runs as the postgres user when we are root: let it in.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	h := &harness{tools: t, dir: dir, logs: filepath.Join(dir, "logs"), bin: filepath.Join(dir, "bin"), stopc: make(chan struct{})}
	h.codeServers = newCodeServers(h)
	if err := h.startAll(ctx); err != nil {
		h.stop()
		return nil, fmt.Errorf("%w (logs in %s)", err, h.logs)
	}
	return h, nil
}

// step is one stage of the start sequence.
type step struct {
	name string
	run  func(context.Context) error
}

func (h *harness) startAll(ctx context.Context) error {
	if err := os.MkdirAll(h.logs, 0o755); err != nil {
		return err
	}
	if err := h.codeServers.start(); err != nil {
		return err
	}
	steps := []step{
		{"build codeloc binaries", h.buildCodeloc},
		{"kube-apiserver", h.startAPIServer},
		{"kube-controller-manager", h.startControllerManager},
		{"kube-scheduler", h.startScheduler},
		{"kwok nodes", func(ctx context.Context) error { return h.startKWOK(ctx, nodeCount()) }},
		{"postgres", h.startPostgres},
		{"cluster objects", h.installClusterObjects},
		{"argocd objects", h.installArgoCDObjects},
		{"redis", h.startRedis},
		{"plugin server (" + pluginKind() + ")", h.startPlugin},
		{"argocd-repo-server", h.startRepoServer},
	}
	if n := repoServerCount(); n > 1 {
		steps = append(steps, step{fmt.Sprintf("argocd-repo-servers 2..%d with their plugin servers, the balancer", n), h.startReplicas})
	}
	steps = append(steps,
		step{"argocd-application-controller", h.startApplicationController},
		step{"argocd-server", h.startAPIServerOfArgoCD},
		step{"dagster-webserver", h.startDagster},
		step{"dagster-daemon", h.startDaemon},
		step{"git repos", h.initRepos},
	)
	for _, s := range steps {
		start := time.Now()
		if err := s.run(ctx); err != nil {
			return fmt.Errorf("start %s: %w", s.name, err)
		}
		fmt.Fprintf(os.Stderr, "e2e: %s ready in %s\n", s.name, time.Since(start).Round(time.Millisecond))
	}
	h.jobs = newJobRunner(h)
	go h.jobs.loop(h.stopc)
	go h.codeServers.loop(h.stopc)
	h.runWorkers = newRunWorkers(h)
	go h.runWorkers.loop(h.stopc)
	go h.bindVolumes(h.stopc)
	go h.watchController(h.stopc, 20*time.Second)
	return nil
}

func nodeCount() int {
	if n, err := strconv.Atoi(os.Getenv(envNodes)); err == nil && n > 0 {
		return n
	}
	return 3
}

// start starts a process and registers it for stop.
func (h *harness) start(name, bin string, env []string, args ...string) (*process, error) {
	p, err := startProcess(h.logs, name, bin, env, args...)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.procs = append(h.procs, p)
	h.mu.Unlock()
	return p, nil
}

// stop ends every process, last started first, then PostgreSQL, and
// removes the work directory unless E2E_KEEP is set. Safe to call twice.
func (h *harness) stop() { h.stopOnce.Do(h.stopAll) }

func (h *harness) stopAll() {
	close(h.stopc)
	h.mu.Lock()
	procs := h.procs
	h.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].Stop()
	}
	if h.codeServers != nil {
		h.codeServers.stopAll()
	}
	if h.env != nil {
		h.env.Stop()
	}
	if h.pgDir != "" {
		_ = exec.Command("bash", h.tools.postgresSh, "stop", h.pgDir).Run()
	}
	if h.lb != nil {
		_ = h.lb.Close()
	}
	if h.pluginDir != "" {
		_ = os.RemoveAll(h.pluginDir)
	}
	for _, r := range h.replicas {
		if r.pluginDir != "" {
			_ = os.RemoveAll(r.pluginDir)
		}
	}
	if os.Getenv(envKeep) == "" {
		_ = os.RemoveAll(h.dir)
	} else {
		fmt.Fprintf(os.Stderr, "e2e: kept %s\n", h.dir)
	}
}

// buildCodeloc builds the three codeloc binaries from this checkout, or
// copies them from $CODELOC_E2E_BIN when set (binaries built elsewhere).
func (h *harness) buildCodeloc(ctx context.Context) error {
	if dir := os.Getenv(envBin); dir != "" {
		return copyTree(dir, h.bin)
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", h.bin+"/",
		"../cmd/codeloc", "../cmd/codeloc-jobs", "../cmd/codeloc-sidecar")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %w\n%s", err, out)
	}
	return nil
}

// startAPIServer starts etcd and kube-apiserver (internal/kubetest) and
// writes the admin kubeconfig.
func (h *harness) startAPIServer(ctx context.Context) error {
	env, err := kubetest.New(ctx)
	if err != nil {
		return err
	}
	h.env = env
	h.kubeconfig = filepath.Join(h.dir, "kubeconfig")
	if err := writeKubeconfig(h.kubeconfig, env.Admin, argocdNS); err != nil {
		return err
	}
	if h.kube, err = kubernetes.NewForConfig(env.Admin); err != nil {
		return err
	}
	h.dyn = env.Dynamic()
	return nil
}

// startPostgres starts PostgreSQL 15 (.ci/postgres.sh) and creates the
// contract's database.
func (h *harness) startPostgres(ctx context.Context) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	h.pgDir, h.pgPort = filepath.Join(h.dir, "pg"), port
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, "bash", h.tools.postgresSh, "start", h.pgDir, strconv.Itoa(port))
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("postgres.sh start: %w\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	h.pgURL = lines[len(lines)-1]
	return h.sql(ctx, "postgres", "CREATE DATABASE "+dbName)
}

func httpOK(ctx context.Context, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// poll calls cond every 250 ms until it returns true or an error, or
// timeout passes.
func poll(ctx context.Context, timeout time.Duration, cond func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		ok, err := cond(ctx)
		if err != nil {
			last = err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			if last != nil {
				return fmt.Errorf("condition not met after %s (last error: %w)", timeout, last)
			}
			return fmt.Errorf("condition not met after %s", timeout)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// loadHealthLua reads the Application health check of sidecar/install.
func loadHealthLua() (string, error) {
	data, err := os.ReadFile("../sidecar/install/argocd-cm-health.yaml")
	if err != nil {
		return "", err
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal(data, &cm); err != nil {
		return "", err
	}
	lua := cm.Data["resource.customizations.health.argoproj.io_Application"]
	if lua == "" {
		return "", fmt.Errorf("argocd-cm-health.yaml holds no Application health check")
	}
	return lua, nil
}
