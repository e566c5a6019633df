// Package migrate applies a code-location's SQL migrations to PostgreSQL,
// each file once, as the PreSync migration Job runs them.
//
// A run holds a session advisory lock per code-location on its one
// connection (concurrent runs serialize; a killed run's session ends and
// takes its lock with it), records each applied file with its sha256 in the
// ledger table codeloc_schema_migrations, runs each pending file in its own
// transaction together with its ledger row (or outside any transaction when
// its first line is NoTransactionMarker), and fails before applying
// anything when an applied file's content changed. Each file runs under the
// run's lock_timeout and statement_timeout; a statement they cancel fails
// the run with one line (see Options.LockTimeout).
package migrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/codeloc/codeloc/internal/pgtimeout"
	"github.com/codeloc/codeloc/internal/sqltext"
)

// Options configures a run.
type Options struct {
	CodeLocation string    // the ledger and lock key
	Revision     string    // recorded with each applied file; may be empty
	Files        []File    // in the order to apply them (see Load)
	DryRun       bool      // list what would be applied; write nothing
	Out          io.Writer // progress lines (applied, would apply, waiting)
	Warn         io.Writer // warning lines

	// LockTimeout and StatementTimeout are the session's lock_timeout and
	// statement_timeout, set before each file (0: none, which overrides a
	// role's or database's own setting). A statement they cancel fails the
	// run with one line: where, which timeout, the contract setting that
	// raises it, and for a lock wait the sessions that blocked it (pid,
	// query_start, state; never their query), seen from a second session
	// while the statement waited.
	LockTimeout      time.Duration
	StatementTimeout time.Duration
}

// Summary counts what a run did.
type Summary struct {
	CodeLocation   string
	DryRun         bool
	Planned        bool   // the ledger was read: the counts below are known
	Applied        int    // files applied by this run
	AlreadyApplied int    // listed files the ledger already had
	Pending        int    // listed files still to apply (would apply, in a dry run)
	Failed         string // the file that failed, if one did
}

// Line is the one-line summary of a run that ended with err (nil when it
// succeeded); it ends the output and is the Job's termination message.
func (s Summary) Line(err error) string {
	name := "migrate " + s.CodeLocation
	if s.DryRun {
		name += " (dry run)"
	}
	counts := fmt.Sprintf("applied %d, already applied %d, %d pending", s.Applied, s.AlreadyApplied, s.Pending)
	if s.DryRun {
		counts = fmt.Sprintf("would apply %d, already applied %d, nothing written", s.Pending, s.AlreadyApplied)
	}
	if err == nil {
		return name + ": " + counts
	}
	line := name + ": FAILED: " + firstLine(err.Error())
	if s.Failed != "" && !strings.HasPrefix(firstLine(err.Error()), s.Failed) {
		line = name + ": FAILED at " + s.Failed + ": " + firstLine(err.Error())
	}
	if s.Planned {
		line += "; " + counts
	}
	return line
}

// Run applies the pending files of opts on conn, a connection of its own
// (see Connect), and says what it did on opts.Out. The summary is valid
// even when Run fails. Cancelling ctx stops the file being applied: a
// transactional file is rolled back.
func Run(ctx context.Context, conn *pgx.Conn, opts Options) (Summary, error) {
	s := Summary{CodeLocation: opts.CodeLocation, DryRun: opts.DryRun}
	opts.Out, opts.Warn = orDiscard(opts.Out), orDiscard(opts.Warn)
	if err := opts.check(conn); err != nil {
		return s, err
	}
	unlock, err := lock(ctx, conn, opts.CodeLocation, opts.Out)
	if err != nil {
		return s, interrupted(ctx, err)
	}
	defer unlock()
	l, p, err := prepare(ctx, conn, opts)
	if err != nil {
		return s, interrupted(ctx, err)
	}
	for _, name := range p.unlisted {
		fmt.Fprintf(opts.Warn, "warning: %s is recorded as applied for %s but is no longer listed; nothing is undone\n", name, opts.CodeLocation)
	}
	s.Planned, s.AlreadyApplied, s.Pending = true, p.done, len(p.pending)
	var w *watcher
	defer func() { w.close() }()
	if !opts.DryRun && len(p.pending) > 0 {
		defer resetTimeouts(conn)
	}
	for _, f := range p.pending {
		if opts.DryRun {
			note, err := stoppedNote(ctx, conn, l, f, opts)
			if err != nil {
				return s, interrupted(ctx, err)
			}
			fmt.Fprintf(opts.Out, "would apply %s%s%s\n", f.Name, mode(f), note)
			continue
		}
		if w == nil && opts.LockTimeout > 0 {
			w = newWatcher(ctx, conn, opts.LockTimeout)
		}
		took, err := apply(ctx, conn, l, f, opts, w)
		if err != nil {
			s.Failed = f.Name
			return s, err
		}
		s.Applied++
		s.Pending--
		fmt.Fprintf(opts.Out, "applied %s (%d ms)\n", f.Name, took.Milliseconds())
	}
	return s, nil
}

func (o Options) check(conn *pgx.Conn) error {
	switch {
	case o.CodeLocation == "":
		return errors.New("no code-location given")
	case len(o.Files) == 0:
		return errors.New("no migration file given")
	case pgtimeout.Check(o.LockTimeout) != nil:
		return fmt.Errorf("lock timeout %w", pgtimeout.Check(o.LockTimeout))
	case pgtimeout.Check(o.StatementTimeout) != nil:
		return fmt.Errorf("statement timeout %w", pgtimeout.Check(o.StatementTimeout))
	case conn.PgConn().TxStatus() != 'I':
		return errors.New("the connection is inside a transaction: give Run a connection of its own")
	}
	return nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

func mode(f File) string {
	if f.NoTransaction {
		return " (outside a transaction)"
	}
	return ""
}

// plan is what a run has to do.
type plan struct {
	pending  []File   // listed, not in the ledger, in the listed order
	done     int      // listed and in the ledger with the same checksum
	unlisted []string // in the ledger, not listed, sorted
}

// prepare creates the ledger table if needed (not in a dry run), reads it
// and plans the run; it fails when an applied file changed.
func prepare(ctx context.Context, conn *pgx.Conn, opts Options) (ledger, plan, error) {
	l, err := locateLedger(ctx, conn)
	if err != nil {
		return l, plan{}, err
	}
	if !opts.DryRun {
		if err := l.create(ctx, conn); err != nil {
			return l, plan{}, err
		}
	}
	applied, err := l.applied(ctx, conn, opts.CodeLocation)
	if err != nil {
		return l, plan{}, err
	}
	p, err := makePlan(opts.Files, applied)
	return l, p, err
}

// makePlan compares the listed files with the ledger's checksums, all of
// them before anything is applied.
func makePlan(files []File, applied map[string]string) (plan, error) {
	var p plan
	var errs []error
	listed := map[string]bool{}
	for _, f := range files {
		listed[f.Name] = true
		sum, ok := applied[f.Name]
		switch {
		case !ok:
			p.pending = append(p.pending, f)
		case sum != f.SHA256:
			errs = append(errs, fmt.Errorf("%s changed after it was applied: the ledger has sha256 %s, the file has sha256 %s; write a new migration instead of editing an applied one (or restore the file)", f.Name, sum, f.SHA256))
		default:
			p.done++
		}
	}
	for name := range applied {
		if !listed[name] {
			p.unlisted = append(p.unlisted, name)
		}
	}
	slices.Sort(p.unlisted)
	return p, errors.Join(errs...)
}

// apply runs one pending file under the run's timeouts and records it.
func apply(ctx context.Context, conn *pgx.Conn, l ledger, f File, opts Options, w *watcher) (time.Duration, error) {
	if err := setTimeouts(ctx, conn, opts); err != nil {
		return 0, interrupted(ctx, err)
	}
	if f.NoTransaction {
		return applyOutside(ctx, conn, l, f, opts, w)
	}
	return applyInTx(ctx, conn, l, f, opts, w)
}

// applyInTx runs f and writes its ledger row in one transaction.
func applyInTx(ctx context.Context, conn *pgx.Conn, l ledger, f File, opts Options, w *watcher) (time.Duration, error) {
	var took time.Duration
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		start := time.Now()
		stop := w.watch()
		results, err := conn.PgConn().Exec(ctx, f.SQL).ReadAll()
		blockers, berr := stop()
		if err != nil {
			if to, ok := timedOut(err, time.Since(start), opts); ok && ctx.Err() == nil {
				return to.error(failedStatement(f, completedStatements(results)), blockers, berr, "its transaction was rolled back and it is not recorded")
			}
			return fileError(ctx, f, sqltext.Statement{SQL: f.SQL}, err, rolledBack(err))
		}
		took = time.Since(start)
		if conn.PgConn().TxStatus() != 'T' {
			return fmt.Errorf("%s ended the migration's transaction itself (COMMIT, ROLLBACK or END): what it ran is committed but not recorded; remove its transaction statements, or make its first line %q and its statements safe to re-run", f.Name, NoTransactionMarker)
		}
		return l.record(ctx, tx, opts.CodeLocation, opts.Revision, f, took.Milliseconds())
	})
	return took, interrupted(ctx, err)
}

// rolledBack says what a failed transactional file means, and how to
// opt out of the transaction when the statement refuses to run in one.
func rolledBack(err error) string {
	if lostConnection(err) {
		return lostMsg + "; its transaction was rolled back and it is not recorded: the next run applies it"
	}
	msg := "its transaction was rolled back and it is not recorded: fix the file and re-run"
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "25001" { // active_sql_transaction
		msg += fmt.Sprintf("; this statement cannot run inside a transaction: put it in a file whose first line is %q", NoTransactionMarker)
	}
	return msg
}

// lostMsg says that the session ended under the file.
const lostMsg = "the connection to PostgreSQL was lost (a server restart, a failover or the network)"

// lostConnection reports whether err ended the session rather than the
// statement: the server shut down or terminated it (SQLSTATE 57P01-57P03),
// a connection exception (class 08), or the connection itself broke.
func lostConnection(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || strings.HasPrefix(pe.Code, "08")
	}
	return err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// applyOutside runs f one statement at a time outside any transaction,
// then writes its ledger row. It refuses to start while INVALID indexes
// exist: an IF NOT EXISTS would skip them and record a broken index.
// Before each statement it records in the progress table which one runs,
// so that a run killed half-way leaves where it stopped; the ledger row
// and the removal of the progress row are one transaction.
func applyOutside(ctx context.Context, conn *pgx.Conn, l ledger, f File, opts Options, w *watcher) (time.Duration, error) {
	if err := noInvalidIndexes(ctx, conn, f); err != nil {
		return 0, err
	}
	var exists bool
	prev, err := l.progressOf(ctx, conn, opts.CodeLocation, f, &exists)
	if err != nil {
		return 0, interrupted(ctx, err)
	}
	if prev != nil {
		fmt.Fprintf(opts.Out, "note: %s; running it again from its first statement\n", prev.describe(f))
	}
	if !exists {
		if err := l.createProgress(ctx, conn); err != nil {
			return 0, interrupted(ctx, err)
		}
	}
	start := time.Now()
	stmts := sqltext.Split(f.SQL)
	for i, st := range stmts {
		line := sqltext.LineAt(f.SQL, st.Offset, st.SQL, 1)
		if err := l.markProgress(ctx, conn, opts.CodeLocation, opts.Revision, f, i+1, len(stmts), line); err != nil {
			return 0, interrupted(ctx, err)
		}
		started := time.Now()
		stop := w.watch()
		_, err := conn.PgConn().Exec(ctx, st.SQL).ReadAll()
		blockers, berr := stop()
		if err == nil {
			continue
		}
		if to, ok := timedOut(err, time.Since(started), opts); ok && ctx.Err() == nil {
			return 0, timedOutOutside(ctx, conn, f, i, len(stmts), line, to, blockers, berr)
		}
		return 0, failedOutside(ctx, conn, f, i, len(stmts), st, err)
	}
	took := time.Since(start)
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if err := l.record(ctx, tx, opts.CodeLocation, opts.Revision, f, took.Milliseconds()); err != nil {
			return err
		}
		return l.clearProgress(ctx, tx, opts.CodeLocation, f)
	})
	return took, interrupted(ctx, err)
}

// stoppedNote is what a dry run says of a no-transaction file that an
// earlier run left half-way.
func stoppedNote(ctx context.Context, conn *pgx.Conn, l ledger, f File, opts Options) (string, error) {
	if !f.NoTransaction || !l.exists {
		return "", nil
	}
	var exists bool
	p, err := l.progressOf(ctx, conn, opts.CodeLocation, f, &exists)
	if err != nil || p == nil {
		return "", err
	}
	return "; " + p.describe(f), nil
}

func noInvalidIndexes(ctx context.Context, conn *pgx.Conn, f File) error {
	idx, err := invalidIndexes(ctx, conn)
	if err != nil || len(idx) == 0 {
		return interrupted(ctx, err)
	}
	return errors.New(describeInvalid(fmt.Sprintf(
		"%s runs outside a transaction and the database holds INVALID indexes left by a failed concurrent build (a re-run would skip them with IF NOT EXISTS and record them as applied):", f.Name), idx))
}

// failedOutside explains the failure of statement i of a no-transaction
// file, with the INVALID indexes it may have left.
func failedOutside(ctx context.Context, conn *pgx.Conn, f File, i, n int, st sqltext.Statement, err error) error {
	consequence := fmt.Sprintf("it ran outside a transaction: its statements before statement %d of %d stay applied and it is not recorded (%s records where it stopped); make it safe to re-run (IF NOT EXISTS), fix it and re-run", i+1, n, ProgressTable)
	if lostConnection(err) {
		consequence = fmt.Sprintf("%s; it ran outside a transaction: its statements before statement %d of %d stay applied and it is not recorded (%s records where it stopped); the next run runs it again from its first statement", lostMsg, i+1, n, ProgressTable)
	}
	msg := fileError(ctx, f, st, err, consequence).Error()
	if conn.IsClosed() || ctx.Err() != nil {
		msg += "\n  look for INVALID indexes it may have left: SELECT indexrelid::regclass FROM pg_index WHERE NOT indisvalid; drop each with DROP INDEX CONCURRENTLY, then re-run"
		return errors.New(msg)
	}
	idx, ierr := invalidIndexes(ctx, conn)
	switch {
	case ierr != nil:
		msg += "\n  " + ierr.Error()
	case len(idx) > 0:
		msg += "\n" + describeInvalid("  the failed build left INVALID indexes:", idx)
	}
	return errors.New(msg)
}

// timedOutOutside is the one line of statement i of a no-transaction file
// cancelled by a timeout, naming the INVALID indexes a CREATE INDEX
// CONCURRENTLY leaves when lock_timeout cancels it in one of its waits.
func timedOutOutside(ctx context.Context, conn *pgx.Conn, f File, i, n, line int, to timeout, blockers []blocker, berr error) error {
	consequence := fmt.Sprintf("it ran outside a transaction: its statements before statement %d of %d stay applied and it is not recorded (%s records where it stopped)", i+1, n, ProgressTable)
	idx, ierr := invalidIndexes(ctx, conn)
	switch {
	case ierr != nil:
		consequence += "; " + oneLine(ierr.Error())
	case len(idx) > 0:
		for _, x := range idx {
			consequence += fmt.Sprintf("; it left the INVALID index %s on %s: DROP INDEX CONCURRENTLY %s before the next run, which refuses to start while it exists", x.Index, x.Table, x.Index)
		}
	}
	where := fmt.Sprintf("%s:%d (statement %d of %d)", f.Name, line, i+1, n)
	return to.error(where, blockers, berr, consequence)
}

// fileError explains an error of file f raised by statement st: where, what
// PostgreSQL said, and what it means for the database.
func fileError(ctx context.Context, f File, st sqltext.Statement, err error, consequence string) error {
	if ctx.Err() != nil {
		consequence = "its transaction was rolled back and it is not recorded: the next run applies it"
		if f.NoTransaction {
			consequence = "it ran outside a transaction: it may be partly applied and is not recorded (" + ProgressTable + " records where it stopped); the next run runs it again from its first statement"
		}
		return fmt.Errorf("%s: interrupted (%w); %s", f.Name, context.Cause(ctx), consequence)
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return fmt.Errorf("%s: %w\n  %s", f.Name, err, consequence)
	}
	where := f.Name
	line := sqltext.LineAt(f.SQL, st.Offset, st.SQL, int(pe.Position))
	if line == 0 && st.SQL != f.SQL { // one statement of a split file: where it starts
		line = sqltext.LineAt(f.SQL, st.Offset, st.SQL, 1)
	}
	if line > 0 {
		where = fmt.Sprintf("%s:%d", f.Name, line)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s: %s (SQLSTATE %s)", where, pe.Severity, pe.Message, pe.Code)
	for _, extra := range [][2]string{{"DETAIL", pe.Detail}, {"HINT", pe.Hint}, {"CONTEXT", pe.Where}} {
		if extra[1] != "" {
			fmt.Fprintf(&b, "\n  %s: %s", extra[0], strings.ReplaceAll(extra[1], "\n", "\n  "))
		}
	}
	b.WriteString("\n  " + consequence)
	return errors.New(b.String())
}

// interrupted rewords err when ctx was cancelled (SIGTERM, deadline).
func interrupted(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil || strings.Contains(err.Error(), "interrupted (") {
		return err
	}
	return fmt.Errorf("interrupted (%w): %w", context.Cause(ctx), err)
}
