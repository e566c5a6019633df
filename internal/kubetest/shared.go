package kubetest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
)

var shared struct {
	sync.Mutex
	env *Env
	err error
}

// Shared returns the apiserver shared by the tests of this test binary,
// starting it on first use (skipping or failing t like Start when the
// binaries are missing). Tests sharing it isolate themselves in their own
// namespaces (Env.Namespace). The test binary's TestMain must call Main so
// that the apiserver is stopped at the end.
func Shared(t testing.TB) *Env {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if shared.env == nil && shared.err == nil {
		shared.env, shared.err = New(context.Background())
	}
	if shared.err != nil {
		skipOrFail(t, shared.err)
	}
	return shared.env
}

// Main runs the tests and stops the shared apiserver, if one was started:
//
//	func TestMain(m *testing.M) { kubetest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	shared.Lock()
	if shared.env != nil {
		if testing.Verbose() {
			fmt.Fprintf(os.Stderr, "kubetest: shared apiserver started in %s\n", shared.env.StartTime.Round(1e6))
		}
		shared.env.Stop()
	}
	shared.Unlock()
	os.Exit(code)
}
