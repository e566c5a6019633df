package kubetest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ArgoCDVersions are the Argo CD versions codeloc supports and tests, the
// default first: the e2e runs on it, .ci/e2e-matrix.sh on every one, and the
// install bundle is dry-run over each one's stock install. .ci/e2e-tools.sh
// lists the same (ARGOCD_VERSIONS; a test keeps them equal).
var ArgoCDVersions = []string{"3.6.2", "3.5.8", "3.4.14"}

// ErrNoArgoCDManifests reports that .ci/e2e-tools.sh has not fetched the
// manifests of an Argo CD version.
var ErrNoArgoCDManifests = errors.New("manifests of Argo CD not found")

// ToolsDir is the cache .ci/kube.sh and .ci/e2e-tools.sh fill:
// $CODELOC_TOOLS_DIR, or ~/.cache/codeloc/tools.
func ToolsDir() string {
	if d := os.Getenv(EnvToolsDir); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "codeloc-tools")
	}
	return filepath.Join(home, ".cache", "codeloc", "tools")
}

// ArgoCDManifests is the manifests/ folder of an Argo CD version (crds/,
// install.yaml) that .ci/e2e-tools.sh copied from its module.
func ArgoCDManifests(version string) (string, error) {
	dir := filepath.Join(ToolsDir(), "argocd-v"+version, "manifests")
	for _, f := range []string{"install.yaml", filepath.Join("crds", "application-crd.yaml")} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return dir, fmt.Errorf("%w: no %s (run `bash .ci/e2e-tools.sh`)", ErrNoArgoCDManifests, filepath.Join(dir, f))
		}
	}
	return dir, nil
}
