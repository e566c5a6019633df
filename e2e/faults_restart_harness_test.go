package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The restart scenarios (faults_restart_test.go) restart the
// kube-apiserver and argocd-repo-server of the harness under a running
// sync: the helpers here arm the moment, restart, and wait for the
// rollout to complete.

// pushPair adds held (mediawatch's copy, edit applied, no bucket) and next
// (mediawatch's copy depending on held, no bucket) to the atlas with
// files, regenerates cluster/apps from the whole atlas and makes sure the
// root exists: the root syncs held's wave, then next's.
func (h *harness) pushPair(ctx context.Context, held, next string, edit func(string) string, files map[string]string) error {
	if err := h.cloneCodeLocation("mediawatch", held, func(s string) string {
		s = withoutBuckets(s)
		if edit != nil {
			s = edit(s)
		}
		return s
	}); err != nil {
		return err
	}
	dependOn := replace("dependsOn:\n", "dependsOn:\n  codeLocations: ["+held+"]\n")
	if err := h.cloneCodeLocation("mediawatch", next, func(s string) string { return dependOn(withoutBuckets(s)) }); err != nil {
		return err
	}
	if err := h.atlas.write(files); err != nil {
		return err
	}
	if err := h.atlas.commit("atlas: " + held + " and " + next); err != nil {
		return err
	}
	apps, err := h.atlasFolders()
	if err != nil {
		return err
	}
	if err := h.pushApplications(ctx, apps...); err != nil {
		return err
	}
	return h.ensureRoot(ctx)
}

// withMigration declares the harness's database (and its credentials
// secret) and the migration file.
func withMigration(file string) func(string) string {
	return func(s string) string {
		s = strings.Replace(s, "  secrets: [dagster-postgresql-secret]", "  secrets: [dagster-postgresql-secret, pgvector-pg-auth]", 1)
		return strings.Replace(s, "dependsOn:\n", "dependsOn:\n  database: [pgvector]\n  migrations: ["+file+"]\n", 1)
	}
}

// frozenAt is the moment the kube-apiserver was made to hang under a pod.
type frozenAt struct {
	pid int // the pod's process (codeloc-jobs)
	at  time.Time
}

// freezeAPIServerAtStart arms the job runner: right after it starts the
// next pod of codeLocation's role, the kube-apiserver gets SIGSTOP (it
// hangs: connections are accepted by the kernel, nothing answers). The
// channel says when. The test's end disarms it and resumes a
// kube-apiserver left stopped.
func (h *harness) freezeAPIServerAtStart(t *testing.T, codeLocation, role string) <-chan frozenAt {
	ch := make(chan frozenAt, 1)
	h.jobs.armStart(codeLocation, role, func(pid int) {
		_ = syscall.Kill(h.env.APIServer().Pid(), syscall.SIGSTOP)
		ch <- frozenAt{pid: pid, at: time.Now()}
	})
	t.Cleanup(func() {
		h.jobs.armStart(codeLocation, role, nil)
		_ = syscall.Kill(h.env.APIServer().Pid(), syscall.SIGCONT)
	})
	return ch
}

// waitFrozen waits until the armed pod of codeLocation started, asking
// for a refresh of the root and of codeLocation every 5 s (in the
// background: a refresh sent as the API server hangs would hang too).
func (h *harness) waitFrozen(ctx context.Context, t *testing.T, ch <-chan frozenAt, codeLocation string) frozenAt {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, deployTimeout)
	defer cancel()
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	for {
		select {
		case f := <-ch:
			return f
		case <-ctx.Done():
			t.Fatalf("no preflight pod of %s started in %s", codeLocation, deployTimeout)
		case <-tick.C:
			go func() {
				rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
				defer cancel()
				if states, err := h.states(rctx); err == nil {
					h.refreshExisting(rctx, states, []string{rootApp, codeLocation})
				}
			}()
		}
	}
}

// restartFrozenAPIServer checks, one second into the hang, that the pod's
// process still runs (it waits on the API server: nothing else can hold
// it), then kills the kube-apiserver and starts a new one on the same
// address, certificate, tokens and etcd. It returns when it was killed.
func (h *harness) restartFrozenAPIServer(ctx context.Context, t *testing.T, f frozenAt) (time.Time, error) {
	t.Helper()
	time.Sleep(time.Until(f.at.Add(time.Second)))
	if !running(f.pid) {
		t.Fatalf("the preflight (pid %d) ended within 1 s of the API server hanging: it was not waiting on it", f.pid)
	}
	killed := time.Now()
	return killed, h.env.RestartAPIServer(ctx, true)
}

// running reports whether pid is a live process (not gone, not a zombie).
func running(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces, the state follows the last ')'.
	i := strings.LastIndexByte(string(stat), ')')
	return i > 0 && i+2 < len(stat) && stat[i+2] != 'Z'
}

// waitPodEnded waits until the harness recorded the end of the pod of
// codeLocation's role that was running at at.
func (h *harness) waitPodEnded(ctx context.Context, t *testing.T, codeLocation, role string, at time.Time) jobRun {
	t.Helper()
	var run jobRun
	err := poll(ctx, 2*time.Minute, func(context.Context) (bool, error) {
		for _, r := range h.runsOf(codeLocation, role) {
			if !r.Start.After(at) && !r.End.Before(at) {
				run = r
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the %s pod of %s running at %s never ended: %v", role, codeLocation, at.Format(time.TimeOnly), err)
	}
	return run
}

// waitWavesAfter waits for the rollout to complete after a fault at since:
// held Synced and Healthy before next is created (the root's waves), then
// next, the root and every Application Synced and Healthy, none with a
// ComparisonError. It logs each recovery time from since.
func (h *harness) waitWavesAfter(ctx context.Context, t *testing.T, held, next string, since time.Time, fault string) {
	t.Helper()
	order, err := h.waitOrdered(ctx, held, next, deployTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s Synced and Healthy %v after the %s; %s created after it (at %s)", held, order.firstHealthy.Sub(since).Round(100*time.Millisecond),
		fault, next, order.secondCreated.Format(time.TimeOnly))
	for _, app := range []string{next, rootApp} {
		if _, err := h.waitRefreshed(ctx, app, stepTimeout, "Synced and Healthy", appState.healthy); err != nil {
			t.Fatal(err)
		}
	}
	states, err := h.states(ctx)
	if err != nil {
		t.Fatal(err)
	}
	all := slices.Sorted(func(yield func(string) bool) {
		for name := range states {
			if !yield(name) {
				return
			}
		}
	})
	if err := h.waitAllHealthy(ctx, all, stepTimeout); err != nil {
		t.Fatal(err)
	}
	t.Logf("every Application (%d) Synced and Healthy %v after the %s", len(all), time.Since(since).Round(100*time.Millisecond), fault)
	if states, err = h.states(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range all {
		if c := states[name].condition("ComparisonError"); c != "" {
			t.Errorf("%s keeps a ComparisonError after the %s: %s", name, fault, c)
		}
	}
}

// restartRepoServer kills argocd-repo-server with SIGKILL, keeps its log,
// asks for a hard refresh of every Application (each needs a render from
// it), waits up to 20 s for the controller to report the missing
// repo-server on one, and starts it again with the same flags and ports,
// as the kubelet restarts a container; the plugin's socket stays. It
// returns when it was killed.
func (h *harness) restartRepoServer(ctx context.Context, t *testing.T) (time.Time, error) {
	old := h.repoServer
	if err := syscall.Kill(old.Pid(), syscall.SIGKILL); err != nil {
		return time.Time{}, err
	}
	killed := time.Now()
	if err := poll(ctx, 10*time.Second, func(context.Context) (bool, error) { return old.Exited(), nil }); err != nil {
		return killed, fmt.Errorf("argocd-repo-server still running after SIGKILL: %w", err)
	}
	if err := os.Rename(old.LogFile(), filepath.Join(h.logs, "argocd-repo-server.killed.log")); err != nil {
		return killed, err
	}
	states, err := h.states(ctx)
	if err != nil {
		return killed, err
	}
	for name := range states {
		_ = h.refresh(ctx, name, "hard")
	}
	var seen []string
	_ = poll(ctx, 20*time.Second, func(ctx context.Context) (bool, error) {
		states, err := h.states(ctx)
		seen = nil
		for name, s := range states {
			if s.condition("ComparisonError") != "" {
				seen = append(seen, name)
			}
		}
		return len(seen) > 0, err
	})
	t.Logf("with the repo-server away %v: a ComparisonError on %v", time.Since(killed).Round(100*time.Millisecond), seen)
	_, port, err := net.SplitHostPort(h.repoServerAddr)
	if err != nil {
		return killed, err
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return killed, err
	}
	return killed, h.startRepoServerOn(ctx, p, h.repoServerMetricsPort)
}

// gateKey is the advisory lock of the e2e's migration gate.
const gateKey = 424242

// gateStatement is the statement of a migration file that waits while the
// test holds the gate: a shared transaction lock, free at once otherwise.
// The file's name is in the statement, for pg_stat_activity.
func gateStatement(file string) string {
	return fmt.Sprintf("SELECT pg_advisory_xact_lock_shared(%d), '%s' AS gate;\n", gateKey, file)
}

// holdGate takes the gate on a session of its own; release (idempotent)
// ends the session, which frees it.
func (h *harness) holdGate(ctx context.Context) (release func(), err error) {
	conn, err := h.connect(ctx, dbName)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("SELECT pg_advisory_lock(%d)", gateKey)); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(func() { _ = conn.Close(context.Background()) }) }, nil
}

// waitGated waits until a migration session waits at the gate in file,
// asking for a refresh of the root and of codeLocation every 5 s.
func (h *harness) waitGated(ctx context.Context, file, codeLocation string) error {
	var refreshed time.Time
	err := poll(ctx, deployTimeout, func(ctx context.Context) (bool, error) {
		if time.Since(refreshed) > 5*time.Second {
			refreshed = time.Now()
			if states, err := h.states(ctx); err == nil {
				h.refreshExisting(ctx, states, []string{rootApp, codeLocation})
			}
		}
		n, err := h.count(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"+
			" AND application_name = 'codeloc-migrate' AND wait_event_type = 'Lock' AND wait_event = 'advisory' AND query LIKE '%"+file+"%'")
		return n == 1, err
	})
	if err != nil {
		return fmt.Errorf("no migration of %s waiting at the gate in %s: %w", codeLocation, file, err)
	}
	return nil
}

// expectLedgerOf checks a code-location's ledger.
func (h *harness) expectLedgerOf(ctx context.Context, t *testing.T, codeLocation string, want []string) {
	t.Helper()
	got, err := h.ledger(ctx, codeLocation)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("ledger of %s = %q, want %q", codeLocation, got, want)
	}
}

// grepLine is the first line of text holding s, "" when none does.
func grepLine(text, s string) string {
	for line := range strings.Lines(text) {
		if strings.Contains(line, s) {
			return strings.TrimSpace(line)
		}
	}
	return ""
}
