package migrate_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/codeloc/codeloc/migrate"
	"github.com/codeloc/codeloc/migrate/pgtest"
)

// The database tests run against a real PostgreSQL 15: the server named by
// CODELOC_TEST_DATABASE_URL, or one started here (see package pgtest).
var (
	server    *pgtest.Server
	serverErr error
)

// Environment of the helper process (see helperMain).
const (
	helperEnv    = "CODELOC_MIGRATE_TEST_HELPER"
	helperURLEnv = "CODELOC_MIGRATE_TEST_URL"
	helperDirEnv = "CODELOC_MIGRATE_TEST_DIR"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helperMain())
	}
	server, serverErr = pgtest.Start()
	if serverErr != nil && os.Getenv("CI") == "true" {
		fmt.Fprintln(os.Stderr, "FAIL: CI=true and the database tests cannot run:", serverErr)
		os.Exit(1)
	}
	code := m.Run()
	if err := server.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

// helperMain is a migration run in a process of its own, for the tests that
// kill it. Its session sets codeloc_test.sleep=on, which the slow testdata
// files read to sleep.
func helperMain() int {
	ctx := context.Background()
	cfg, err := migrate.ConnConfig(os.Getenv(helperURLEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cfg.RuntimeParams["codeloc_test.sleep"] = "on"
	files, err := migrate.Load(os.Getenv(helperDirEnv), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	conn, err := migrate.Connect(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer conn.Close(ctx)
	sum, err := migrate.Run(ctx, conn, migrate.Options{CodeLocation: "citation", Files: files, Out: os.Stdout, Warn: os.Stderr})
	fmt.Println(sum.Line(err))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// newDB returns the URL of a fresh database, or skips the test (fails
// under CI=true) when there is no server.
func newDB(t testing.TB) string {
	t.Helper()
	return pgtest.Require(t, server, serverErr).NewDatabase(t)
}

// connect opens a connection as a run does.
func connect(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	cfg, err := migrate.ConnConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := migrate.Connect(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// result is the outcome of one run.
type result struct {
	sum       migrate.Summary
	err       error
	out, warn string
}

// line is the run's summary line.
func (r result) line() string { return r.sum.Line(r.err) }

// run loads names (all *.sql when none) from dir and runs them for
// codeLocation on a connection of their own.
func run(t testing.TB, url, dir, codeLocation string, dryRun bool, names ...string) result {
	t.Helper()
	return runCtx(context.Background(), t, url, dir, codeLocation, dryRun, names...)
}

func runCtx(ctx context.Context, t testing.TB, url, dir, codeLocation string, dryRun bool, names ...string) result {
	t.Helper()
	return prepare(t, url, dir, codeLocation, dryRun, names...)(ctx)
}

// prepare loads the files and connects, in the test's goroutine, and
// returns the run itself, safe to call from another goroutine.
func prepare(t testing.TB, url, dir, codeLocation string, dryRun bool, names ...string) func(context.Context) result {
	t.Helper()
	files, err := migrate.Load(dir, names)
	if err != nil {
		t.Fatal(err)
	}
	conn := connect(t, url)
	return func(ctx context.Context) result {
		var out, warn bytes.Buffer
		sum, err := migrate.Run(ctx, conn, migrate.Options{
			CodeLocation: codeLocation, Revision: "a3f9c1d", Files: files, DryRun: dryRun, Out: &out, Warn: &warn,
		})
		return result{sum: sum, err: err, out: msRE.ReplaceAllString(out.String(), "(N ms)"), warn: warn.String()}
	}
}

var msRE = regexp.MustCompile(`\(\d+ ms\)`)

// writeFiles writes name → SQL into a new folder and returns it.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, sql := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(sql), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// copyDir copies the files of testdata/name into a new folder.
func copyDir(t testing.TB, name string) string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata", name, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(data)
	}
	return writeFiles(t, files)
}

// query returns the first column of every row of sql as text.
func query(t testing.TB, conn *pgx.Conn, sql string, args ...any) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	vals, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return vals
}

// mustExec runs sql, failing the test on error.
func mustExec(t testing.TB, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// ledgerRows lists "code_location name sha256" of the ledger, sorted.
func ledgerRows(t testing.TB, conn *pgx.Conn) []string {
	t.Helper()
	return query(t, conn, "SELECT code_location || ' ' || name || ' ' || sha256 FROM codeloc_schema_migrations ORDER BY 1")
}

// lockFree reports whether codeLocation's migration lock can be taken now
// (and releases it at once).
func lockFree(t testing.TB, conn *pgx.Conn, codeLocation string) bool {
	t.Helper()
	got := query(t, conn, "SELECT pg_try_advisory_lock($1)::text", migrate.LockKey(codeLocation))
	if got[0] == "true" {
		query(t, conn, "SELECT pg_advisory_unlock($1)::text", migrate.LockKey(codeLocation))
	}
	return got[0] == "true"
}
