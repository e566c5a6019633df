package migrate_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/codeloc/codeloc/migrate"
)

const password = "s3cr3t-pw"

func TestConnConfigErrorsNeverShowThePassword(t *testing.T) {
	for _, url := range []string{
		"postgres://app:" + password + "@db.example:notaport/atlas",
		"postgres://app:" + password + "@[::1/atlas",
		"postgres://app:" + password + "@db.example/atlas?sslmode=bogus",
		"postgres://app:" + password + "@db.example/atlas?connect_timeout=soon",
		"host=db.example password=" + password + " port=abc",
		"host=db.example password='" + password + "' sslmode=bogus",
	} {
		_, err := migrate.ConnConfig(url)
		if err == nil {
			t.Errorf("ConnConfig(%q) succeeded", url)
			continue
		}
		t.Log(err)
		if strings.Contains(err.Error(), password) {
			t.Errorf("ConnConfig(%q) error shows the password: %v", url, err)
		}
		if !strings.HasPrefix(err.Error(), "DATABASE_URL is not a valid PostgreSQL connection (value not shown, it may hold the password): ") {
			t.Errorf("ConnConfig(%q) error = %v", url, err)
		}
	}
}

func TestConnConfigSources(t *testing.T) {
	t.Setenv("PGHOST", "env-host")
	t.Setenv("PGPORT", "5433")
	t.Setenv("PGDATABASE", "env-db")
	t.Setenv("PGUSER", "env-user")
	t.Setenv("PGPASSWORD", password)
	t.Setenv("PGSSLMODE", "disable")
	t.Setenv("PGCONNECT_TIMEOUT", "")

	cfg, err := migrate.ConnConfig("")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := migrate.Target(cfg), "host=env-host port=5433 database=env-db user=env-user"; got != want {
		t.Errorf("from PG*: %q, want %q", got, want)
	}
	if cfg.Password != password || cfg.ConnectTimeout != 10*time.Second || cfg.RuntimeParams["application_name"] != "codeloc-migrate" {
		t.Errorf("password/timeout/application_name = %q %v %q", cfg.Password, cfg.ConnectTimeout, cfg.RuntimeParams["application_name"])
	}

	cfg, err = migrate.ConnConfig("postgres://url-user@url-host:6543/url-db?connect_timeout=3&application_name=job")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := migrate.Target(cfg), "host=url-host port=6543 database=url-db user=url-user"; got != want {
		t.Errorf("DATABASE_URL wins: %q, want %q", got, want)
	}
	if cfg.Password != password || cfg.ConnectTimeout != 3*time.Second || cfg.RuntimeParams["application_name"] != "job" {
		t.Errorf("password/timeout/application_name = %q %v %q", cfg.Password, cfg.ConnectTimeout, cfg.RuntimeParams["application_name"])
	}
}

func TestConnectErrorNamesTheTargetNotThePassword(t *testing.T) {
	t.Setenv("PGPASSWORD", "")
	cfg, err := migrate.ConnConfig("postgres://app:" + password + "@127.0.0.1:1/atlas?sslmode=disable&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	_, err = migrate.Connect(context.Background(), cfg)
	if err == nil {
		t.Fatal("connected to port 1")
	}
	t.Log(err)
	if strings.Contains(err.Error(), password) {
		t.Errorf("error shows the password: %v", err)
	}
	if want := "cannot connect to PostgreSQL (host=127.0.0.1 port=1 database=atlas user=app): "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error = %v, want prefix %q", err, want)
	}
}

func TestWrongPasswordIsNotShown(t *testing.T) {
	url := newDB(t)
	conn := connect(t, url)
	// Trust authentication accepts any password: make the server refuse the
	// role instead, and check the message names it without the password.
	role := fmt.Sprintf("codeloc_nologin_%d", os.Getpid()) // roles are server-wide
	mustExec(t, conn, "CREATE ROLE "+role+" NOLOGIN")
	t.Cleanup(func() { conn.Exec(context.Background(), "DROP ROLE "+role) }) //nolint:errcheck // best effort
	cfg, err := migrate.ConnConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.User, cfg.Password = role, password
	_, err = migrate.Connect(context.Background(), cfg)
	if err == nil {
		t.Fatal("a NOLOGIN role connected")
	}
	t.Log(err)
	if strings.Contains(err.Error(), password) || !strings.Contains(err.Error(), "user="+role+"): ") ||
		!strings.Contains(err.Error(), `role "`+role+`" is not permitted to log in`) {
		t.Errorf("error = %v", err)
	}
}
