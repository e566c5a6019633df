package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/codeloc/codeloc/internal/kubetest"
)

// Namespaces of the harness's cluster.
const (
	argocdNS = "argocd"
	appNS    = "dagster" // the contract's namespace
)

// argoCDModule is the Argo CD module of go.mod: its CRDs are installed.
const argoCDModule = "github.com/argoproj/argo-cd/v2"

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

// installArgoCDObjects installs the CRDs of the Argo CD module, the
// namespace, argocd-cm (with codeloc's Application health Lua),
// argocd-secret and the default AppProject.
func (h *harness) installArgoCDObjects(ctx context.Context) error {
	dir, err := moduleDir(argoCDModule)
	if err != nil {
		return err
	}
	for _, f := range []string{"application-crd.yaml", "appproject-crd.yaml"} {
		if err := h.applyFile(ctx, "", filepath.Join(dir, "manifests", "crds", f)); err != nil {
			return err
		}
	}
	if err := h.waitForResource(ctx, appProjects); err != nil {
		return err
	}
	if err := h.waitForResource(ctx, applications); err != nil {
		return err
	}
	return h.applyYAML(ctx, argocdNS, argoCDSettings(h.healthLua))
}

// argoCDSettings are argocd-cm, argocd-secret and the default project.
func argoCDSettings(healthLua string) string {
	lua, _ := json.Marshal(healthLua)
	return `apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  labels: {app.kubernetes.io/part-of: argocd}
data:
  timeout.reconciliation: 20s
  resource.customizations.health.argoproj.io_Application: ` + string(lua) + `
---
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

// moduleDir is the module cache directory of a go.mod requirement.
func moduleDir(mod string) (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", mod).Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		return "", fmt.Errorf("locate module %s: %w (run `go mod download %s`)", mod, err, mod)
	}
	return dir, nil
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

// startRepoServer runs Argo CD's repo-server, which finds codeloc's plugin
// socket in pluginDir.
func (h *harness) startRepoServer(ctx context.Context) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	metrics, err := freePort()
	if err != nil {
		return err
	}
	h.repoServerAddr = "127.0.0.1:" + strconv.Itoa(port)
	env := append([]string{"ARGOCD_BINARY_NAME=argocd-repo-server", "ARGOCD_PLUGINSOCKFILEPATH=" + h.pluginDir,
		"KUBECONFIG=" + h.kubeconfig}, argoCDEnv...)
	p, err := h.start("argocd-repo-server", h.tools.argocd, env, "--address", "127.0.0.1", "--port", strconv.Itoa(port), "--metrics-address", "127.0.0.1",
		"--metrics-port", strconv.Itoa(metrics), "--redis", h.redisAddr, "--disable-tls", "--loglevel", "info")
	if err != nil {
		return err
	}
	return p.WaitFor(ctx, time.Minute, func(context.Context) bool { return tcpOpen(h.repoServerAddr) })
}

// startApplicationController runs Argo CD's application-controller,
// managing the "in-cluster" cluster through the admin kubeconfig.
func (h *harness) startApplicationController(ctx context.Context) error {
	metrics, err := freePort()
	if err != nil {
		return err
	}
	env := append([]string{"ARGOCD_BINARY_NAME=argocd-application-controller", "KUBECONFIG=" + h.kubeconfig}, argoCDEnv...)
	p, err := h.start("argocd-application-controller", h.tools.argocd, env,
		"--redis", h.redisAddr, "--repo-server", h.repoServerAddr, "--repo-server-plaintext",
		"--metrics-port", strconv.Itoa(metrics), "--status-processors", "10", "--operation-processors", "10",
		"--app-resync", "20", "--self-heal-timeout-seconds", "2", "--loglevel", "info")
	if err != nil {
		return err
	}
	addr := "127.0.0.1:" + strconv.Itoa(metrics)
	return p.WaitFor(ctx, time.Minute, func(context.Context) bool { return tcpOpen(addr) })
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
