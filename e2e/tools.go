package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Versions of the tools .ci/e2e-tools.sh builds or installs.
const (
	kubeVersion   = "1.34.4"
	kwokVersion   = "0.8.0"
	argocdVersion = "2.14.21"
)

// Environment variables naming the tools (.ci/e2e-tools.sh writes them to
// its env file); each falls back to the tools cache, then to $PATH.
const (
	envKubeBinDir = "CODELOC_KUBE_BIN_DIR" // etcd, kube-apiserver, kube-controller-manager, kube-scheduler
	envKWOK       = "CODELOC_KWOK"
	envArgoCD     = "CODELOC_ARGOCD"
	envRedis      = "CODELOC_REDIS_SERVER"
	envToolsDir   = "CODELOC_TOOLS_DIR"
	envPostgres   = "CODELOC_POSTGRES_SH" // default: ../.ci/postgres.sh
)

// errMissing marks a tool that is not installed: the tests skip, or fail
// under CI=true.
var errMissing = errors.New("e2e tool not found")

// tools are the executables the harness starts.
type tools struct {
	controllerManager, scheduler, kwok, argocd, redis, git, postgresSh string
}

func toolsDir() string {
	if d := os.Getenv(envToolsDir); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "codeloc", "tools")
}

// findTools locates every tool, or reports all the missing ones at once.
func findTools() (tools, error) {
	cache := toolsDir()
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
		argocd:            find(envArgoCD, filepath.Join(cache, "argocd-v"+argocdVersion, "argocd"), "argocd"),
		redis:             find(envRedis, "/usr/bin/redis-server", "redis-server"),
		git:               find("CODELOC_GIT", "/usr/bin/git", "git"),
		postgresSh:        find(envPostgres, filepath.Join("..", ".ci", "postgres.sh"), "postgres.sh"),
	}
	if len(missing) > 0 {
		return t, fmt.Errorf("%w: %w (run `bash .ci/e2e-tools.sh`)", errMissing, errors.Join(missing...))
	}
	return t, nil
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}
