package preflight

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/codeloc/codeloc/internal/problem"
)

// DatabaseFromEnv returns the connection the preflight pod describes with
// the libpq variables (PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD,
// PGSSLMODE...) or DATABASE_URL. It returns nil, nil when none of
// DATABASE_URL, PGHOST, PGUSER and PGPASSWORD is set: the database check is
// then skipped (a laptop running `validate --live` has no credentials, and
// the preflight never reads secret data to find them).
func DatabaseFromEnv() (*pgx.ConnConfig, error) {
	url := os.Getenv("DATABASE_URL")
	if url == "" && os.Getenv("PGHOST") == "" && os.Getenv("PGUSER") == "" && os.Getenv("PGPASSWORD") == "" {
		return nil, nil
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database connection settings: %w", err)
	}
	if os.Getenv("PGCONNECT_TIMEOUT") == "" && cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = DefaultDBTimeout
	}
	return cfg, nil
}

// database checks that the first declared database answers SELECT 1 with
// the credentials the Job carries (the render passes those of the first
// declared database only).
func (ck *checker) database(ctx context.Context) result {
	var r result
	dbs := ck.decl.DependsOn.Database
	if len(dbs) == 0 {
		return r
	}
	name, path := dbs[0], "dependsOn.database[0]"
	for _, other := range dbs[1:] {
		r.note("database %s: not checked (the preflight pod carries the credentials of the first declared database only)", other)
	}
	if ck.opts.Database == nil {
		r.note("database %s: not checked (no DATABASE_URL, PGHOST, PGUSER or PGPASSWORD in the environment; the preflight pod sets them)", name)
		return r
	}
	start := time.Now()
	if err := ping(ctx, ck.opts.Database, ck.opts.DBTimeout); err != nil {
		r.fail(databaseProblem(name, path, ck.opts.Database, err))
		return r
	}
	r.pass("database %s: SELECT 1 answered in %s", name, time.Since(start).Round(time.Millisecond))
	return r
}

// ping connects, runs SELECT 1 and closes, all within timeout.
func ping(ctx context.Context, cfg *pgx.ConnConfig, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var one int
	return conn.QueryRow(ctx, "SELECT 1").Scan(&one)
}

// databaseProblem classifies a connection error: SQLSTATE class 28
// (invalid authorization) is an auth failure, the rest unreachable.
func databaseProblem(name, path string, cfg *pgx.ConnConfig, err error) problem.Problem {
	target := fmt.Sprintf("%s:%d/%s as %s", cfg.Host, cfg.Port, cfg.Database, cfg.User)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && len(pgErr.Code) == 5 && pgErr.Code[:2] == "28" {
		return problem.Problem{Code: CodeDatabaseAuthFailed, Path: path,
			Message: fmt.Sprintf("database %s (%s) refuses the credentials: %s (SQLSTATE %s)", name, target, pgErr.Message, pgErr.Code),
			Hint:    "the credentials secret's username/password must match the database role: re-derive the secret, or fix the role's password or pg_hba"}
	}
	return problem.Problem{Code: CodeDatabaseUnreachable, Path: path,
		Message: fmt.Sprintf("database %s (%s) does not answer: %s", name, target, problem.OneLine(err.Error())),
		Hint:    "check the contract's host, port, dbname and sslMode, that the database is up, and that a NetworkPolicy lets the namespace reach it"}
}
