package e2e

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The fault code-location and its migrations: each sleeps in a statement
// while the scenario arms it (faultSleepTable), so that the scenario can
// kill or restart something while the statement runs.
const (
	faultCL      = "faultdb"
	faultTx      = "001-slow.sql"       // transactional
	faultNoTx    = "002-concurrent.sql" // -- codeloc:no-transaction
	faultRestart = "003-restart.sql"    // transactional, PostgreSQL restarts under it
)

var faultMigrations = map[string]string{
	faultTx: "CREATE TABLE fault_tx (id int PRIMARY KEY);\nINSERT INTO fault_tx VALUES (1);\n" + faultSleep(faultTx),
	faultNoTx: "-- codeloc:no-transaction\nCREATE TABLE IF NOT EXISTS fault_nt (id int);\n" + faultSleep(faultNoTx) +
		"CREATE INDEX CONCURRENTLY IF NOT EXISTS fault_nt_id ON fault_nt (id);\n",
	faultRestart: "CREATE TABLE fault_restart (id int PRIMARY KEY);\nINSERT INTO fault_restart VALUES (1);\n" + faultSleep(faultRestart),
}

// TestMigrateFaults runs faultdb's PreSync migration in the real flow
// (Argo CD syncs it, the Job controller and Argo CD's retry run it again)
// and, while a statement runs:
//
//  1. SIGKILLs codeloc-jobs in the transactional 001: the file is rolled
//     back, the ledger lacks it, the advisory lock is free within seconds
//     and the next run does not wait for it; the retry applies it once;
//  2. SIGKILLs it in statement 2 of 3 of the no-transaction 002: statement
//     1 stays, the ledger lacks the file, codeloc_schema_migrations_progress
//     says "statement 2 of 3"; the next run says so, runs it again and
//     records it once;
//  3. restarts PostgreSQL in 003: the pod fails with one line naming the
//     file and the lost connection; the retry applies it.
//
// Then faultdb is Synced and Healthy with each file once in the ledger.
// Each recovery time (fault to the file in the ledger) is logged.
func TestMigrateFaults(t *testing.T) {
	h := need(t)
	ctx := context.Background()
	start := time.Now()
	if err := h.armFaults(ctx, faultTx, faultNoTx, faultRestart); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, f := range []string{faultTx, faultNoTx, faultRestart} {
			_ = h.disarm(context.Background(), f)
		}
		// A statement already sleeping keeps its 300 s after the disarm: on a
		// failure it would hold faultdb's sync, and the root's, for 5 min
		// and fail the scenarios after this one too. Cancelled, the
		// migration fails and the Job's retry runs the disarmed file.
		_ = h.sql(context.Background(), dbName, "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"+
			" AND application_name = 'codeloc-migrate' AND wait_event = 'PgSleep' AND query LIKE '%"+faultSleepTable+"%'")
	})
	if err := h.pushFaultDB(ctx); err != nil {
		t.Fatal(err)
	}

	// 1. SIGKILL in a transactional file.
	if _, err := h.waitSleeping(ctx, faultTx, stepTimeout); err != nil {
		t.Fatal(err)
	}
	killed, err := h.killMigrate(faultCL)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.disarm(ctx, faultTx); err != nil {
		t.Fatal(err)
	}
	freed := h.waitLockFree(ctx, t, killed)
	h.expectLedger(ctx, t, "after the kill in "+faultTx, nil)
	h.expectCount(ctx, t, "SELECT count(*) FROM pg_class WHERE relname = 'fault_tx'", 0, "fault_tx after the kill (not rolled back)")
	killedRun := h.waitRunEnded(ctx, t, killed)
	if killedRun.ExitCode != 137 {
		t.Errorf("the killed pod %s ended with exit code %d, want 137", killedRun.Pod, killedRun.ExitCode)
	}
	// The retry reaches 002: 001 is applied.
	if _, err := h.waitSleeping(ctx, faultNoTx, stepTimeout); err != nil {
		t.Fatal(err)
	}
	recovered := h.waitInLedger(ctx, t, faultTx)
	t.Logf("SIGKILL in %s: lock free %v after the kill, the file in the ledger %v after the kill", faultTx,
		freed.Sub(killed).Round(100*time.Millisecond), recovered.Sub(killed).Round(100*time.Millisecond))
	h.expectCount(ctx, t, "SELECT count(*) FROM fault_tx", 1, "rows of fault_tx")
	h.expectNoWait(t, killed)

	// 2. SIGKILL in statement 2 of 3 of a no-transaction file.
	killed, err = h.killMigrate(faultCL)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.disarm(ctx, faultNoTx); err != nil {
		t.Fatal(err)
	}
	freed = h.waitLockFree(ctx, t, killed)
	h.expectLedger(ctx, t, "after the kill in "+faultNoTx, []string{faultTx})
	where, err := h.text(ctx, "SELECT name || ' statement ' || statement || ' of ' || statements || ' (line ' || line || ')'"+
		" FROM codeloc_schema_migrations_progress WHERE code_location = $1", faultCL)
	if want := faultNoTx + " statement 2 of 3 (line 3)"; err != nil || where != want {
		t.Errorf("codeloc_schema_migrations_progress after the kill: %q (%v), want %q", where, err, want)
	}
	h.expectCount(ctx, t, "SELECT count(*) FROM pg_class WHERE relname = 'fault_nt'", 1, "fault_nt (statement 1) after the kill")
	h.expectCount(ctx, t, "SELECT count(*) FROM pg_class WHERE relname = 'fault_nt_id'", 0, "fault_nt_id (statement 3) after the kill")
	if _, err := h.waitSleeping(ctx, faultRestart, stepTimeout); err != nil {
		t.Fatal(err)
	}
	recovered = h.waitInLedger(ctx, t, faultNoTx)
	t.Logf("SIGKILL in statement 2 of 3 of %s: lock free %v after the kill, the file in the ledger %v after the kill", faultNoTx,
		freed.Sub(killed).Round(100*time.Millisecond), recovered.Sub(killed).Round(100*time.Millisecond))
	h.expectNoWait(t, killed)
	// The re-run (still running: it sleeps in 003) said where the killed run stopped.
	if note := "note: a previous run stopped in " + faultNoTx + " at statement 2 of 3 (line 3)"; !h.podLogsMention(faultCL+"-migrate-", note) {
		t.Errorf("no migrate pod log of %s says %q", faultCL, note)
	}
	h.expectCount(ctx, t, "SELECT count(*) FROM codeloc_schema_migrations_progress", 0, "progress rows after the re-run")
	h.expectCount(ctx, t, "SELECT count(*) FROM pg_index WHERE indexrelid = 'fault_nt_id'::regclass AND indisvalid", 1, "valid fault_nt_id")

	// 3. PostgreSQL restarted in a transactional file.
	restarted := time.Now()
	if err := h.restartPostgres(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("PostgreSQL stopped and started in %v", time.Since(restarted).Round(100*time.Millisecond))
	if err := h.disarm(ctx, faultRestart); err != nil {
		t.Fatal(err)
	}
	failed := h.waitRunEnded(ctx, t, restarted)
	first, _, _ := strings.Cut(failed.Message, "\n")
	t.Logf("the pod PostgreSQL restarted under ended %d: %s", failed.ExitCode, first)
	if failed.ExitCode != 1 || !strings.HasPrefix(first, "migrate "+faultCL+": FAILED: "+faultRestart+": FATAL: terminating connection due to administrator command (SQLSTATE 57P01)") {
		t.Errorf("the pod PostgreSQL restarted under: exit %d, first line %q, want exit 1 and the summary line naming %s and the lost connection", failed.ExitCode, first, faultRestart)
	}
	if !strings.Contains(failed.Message, "the connection to PostgreSQL was lost") {
		t.Errorf("its message does not say the connection was lost: %q", failed.Message)
	}
	recovered = h.waitInLedger(ctx, t, faultRestart)
	t.Logf("PostgreSQL restart in %s: the file in the ledger %v after the restart began", faultRestart, recovered.Sub(restarted).Round(100*time.Millisecond))

	s, err := h.waitRefreshed(ctx, faultCL, stepTimeout, "Synced and Healthy", appState.healthy)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s Synced and Healthy %v after it was pushed: %s", faultCL, time.Since(start).Round(time.Second), s)
	h.expectLedger(ctx, t, "at the end", []string{faultTx, faultNoTx, faultRestart})
	h.expectCount(ctx, t, "SELECT count(*) FROM fault_restart", 1, "rows of fault_restart")
	h.expectCount(ctx, t, "SELECT count(*) FROM fault_tx", 1, "rows of fault_tx")
}

// pushFaultDB adds faultdb (mediawatch's copy with the database and the
// fault migrations, no bucket) to the atlas and its Application to
// cluster/apps, beside the Applications already there.
func (h *harness) pushFaultDB(ctx context.Context) error {
	if err := h.ensureRoot(ctx); err != nil {
		return err
	}
	edit := func(s string) string {
		s = strings.Replace(s, "  secrets: [dagster-postgresql-secret]", "  secrets: [dagster-postgresql-secret, pgvector-pg-auth]", 1)
		return strings.Replace(withoutBuckets(s), "dependsOn:\n",
			"dependsOn:\n  database: [pgvector]\n  migrations: ["+faultTx+", "+faultNoTx+", "+faultRestart+"]\n", 1)
	}
	if err := h.cloneCodeLocation("mediawatch", faultCL, edit); err != nil {
		return err
	}
	files := map[string]string{}
	for name, sql := range faultMigrations {
		files[faultCL+"/migrations/"+name] = sql
	}
	if err := h.atlas.push("atlas: "+faultCL, files); err != nil {
		return err
	}
	// cluster/apps is a function of atlas: every folder has its Application.
	apps, err := h.atlasFolders()
	if err != nil {
		return err
	}
	return h.pushApplications(ctx, apps...)
}

// waitLockFree waits until faultdb's migration lock is free and returns
// when; the killed session must not keep it.
func (h *harness) waitLockFree(ctx context.Context, t *testing.T, killed time.Time) time.Time {
	t.Helper()
	err := poll(ctx, 30*time.Second, func(ctx context.Context) (bool, error) { return h.lockFree(ctx, faultCL) })
	if err != nil {
		t.Fatalf("the migration lock of %s still held %v after the kill: %v", faultCL, time.Since(killed), err)
	}
	return time.Now()
}

// waitInLedger waits until file is in faultdb's ledger and returns when.
func (h *harness) waitInLedger(ctx context.Context, t *testing.T, file string) time.Time {
	t.Helper()
	err := poll(ctx, stepTimeout, func(ctx context.Context) (bool, error) {
		n, err := h.count(ctx, "SELECT count(*) FROM codeloc_schema_migrations WHERE code_location = $1 AND name = $2", faultCL, file)
		return n == 1, err
	})
	if err != nil {
		t.Fatalf("%s not in the ledger: %v", file, err)
	}
	return time.Now()
}

// waitRunEnded waits until the harness has recorded the end of the
// migrate run of faultdb that was running at t.
func (h *harness) waitRunEnded(ctx context.Context, t *testing.T, at time.Time) jobRun {
	t.Helper()
	var run jobRun
	err := poll(ctx, 30*time.Second, func(context.Context) (bool, error) {
		for _, r := range h.runsOf(faultCL, "migrate") {
			if !r.Start.After(at) && !r.End.Before(at) {
				run = r
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no migrate run of %s ended after %s: %v", faultCL, at.Format(time.TimeOnly), err)
	}
	return run
}

// expectNoWait: no run of faultdb that started after the kill waited for
// the lock (a dead session holding it would make it wait).
func (h *harness) expectNoWait(t *testing.T, killed time.Time) {
	t.Helper()
	for _, r := range h.runsOf(faultCL, "migrate") {
		if r.Start.After(killed) && strings.Contains(h.podLog(r.Pod), "waiting for another migration") {
			t.Errorf("pod %s, started after the kill, waited for the migration lock:\n%s", r.Pod, h.podLog(r.Pod))
		}
	}
}

// expectLedger checks faultdb's ledger.
func (h *harness) expectLedger(ctx context.Context, t *testing.T, when string, want []string) {
	t.Helper()
	got, err := h.ledger(ctx, faultCL)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("ledger of %s %s = %q, want %q", faultCL, when, got, want)
	}
}

// expectCount checks a count on the harness's database.
func (h *harness) expectCount(ctx context.Context, t *testing.T, query string, want int, what string) {
	t.Helper()
	n, err := h.count(ctx, query)
	if err != nil {
		t.Errorf("%s: %v", what, err)
	} else if n != want {
		t.Errorf("%s: %d, want %d", what, n, want)
	}
}
