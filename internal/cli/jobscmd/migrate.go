package jobscmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/codeloc/codeloc/internal/cli"
	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/pgtimeout"
	"github.com/codeloc/codeloc/migrate"
	"github.com/codeloc/codeloc/validate"
)

// migrateRun is one `codeloc migrate`.
type migrateRun struct {
	dir, codeLocation, revision string
	dryRun                      bool
	terminationLog              string // "" = none
	lockTimeout                 time.Duration
	statementTimeout            time.Duration
}

func newMigrateCmd() *cobra.Command {
	mr := migrateRun{terminationLog: defaultTerminationLog,
		lockTimeout: validate.DefaultLockTimeout, statementTimeout: validate.DefaultStatementTimeout}
	cmd := &cobra.Command{
		Use:   "migrate --dir DIR --code-location NAME [--revision SHA] [--lock-timeout D] [--statement-timeout D] [--dry-run] [--termination-log FILE] [FILE...]",
		Short: "Apply a code-location's SQL migrations to PostgreSQL (the PreSync migration Job)",
		Long: `Migrate applies the listed FILEs of DIR in the given order (every *.sql of DIR
in lexical order when none is listed), each once per code-location, and
records them in the ledger table codeloc_schema_migrations with their sha256
(a no-transaction file that has started also has a row in
codeloc_schema_migrations_progress, saying which statement runs, until it is
recorded).

It connects with DATABASE_URL when set, else with libpq's PG* variables
(PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD, PGSSLMODE, ...), and holds a
session advisory lock per code-location for the whole run: concurrent runs
wait for each other. Each pending file runs in its own transaction together
with its ledger row, unless its first line is exactly

    -- codeloc:no-transaction

(for CREATE INDEX CONCURRENTLY): it then runs statement by statement outside
a transaction, and its ledger row is written after it succeeded.

Each file runs with the session's lock_timeout and statement_timeout set to
--lock-timeout and --statement-timeout (the contract's
database.migrations.lockTimeout and statementTimeout; 0 disables one). A
statement they cancel fails the run with one line: the file, line and
statement, which timeout and its value, the contract setting that raises
it, and for a lock wait the pid, query_start and state of the sessions that
blocked it (never their query).

A file already applied whose content changed fails the run before anything
is applied: write a new migration instead of editing an applied one.

Progress goes to stdout ("applied 001-x.sql (12 ms)"), warnings and errors to
stderr; the last line is a one-line summary, also written to the termination
message file. Exit codes: 0 done, 1 the migration failed or the input is
invalid, 2 usage.`,
		RunE: func(cmd *cobra.Command, files []string) error {
			return mr.run(cmd.Context(), files, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&mr.dir, "dir", "", "folder holding the .sql files (required)")
	fl.StringVar(&mr.codeLocation, "code-location", "", "code-location the migrations belong to: ledger rows and lock (required)")
	fl.StringVar(&mr.revision, "revision", "", "git revision (7-40 lowercase hex) recorded with each applied file")
	fl.BoolVar(&mr.dryRun, "dry-run", false, "list what would be applied; write nothing (still takes the lock and reads the ledger)")
	fl.DurationVar(&mr.lockTimeout, "lock-timeout", mr.lockTimeout, "lock_timeout of each statement: how long it may wait for a lock (whole ms; 0: none)")
	fl.DurationVar(&mr.statementTimeout, "statement-timeout", mr.statementTimeout, "statement_timeout of each statement: how long it may run (whole ms; 0: none)")
	fl.StringVar(&mr.terminationLog, "termination-log", mr.terminationLog, "file receiving the summary line (ignored when it cannot be opened; empty: none)")
	_ = cmd.MarkFlagRequired("dir")
	_ = cmd.MarkFlagRequired("code-location")
	return cmd
}

// run loads the files, connects and applies them.
func (mr migrateRun) run(ctx context.Context, names []string, stdout, stderr io.Writer) error {
	if err := mr.checkFlags(); err != nil {
		return cli.UsageError{Err: err}
	}
	ctx, stop := migrateSignals(ctx)
	defer stop()
	sum := migrate.Summary{CodeLocation: mr.codeLocation, DryRun: mr.dryRun}
	files, err := migrate.Load(mr.dir, names)
	if err != nil {
		return mr.fail(sum, err)
	}
	cfg, err := migrate.ConnConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		return mr.fail(sum, err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		fmt.Fprintf(stdout, "  %s: %s\n", n.Severity, n.Message)
	}
	conn, err := migrate.Connect(ctx, cfg)
	if err != nil {
		return mr.fail(sum, err)
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn.Close(closeCtx)
	}()
	sum, err = migrate.Run(ctx, conn, migrate.Options{
		CodeLocation: mr.codeLocation, Revision: mr.revision, Files: files, DryRun: mr.dryRun,
		Out: stdout, Warn: stderr, LockTimeout: mr.lockTimeout, StatementTimeout: mr.statementTimeout,
	})
	if err != nil {
		return mr.fail(sum, err)
	}
	line := sum.Line(nil)
	fmt.Fprintln(stdout, line)
	mr.terminate(line)
	return nil
}

func (mr migrateRun) checkFlags() error {
	switch {
	case mr.dir == "":
		return errors.New("--dir is empty")
	case len(validation.IsDNS1123Label(mr.codeLocation)) > 0:
		return fmt.Errorf("--code-location %q is not a code-location name (a DNS-1123 label: lowercase letters, digits, '-')", mr.codeLocation)
	case mr.revision != "" && !names.IsRevision(mr.revision):
		return fmt.Errorf("--revision %q is not a git revision (%s)", mr.revision, names.RevisionRule)
	case pgtimeout.Check(mr.lockTimeout) != nil:
		return fmt.Errorf("--lock-timeout %w", pgtimeout.Check(mr.lockTimeout))
	case pgtimeout.Check(mr.statementTimeout) != nil:
		return fmt.Errorf("--statement-timeout %w", pgtimeout.Check(mr.statementTimeout))
	}
	return nil
}

// fail ends a failed run: exit 1, the error lines then the summary line on
// stderr; the summary line first in the termination message, so that
// truncation keeps it.
func (mr migrateRun) fail(sum migrate.Summary, err error) error {
	line := sum.Line(err)
	mr.terminate(line + "\n" + err.Error())
	return cli.ExitError{Code: cli.ExitInvalid, Msg: err.Error() + "\n" + line}
}

// terminate writes msg to the termination message file, if any.
func (mr migrateRun) terminate(msg string) { writeTermination(mr.terminationLog, msg) }

// migrateSignals cancels ctx on SIGTERM (a Job's deadline, a deleted pod)
// or SIGINT, with the signal as the cause; the statement running is then
// cancelled and its transaction rolled back.
func migrateSignals(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		select {
		case s := <-ch:
			name := "SIGTERM"
			if s == syscall.SIGINT {
				name = "SIGINT"
			}
			cancel(fmt.Errorf("received %s", name))
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
	}
}
