package migrate

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// LedgerTable is the table that records applied migrations, one row per
// code-location and file. It lives in the first schema of the search_path
// (usually public), or wherever the search_path finds it.
const LedgerTable = "codeloc_schema_migrations"

const ledgerColumns = `(
	code_location text NOT NULL,
	name text NOT NULL,
	sha256 text NOT NULL,
	revision text,
	applied_at timestamptz NOT NULL DEFAULT now(),
	duration_ms bigint NOT NULL,
	PRIMARY KEY (code_location, name)
)`

// ledger is the ledger table of a run, by its schema-qualified name, so
// that a migration changing the search_path does not move it.
type ledger struct {
	table  string // quoted, schema-qualified
	schema string // its schema
	exists bool
}

// locateLedger finds the ledger table on the search_path, or where it would
// be created.
func locateLedger(ctx context.Context, conn *pgx.Conn) (ledger, error) {
	var schema *string
	var exists bool
	err := conn.QueryRow(ctx, `SELECT coalesce(
		(SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($1)),
		current_schema()), to_regclass($1) IS NOT NULL`, LedgerTable).Scan(&schema, &exists)
	if err != nil {
		return ledger{}, fmt.Errorf("cannot look for the ledger table %s: %w", LedgerTable, err)
	}
	if schema == nil {
		return ledger{}, errors.New("no schema to create the ledger table in: the search_path names no existing schema")
	}
	return ledger{table: pgx.Identifier{*schema, LedgerTable}.Sanitize(), schema: *schema, exists: exists}, nil
}

// create creates the ledger table if it is absent. A transaction-level
// advisory lock serializes concurrent creations (runs of different
// code-locations hold different session locks).
func (l *ledger) create(ctx context.Context, conn *pgx.Conn) error {
	if l.exists {
		return nil
	}
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", ledgerCreateKey); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+l.table+" "+ledgerColumns)
		return err
	})
	if err != nil {
		return fmt.Errorf("cannot create the ledger table %s: %w", l.table, err)
	}
	l.exists = true
	return nil
}

// applied returns the name → sha256 of the files applied for codeLocation,
// in one query.
func (l ledger) applied(ctx context.Context, conn *pgx.Conn, codeLocation string) (map[string]string, error) {
	sums := map[string]string{}
	if !l.exists {
		return sums, nil
	}
	rows, err := conn.Query(ctx, "SELECT name, sha256 FROM "+l.table+" WHERE code_location = $1", codeLocation)
	if err != nil {
		return nil, fmt.Errorf("cannot read the ledger table %s: %w", l.table, err)
	}
	var name, sum string
	_, err = pgx.ForEachRow(rows, []any{&name, &sum}, func() error {
		sums[name] = sum
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cannot read the ledger table %s: %w", l.table, err)
	}
	return sums, nil
}

// querier is a connection or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// record writes the ledger row of f.
func (l ledger) record(ctx context.Context, q querier, codeLocation, revision string, f File, ms int64) error {
	var rev any
	if revision != "" {
		rev = revision
	}
	_, err := q.Exec(ctx, "INSERT INTO "+l.table+
		" (code_location, name, sha256, revision, applied_at, duration_ms) VALUES ($1, $2, $3, $4, clock_timestamp(), $5)",
		codeLocation, f.Name, f.SHA256, rev, ms)
	if err != nil {
		return fmt.Errorf("cannot record %s in the ledger table %s: %w", f.Name, l.table, err)
	}
	return nil
}
