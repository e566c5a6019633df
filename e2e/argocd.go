package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/internal/kubetest"
)

// Namespaces of the harness's cluster.
const (
	argocdNS = "argocd"
	appNS    = "dagster" // the contract's namespace
)

var (
	applications = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}
	appProjects  = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "appprojects"}
)

// Settings of the Argo CD processes: faster than production so that a
// test waits seconds, not minutes; the behaviour is the same.
var argoCDEnv = []string{
	"ARGOCD_SYNC_WAVE_DELAY=1",
	"ARGOCD_GPG_ENABLED=false",
	"ARGOCD_FAKE_IN_CLUSTER=true",
	"ARGOCD_REPO_SERVER_PLUGIN_USE_MANIFEST_GENERATE_PATHS=true",
	"ARGOCD_REPO_SERVER_PLUGIN_TAR_EXCLUSIONS=.git/*",
	"ARGOCD_LOG_FORMAT_ENABLE_FULL_TIMESTAMP=1",
}

// installArgoCDObjects installs the CRDs of the Argo CD version under test,
// the namespace, argocd-cm (that version's stock settings plus codeloc's
// Application health Lua), argocd-secret and the default AppProject.
func (h *harness) installArgoCDObjects(ctx context.Context) error {
	// Every CRD of the version: argocd-server watches ApplicationSets too.
	crds, err := filepath.Glob(filepath.Join(h.tools.argocdManifests, "crds", "*-crd.yaml"))
	if err != nil {
		return err
	}
	for _, f := range crds {
		if err := h.applyFile(ctx, "", f); err != nil {
			return err
		}
	}
	if err := h.waitForResource(ctx, appProjects); err != nil {
		return err
	}
	if err := h.waitForResource(ctx, applications); err != nil {
		return err
	}
	stock, err := stockArgoCDCM(filepath.Join(h.tools.argocdManifests, "install.yaml"))
	if err != nil {
		return err
	}
	return h.applyYAML(ctx, argocdNS, argoCDSettings(stock, h.healthLua))
}

// stockArgoCDCM is the data of argocd-cm in a stock install.yaml: from 3.0
// it ignores /status updates of every resource and a child Application's
// operation, which the app-of-apps must cope with.
func stockArgoCDCM(installYAML string) (map[string]string, error) {
	data, err := os.ReadFile(installYAML)
	if err != nil {
		return nil, err
	}
	objs, err := kubetest.ParseYAML(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", installYAML, err)
	}
	for _, o := range objs {
		if o.GetKind() == "ConfigMap" && o.GetName() == "argocd-cm" {
			m, _, err := unstructured.NestedStringMap(o.Object, "data")
			return m, err
		}
	}
	return nil, fmt.Errorf("%s has no ConfigMap argocd-cm", installYAML)
}

// argoCDSettings are argocd-cm (the stock data, the health check of the
// install bundle and a faster reconciliation), argocd-secret and the
// default project.
func argoCDSettings(stock map[string]string, healthLua string) string {
	data := maps.Clone(stock)
	if data == nil {
		data = map[string]string{}
	}
	data["timeout.reconciliation"] = "20s"
	data["resource.customizations.health.argoproj.io_Application"] = healthLua
	cm, _ := yaml.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "argocd-cm", "labels": map[string]string{"app.kubernetes.io/part-of": "argocd"}},
		"data":     data,
	})
	return string(cm) + `---
apiVersion: v1
kind: Secret
metadata:
  name: argocd-secret
  labels: {app.kubernetes.io/part-of: argocd}
stringData:
  server.secretkey: e2e-not-a-secret
---
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata:
  name: default
spec:
  sourceRepos: ["*"]
  destinations: [{server: "*", namespace: "*"}]
  clusterResourceWhitelist: [{group: "*", kind: "*"}]
`
}

// twoFreePorts are a server's port and its metrics port.
func twoFreePorts() (port, metrics int, err error) {
	if port, err = freePort(); err == nil {
		metrics, err = freePort()
	}
	return port, metrics, err
}

// startRedis runs a throw-away redis-server: no persistence.
func (h *harness) startRedis(ctx context.Context) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	h.redisAddr = "127.0.0.1:" + strconv.Itoa(port)
	p, err := h.start("redis", h.tools.redis, nil, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", h.dir)
	if err != nil {
		return err
	}
	return p.WaitFor(ctx, 30*time.Second, func(context.Context) bool { return tcpOpen(h.redisAddr) })
}

// argoCDPath is the PATH of Argo CD's processes: the argocd binary's folder
// first, which holds the scripts the image installs beside it
// (git-verify-wrapper.sh, which the repo-server of 3.5 runs on every
// revision). Later entries win over baseEnv's.
func (h *harness) argoCDPath() string {
	return "PATH=" + filepath.Dir(h.tools.argocd) + string(os.PathListSeparator) + os.Getenv("PATH")
}

// startRepoServer runs Argo CD's repo-server, which finds codeloc's plugin
// socket in pluginDir. It serves TLS with the self-signed certificate it
// generates, as a stock install does (the controller does not verify it
// unless told to): v3.5 refuses --disable-tls unless --client-ca-path, a
// flag older versions lack, is set empty.
func (h *harness) startRepoServer(ctx context.Context) error {
	port, metrics, err := twoFreePorts()
	if err != nil {
		return err
	}
	h.repoServerAddr = "127.0.0.1:" + strconv.Itoa(port)
	h.repoServerMetricsPort = metrics
	return h.startRepoServerOn(ctx, port, metrics)
}

// startRepoServerOn starts the repo-server on port and metrics (the fault
// scenarios start it again on the same ones) and waits until it listens.
func (h *harness) startRepoServerOn(ctx context.Context, port, metrics int) error {
	var err error
	h.repoServer, err = h.runRepoServer(ctx, "", h.pluginDir, port, metrics)
	return err
}

// runRepoServer runs an argocd-repo-server that finds its plugin's socket
// in pluginDir; suffix tells a replica's log from the first one's. It
// returns the process, even when it did not come to listen.
func (h *harness) runRepoServer(ctx context.Context, suffix, pluginDir string, port, metrics int) (*process, error) {
	env := append([]string{"ARGOCD_BINARY_NAME=argocd-repo-server", "ARGOCD_PLUGINSOCKFILEPATH=" + pluginDir,
		"KUBECONFIG=" + h.kubeconfig, h.argoCDPath()}, argoCDEnv...)
	p, err := h.start("argocd-repo-server"+suffix, h.tools.argocd, env, "--address", "127.0.0.1", "--port", strconv.Itoa(port), "--metrics-address", "127.0.0.1",
		"--metrics-port", strconv.Itoa(metrics), "--redis", h.redisAddr, "--loglevel", "info")
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	return p, p.WaitFor(ctx, time.Minute, func(context.Context) bool { return tcpOpen(addr) })
}

// startApplicationController runs Argo CD's application-controller,
// managing the "in-cluster" cluster through the admin kubeconfig.
func (h *harness) startApplicationController(ctx context.Context) error {
	metrics, err := freePort()
	if err != nil {
		return err
	}
	profiler, err := h.profilerEnv()
	if err != nil {
		return err
	}
	env := append([]string{"ARGOCD_BINARY_NAME=argocd-application-controller", "KUBECONFIG=" + h.kubeconfig, h.argoCDPath(), profiler}, argoCDEnv...)
	p, err := h.start("argocd-application-controller", h.tools.argocd, env,
		"--redis", h.redisAddr, "--repo-server", h.repoServerAddr,
		"--metrics-port", strconv.Itoa(metrics), "--status-processors", "10", "--operation-processors", "10",
		"--app-resync", "20", "--self-heal-timeout-seconds", "2", "--loglevel", "info",
		// A refused render shows as ComparisonError only once the same
		// error outlasts this grace (3 min by default) unless a refresh
		// request forces the comparison; the harness's requests do not
		// always reach a busy controller, and the scenarios assert the
		// refusal, not the grace: surface it at the second comparison.
		"--repo-error-grace-period-seconds", "0")
	if err != nil {
		return err
	}
	addr := "127.0.0.1:" + strconv.Itoa(metrics)
	if err := p.WaitFor(ctx, time.Minute, func(context.Context) bool { return tcpOpen(addr) }); err != nil {
		return err
	}
	h.mu.Lock()
	h.controller, h.controllerMetrics = p, "http://"+addr
	h.mu.Unlock()
	go h.superviseController(p)
	return nil
}

// startAPIServerOfArgoCD runs argocd-server without TLS or authentication
// (a throw-away cluster): the tests read what the UI and `argocd app get`
// show through its API. From 3.0 the controller no longer persists a
// resource's health in the Application (status.resources[].health); the
// resource tree is the only place a parent's view of a child's health is.
func (h *harness) startAPIServerOfArgoCD(ctx context.Context) error {
	port, metrics, err := twoFreePorts()
	if err != nil {
		return err
	}
	assets := filepath.Join(h.dir, "argocd-server-assets")
	if err := os.MkdirAll(assets, 0o755); err != nil {
		return err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	h.argoCDServer = "http://" + addr
	env := append([]string{"ARGOCD_BINARY_NAME=argocd-server", "KUBECONFIG=" + h.kubeconfig, h.argoCDPath()}, argoCDEnv...)
	p, err := h.start("argocd-server", h.tools.argocd, env, "--insecure", "--disable-auth",
		"--address", "127.0.0.1", "--port", strconv.Itoa(port), "--metrics-port", strconv.Itoa(metrics),
		"--redis", h.redisAddr, "--repo-server", h.repoServerAddr, "--staticassets", assets,
		"--namespace", argocdNS, "--loglevel", "info")
	if err != nil {
		return err
	}
	return p.WaitFor(ctx, time.Minute, func(ctx context.Context) bool { return httpOK(ctx, h.argoCDServer+"/healthz") })
}

// treeNode is a node of an Application's resource tree, as argocd-server's
// /api/v1/applications/{name}/resource-tree returns it.
type treeNode struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Health *struct {
		Status  string `json:"status"`
		Message string `json:"message"`
	} `json:"health"`
}

// resourceTree is the resource tree of an Application, from argocd-server.
func (h *harness) resourceTree(ctx context.Context, app string) ([]treeNode, error) {
	body, err := fetch(ctx, h.argoCDServer+"/api/v1/applications/"+app+"/resource-tree")
	if err != nil {
		return nil, fmt.Errorf("resource tree of %s: %w", app, err)
	}
	var tree struct {
		Nodes []treeNode `json:"nodes"`
	}
	if err := json.Unmarshal(body, &tree); err != nil {
		return nil, fmt.Errorf("resource tree of %s: %w", app, err)
	}
	return tree.Nodes, nil
}

// waitForResource waits until the API server serves gvr (a new CRD).
func (h *harness) waitForResource(ctx context.Context, gvr schema.GroupVersionResource) error {
	return poll(ctx, 30*time.Second, func(ctx context.Context) (bool, error) {
		_, err := h.dyn.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil, nil
	})
}

// applyFile applies every object of a YAML file.
func (h *harness) applyFile(ctx context.Context, ns, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return h.applyYAML(ctx, ns, string(data))
}

// applyYAML applies a YAML stream as the admin.
func (h *harness) applyYAML(ctx context.Context, ns, data string) error {
	objs, err := kubetest.ParseYAML([]byte(data))
	if err != nil {
		return err
	}
	return h.env.Apply(ctx, ns, objs...)
}

// application returns the Application name, or nil when it does not exist.
func (h *harness) application(ctx context.Context, name string) (*unstructured.Unstructured, error) {
	app, err := h.dyn.Resource(applications).Namespace(argocdNS).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return app, err
}

// refreshAnnotation asks Argo CD for a refresh ("normal" or "hard"); the
// controller removes it once done.
const refreshAnnotation = "argocd.argoproj.io/refresh"

// refresh asks Argo CD to compare the Application again now (the
// argocd.argoproj.io/refresh annotation), rather than at the next resync.
func (h *harness) refresh(ctx context.Context, name, kind string) error {
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, refreshAnnotation, kind)
	_, err := h.dyn.Resource(applications).Namespace(argocdNS).Patch(ctx, name, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{})
	return err
}
