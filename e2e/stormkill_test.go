package e2e

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/codeloc/codeloc/internal/names"
)

// TestSidecarKilledInStorm: while Argo CD renders the 20 storm
// Applications again (a hard refresh of all, each a GenerateManifest call
// to the plugin), codeloc-sidecar is killed with SIGKILL once it has
// served a few of them, and started again as the kubelet restarts a
// container (same binary, flags, socket folder and metrics port). Every
// Application is Synced and Healthy again, the restarted sidecar served
// the rest, no Application keeps a ComparisonError, and nothing is left
// in the sidecar's TMPDIR nor beside its socket. The time from the kill to
// all Synced and Healthy is logged. It runs after TestStorm (file order),
// and deploys the storm first when run alone.
func TestSidecarKilledInStorm(t *testing.T) {
	h := need(t)
	if h.pluginKind != pluginSidecar {
		t.Skip("the plugin server is not codeloc-sidecar")
	}
	h.skipIfReplicas(t)
	ctx := context.Background()
	n := stormSize()
	apps := stormNames(n)
	if err := h.deployStorm(ctx, n); err != nil {
		t.Fatal(err)
	}
	m := h.startMeasure()
	start := time.Now()
	for _, name := range apps {
		if err := h.refresh(ctx, name, "hard"); err != nil {
			t.Fatal(err)
		}
	}
	// Kill it mid-storm: once it has served a few of the renders.
	var before int
	err := poll(ctx, 2*time.Minute, func(context.Context) (bool, error) {
		calls, err := renderCalls(h.plugin.LogFile(), m.offsets[0], h.pluginKind)
		before = len(calls)
		return before >= 3, err
	})
	if err != nil {
		t.Fatalf("the sidecar served no render after the hard refresh: %v", err)
	}
	killed, err := h.killSidecar(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("codeloc-sidecar killed %v into the storm, after %d renders; restarted in %v",
		killed.Sub(start).Round(100*time.Millisecond), before, time.Since(killed).Round(time.Millisecond))

	after := h.startMeasure()
	err = poll(ctx, 10*time.Minute, func(ctx context.Context) (bool, error) {
		states, err := h.states(ctx)
		if err != nil {
			return false, err
		}
		for _, name := range apps {
			if states[name].RefreshPending {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("hard refresh not done after the restart: %v", err)
	}
	if err := h.waitAllHealthy(ctx, apps, 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	recovered := time.Now()
	f, err := after.done("hard refresh after a SIGKILL", n)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("every storm Application Synced and Healthy %v after the kill (%v after the storm began); the restarted sidecar: %s",
		recovered.Sub(killed).Round(100*time.Millisecond), recovered.Sub(start).Round(100*time.Millisecond), f)
	if f.Renders == 0 {
		t.Error("the restarted sidecar served no render")
	}
	states, err := h.states(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range apps {
		if c := states[name].condition("ComparisonError"); c != "" {
			t.Errorf("%s keeps a ComparisonError after the restart: %s", name, c)
		}
	}
	h.expectOnly(t, h.sidecarTmp(), nil)
	h.expectOnly(t, h.pluginDir, []string{names.PluginFullName + ".sock"})
}

// killSidecar kills codeloc-sidecar with SIGKILL, waits for it to exit,
// keeps its log, and starts it again with the same flags, socket folder
// and metrics port, as the kubelet restarts a container; it returns when
// it was killed.
func (h *harness) killSidecar(ctx context.Context) (time.Time, error) {
	u, err := url.Parse(h.sidecarMetrics)
	if err != nil {
		return time.Time{}, err
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		return time.Time{}, err
	}
	old := h.plugin
	if err := syscall.Kill(old.Pid(), syscall.SIGKILL); err != nil {
		return time.Time{}, err
	}
	killed := time.Now()
	if err := poll(ctx, 10*time.Second, func(context.Context) (bool, error) { return old.Exited(), nil }); err != nil {
		return killed, fmt.Errorf("codeloc-sidecar still running after SIGKILL: %w", err)
	}
	if err := os.Rename(old.LogFile(), filepath.Join(h.logs, "codeloc-sidecar.killed.log")); err != nil {
		return killed, err
	}
	return killed, h.startSidecarOn(ctx, port)
}

// expectOnly checks that dir holds exactly the entries named.
func (h *harness) expectOnly(t *testing.T, dir string, want []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s holds %q, want %q", dir, got, want)
	}
}
