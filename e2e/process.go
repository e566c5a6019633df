package e2e

import (
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/codeloc/codeloc/internal/kubetest"
)

// process is one long-lived component of the harness (kubetest's, so that
// the two harnesses start, stop and wait for processes the same way).
type process = kubetest.Process

// startProcess starts bin with args and env (added to a minimal base
// environment), logging to logDir/name.log, in its own process group so
// that Stop reaches its children too.
func startProcess(logDir, name, bin string, env []string, args ...string) (*process, error) {
	return kubetest.StartProcess(name, bin, filepath.Join(logDir, name+".log"), append(baseEnv(), env...), args...)
}

// baseEnv is what every child inherits: PATH, HOME and TMPDIR only, so
// that the developer's KUBECONFIG or ARGOCD_* never leak in.
func baseEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "LANG"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// freePort returns a TCP port free on 127.0.0.1 right now.
func freePort() (int, error) {
	ports, err := kubetest.FreePorts(1)
	if err != nil {
		return 0, err
	}
	return ports[0], nil
}

// tcpOpen reports whether something accepts connections on addr.
func tcpOpen(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
