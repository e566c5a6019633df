// Package pgtest gives tests a real PostgreSQL 15 server: the one named by
// CODELOC_TEST_DATABASE_URL, or else a throw-away server that it starts
// with the repository's .ci/postgres.sh (initdb in a temporary folder, a
// free port on 127.0.0.1, fsync off) and stops at the end.
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names an existing server to use instead of starting one.
const EnvURL = "CODELOC_TEST_DATABASE_URL"

// Bin is where Debian's postgresql-15 package installs the server; the
// PGBIN variable overrides it (here and in .ci/postgres.sh).
const Bin = "/usr/lib/postgresql/15/bin"

// ErrUnavailable means that no server is named and PostgreSQL 15 is not
// installed (.ci/postgres.sh install installs it).
var ErrUnavailable = errors.New("no PostgreSQL for the tests: set " + EnvURL + " or install postgresql-15 (.ci/postgres.sh install)")

// Server is a PostgreSQL server for tests.
type Server struct {
	URL    string // superuser connection URL
	dir    string // temporary folder of a server started here, else ""
	script string
}

// Start returns the server named by CODELOC_TEST_DATABASE_URL, or starts
// one. It returns ErrUnavailable when neither is possible.
func Start() (*Server, error) {
	if u := os.Getenv(EnvURL); u != "" {
		return &Server{URL: u}, nil
	}
	bin := os.Getenv("PGBIN")
	if bin == "" {
		bin = Bin
	}
	if _, err := os.Stat(filepath.Join(bin, "postgres")); err != nil {
		return nil, ErrUnavailable
	}
	script, err := findScript()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "codeloc-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, script: script}
	for attempt := 0; ; attempt++ {
		err = s.start()
		if err == nil || attempt == 2 {
			break
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// start runs ".ci/postgres.sh start DIR PORT" on a free port.
func (s *Server) start() error {
	port, err := freePort()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", s.script, "start", s.dir, fmt.Sprint(port))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s start: %w\n%s", s.script, err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	s.URL = lines[len(lines)-1]
	return nil
}

// Stop stops a server started by Start and removes its files.
func (s *Server) Stop() error {
	if s == nil || s.dir == "" {
		return nil
	}
	out, err := exec.Command("bash", s.script, "stop", s.dir).CombinedOutput()
	os.RemoveAll(s.dir)
	if err != nil {
		return fmt.Errorf("%s stop: %w\n%s", s.script, err, out)
	}
	return nil
}

var dbCount atomic.Int64

// NewDatabase creates an empty database for tb, dropped at its end, and
// returns its connection URL.
func (s *Server) NewDatabase(tb testing.TB) string {
	tb.Helper()
	// Unique on a shared server too: the process id and a counter.
	name := fmt.Sprintf("t%d_%d_%s", os.Getpid(), dbCount.Add(1), strings.ToLower(nonIdent.ReplaceAllString(tb.Name(), "_")))
	name = name[:min(len(name), 63)]
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, s.URL)
	if err != nil {
		tb.Fatalf("connect to the test server: %v", err)
	}
	defer admin.Close(ctx)
	ident := pgx.Identifier{name}.Sanitize()
	// FILE_COPY (PostgreSQL 15+) is several times faster on a test server.
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+ident+" STRATEGY = FILE_COPY"); err != nil {
		if _, err := admin.Exec(ctx, "CREATE DATABASE "+ident); err != nil {
			tb.Fatalf("create database %s: %v", name, err)
		}
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if admin, err := pgx.Connect(ctx, s.URL); err == nil {
			admin.Exec(ctx, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)") //nolint:errcheck // best effort
			admin.Close(ctx)
		}
	})
	return withDatabase(s.URL, name)
}

var nonIdent = regexp.MustCompile(`[^A-Za-z0-9]+`)

// withDatabase returns the connection string u pointing at database name.
func withDatabase(u, name string) string {
	if parsed, err := url.Parse(u); err == nil && parsed.Scheme != "" {
		parsed.Path = "/" + name
		return parsed.String()
	}
	return u + " dbname=" + name
}

// Require returns the server, or skips tb when there is none; under CI=true
// it fails instead: a CI run must never silently skip the database tests.
func Require(tb testing.TB, s *Server, err error) *Server {
	tb.Helper()
	switch {
	case err == nil:
		return s
	case errors.Is(err, ErrUnavailable) && os.Getenv("CI") != "true":
		tb.Skip(err)
	default:
		tb.Fatal(err)
	}
	return nil
}

// findScript finds .ci/postgres.sh in the working directory or above.
func findScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, ".ci", "postgres.sh")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("cannot find .ci/postgres.sh above the working directory")
		}
		dir = parent
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
