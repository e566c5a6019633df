package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/migrate"
)

func TestFirstRunAppliesAllSecondRunNothing(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	dir := filepath.Join("testdata", "citation")

	first := run(t, url, dir, "citation", false)
	if first.err != nil {
		t.Fatal(first.err)
	}
	wantOut := "applied 001-researchers.sql (N ms)\napplied 002-researcher-search.sql (N ms)\napplied 003-affiliations.sql (N ms)\n"
	if diff := cmp.Diff(wantOut, first.out); diff != "" {
		t.Errorf("first run output (-want +got):\n%s", diff)
	}
	if got, want := first.line(), "migrate citation: applied 3, already applied 0, 0 pending"; got != want {
		t.Errorf("first run summary = %q, want %q", got, want)
	}

	conn := connect(t, url)
	files, err := migrate.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range files {
		want = append(want, "citation "+f.Name+" "+f.SHA256)
	}
	if diff := cmp.Diff(want, ledgerRows(t, conn)); diff != "" {
		t.Errorf("ledger (-want +got):\n%s", diff)
	}
	if got := query(t, conn, "SELECT DISTINCT revision || ' ' || (duration_ms >= 0) || ' ' || (applied_at <= now()) FROM codeloc_schema_migrations"); !slices.Equal(got, []string{"a3f9c1d true true"}) {
		t.Errorf("ledger revision/duration/applied_at = %q", got)
	}
	// The schema works: the function, the foreign key, the valid indexes.
	query(t, conn, `INSERT INTO researchers (full_name, affiliation, embedding) VALUES ('Ada', 'CNRS', array_fill(0.5::real, ARRAY[384])) RETURNING 'ok'`)
	if got := query(t, conn, "SELECT researcher_label(r) FROM researchers r"); !slices.Equal(got, []string{"Ada (CNRS; no ORCID)"}) {
		t.Errorf("researcher_label = %q", got)
	}
	if got := query(t, conn, "SELECT indexrelid::regclass::text || ' ' || indisvalid FROM pg_index WHERE indrelid = 'researchers'::regclass ORDER BY 1"); !slices.Equal(got, []string{
		"researchers_affiliation true", "researchers_full_name true", "researchers_orcid_key true", "researchers_pkey true",
	}) {
		t.Errorf("indexes = %q", got)
	}
	appliedAt := query(t, conn, "SELECT string_agg(applied_at::text, ',' ORDER BY name) FROM codeloc_schema_migrations")

	second := run(t, url, dir, "citation", false)
	if second.err != nil {
		t.Fatal(second.err)
	}
	if second.out != "" || second.warn != "" {
		t.Errorf("second run printed %q / %q, want nothing", second.out, second.warn)
	}
	if got, want := second.line(), "migrate citation: applied 0, already applied 3, 0 pending"; got != want {
		t.Errorf("second run summary = %q, want %q", got, want)
	}
	if got := query(t, conn, "SELECT string_agg(applied_at::text, ',' ORDER BY name) FROM codeloc_schema_migrations"); !slices.Equal(got, appliedAt) {
		t.Errorf("the second run rewrote the ledger: %q, was %q", got, appliedAt)
	}
	if !lockFree(t, conn, "citation") {
		t.Error("the lock is still held after the runs")
	}
}

func TestChangedAppliedFileFailsBeforeApplyingAnything(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	dir := copyDir(t, "citation")
	if r := run(t, url, dir, "citation", false); r.err != nil {
		t.Fatal(r.err)
	}
	before, _ := migrate.Load(dir, nil)
	appendTo(t, filepath.Join(dir, "002-researcher-search.sql"), "-- edited after it was applied\n")
	appendTo(t, filepath.Join(dir, "003-affiliations.sql"), "INSERT INTO affiliations VALUES ('INRIA', 'FR');\n")
	if err := os.WriteFile(filepath.Join(dir, "004-new.sql"), []byte("CREATE TABLE not_applied (id int);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, _ := migrate.Load(dir, nil)

	r := run(t, url, dir, "citation", false)
	if r.err == nil {
		t.Fatal("a changed applied file did not fail the run")
	}
	want := fmt.Sprintf("002-researcher-search.sql changed after it was applied: the ledger has sha256 %s, the file has sha256 %s; write a new migration instead of editing an applied one (or restore the file)\n"+
		"003-affiliations.sql changed after it was applied: the ledger has sha256 %s, the file has sha256 %s; write a new migration instead of editing an applied one (or restore the file)",
		before[1].SHA256, after[1].SHA256, before[2].SHA256, after[2].SHA256)
	if diff := cmp.Diff(want, r.err.Error()); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(r.line(), "migrate citation: FAILED: 002-researcher-search.sql changed after it was applied") {
		t.Errorf("summary = %q", r.line())
	}
	conn := connect(t, url)
	if got := query(t, conn, "SELECT coalesce(to_regclass('not_applied')::text, 'absent')"); got[0] != "absent" {
		t.Error("004-new.sql was applied although an applied file changed")
	}
	if n := len(ledgerRows(t, conn)); n != 3 {
		t.Errorf("ledger has %d rows, want 3", n)
	}
}

func TestConcurrentRunsApplyEachFileOnce(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	files := map[string]string{"001-log.sql": "CREATE TABLE applied_log (file text NOT NULL);\n"}
	for i := 2; i <= 6; i++ {
		files[fmt.Sprintf("%03d-step.sql", i)] = fmt.Sprintf("INSERT INTO applied_log VALUES ('%03d');\nSELECT pg_sleep(0.05);\n", i)
	}
	dir := writeFiles(t, files)

	const runs = 4
	results := make([]result, runs)
	var wg sync.WaitGroup
	for i := range runs {
		do := prepare(t, url, dir, "citation", false)
		wg.Go(func() { results[i] = do(context.Background()) })
	}
	wg.Wait()

	applied := 0
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("run %d: %v", i, r.err)
		}
		if r.sum.Applied+r.sum.AlreadyApplied != len(files) || r.sum.Pending != 0 {
			t.Errorf("run %d: %s", i, r.line())
		}
		applied += r.sum.Applied
	}
	if applied != len(files) {
		t.Errorf("the runs applied %d files in all, want %d", applied, len(files))
	}
	conn := connect(t, url)
	got := query(t, conn, "SELECT file || ' x' || count(*) FROM applied_log GROUP BY file ORDER BY file")
	want := []string{"002 x1", "003 x1", "004 x1", "005 x1", "006 x1"}
	if !slices.Equal(got, want) {
		t.Errorf("applied_log = %q, want %q", got, want)
	}
	if n := len(ledgerRows(t, conn)); n != len(files) {
		t.Errorf("ledger has %d rows, want %d", n, len(files))
	}
}

func TestConcurrentCodeLocationsShareTheLedger(t *testing.T) {
	t.Parallel()
	url := newDB(t) // no ledger table yet: every run races to create it
	names := []string{"citation", "mediawatch", "researchers", "datalake"}
	var wg sync.WaitGroup
	results := make([]result, len(names))
	for i, name := range names {
		dir := writeFiles(t, map[string]string{
			"001-init.sql": fmt.Sprintf("CREATE SCHEMA %s;\nCREATE TABLE %s.items (id int);\n", name, name),
			"002-more.sql": fmt.Sprintf("ALTER TABLE %s.items ADD COLUMN label text;\n", name),
		})
		do := prepare(t, url, dir, name, false)
		wg.Go(func() { results[i] = do(context.Background()) })
	}
	wg.Wait()
	for i, r := range results {
		if r.err != nil || r.sum.Applied != 2 {
			t.Errorf("%s: %s", names[i], r.line())
		}
	}
	if n := len(ledgerRows(t, connect(t, url))); n != 2*len(names) {
		t.Errorf("ledger has %d rows, want %d", n, 2*len(names))
	}
}

// TestKilledRunLeavesConsistentState kills -9 a run (a process of its own)
// while its second file sleeps inside its transaction.
func TestKilledRunLeavesConsistentState(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	dir := writeFiles(t, map[string]string{
		"001-first.sql": "CREATE TABLE first (id int);\n",
		// Sleeps only in the helper's session (codeloc_test.sleep=on).
		"002-slow.sql": "CREATE TABLE slow_side_effect (id int);\nINSERT INTO slow_side_effect VALUES (1);\n" +
			"SELECT pg_sleep(CASE current_setting('codeloc_test.sleep', true) WHEN 'on' THEN 60 ELSE 0 END);\n",
		"003-last.sql": "CREATE TABLE last (id int);\n",
	})
	conn := connect(t, url)

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1", helperURLEnv+"="+url, helperDirEnv+"="+dir)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the helper to sleep inside 002-slow.sql", func() bool {
		return query(t, conn, "SELECT count(*)::text FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep'")[0] == "1"
	})
	if lockFree(t, conn, "citation") {
		t.Fatal("the running helper does not hold the lock")
	}
	killed := time.Now()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait() //nolint:errcheck // killed on purpose

	// The server notices the vanished client within seconds, not after the
	// 60 s sleep (client_connection_check_interval): no stale lock.
	waitFor(t, 15*time.Second, "the killed run's lock to be released", func() bool { return lockFree(t, conn, "citation") })
	t.Logf("lock released %v after the kill", time.Since(killed).Round(100*time.Millisecond))
	if got := ledgerRows(t, conn); len(got) != 1 || !strings.HasPrefix(got[0], "citation 001-first.sql ") {
		t.Errorf("ledger after the kill = %q, want only 001-first.sql", got)
	}
	if got := query(t, conn, "SELECT coalesce(to_regclass('slow_side_effect')::text, 'absent')"); got[0] != "absent" {
		t.Error("the killed file's work was not rolled back")
	}

	r := run(t, url, dir, "citation", false)
	if r.err != nil {
		t.Fatalf("the run after the kill failed: %v (helper said %q)", r.err, out.String())
	}
	if got, want := r.out, "applied 002-slow.sql (N ms)\napplied 003-last.sql (N ms)\n"; got != want {
		t.Errorf("run after the kill printed %q, want %q", got, want)
	}
	if got := query(t, conn, "SELECT count(*)::text FROM slow_side_effect"); got[0] != "1" {
		t.Errorf("slow_side_effect has %s rows, want 1", got[0])
	}
}

func TestCancelRollsBackTheCurrentFile(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	dir := writeFiles(t, map[string]string{
		"001-first.sql": "CREATE TABLE first (id int);\n",
		"002-slow.sql":  "CREATE TABLE slow_side_effect (id int);\nSELECT pg_sleep(60);\n",
	})
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(time.Second, func() { cancel(errors.New("received terminated")) })
	start := time.Now()
	r := runCtx(ctx, t, url, dir, "citation", false)
	if r.err == nil {
		t.Fatal("a cancelled run succeeded")
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the cancelled run took %v", took)
	}
	if want := "002-slow.sql: interrupted (received terminated); its transaction was rolled back and it is not recorded: the next run applies it"; r.err.Error() != want {
		t.Errorf("error = %q, want %q", r.err, want)
	}
	if got, want := r.line(), "migrate citation: FAILED: 002-slow.sql: interrupted (received terminated); its transaction was rolled back and it is not recorded: the next run applies it; applied 1, already applied 0, 1 pending"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	conn := connect(t, url)
	waitFor(t, 15*time.Second, "the lock to be released", func() bool { return lockFree(t, conn, "citation") })
	if got := query(t, conn, "SELECT coalesce(to_regclass('slow_side_effect')::text, 'absent')"); got[0] != "absent" {
		t.Error("the interrupted file was not rolled back")
	}
	if n := len(ledgerRows(t, conn)); n != 1 {
		t.Errorf("ledger has %d rows, want 1", n)
	}
}

func TestFailedFileRollsBack(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, sql string
		want      []string // substrings of the error
	}{{
		name: "syntax error names the line",
		sql:  "CREATE TABLE half_done (id int);\n\nINSERT INTO half_done VALUES (1;\n",
		want: []string{"002-bad.sql:3: ERROR: syntax error at or near \";\" (SQLSTATE 42601)", "its transaction was rolled back and it is not recorded: fix the file and re-run"},
	}, {
		name: "detail and hint",
		sql:  "CREATE TABLE half_done (id int PRIMARY KEY);\nINSERT INTO half_done VALUES (1), (1);\n",
		want: []string{"002-bad.sql: ERROR: duplicate key value violates unique constraint \"half_done_pkey\" (SQLSTATE 23505)", "\n  DETAIL: Key (id)=(1) already exists."},
	}, {
		name: "concurrent index inside a transaction",
		sql:  "CREATE TABLE half_done (id int);\nCREATE INDEX CONCURRENTLY half_done_id ON half_done (id);\n",
		want: []string{"CREATE INDEX CONCURRENTLY cannot run inside a transaction block (SQLSTATE 25001)", `put it in a file whose first line is "-- codeloc:no-transaction"`},
	}, {
		name: "file ending the transaction itself",
		sql:  "CREATE TABLE half_done (id int);\nCOMMIT;\n",
		want: []string{"002-bad.sql ended the migration's transaction itself (COMMIT, ROLLBACK or END)"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url := newDB(t)
			dir := writeFiles(t, map[string]string{
				"001-ok.sql":    "CREATE TABLE ok (id int);\n",
				"002-bad.sql":   tt.sql,
				"003-after.sql": "CREATE TABLE after (id int);\n",
			})
			r := run(t, url, dir, "citation", false)
			if r.err == nil {
				t.Fatal("the run succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(r.err.Error(), w) {
					t.Errorf("error %q lacks %q", r.err, w)
				}
			}
			if r.sum.Failed != "002-bad.sql" || r.sum.Applied != 1 || r.sum.Pending != 2 {
				t.Errorf("summary = %q", r.line())
			}
			conn := connect(t, url)
			if got := ledgerRows(t, conn); len(got) != 1 || !strings.HasPrefix(got[0], "citation 001-ok.sql ") {
				t.Errorf("ledger = %q, want only 001-ok.sql", got)
			}
			if got := query(t, conn, "SELECT coalesce(to_regclass('after')::text, 'absent')"); got[0] != "absent" {
				t.Error("the run went on after a failed file")
			}
		})
	}
}

func TestFailedConcurrentIndexIsReportedInvalid(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	dir := writeFiles(t, map[string]string{
		"001-users.sql": "CREATE TABLE users (email text);\nINSERT INTO users VALUES ('a@example.org'), ('a@example.org'), ('b@example.org');\n",
		// IF NOT EXISTS would skip an INVALID index: the run must refuse.
		"002-unique-email.sql": "-- codeloc:no-transaction\nCREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS users_email_key ON users (email);\n",
	})
	r := run(t, url, dir, "citation", false)
	if r.err == nil {
		t.Fatal("the unique index was built over duplicates")
	}
	want := `002-unique-email.sql:2: ERROR: could not create unique index "users_email_key" (SQLSTATE 23505)
  DETAIL: Key (email)=(a@example.org) is duplicated.
  it ran outside a transaction: its statements before statement 1 of 1 stay applied and it is not recorded (codeloc_schema_migrations_progress records where it stopped); make it safe to re-run (IF NOT EXISTS), fix it and re-run
  the failed build left INVALID indexes:
  INVALID index public.users_email_key on public.users; fix: DROP INDEX CONCURRENTLY public.users_email_key; then re-run`
	if diff := cmp.Diff(want, r.err.Error()); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
	conn := connect(t, url)
	if n := len(ledgerRows(t, conn)); n != 1 {
		t.Errorf("ledger has %d rows, want 1", n)
	}

	// Removing the duplicates is not enough: the INVALID index must go first.
	query(t, conn, "DELETE FROM users WHERE ctid NOT IN (SELECT min(ctid) FROM users GROUP BY email) RETURNING 'x'")
	r = run(t, url, dir, "citation", false)
	if r.err == nil {
		t.Fatal("the run recorded an INVALID index as applied")
	}
	if !strings.Contains(r.err.Error(), "002-unique-email.sql runs outside a transaction and the database holds INVALID indexes") ||
		!strings.Contains(r.err.Error(), "fix: DROP INDEX CONCURRENTLY public.users_email_key;") {
		t.Errorf("error = %q", r.err)
	}

	if _, err := conn.Exec(context.Background(), "DROP INDEX CONCURRENTLY public.users_email_key"); err != nil {
		t.Fatal(err)
	}
	if r = run(t, url, dir, "citation", false); r.err != nil {
		t.Fatalf("the run after the fix failed: %v", r.err)
	}
	if got := query(t, conn, "SELECT indisvalid::text FROM pg_index WHERE indexrelid = 'users_email_key'::regclass"); got[0] != "true" {
		t.Error("the index is not valid after the fix")
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	dir := filepath.Join("testdata", "citation")
	conn := connect(t, url)

	r := run(t, url, dir, "citation", true)
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := "would apply 001-researchers.sql (outside a transaction)\nwould apply 002-researcher-search.sql\nwould apply 003-affiliations.sql\n"
	if diff := cmp.Diff(want, r.out); diff != "" {
		t.Errorf("dry run output (-want +got):\n%s", diff)
	}
	if got, want := r.line(), "migrate citation (dry run): would apply 3, already applied 0, nothing written"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	if got := query(t, conn, "SELECT count(*)::text FROM pg_class WHERE relnamespace = 'public'::regnamespace"); got[0] != "0" {
		t.Errorf("the dry run created %s relations", got[0])
	}

	if r := run(t, url, dir, "citation", false, "001-researchers.sql"); r.err != nil {
		t.Fatal(r.err)
	}
	r = run(t, url, dir, "citation", true)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got, want := r.out, "would apply 002-researcher-search.sql\nwould apply 003-affiliations.sql\n"; got != want {
		t.Errorf("dry run output = %q, want %q", got, want)
	}
	if n := len(ledgerRows(t, conn)); n != 1 {
		t.Errorf("ledger has %d rows after a dry run, want 1", n)
	}
}

func TestAppliedFileNoLongerListedIsReported(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	dir := filepath.Join("testdata", "citation")
	if r := run(t, url, dir, "citation", false); r.err != nil {
		t.Fatal(r.err)
	}
	// Another code-location's rows are none of this one's business.
	other := writeFiles(t, map[string]string{"001-mediawatch.sql": "CREATE TABLE mediawatch (id int);\n"})
	if r := run(t, url, other, "mediawatch", false); r.err != nil {
		t.Fatal(r.err)
	}
	r := run(t, url, dir, "citation", false, "001-researchers.sql", "002-researcher-search.sql")
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got, want := r.warn, "warning: 003-affiliations.sql is recorded as applied for citation but is no longer listed; nothing is undone\n"; got != want {
		t.Errorf("warning = %q, want %q", got, want)
	}
	if got, want := r.line(), "migrate citation: applied 0, already applied 2, 0 pending"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
}

func TestLedgerStaysPutWhenAFileChangesTheSearchPath(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	dir := writeFiles(t, map[string]string{
		"001-schema.sql": "CREATE SCHEMA app;\nSET search_path TO app;\n",
		"002-table.sql":  "CREATE TABLE items (id int);\n",
	})
	if r := run(t, url, dir, "citation", false); r.err != nil {
		t.Fatal(r.err)
	}
	conn := connect(t, url)
	if got := query(t, conn, "SELECT to_regclass('public.codeloc_schema_migrations')::text || ' ' || to_regclass('app.items')::text"); got[0] != "codeloc_schema_migrations app.items" {
		t.Errorf("got %q", got)
	}
	if n := len(ledgerRows(t, conn)); n != 2 {
		t.Errorf("ledger has %d rows, want 2", n)
	}
}

func TestNoopRerunIsFast(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	dir := writeFiles(t, smallFiles(100))
	if r := run(t, url, dir, "citation", false); r.err != nil {
		t.Fatal(r.err)
	}
	files, err := migrate.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn := connect(t, url)
	var took []time.Duration
	for range 7 {
		start := time.Now()
		sum, err := migrate.Run(context.Background(), conn, migrate.Options{CodeLocation: "citation", Files: files})
		took = append(took, time.Since(start))
		if err != nil || sum.AlreadyApplied != 100 {
			t.Fatalf("re-run: %s", sum.Line(err))
		}
	}
	slices.Sort(took)
	t.Logf("no-op re-run of 100 files: median %v", took[len(took)/2])
	if took[len(took)/2] > 50*time.Millisecond {
		t.Errorf("no-op re-run of 100 files takes %v (median), want < 50ms", took[len(took)/2])
	}
}

// smallFiles returns n small migrations.
func smallFiles(n int) map[string]string {
	files := map[string]string{}
	for i := 1; i <= n; i++ {
		files[fmt.Sprintf("%03d-table-%d.sql", i, i)] = fmt.Sprintf(
			"CREATE TABLE t%03d (id bigint PRIMARY KEY, name text NOT NULL);\nINSERT INTO t%03d VALUES (1, 'one');\n", i, i)
	}
	return files
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestSummaryLine(t *testing.T) {
	fail := errors.New("002-x.sql: ERROR: boom (SQLSTATE XX000)\n  its transaction was rolled back")
	tests := []struct {
		sum  migrate.Summary
		err  error
		want string
	}{
		{migrate.Summary{CodeLocation: "citation", Planned: true, Applied: 2, AlreadyApplied: 1}, nil,
			"migrate citation: applied 2, already applied 1, 0 pending"},
		{migrate.Summary{CodeLocation: "citation", DryRun: true, Planned: true, AlreadyApplied: 1, Pending: 2}, nil,
			"migrate citation (dry run): would apply 2, already applied 1, nothing written"},
		{migrate.Summary{CodeLocation: "citation", Planned: true, Applied: 1, AlreadyApplied: 1, Pending: 2, Failed: "002-x.sql"}, fail,
			"migrate citation: FAILED: 002-x.sql: ERROR: boom (SQLSTATE XX000); applied 1, already applied 1, 2 pending"},
		{migrate.Summary{CodeLocation: "citation", Planned: true, Pending: 1, Failed: "001-x.sql"}, errors.New("cannot record 001-x.sql: gone"),
			"migrate citation: FAILED at 001-x.sql: cannot record 001-x.sql: gone; applied 0, already applied 0, 1 pending"},
		{migrate.Summary{CodeLocation: "citation"}, errors.New("cannot connect to PostgreSQL (host=db port=5432 database=atlas user=app): refused"),
			"migrate citation: FAILED: cannot connect to PostgreSQL (host=db port=5432 database=atlas user=app): refused"},
	}
	for _, tt := range tests {
		if got := tt.sum.Line(tt.err); got != tt.want {
			t.Errorf("Line() = %q, want %q", got, tt.want)
		}
	}
}
