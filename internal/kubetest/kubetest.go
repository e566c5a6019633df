// Package kubetest starts a real kube-apiserver backed by a real etcd for
// tests, and offers the few helpers tests need around it: an admin
// *rest.Config, service-account configs from the TokenRequest API, applying
// and server-side dry-running YAML objects, and minimal CRDs for the kinds
// codeloc reads (ObjectBucketClaim, Application, CephCluster).
//
// The binaries come from .ci/kube.sh: CODELOC_KUBE_BIN_DIR, else the default
// cache directory. When they are missing the test is skipped, unless CI=true,
// where it fails.
//
// There is no kubelet, scheduler or controller-manager: pods stay Pending,
// namespaces never finish terminating, and quota usage is not computed.
package kubetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// Versions of the binaries .ci/kube.sh builds.
const (
	KubeVersion = "1.34.4"
	EtcdVersion = "3.6.4"
)

// Environment variables read by the harness.
const (
	// EnvBinDir names a directory holding kube-apiserver and etcd.
	EnvBinDir = "CODELOC_KUBE_BIN_DIR"
	// EnvToolsDir overrides the cache root of .ci/kube.sh.
	EnvToolsDir = "CODELOC_TOOLS_DIR"
	// EnvCI, when "true", turns missing binaries into a failure.
	EnvCI = "CI"
	// EnvKeep, when set, keeps Dir (data, certificates, logs) after Stop.
	EnvKeep = "KUBETEST_KEEP"
)

// ErrNoBinaries reports that kube-apiserver or etcd could not be found.
var ErrNoBinaries = errors.New("kube-apiserver/etcd binaries not found")

// Env is a running etcd + kube-apiserver pair.
type Env struct {
	// Admin authenticates as a static-token user in group system:masters.
	Admin *rest.Config
	// Dir holds the data, certificates, keys and logs; removed on Stop.
	Dir string
	// StartTime is how long the start took, until /readyz answered ok.
	StartTime time.Duration

	etcd, apiserver *Process
	launch          apiserverLaunch // how the running apiserver was started: RestartAPIServer repeats it
	restarts        int
	dyn             dynamic.Interface
	mapper          *mapper
	stopOnce        sync.Once
}

// Start runs a dedicated apiserver for t and stops it when t ends. It skips
// t when the binaries are missing (fails under CI=true).
func Start(t testing.TB) *Env {
	t.Helper()
	env, err := New(context.Background())
	if err != nil {
		skipOrFail(t, err)
	}
	t.Cleanup(env.Stop)
	return env
}

func skipOrFail(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrNoBinaries) && os.Getenv(EnvCI) != "true" {
		t.Skipf("kubetest: %v (run `bash .ci/kube.sh` and export %s)", err, EnvBinDir)
	}
	t.Fatalf("kubetest: %v", err)
}

// New starts etcd and kube-apiserver and waits until the apiserver is ready.
// The caller must call Stop. It returns an error wrapping ErrNoBinaries when
// the binaries cannot be found.
func New(ctx context.Context) (*Env, error) {
	bins, err := FindBinaries()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "kubetest-")
	if err != nil {
		return nil, err
	}
	env := &Env{Dir: dir}
	start := time.Now()
	if err := env.start(ctx, bins); err != nil {
		env.Stop()
		return nil, err
	}
	env.StartTime = time.Since(start)
	return env, nil
}

// Stop kills the processes and removes Dir. It is safe to call twice.
func (e *Env) Stop() {
	e.stopOnce.Do(func() {
		e.apiserver.Stop()
		e.etcd.Stop()
		if os.Getenv(EnvKeep) == "" {
			_ = os.RemoveAll(e.Dir)
		}
	})
}

// Binaries locates the two executables.
type Binaries struct {
	APIServer, Etcd string
}

// FindBinaries looks in $CODELOC_KUBE_BIN_DIR, then in the cache of
// .ci/kube.sh.
func FindBinaries() (Binaries, error) {
	if dir := os.Getenv(EnvBinDir); dir != "" {
		b := Binaries{APIServer: filepath.Join(dir, "kube-apiserver"), Etcd: filepath.Join(dir, "etcd")}
		return b, b.check()
	}
	root := ToolsDir()
	b := Binaries{
		APIServer: filepath.Join(root, "kube-v"+KubeVersion, "kube-apiserver"),
		Etcd:      filepath.Join(root, "etcd-v"+EtcdVersion, "etcd"),
	}
	return b, b.check()
}

func (b Binaries) check() error {
	for _, p := range []string{b.APIServer, b.Etcd} {
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fmt.Errorf("%w: %s is not an executable", ErrNoBinaries, p)
		}
	}
	return nil
}

// Dynamic returns a dynamic client authenticated as the admin.
func (e *Env) Dynamic() dynamic.Interface { return e.dyn }
