package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// h is the harness shared by every test of the package, started once by
// TestMain; setupErr says why it is missing.
var (
	h        *harness
	setupErr error
)

// startTimeout bounds the whole start sequence (builds included).
const startTimeout = 6 * time.Minute

// envRun opts in: the suite takes minutes, so `go test ./...` (CI's unit
// step included) skips it; .ci/e2e.sh sets it.
const envRun = "CODELOC_E2E"

// errNotRequested: the suite was not asked for.
var errNotRequested = errors.New("the e2e suite runs only with " + envRun + "=1 (see e2e/README.md, .ci/e2e.sh)")

func TestMain(m *testing.M) {
	if os.Getenv(envRun) != "1" {
		setupErr = errNotRequested
		os.Exit(m.Run())
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	start := time.Now()
	h, setupErr = newHarness(ctx)
	cancel()
	if setupErr == nil {
		fmt.Fprintf(os.Stderr, "e2e: harness started in %s (work dir %s)\n", time.Since(start).Round(time.Millisecond), h.dir)
	}
	if h != nil {
		go stopOnSignal(h)
	}
	code := m.Run()
	if h != nil {
		if n := h.controllerExits.Load(); n > 0 {
			fmt.Fprintf(os.Stderr, "e2e: argocd-application-controller exited %d time(s), %d of them killed by the harness as hung, and was restarted; the logs of each run are argocd-application-controller.exit*.log in %s\n", n, h.controllerHangs.Load(), h.logs)
		}
		h.stop()
	}
	os.Exit(code)
}

// stopOnSignal stops the harness on SIGINT or SIGTERM: PostgreSQL runs
// detached (pg_ctl) and would outlive the test binary.
func stopOnSignal(h *harness) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
	<-c
	h.stop()
	os.Exit(2)
}

// need returns the harness, skipping t when a tool is missing (failing
// under CI=true) and failing it when the start failed.
func need(t *testing.T) *harness {
	t.Helper()
	if errors.Is(setupErr, errNotRequested) {
		t.Skip(setupErr)
	}
	if setupErr != nil {
		if errors.Is(setupErr, errMissing) && os.Getenv(envCI) != "true" {
			t.Skipf("e2e: %v", setupErr)
		}
		t.Fatalf("e2e: %v", setupErr)
	}
	return h
}
