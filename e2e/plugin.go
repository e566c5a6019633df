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
	var err error
	h.plugin, h.sidecarMetrics, err = h.runSidecar(ctx, "", h.pluginDir, port)
	return err
}

// runSidecar runs a codeloc-sidecar on pluginDir with its metrics on port;
// suffix tells a replica's log, TMPDIR and cache from the first one's. It
// returns the process, even when it did not become ready, and its metrics
// URL.
func (h *harness) runSidecar(ctx context.Context, suffix, pluginDir string, port int) (*process, string, error) {
	tmp := h.sidecarTmp() + suffix
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, "", err
	}
	metrics := "http://127.0.0.1:" + strconv.Itoa(port)
	p, err := h.start("codeloc-sidecar"+suffix, filepath.Join(h.bin, "codeloc-sidecar"),
		// The parse cache beside TMPDIR, not in it (the faults check TMPDIR
		// is left empty) nor under the user's home.
		[]string{"ARGOCD_PLUGINSOCKFILEPATH=" + pluginDir, "TMPDIR=" + tmp, "CODELOC_CACHE_DIR=" + filepath.Join(h.dir, "codeloc-cache"+suffix)},
		"--contract", h.contractFile, "--config-dir", "..",
		"--metrics-addr", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return nil, metrics, err
	}
	return p, metrics, p.WaitFor(ctx, 30*time.Second, func(ctx context.Context) bool {
		return httpOK(ctx, metrics+"/healthz")
	})
}

// sidecarTmp is codeloc-sidecar's TMPDIR.
func (h *harness) sidecarTmp() string { return filepath.Join(h.dir, "sidecar-tmp") }

// startStock runs Argo CD's argocd-cmp-server beside the first repo-server.
func (h *harness) startStock(ctx context.Context) error {
	var err error
	h.plugin, err = h.runStock(ctx, "", h.pluginDir)
	return err
}

// runStock runs Argo CD's argocd-cmp-server (the argocd multi-call binary)
// on pluginDir with this checkout's plugin.yaml, codeloc first on its PATH
// and the contract named by CODELOC_CONTRACT, as the install docs set it
// up; suffix tells a replica's log and folders from the first one's.
func (h *harness) runStock(ctx context.Context, suffix, pluginDir string) (*process, error) {
	work := filepath.Join(h.dir, "cmp-work"+suffix)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	cfg, err := filepath.Abs("..")
	if err != nil {
		return nil, err
	}
	env := []string{
		"ARGOCD_BINARY_NAME=argocd-cmp-server",
		"ARGOCD_PLUGINSOCKFILEPATH=" + pluginDir,
		"ARGOCD_CMP_WORKDIR=" + work,
		"CODELOC_CONTRACT=" + h.contractFile,
		"CODELOC_CACHE_DIR=" + filepath.Join(h.dir, "codeloc-cache"+suffix),
		// Later entries win: this PATH replaces baseEnv's.
		"PATH=" + h.bin + string(os.PathListSeparator) + filepath.Dir(h.tools.argocd) + string(os.PathListSeparator) + os.Getenv("PATH"),
	}
	p, err := h.start("argocd-cmp-server"+suffix, h.tools.argocd, env,
		"--config-dir-path", cfg, "--loglevel", "info", "--logformat", "json")
	if err != nil {
		return nil, err
	}
	sock := filepath.Join(pluginDir, names.PluginFullName+".sock")
	return p, p.WaitFor(ctx, 30*time.Second, func(context.Context) bool {
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
