package jobscmd

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/codeloc/codeloc/migrate/pgtest"

	"github.com/codeloc/codeloc/internal/cli"
)

// runMigrate runs `codeloc migrate args...` and returns the exit code and
// the output, with durations blanked.
func runMigrate(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"migrate"}, args...), &out, &errOut)
	ms := regexp.MustCompile(`\(\d+ ms\)`)
	return code, ms.ReplaceAllString(out.String(), "(N ms)"), errOut.String()
}

// noDatabase points the connection at a closed port, with a password that
// must never be printed.
func noDatabase(t *testing.T) {
	for _, v := range []string{"PGHOST", "PGPORT", "PGDATABASE", "PGUSER", "PGPASSWORD", "PGSSLMODE", "PGSERVICE"} {
		t.Setenv(v, "")
	}
	t.Setenv("DATABASE_URL", "postgres://app:s3cr3t-pw@127.0.0.1:1/atlas?sslmode=disable&connect_timeout=2")
}

func TestMigrateUsageErrors(t *testing.T) {
	noDatabase(t)
	dir := filepath.Join("..", "..", "..", "migrate", "testdata", "citation")
	tests := []struct {
		name string
		args []string
		want string // stderr
	}{
		{"no flags", nil, "codeloc-jobs: required flag(s) \"code-location\", \"dir\" not set\n"},
		{"no dir", []string{"--code-location", "citation"}, "codeloc-jobs: required flag(s) \"dir\" not set\n"},
		{"empty dir", []string{"--dir", "", "--code-location", "citation"}, "codeloc-jobs: --dir is empty\n"},
		{"unknown flag", []string{"--dir", dir, "--code-location", "citation", "--force"}, "codeloc-jobs: unknown flag: --force\n"},
		{"bad code-location", []string{"--dir", dir, "--code-location", "Citation_1"},
			"codeloc-jobs: --code-location \"Citation_1\" is not a code-location name (a DNS-1123 label: lowercase letters, digits, '-')\n"},
		{"bad revision", []string{"--dir", dir, "--code-location", "citation", "--revision", "HEAD"},
			"codeloc-jobs: --revision \"HEAD\" is not a git revision (7 to 40 lowercase hex digits)\n"},
		{"bad bool", []string{"--dir", dir, "--code-location", "citation", "--dry-run=maybe"},
			"codeloc-jobs: invalid argument \"maybe\" for \"--dry-run\" flag: strconv.ParseBool: parsing \"maybe\": invalid syntax\n"},
		{"bad duration", []string{"--dir", dir, "--code-location", "citation", "--lock-timeout", "5"},
			"codeloc-jobs: invalid argument \"5\" for \"--lock-timeout\" flag: time: missing unit in duration \"5\"\n"},
		{"negative lock timeout", []string{"--dir", dir, "--code-location", "citation", "--lock-timeout", "-1s"},
			"codeloc-jobs: --lock-timeout -1s is negative (0 disables it)\n"},
		{"sub-millisecond statement timeout", []string{"--dir", dir, "--code-location", "citation", "--statement-timeout", "1500us"},
			"codeloc-jobs: --statement-timeout 1.5ms is not a whole number of milliseconds\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runMigrate(t, tt.args...)
			if code != cli.ExitUsage || stdout != "" || stderr != tt.want {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, stderr %q", code, stdout, stderr, tt.want)
			}
		})
	}
}

func TestMigrateInvalidInputAndConnectionFailures(t *testing.T) {
	noDatabase(t)
	dir := filepath.Join("..", "..", "..", "migrate", "testdata", "citation")
	tests := []struct {
		name string
		args []string
		want string // stderr
	}{{
		name: "bad file names",
		args: []string{"--dir", dir, "--code-location", "citation", "../etc/passwd", "001-missing.sql"},
		want: `"../etc/passwd" is not a migration file name: name it NNN-name.sql (3+ digits, '-', lowercase name), a plain file in the folder
001-missing.sql: file not found in the migrations folder
migrate citation: FAILED: "../etc/passwd" is not a migration file name: name it NNN-name.sql (3+ digits, '-', lowercase name), a plain file in the folder
`,
	}, {
		name: "missing folder",
		args: []string{"--dir", "no-such-dir", "--code-location", "citation", "--dry-run"},
		want: "migrations folder no-such-dir: no such file or directory\nmigrate citation (dry run): FAILED: migrations folder no-such-dir: no such file or directory\n",
	}, {
		name: "no server",
		args: []string{"--dir", dir, "--code-location", "citation"},
		want: "cannot connect to PostgreSQL (host=127.0.0.1 port=1 database=atlas user=app): 127.0.0.1:1 (127.0.0.1): dial error: dial tcp 127.0.0.1:1: connect: connection refused\n" +
			"migrate citation: FAILED: cannot connect to PostgreSQL (host=127.0.0.1 port=1 database=atlas user=app): 127.0.0.1:1 (127.0.0.1): dial error: dial tcp 127.0.0.1:1: connect: connection refused\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tlog := filepath.Join(t.TempDir(), "termination-log")
			code, stdout, stderr := runMigrate(t, append(tt.args, "--termination-log", tlog)...)
			if code != cli.ExitInvalid || stdout != "" || stderr != tt.want {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 1, stderr:\n%s", code, stdout, stderr, tt.want)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			summary := lines[len(lines)-1]
			if got := readFile(t, tlog); !strings.HasPrefix(got, summary+"\n") {
				t.Errorf("termination message %q does not start with the summary %q", got, summary)
			}
		})
	}
	t.Run("password never printed", func(t *testing.T) {
		for _, u := range []string{
			"postgres://app:s3cr3t-pw@127.0.0.1:1/atlas?sslmode=disable",
			"postgres://app:s3cr3t-pw@127.0.0.1:port/atlas",
			"host=127.0.0.1 port=x password=s3cr3t-pw",
		} {
			t.Setenv("DATABASE_URL", u)
			tlog := filepath.Join(t.TempDir(), "termination-log")
			code, stdout, stderr := runMigrate(t, "--dir", dir, "--code-location", "citation", "--termination-log", tlog)
			if code != cli.ExitInvalid || strings.Contains(stdout+stderr+readFile(t, tlog), "s3cr3t-pw") {
				t.Errorf("DATABASE_URL %q: exit %d, output shows the password or is wrong:\n%s%s", u, code, stdout, stderr)
			}
		}
	})
}

// TestMigrateAgainstPostgres runs the command end to end against a real
// PostgreSQL 15 (CODELOC_TEST_DATABASE_URL, or one started for the test).
func TestMigrateAgainstPostgres(t *testing.T) {
	server, err := pgtest.Start()
	server = pgtest.Require(t, server, err)
	t.Cleanup(func() { server.Stop() })
	dbURL := server.NewDatabase(t)

	// libpq variables only: the Job's environment.
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	noDatabase(t)
	t.Setenv("DATABASE_URL", "")
	t.Setenv("PGHOST", u.Hostname())
	t.Setenv("PGPORT", u.Port())
	t.Setenv("PGDATABASE", strings.TrimPrefix(u.Path, "/"))
	t.Setenv("PGUSER", u.User.Username())
	t.Setenv("PGSSLMODE", "disable")

	dir := t.TempDir()
	src := filepath.Join("..", "..", "..", "migrate", "testdata", "citation")
	for _, name := range []string{"001-researchers.sql", "002-researcher-search.sql", "003-affiliations.sql"} {
		writeFile(t, filepath.Join(dir, name), readFile(t, filepath.Join(src, name)))
	}
	tlog := filepath.Join(t.TempDir(), "termination-log")
	args := []string{"--dir", dir, "--code-location", "citation", "--revision", "a3f9c1d", "--termination-log", tlog}

	steps := []struct {
		name   string
		extra  []string
		before func()
		code   int
		stdout string
		stderr string
	}{{
		name:   "dry run",
		extra:  []string{"--dry-run"},
		stdout: "would apply 001-researchers.sql (outside a transaction)\nwould apply 002-researcher-search.sql\nwould apply 003-affiliations.sql\nmigrate citation (dry run): would apply 3, already applied 0, nothing written\n",
	}, {
		name:   "first run, files listed",
		extra:  []string{"001-researchers.sql", "002-researcher-search.sql"},
		stdout: "applied 001-researchers.sql (N ms)\napplied 002-researcher-search.sql (N ms)\nmigrate citation: applied 2, already applied 0, 0 pending\n",
	}, {
		name:   "all files",
		stdout: "applied 003-affiliations.sql (N ms)\nmigrate citation: applied 1, already applied 2, 0 pending\n",
	}, {
		name:   "re-run applies nothing",
		stdout: "migrate citation: applied 0, already applied 3, 0 pending\n",
	}, {
		name:   "notices are shown",
		before: func() { writeFile(t, filepath.Join(dir, "004-notice.sql"), "DROP TABLE IF EXISTS no_such_table;\n") },
		stdout: "  NOTICE: table \"no_such_table\" does not exist, skipping\napplied 004-notice.sql (N ms)\nmigrate citation: applied 1, already applied 3, 0 pending\n",
	}, {
		name:   "a statement over --statement-timeout",
		before: func() { writeFile(t, filepath.Join(dir, "005-slow.sql"), "SELECT pg_sleep(2);\n") },
		extra:  []string{"--statement-timeout", "100ms"},
		code:   cli.ExitInvalid,
		stderr: "005-slow.sql:1 (statement 1 of 1): ERROR: canceling statement due to statement timeout (SQLSTATE 57014): ran longer than statement_timeout 100ms (database.migrations.statementTimeout); its transaction was rolled back and it is not recorded; ",
	}, {
		name:   "an applied file changed",
		before: func() { writeFile(t, filepath.Join(dir, "004-notice.sql"), "DROP TABLE IF EXISTS other_table;\n") },
		code:   cli.ExitInvalid,
		stderr: "004-notice.sql changed after it was applied: the ledger has sha256 ",
	}}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		code, stdout, stderr := runMigrate(t, append(args, s.extra...)...)
		if code != s.code || stdout != s.stdout || !strings.HasPrefix(stderr, s.stderr) || (s.stderr == "" && stderr != "") {
			t.Fatalf("%s: exit %d, stdout:\n%s\nstderr:\n%s\nwant exit %d, stdout:\n%s\nstderr starting with %q", s.name, code, stdout, stderr, s.code, s.stdout, s.stderr)
		}
		out := stdout
		if code != 0 {
			out = stderr
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if got := readFile(t, tlog); !strings.HasPrefix(got, lines[len(lines)-1]+"\n") {
			t.Errorf("%s: termination message %q does not start with the summary %q", s.name, got, lines[len(lines)-1])
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(data)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
