package migrate_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestKilledNoTransactionFileRecordsWhereItStopped kills -9 a run while
// statement 2 of 3 of a no-transaction file sleeps: statement 1 stays
// applied, the ledger lacks the file, the progress table says "statement 2
// of 3"; the next run says so, runs the file again from its first
// statement, records it once and clears the progress row.
func TestKilledNoTransactionFileRecordsWhereItStopped(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	dir := writeFiles(t, map[string]string{
		"001-first.sql": "CREATE TABLE first (id int);\n",
		"002-concurrent.sql": "-- codeloc:no-transaction\nCREATE TABLE IF NOT EXISTS nt (id int);\n" +
			"SELECT pg_sleep(CASE current_setting('codeloc_test.sleep', true) WHEN 'on' THEN 60 ELSE 0 END);\n" +
			"CREATE INDEX CONCURRENTLY IF NOT EXISTS nt_id ON nt (id);\n",
	})
	conn := connect(t, url)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1", helperURLEnv+"="+url, helperDirEnv+"="+dir)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the helper to sleep inside 002-concurrent.sql", func() bool {
		return query(t, conn, "SELECT count(*)::text FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep'")[0] == "1"
	})
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait() //nolint:errcheck // killed on purpose
	waitFor(t, 15*time.Second, "the killed run's lock to be released", func() bool { return lockFree(t, conn, "citation") })

	if got := ledgerRows(t, conn); len(got) != 1 || !strings.HasPrefix(got[0], "citation 001-first.sql ") {
		t.Errorf("ledger after the kill = %q, want only 001-first.sql", got)
	}
	if got, want := query(t, conn, "SELECT name || ' ' || statement || '/' || statements || ' line ' || line FROM codeloc_schema_migrations_progress"),
		"002-concurrent.sql 2/3 line 3"; len(got) != 1 || got[0] != want {
		t.Errorf("progress after the kill = %q, want %q", got, want)
	}
	if got := query(t, conn, "SELECT coalesce(to_regclass('nt')::text, 'absent') || ' ' || coalesce(to_regclass('nt_id')::text, 'absent')"); got[0] != "nt absent" {
		t.Errorf("statement 1 of the killed file did not stay applied: %q", got)
	}

	dry := run(t, url, dir, "citation", true)
	if dry.err != nil || !strings.Contains(dry.out, "would apply 002-concurrent.sql (outside a transaction); a previous run stopped in 002-concurrent.sql at statement 2 of 3 (line 3) at ") {
		t.Errorf("dry run after the kill: %v, printed %q", dry.err, dry.out)
	}
	r := run(t, url, dir, "citation", false)
	if r.err != nil {
		t.Fatalf("the run after the kill failed: %v (helper said %q)", r.err, out.String())
	}
	if !strings.HasPrefix(r.out, "note: a previous run stopped in 002-concurrent.sql at statement 2 of 3 (line 3) at ") ||
		!strings.HasSuffix(r.out, "; running it again from its first statement\napplied 002-concurrent.sql (N ms)\n") {
		t.Errorf("run after the kill printed %q", r.out)
	}
	if got := query(t, conn, "SELECT count(*)::text FROM codeloc_schema_migrations WHERE name = '002-concurrent.sql'"); got[0] != "1" {
		t.Errorf("002-concurrent.sql is %s times in the ledger, want 1", got[0])
	}
	if got := query(t, conn, "SELECT count(*)::text FROM codeloc_schema_migrations_progress"); got[0] != "0" {
		t.Errorf("%s progress rows left after the file succeeded", got[0])
	}
	if got := query(t, conn, "SELECT count(*)::text FROM pg_index WHERE indexrelid = 'nt_id'::regclass AND indisvalid"); got[0] != "1" {
		t.Error("the index of the re-run file is missing or invalid")
	}
}

// TestLostSessionSaysSo: the server ends the session under a file (as a
// restart does: pg_terminate_backend sends the same FATAL 57P01). The
// error says the connection was lost and the next run applies the file,
// not "fix the file".
func TestLostSessionSaysSo(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	dir := writeFiles(t, map[string]string{
		"001-slow.sql": "CREATE TABLE slow (id int);\nSELECT pg_sleep(60);\n",
	})
	conn, killer := connect(t, url), connect(t, url)
	done := make(chan struct{})
	go func() { // no t.Fatal here: another goroutine than the test's
		defer close(done)
		for range 300 {
			time.Sleep(50 * time.Millisecond)
			var n int
			err := killer.QueryRow(context.Background(), "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep'").Scan(&n)
			if err != nil || n > 0 {
				return
			}
		}
	}()
	r := run(t, url, dir, "citation", false)
	<-done
	if r.err == nil {
		t.Fatal("a run whose session was terminated succeeded")
	}
	want := "migrate citation: FAILED: 001-slow.sql: FATAL: terminating connection due to administrator command (SQLSTATE 57P01); applied 0, already applied 0, 1 pending"
	if got := r.line(); got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	if !strings.Contains(r.err.Error(), "the connection to PostgreSQL was lost (a server restart, a failover or the network); its transaction was rolled back and it is not recorded: the next run applies it") {
		t.Errorf("error = %q", r.err)
	}
	if got := query(t, conn, "SELECT coalesce(to_regclass('slow')::text, 'absent')"); got[0] != "absent" {
		t.Error("the file's work was not rolled back")
	}
}
