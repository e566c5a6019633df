package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/codeloc/codeloc/internal/names"
)

// The two plugin servers the harness can put beside the repo-server.
const (
	// pluginSidecar is codeloc-sidecar: renders in-process.
	pluginSidecar = "sidecar"
	// pluginStock is Argo CD's own argocd-cmp-server reading plugin.yaml:
	// it starts `codeloc generate` for every render.
	pluginStock = "stock"
)

// pluginKind is the plugin server $E2E_PLUGIN asks for (default sidecar).
func pluginKind() string {
	if os.Getenv(envPlugin) == pluginStock {
		return pluginStock
	}
	return pluginSidecar
}

// startPlugin starts the plugin server on a short socket folder shared with
// the repo-server (unix socket paths are limited to 108 bytes).
func (h *harness) startPlugin(ctx context.Context) error {
	var err error
	if h.pluginDir, err = os.MkdirTemp("/tmp", "cl-"); err != nil {
		return err
	}
	h.pluginKind = pluginKind()
	if h.pluginKind == pluginStock {
		return h.startStock(ctx)
	}
	return h.startSidecar(ctx)
}

// startSidecar runs codeloc-sidecar with the harness's contract.
func (h *harness) startSidecar(ctx context.Context) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	return h.startSidecarOn(ctx, port)
}

// startSidecarOn runs codeloc-sidecar with its metrics on port and a TMPDIR
// of its own (sidecarTmp), which the fault scenarios check is left empty;
// a restart (faults) calls it again with the same port.
func (h *harness) startSidecarOn(ctx context.Context, port int) error {
	tmp := h.sidecarTmp()
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	var err error
	h.sidecarMetrics = "http://127.0.0.1:" + strconv.Itoa(port)
	h.plugin, err = h.start("codeloc-sidecar", filepath.Join(h.bin, "codeloc-sidecar"),
		// The parse cache beside TMPDIR, not in it (the faults check TMPDIR
		// is left empty) nor under the user's home.
		[]string{"ARGOCD_PLUGINSOCKFILEPATH=" + h.pluginDir, "TMPDIR=" + tmp, "CODELOC_CACHE_DIR=" + filepath.Join(h.dir, "codeloc-cache")},
		"--contract", h.contractFile, "--config-dir", "..",
		"--metrics-addr", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return err
	}
	return h.plugin.WaitFor(ctx, 30*time.Second, func(ctx context.Context) bool {
		return httpOK(ctx, h.sidecarMetrics+"/healthz")
	})
}

// sidecarTmp is codeloc-sidecar's TMPDIR.
func (h *harness) sidecarTmp() string { return filepath.Join(h.dir, "sidecar-tmp") }

// startStock runs Argo CD's argocd-cmp-server (the argocd multi-call
// binary) with this checkout's plugin.yaml, codeloc first on its PATH and
// the contract named by CODELOC_CONTRACT, as the install docs set it up.
func (h *harness) startStock(ctx context.Context) error {
	work := filepath.Join(h.dir, "cmp-work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	cfg, err := filepath.Abs("..")
	if err != nil {
		return err
	}
	env := []string{
		"ARGOCD_BINARY_NAME=argocd-cmp-server",
		"ARGOCD_PLUGINSOCKFILEPATH=" + h.pluginDir,
		"ARGOCD_CMP_WORKDIR=" + work,
		"CODELOC_CONTRACT=" + h.contractFile,
		"CODELOC_CACHE_DIR=" + filepath.Join(h.dir, "codeloc-cache"),
		// Later entries win: this PATH replaces baseEnv's.
		"PATH=" + h.bin + string(os.PathListSeparator) + filepath.Dir(h.tools.argocd) + string(os.PathListSeparator) + os.Getenv("PATH"),
	}
	h.plugin, err = h.start("argocd-cmp-server", h.tools.argocd, env,
		"--config-dir-path", cfg, "--loglevel", "info", "--logformat", "json")
	if err != nil {
		return err
	}
	sock := filepath.Join(h.pluginDir, names.PluginFullName+".sock")
	return h.plugin.WaitFor(ctx, 30*time.Second, func(context.Context) bool {
		_, err := os.Stat(sock)
		return err == nil
	})
}

// pluginServerName names the plugin server in figures.
func (h *harness) pluginServerName() string {
	if h.pluginKind == pluginStock {
		return fmt.Sprintf("argocd-cmp-server v%s + codeloc generate", h.tools.argocdVersion)
	}
	return "codeloc-sidecar"
}
