package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/codeloc/codeloc/internal/kubetest"
)

// Versions of the tools .ci/e2e-tools.sh builds or installs.
const (
	kubeVersion = "1.34.4"
	kwokVersion = "0.8.0"
)

// argoCDVersion is the Argo CD version under test: CODELOC_ARGOCD_VERSION
// (.ci/e2e-matrix.sh sets it), or the default supported one.
func argoCDVersion() string {
	if v := os.Getenv(envArgoCDVersion); v != "" {
		return v
	}
	return kubetest.ArgoCDVersions[0]
}

// Environment variables naming the tools (.ci/e2e-tools.sh writes them to
// its env file); each falls back to the tools cache, then to $PATH.
const (
	envKubeBinDir = "CODELOC_KUBE_BIN_DIR" // etcd, kube-apiserver, kube-controller-manager, kube-scheduler
	envKWOK       = "CODELOC_KWOK"
	envArgoCD     = "CODELOC_ARGOCD"
	// The version of CODELOC_ARGOCD, and its manifests/ folder (crds/,
	// install.yaml) whose CRDs the harness installs.
	envArgoCDVersion   = "CODELOC_ARGOCD_VERSION"
	envArgoCDManifests = "CODELOC_ARGOCD_MANIFESTS"
	envRedis           = "CODELOC_REDIS_SERVER"
	envToolsDir        = "CODELOC_TOOLS_DIR"
	envPostgres        = "CODELOC_POSTGRES_SH" // default: ../.ci/postgres.sh
	// The virtualenv of .ci/dagster.sh (default: the tools cache's, keyed
	// by the lock's hash).
	envDagsterVenv = "CODELOC_DAGSTER_VENV"
)

// errMissing marks a tool that is not installed: the tests skip, or fail
// under CI=true.
var errMissing = errors.New("e2e tool not found")

// tools are the executables the harness starts.
type tools struct {
	controllerManager, scheduler, kwok, argocd, redis, git, postgresSh string
	argocdVersion                                                      string
	argocdManifests                                                    string // the version's manifests/: crds/, install.yaml
	dagsterVenv                                                        string // bin/dagster, bin/dagster-webserver, ...
}

// findTools locates every tool, or reports all the missing ones at once.
func findTools() (tools, error) {
	cache := kubetest.ToolsDir()
	kube := os.Getenv(envKubeBinDir)
	if kube == "" {
		kube = filepath.Join(cache, "kube-v"+kubeVersion)
	}
	var missing []error
	find := func(env, cached, name string) string {
		p := ""
		if env != "" {
			p = os.Getenv(env)
		}
		if p == "" {
			p = cached
		}
		if isExecutable(p) {
			return p
		}
		if lp, err := exec.LookPath(name); err == nil {
			return lp
		}
		missing = append(missing, fmt.Errorf("%s (looked at %s and $PATH)", name, p))
		return ""
	}
	t := tools{
		controllerManager: find("", filepath.Join(kube, "kube-controller-manager"), "kube-controller-manager"),
		scheduler:         find("", filepath.Join(kube, "kube-scheduler"), "kube-scheduler"),
		kwok:              find(envKWOK, filepath.Join(cache, "kwok-v"+kwokVersion, "kwok"), "kwok"),
		argocd:            find(envArgoCD, filepath.Join(cache, "argocd-v"+argoCDVersion(), "argocd"), "argocd"),
		redis:             find(envRedis, "/usr/bin/redis-server", "redis-server"),
		git:               find("CODELOC_GIT", "/usr/bin/git", "git"),
		postgresSh:        find(envPostgres, filepath.Join("..", ".ci", "postgres.sh"), "postgres.sh"),
	}
	t.dagsterVenv = findDagsterVenv(cache)
	if t.dagsterVenv == "" {
		missing = append(missing, fmt.Errorf("the virtualenv of Dagster (%s, or the tools cache's: bash .ci/dagster.sh)", envDagsterVenv))
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		missing = append(missing, fmt.Errorf("unshare (util-linux): %w", err))
	}
	t.argocdVersion = argoCDVersion()
	manifests := os.Getenv(envArgoCDManifests)
	if manifests == "" {
		var err error
		if manifests, err = kubetest.ArgoCDManifests(t.argocdVersion); err != nil {
			missing = append(missing, err)
		}
	}
	t.argocdManifests = manifests
	if len(missing) > 0 {
		return t, fmt.Errorf("%w: %w (run `bash .ci/e2e-tools.sh`)", errMissing, errors.Join(missing...))
	}
	return t, nil
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// findDagsterVenv is $CODELOC_DAGSTER_VENV, or the complete virtualenv
// .ci/dagster.sh made in the tools cache for the lock of this checkout.
func findDagsterVenv(cache string) string {
	if v := os.Getenv(envDagsterVenv); v != "" {
		if isExecutable(filepath.Join(v, "bin", "dagster-webserver")) {
			return v
		}
		return ""
	}
	lock, err := os.ReadFile(filepath.Join("..", ".ci", "dagster", "requirements.txt"))
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(lock)
	v := filepath.Join(cache, "dagster-"+hex.EncodeToString(sum[:])[:12])
	if _, err := os.Stat(filepath.Join(v, ".complete")); err != nil {
		return ""
	}
	return v
}
