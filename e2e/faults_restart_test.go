package e2e

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The code-locations of the restart scenarios: each pair is a
// code-location and one that depends on it, so that the root app-of-apps
// syncs them in two waves.
const (
	apiHeld  = "apiwait" // its preflight runs when the kube-apiserver restarts
	apiNext  = "apinext" // depends on apiwait
	waveHeld = "wavehold"
	waveNext = "wavenext"          // depends on wavehold
	waveFile = "001-wave-hold.sql" // wavehold's migration, armed to sleep
)

// TestAPIServerRestartedInPreflight: apiwait (wave 0) and apinext (wave 1,
// depends on it) are added. The moment the harness starts apiwait's
// preflight pod (codeloc-jobs preflight, a real process), the
// kube-apiserver hangs (SIGSTOP): the preflight's first calls wait on it.
// One second on, with the preflight still running, the kube-apiserver is
// killed (SIGKILL) and a new one starts on the same address, certificate
// and etcd; every client (Argo CD, the controller-manager, the scheduler,
// KWOK, the harness's job runner, the preflight) reconnects. The
// preflight either retries and passes, saying so in a note, or fails with
// one api-error line in its termination message; then, without anyone,
// apiwait ends Synced and Healthy, apinext is created only after that, and
// apinext and the root end Synced and Healthy. The time from the restart
// to apiwait (and to the root) Synced and Healthy is logged.
func TestAPIServerRestartedInPreflight(t *testing.T) {
	h := need(t)
	ctx := context.Background()
	frozen := h.freezeAPIServerAtStart(t, apiHeld, "preflight")
	if err := h.pushPair(ctx, apiHeld, apiNext, nil, nil); err != nil {
		t.Fatal(err)
	}
	f := h.waitFrozen(ctx, t, frozen, apiHeld)
	restarted, err := h.restartFrozenAPIServer(ctx, t, f)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-apiserver hung as %s's preflight started, killed %v later and started again in %v",
		apiHeld, restarted.Sub(f.at).Round(10*time.Millisecond), time.Since(restarted).Round(10*time.Millisecond))

	run := h.waitPodEnded(ctx, t, apiHeld, "preflight", f.at)
	log := h.podLog(run.Pod)
	switch run.ExitCode {
	case 0:
		note := grepLine(log, "note: the Kubernetes API failed transiently")
		t.Logf("the preflight retried and passed %v after the restart: %s; %s", run.End.Sub(restarted).Round(10*time.Millisecond), note, grepLine(log, "preflight "+apiHeld+": "))
		if note == "" {
			t.Errorf("the preflight passed without meeting the restart (no retry note): the scenario did not restart the API server under it\n%s", log)
		}
	case 1:
		t.Logf("the preflight failed %v after the restart: %s", run.End.Sub(restarted).Round(10*time.Millisecond), run.Message)
		if strings.Contains(run.Message, "\n") || !strings.Contains(run.Message, "api-error") || strings.Contains(run.Message, "forbidden") {
			t.Errorf("the failed preflight's message is not one line of api-error problems: %q", run.Message)
		}
		h.checkTerminationMessage(ctx, t, apiHeld, "api-error")
	default:
		t.Errorf("the preflight under the restart ended %d: %q\n%s", run.ExitCode, run.Message, log)
	}

	h.waitWavesAfter(ctx, t, apiHeld, apiNext, restarted, "restart")
}

// TestRepoServerRestartedAtWave: wavehold (wave 0) and wavenext (wave 1,
// depends on it) are added while the test holds a gate wavehold's
// migration waits on (an advisory lock its statement takes): wavehold's
// PreSync holds the root at its wave. While the root waits there (its
// operation Running, wavenext not created), argocd-repo-server is killed
// with SIGKILL, every Application is hard-refreshed (each needs a render
// from the repo-server) and the repo-server is started again on the same
// ports with the same flags (the plugin's socket stays); then the gate is
// released. The rollout completes without anyone: wavehold Synced and
// Healthy before wavenext is created, every Application Synced and
// Healthy, none with a ComparisonError, the migration once in the ledger.
// The time from the kill to all Synced and Healthy is logged.
func TestRepoServerRestartedAtWave(t *testing.T) {
	h := need(t)
	h.skipIfReplicas(t)
	ctx := context.Background()
	release, err := h.holdGate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	files := map[string]string{waveHeld + "/migrations/" + waveFile: "CREATE TABLE wave_hold (id int PRIMARY KEY);\n" + gateStatement(waveFile)}
	if err := h.pushPair(ctx, waveHeld, waveNext, withMigration(waveFile), files); err != nil {
		t.Fatal(err)
	}
	if err := h.waitGated(ctx, waveFile, waveHeld); err != nil {
		t.Fatal(err)
	}
	h.checkRootWaits(ctx, t, waveNext)

	killed, err := h.restartRepoServer(ctx, t)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("argocd-repo-server killed while the root waits at %s's wave; started again in %v", waveHeld, time.Since(killed).Round(10*time.Millisecond))
	release()
	h.waitWavesAfter(ctx, t, waveHeld, waveNext, killed, "kill")
	h.expectLedgerOf(ctx, t, waveHeld, []string{waveFile})
}
