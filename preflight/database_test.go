package preflight_test

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/codeloc/codeloc/preflight"
)

// postgresURL returns a PostgreSQL URL: $CODELOC_TEST_DATABASE_URL, else a
// throw-away server started with .ci/postgres.sh (stopped at the end of
// t). It skips t when neither is possible, unless CI=true.
func postgresURL(t *testing.T) string {
	t.Helper()
	if url := os.Getenv("CODELOC_TEST_DATABASE_URL"); url != "" {
		return url
	}
	script, _ := filepath.Abs("../.ci/postgres.sh")
	if _, err := os.Stat(script); err != nil {
		skipOrFail(t, "no CODELOC_TEST_DATABASE_URL and no .ci/postgres.sh")
	}
	// Not t.TempDir: as root the server runs as postgres, which must reach
	// the directory (t.TempDir's parent is private).
	dir, err := os.MkdirTemp("", "preflight-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	out, err := exec.Command("bash", script, "start", dir, strconv.Itoa(freePort(t))).Output()
	if err != nil {
		skipOrFail(t, "postgres.sh start: "+err.Error()+": "+stderrOf(err))
	}
	t.Cleanup(func() { _ = exec.Command("bash", script, "stop", dir).Run() }) // before RemoveAll
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}

// freePort returns a TCP port nothing listens on right now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func connConfig(t *testing.T, url string) *pgx.ConnConfig {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnectTimeout = 2 * time.Second
	return cfg
}

// TestDatabase proves the database check both ways: a database that
// answers, one that refuses the role, one that is down.
func TestDatabase(t *testing.T) {
	env := sharedEnv(t)
	down := connConfig(t, "postgres://app:pw@127.0.0.1:"+strconv.Itoa(freePort(t))+"/pgvector?sslmode=disable")

	t.Run("down", func(t *testing.T) {
		w := newWorld(t, env, nil)
		w.apply(t, good())
		start := time.Now()
		rep := w.run(t, preflight.Options{Database: down})
		w.expect(t, rep, `database-unreachable dependsOn.database[0]: database pgvector (127.0.0.1:`+strconv.Itoa(int(down.Port))+`/pgvector as app) does not answer: failed to connect to`)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("a refused connection took %s", d)
		}
	})

	url := postgresURL(t)
	t.Run("answers", func(t *testing.T) {
		w := newWorld(t, env, nil)
		w.apply(t, good())
		rep := w.run(t, preflight.Options{Database: connConfig(t, url)})
		w.expect(t, rep)
		if !strings.Contains(strings.Join(rep.Checked, "\n"), "database pgvector: SELECT 1 answered") {
			t.Errorf("database check not reported: %q", rep.Checked)
		}
	})
	t.Run("refuses the role", func(t *testing.T) {
		w := newWorld(t, env, nil)
		w.apply(t, good())
		cfg := connConfig(t, url)
		cfg.User = "no_such_role"
		rep := w.run(t, preflight.Options{Database: cfg})
		w.expect(t, rep, `database-auth-failed dependsOn.database[0]: database pgvector (`)
		if got := lines(rep.Problems); !strings.Contains(got, `role "no_such_role" does not exist (SQLSTATE 28000)`) {
			t.Errorf("problem lacks the server's reason: %s", got)
		}
	})
}

// TestDatabaseFromEnv: the Job's PG* variables (or DATABASE_URL) make the
// check run; without them it is skipped.
func TestDatabaseFromEnv(t *testing.T) {
	for _, k := range []string{"DATABASE_URL", "PGHOST", "PGUSER", "PGPASSWORD", "PGPORT", "PGDATABASE", "PGSSLMODE", "PGCONNECT_TIMEOUT"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	cfg, err := preflight.DatabaseFromEnv()
	if cfg != nil || err != nil {
		t.Fatalf("without PG* env: %v, %v; want nil, nil", cfg, err)
	}
	t.Setenv("PGHOST", "db.example")
	t.Setenv("PGPORT", "6543")
	t.Setenv("PGDATABASE", "pgvector")
	t.Setenv("PGUSER", "app")
	t.Setenv("PGPASSWORD", "pw")
	t.Setenv("PGSSLMODE", "disable")
	cfg, err = preflight.DatabaseFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "db.example" || cfg.Port != 6543 || cfg.Database != "pgvector" || cfg.User != "app" || cfg.Password != "pw" {
		t.Fatalf("config from env = %s:%d/%s as %s", cfg.Host, cfg.Port, cfg.Database, cfg.User)
	}
	if cfg.ConnectTimeout != preflight.DefaultDBTimeout {
		t.Errorf("connect timeout = %s, want %s", cfg.ConnectTimeout, preflight.DefaultDBTimeout)
	}
}
