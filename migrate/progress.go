package migrate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ProgressTable records, for each no-transaction file that started and is
// not yet in the ledger, the statement it was running: a run killed half-way
// through such a file (SIGKILL, a lost node, a database restart) leaves its
// row, which says where it stopped. The row is deleted in the transaction
// that records the file in the ledger. It lives beside the ledger table and
// is created the first time a no-transaction file runs.
const ProgressTable = "codeloc_schema_migrations_progress"

const progressColumns = `(
	code_location text NOT NULL,
	name text NOT NULL,
	sha256 text NOT NULL,
	revision text,
	statement integer NOT NULL,
	statements integer NOT NULL,
	line integer NOT NULL,
	started_at timestamptz NOT NULL,
	updated_at timestamptz NOT NULL,
	PRIMARY KEY (code_location, name)
)`

// progress is where a no-transaction file stopped in an earlier run.
type progress struct {
	Statement, Statements, Line int
	SHA256                      string
	Revision                    *string
	UpdatedAt                   time.Time
}

// describe says where f stopped, for the run that runs it again.
func (p progress) describe(f File) string {
	s := fmt.Sprintf("a previous run stopped in %s at statement %d of %d (line %d) at %s",
		f.Name, p.Statement, p.Statements, p.Line, p.UpdatedAt.UTC().Format(time.RFC3339))
	if p.Revision != nil {
		s += " (revision " + *p.Revision + ")"
	}
	if p.SHA256 != f.SHA256 {
		s += ", when the file had sha256 " + p.SHA256
	}
	return s
}

// progressTable is the quoted, schema-qualified progress table beside l.
func (l ledger) progressTable() string { return pgx.Identifier{l.schema, ProgressTable}.Sanitize() }

// progressOf reads where f stopped in an earlier run; nil when it did not
// (or when the progress table does not exist yet: *exists says which).
func (l ledger) progressOf(ctx context.Context, conn *pgx.Conn, codeLocation string, f File, exists *bool) (*progress, error) {
	if err := conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", l.progressTable()).Scan(exists); err != nil || !*exists {
		return nil, err
	}
	var p progress
	err := conn.QueryRow(ctx, "SELECT statement, statements, line, sha256, revision, updated_at FROM "+l.progressTable()+
		" WHERE code_location = $1 AND name = $2", codeLocation, f.Name).
		Scan(&p.Statement, &p.Statements, &p.Line, &p.SHA256, &p.Revision, &p.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the progress table %s: %w", l.progressTable(), err)
	}
	return &p, nil
}

// createProgress creates the progress table if it is absent, serialized
// with the ledger's creation.
func (l ledger) createProgress(ctx context.Context, conn *pgx.Conn) error {
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", ledgerCreateKey); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+l.progressTable()+" "+progressColumns)
		return err
	})
	if err != nil {
		return fmt.Errorf("cannot create the progress table %s: %w", l.progressTable(), err)
	}
	return nil
}

// markProgress records that statement i (1-based) of n, at line, of f is
// about to run; it commits at once (the file runs outside a transaction).
func (l ledger) markProgress(ctx context.Context, conn *pgx.Conn, codeLocation, revision string, f File, i, n, line int) error {
	var rev any
	if revision != "" {
		rev = revision
	}
	_, err := conn.Exec(ctx, "INSERT INTO "+l.progressTable()+
		" AS p (code_location, name, sha256, revision, statement, statements, line, started_at, updated_at)"+
		" VALUES ($1, $2, $3, $4, $5, $6, $7, clock_timestamp(), clock_timestamp())"+
		" ON CONFLICT (code_location, name) DO UPDATE SET sha256 = excluded.sha256, revision = excluded.revision,"+
		" statement = excluded.statement, statements = excluded.statements, line = excluded.line, updated_at = excluded.updated_at,"+
		" started_at = CASE WHEN excluded.statement = 1 THEN excluded.started_at ELSE p.started_at END",
		codeLocation, f.Name, f.SHA256, rev, i, n, line)
	if err != nil {
		return fmt.Errorf("cannot record the progress of %s in %s: %w", f.Name, l.progressTable(), err)
	}
	return nil
}

// clearProgress deletes the progress row of f (in the transaction that
// records f in the ledger).
func (l ledger) clearProgress(ctx context.Context, q querier, codeLocation string, f File) error {
	_, err := q.Exec(ctx, "DELETE FROM "+l.progressTable()+" WHERE code_location = $1 AND name = $2", codeLocation, f.Name)
	if err != nil {
		return fmt.Errorf("cannot clear the progress of %s in %s: %w", f.Name, l.progressTable(), err)
	}
	return nil
}
