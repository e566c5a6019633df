package migrate_test

import (
	"context"
	"fmt"
	neturl "net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/codeloc/codeloc/migrate"
)

// runTimeouts runs every file of dir for citation with the given timeouts.
func runTimeouts(t *testing.T, url, dir string, lock, stmt time.Duration) result {
	t.Helper()
	files, err := migrate.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn := connect(t, url)
	var out, warn strings.Builder
	sum, err := migrate.Run(context.Background(), conn, migrate.Options{
		CodeLocation: "citation", Files: files, Out: &out, Warn: &warn, LockTimeout: lock, StatementTimeout: stmt,
	})
	return result{sum: sum, err: err, out: msRE.ReplaceAllString(out.String(), "(N ms)"), warn: warn.String()}
}

// blockingSession is session A of the lock tests: it runs stmts in an open
// transaction, and reports its pid and how pg_stat_activity describes it.
func blockingSession(t *testing.T, url string, stmts ...string) (pid int, describe string) {
	t.Helper()
	a, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	for _, s := range append([]string{"BEGIN"}, stmts...) {
		mustExec(t, a, s)
	}
	var start time.Time
	var state, wait string
	if err := a.QueryRow(context.Background(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	// Once A waits for its client (ClientRead): it reports that just
	// after it has answered.
	other := connect(t, url)
	waitFor(t, 30*time.Second, "session A to wait for its client", func() bool {
		return query(t, other, "SELECT count(*)::text FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Client'", pid)[0] == "1"
	})
	if err := other.QueryRow(context.Background(), "SELECT query_start, state, wait_event_type FROM pg_stat_activity WHERE pid = $1", pid).Scan(&start, &state, &wait); err != nil {
		t.Fatal(err)
	}
	return pid, fmt.Sprintf("pid %d (query_start %s, state %s, wait_event_type %s)", pid, start.UTC().Format(migrate.QueryStartLayout), state, wait)
}

func TestLockTimeoutNamesTheBlockingSession(t *testing.T) {
	t.Parallel()
	const setup = "CREATE TABLE t (id int PRIMARY KEY, v int);\nINSERT INTO t VALUES (1, 1);\n"
	tests := []struct {
		name     string
		blocker  []string // session A's statements, in its open transaction
		file     string   // 002-change.sql
		want     string   // the error, with %s for A's description
		progress bool     // a no-transaction file leaves its progress row
	}{{
		name:    "table lock, transactional file",
		blocker: []string{"LOCK TABLE t IN ACCESS EXCLUSIVE MODE"},
		file:    "SELECT 1;\n\nALTER TABLE t ADD COLUMN note text;\n",
		want: "002-change.sql:3 (statement 2 of 2): ERROR: canceling statement due to lock timeout (SQLSTATE 55P03): " +
			"waited for a lock longer than lock_timeout 1s (database.migrations.lockTimeout); blocked by %s; " +
			"its transaction was rolled back and it is not recorded; find the blocking session by its pid (pg_stat_activity), let it finish or end it, then re-sync; " +
			"raise database.migrations.lockTimeout only knowingly: every query on the table queues behind a waiting migration",
	}, {
		name:    "row lock, no-transaction file",
		blocker: []string{"SELECT id FROM t WHERE id = 1 FOR UPDATE"},
		file:    "-- codeloc:no-transaction\nCREATE TABLE side (id int);\nUPDATE t SET v = 2 WHERE id = 1;\n",
		want: "002-change.sql:3 (statement 2 of 2): ERROR: canceling statement due to lock timeout (SQLSTATE 55P03): " +
			"waited for a lock longer than lock_timeout 1s (database.migrations.lockTimeout); blocked by %s; " +
			"it ran outside a transaction: its statements before statement 2 of 2 stay applied and it is not recorded (codeloc_schema_migrations_progress records where it stopped); " +
			"find the blocking session by its pid (pg_stat_activity), let it finish or end it, then re-sync; " +
			"raise database.migrations.lockTimeout only knowingly: every query on the table queues behind a waiting migration",
		progress: true,
	}, {
		// CREATE INDEX CONCURRENTLY waits for the transactions writing
		// to the table after it has catalogued the index: lock_timeout
		// ends that wait too, and the index stays INVALID.
		name:    "concurrent index waiting for a writer",
		blocker: []string{"INSERT INTO t VALUES (2, 2)"},
		file:    "-- codeloc:no-transaction\nCREATE INDEX CONCURRENTLY t_v ON t (v);\n",
		want: "002-change.sql:2 (statement 1 of 1): ERROR: canceling statement due to lock timeout (SQLSTATE 55P03): " +
			"waited for a lock longer than lock_timeout 1s (database.migrations.lockTimeout); blocked by %s; " +
			"it ran outside a transaction: its statements before statement 1 of 1 stay applied and it is not recorded (codeloc_schema_migrations_progress records where it stopped); " +
			"it left the INVALID index public.t_v on public.t: DROP INDEX CONCURRENTLY public.t_v before the next run, which refuses to start while it exists; " +
			"find the blocking session by its pid (pg_stat_activity), let it finish or end it, then re-sync; " +
			"raise database.migrations.lockTimeout only knowingly: every query on the table queues behind a waiting migration",
		progress: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url := newDB(t)
			if r := runTimeouts(t, url, writeFiles(t, map[string]string{"001-t.sql": setup}), 0, 0); r.err != nil {
				t.Fatal(r.err)
			}
			_, describe := blockingSession(t, url, tt.blocker...)
			dir := writeFiles(t, map[string]string{"001-t.sql": setup, "002-change.sql": tt.file})

			r := runTimeouts(t, url, dir, time.Second, time.Minute)
			if r.err == nil {
				t.Fatal("the migration did not time out")
			}
			if diff := cmp.Diff(fmt.Sprintf(tt.want, describe), r.err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if got, want := r.line(), "migrate citation: FAILED: "+r.err.Error()+"; applied 0, already applied 1, 1 pending"; got != want {
				t.Errorf("summary = %q, want %q", got, want)
			}
			conn := connect(t, url)
			if got := ledgerRows(t, conn); len(got) != 1 || !strings.HasPrefix(got[0], "citation 001-t.sql ") {
				t.Errorf("ledger = %q, want only 001-t.sql", got)
			}
			if got := query(t, conn, "SELECT count(*)::text FROM pg_attribute WHERE attrelid = 't'::regclass AND attname = 'note'"); got[0] != "0" {
				t.Error("the column was added")
			}
			progress := query(t, conn, "SELECT (to_regclass('codeloc_schema_migrations_progress') IS NOT NULL)::text")[0] == "true" &&
				query(t, conn, "SELECT count(*)::text FROM codeloc_schema_migrations_progress")[0] == "1"
			if progress != tt.progress {
				t.Errorf("progress row present: %v, want %v", progress, tt.progress)
			}
			if !lockFree(t, conn, "citation") {
				t.Error("the migration lock is still held")
			}
		})
	}
}

func TestStatementTimeout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, want string
	}{{
		name: "transactional file",
		file: "CREATE TABLE side (id int);\nSELECT pg_sleep(2);\n",
		want: "002-slow.sql:2 (statement 2 of 2): ERROR: canceling statement due to statement timeout (SQLSTATE 57014): " +
			"ran longer than statement_timeout 100ms (database.migrations.statementTimeout); its transaction was rolled back and it is not recorded; " +
			"make the statement faster (smaller batches, CONCURRENTLY) or raise database.migrations.statementTimeout (below jobs.activeDeadlineSeconds), then re-sync",
	}, {
		name: "no-transaction file",
		file: "-- codeloc:no-transaction\nSELECT pg_sleep(2);\n",
		want: "002-slow.sql:2 (statement 1 of 1): ERROR: canceling statement due to statement timeout (SQLSTATE 57014): " +
			"ran longer than statement_timeout 100ms (database.migrations.statementTimeout); " +
			"it ran outside a transaction: its statements before statement 1 of 1 stay applied and it is not recorded (codeloc_schema_migrations_progress records where it stopped); " +
			"make the statement faster (smaller batches, CONCURRENTLY) or raise database.migrations.statementTimeout (below jobs.activeDeadlineSeconds), then re-sync",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url := newDB(t)
			dir := writeFiles(t, map[string]string{"001-ok.sql": "CREATE TABLE ok (id int);\n", "002-slow.sql": tt.file})
			r := runTimeouts(t, url, dir, 5*time.Second, 100*time.Millisecond)
			if r.err == nil {
				t.Fatal("the migration did not time out")
			}
			if diff := cmp.Diff(tt.want, r.err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			conn := connect(t, url)
			if got := ledgerRows(t, conn); len(got) != 1 || !strings.HasPrefix(got[0], "citation 001-ok.sql ") {
				t.Errorf("ledger = %q, want only 001-ok.sql", got)
			}
			if got := query(t, conn, "SELECT coalesce(to_regclass('side')::text, 'absent')"); got[0] != "absent" {
				t.Error("the timed-out file was not rolled back")
			}
			if !lockFree(t, conn, "citation") {
				t.Error("the migration lock is still held")
			}
		})
	}
}

// TestTimeoutsAreSetPerFile: a file's own SET does not carry over to the
// next file, and the session gets its own values back after the run.
func TestTimeoutsAreSetPerFile(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	dir := writeFiles(t, map[string]string{
		"001-raise.sql": "SET lock_timeout = '1min';\nCREATE TABLE seen (file text, lock_timeout text, statement_timeout text);\nINSERT INTO seen VALUES ('001', current_setting('lock_timeout'), current_setting('statement_timeout'));\n",
		"002-next.sql":  "INSERT INTO seen VALUES ('002', current_setting('lock_timeout'), current_setting('statement_timeout'));\n",
	})
	files, err := migrate.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn := connect(t, url)
	if _, err := migrate.Run(context.Background(), conn, migrate.Options{CodeLocation: "citation", Files: files, LockTimeout: 1500 * time.Millisecond, StatementTimeout: 2 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	want := []string{"001 1min 2min", "002 1500ms 2min"}
	if diff := cmp.Diff(want, query(t, conn, "SELECT file || ' ' || lock_timeout || ' ' || statement_timeout FROM seen ORDER BY file")); diff != "" {
		t.Errorf("settings seen by the files (-want +got):\n%s", diff)
	}
	if got := query(t, conn, "SELECT current_setting('lock_timeout') || ' ' || current_setting('statement_timeout')"); got[0] != "0 0" {
		t.Errorf("after the run the session has %q, want its own \"0 0\"", got[0])
	}
}

func TestLockTimeoutAsAnOrdinaryRole(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, limit string
		want        string // after "lock_timeout 1s (database.migrations.lockTimeout); "
	}{
		{"no stats privilege", "-1", "blocked by pid %d (query_start not visible: grant pg_read_all_stats to the migration's role to see it); "},
		{"no second session", "1", "blocking sessions unknown: no second session to look at them: failed to connect to "},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url := newDB(t)
			admin := connect(t, url)
			role := fmt.Sprintf("codeloc_mig_%d_%d", os.Getpid(), i)
			const password = "s3cr3t-mig-pw" // for a server that asks for one; never printed
			mustExec(t, admin, "CREATE ROLE "+role+" LOGIN PASSWORD '"+password+"' CONNECTION LIMIT "+tt.limit)
			t.Cleanup(func() {
				mustExec(t, admin, "DROP OWNED BY "+role)
				mustExec(t, admin, "DROP ROLE "+role)
			})
			mustExec(t, admin, "GRANT ALL ON SCHEMA public TO "+role)
			mustExec(t, admin, "CREATE TABLE t (id int PRIMARY KEY)")
			mustExec(t, admin, "ALTER TABLE t OWNER TO "+role)
			pid, _ := blockingSession(t, url, "LOCK TABLE t IN ACCESS EXCLUSIVE MODE")
			u, err := neturl.Parse(url)
			if err != nil {
				t.Fatal(err)
			}
			u.User = neturl.UserPassword(role, password)
			dir := writeFiles(t, map[string]string{"001-change.sql": "ALTER TABLE t ADD COLUMN note text;\n"})

			r := runTimeouts(t, u.String(), dir, time.Second, time.Minute)
			if r.err == nil {
				t.Fatal("the migration did not time out")
			}
			prefix := "001-change.sql:1 (statement 1 of 1): ERROR: canceling statement due to lock timeout (SQLSTATE 55P03): " +
				"waited for a lock longer than lock_timeout 1s (database.migrations.lockTimeout); "
			want := prefix + tt.want
			if strings.Contains(want, "%d") {
				want = fmt.Sprintf(want, pid)
			}
			if got := r.err.Error(); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "; its transaction was rolled back and it is not recorded; find the blocking session by its pid (pg_stat_activity), let it finish or end it, then re-sync; raise database.migrations.lockTimeout only knowingly: every query on the table queues behind a waiting migration") {
				t.Errorf("error = %q\nwant it to start with %q", got, want)
			}
			if strings.Contains(r.err.Error(), password) {
				t.Errorf("the error shows the password: %q", r.err)
			}
		})
	}
}
