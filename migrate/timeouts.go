package migrate

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/codeloc/codeloc/internal/pgtimeout"
	"github.com/codeloc/codeloc/internal/sqltext"
)

// setTimeouts sets the session's lock_timeout and statement_timeout before
// each file, so that a file's own SET does not outlive it. They are set
// after the advisory lock is taken: lock_timeout also bounds advisory lock
// waits, and a run waiting for another is meant to wait.
func setTimeouts(ctx context.Context, conn *pgx.Conn, opts Options) error {
	_, err := conn.Exec(ctx, "SELECT set_config('lock_timeout', $1, false), set_config('statement_timeout', $2, false)",
		strconv.FormatInt(opts.LockTimeout.Milliseconds(), 10), strconv.FormatInt(opts.StatementTimeout.Milliseconds(), 10))
	if err != nil {
		return fmt.Errorf("cannot set lock_timeout and statement_timeout: %w", err)
	}
	return nil
}

// resetTimeouts gives the caller's session back its own timeouts.
func resetTimeouts(conn *pgx.Conn) {
	if conn.IsClosed() || conn.PgConn().TxStatus() != 'I' {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn.Exec(ctx, "SELECT set_config(name, reset_val, false) FROM pg_settings WHERE name IN ('lock_timeout', 'statement_timeout')") //nolint:errcheck // the session ends with the run
}

// blocker is a session that held a lock a migration statement waited for.
type blocker struct {
	PID           int
	QueryStart    *time.Time // nil: not visible to the migration's role
	State         *string
	WaitEventType *string
}

// describe names the blocker: pid, query start, state, what it waits on;
// never its query.
func (b blocker) describe() string {
	if b.PID == 0 {
		return "a prepared transaction (see pg_prepared_xacts)"
	}
	s := "pid " + strconv.Itoa(b.PID)
	if b.QueryStart == nil {
		return s + " (query_start not visible: grant pg_read_all_stats to the migration's role to see it)"
	}
	s += " (query_start " + b.QueryStart.UTC().Format(QueryStartLayout)
	if b.State != nil {
		s += ", state " + *b.State
	}
	if b.WaitEventType != nil {
		s += ", wait_event_type " + *b.WaitEventType
	}
	return s + ")"
}

// QueryStartLayout formats a blocking session's query_start, in UTC.
const QueryStartLayout = "2006-01-02T15:04:05.000Z07:00"

// blockersSQL lists the sessions blocking pid $1, without their query.
const blockersSQL = `SELECT b.pid, a.query_start, a.state, a.wait_event_type
FROM unnest(pg_blocking_pids($1)) AS b(pid)
LEFT JOIN pg_stat_activity a ON a.pid = b.pid
ORDER BY b.pid`

// watcher looks, from a second session, at which sessions block the run's
// session while a statement waits for a lock: once lock_timeout has
// cancelled the statement, pg_blocking_pids no longer says who it waited
// for. It is opened at the first file a run applies, when lock_timeout is
// set; without it the failure line says why the blockers are unknown.
type watcher struct {
	conn  *pgx.Conn // nil when it could not be opened
	err   error     // why conn is nil
	pid   uint32    // the run's session
	every time.Duration
}

// newWatcher opens the second session of the run on conn.
func newWatcher(ctx context.Context, conn *pgx.Conn, lockTimeout time.Duration) *watcher {
	w := &watcher{pid: conn.PgConn().PID(), every: min(max(lockTimeout/5, 10*time.Millisecond), 500*time.Millisecond)}
	cfg := conn.Config().Copy()
	cfg.RuntimeParams["application_name"] = "codeloc-migrate-watch"
	w.conn, w.err = pgx.ConnectConfig(ctx, cfg)
	if w.err != nil {
		w.err = errors.New(redact(w.err.Error(), secrets("", cfg))) // as Connect: never the password
	}
	return w
}

func (w *watcher) close() {
	if w != nil && w.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		w.conn.Close(ctx)
	}
}

// watch polls the blockers of the run's session until the returned
// function is called; that function returns the last blockers seen.
func (w *watcher) watch() func() ([]blocker, error) {
	if w == nil || w.conn == nil {
		return func() ([]blocker, error) {
			if w == nil {
				return nil, errors.New("lock_timeout is not set")
			}
			return nil, fmt.Errorf("no second session to look at them: %w", w.err)
		}
	}
	var (
		mu   sync.Mutex
		seen []blocker
		err  error
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	wg.Go(func() {
		t := time.NewTicker(w.every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			// Never cancelled mid-query, so the session stays usable.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			rows, qerr := w.conn.Query(ctx, blockersSQL, int64(w.pid))
			var b []blocker
			if qerr == nil {
				b, qerr = pgx.CollectRows(rows, pgx.RowToStructByPos[blocker])
			}
			cancel()
			mu.Lock()
			if qerr != nil {
				err = qerr
			} else if len(b) > 0 {
				seen, err = b, nil
			}
			mu.Unlock()
			if w.conn.IsClosed() {
				return
			}
		}
	})
	return func() ([]blocker, error) {
		close(done)
		wg.Wait()
		return seen, err
	}
}

// timeout is the setting that cancelled a statement.
type timeout struct {
	pe      *pgconn.PgError
	lock    bool          // lock_timeout, else statement_timeout
	value   time.Duration // its value
	setting string        // the contract setting that raises it
}

// timedOut reports which timeout cancelled the statement that failed with
// err after running for took: lock_timeout (55P03 lock_not_available) or
// statement_timeout (57014 query_canceled). The time taken tells them from
// a NOWAIT lock or a pg_cancel_backend by hand, whatever the server's
// language.
func timedOut(err error, took time.Duration, opts Options) (timeout, bool) {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return timeout{}, false
	}
	switch {
	case pe.Code == "55P03" && opts.LockTimeout > 0 && took >= opts.LockTimeout:
		return timeout{pe: pe, lock: true, value: opts.LockTimeout, setting: pgtimeout.LockSetting}, true
	case pe.Code == "57014" && opts.StatementTimeout > 0 && took >= opts.StatementTimeout:
		return timeout{pe: pe, value: opts.StatementTimeout, setting: pgtimeout.StatementSetting}, true
	}
	return timeout{}, false
}

// error is the one line of a statement cancelled by a timeout:
// where (file:line, statement i of n when known), what PostgreSQL said,
// which timeout and its value, the contract setting that raises it, the
// blocking sessions of a lock wait, and what it means for the database.
func (to timeout) error(where string, blockers []blocker, berr error, consequence string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s: %s (SQLSTATE %s): ", where, to.pe.Severity, to.pe.Message, to.pe.Code)
	if to.lock {
		fmt.Fprintf(&b, "waited for a lock longer than lock_timeout %s (%s)", pgtimeout.Format(to.value), to.setting)
		switch {
		case len(blockers) > 0:
			names := make([]string, len(blockers))
			for i, bl := range blockers {
				names[i] = bl.describe()
			}
			b.WriteString("; blocked by " + strings.Join(names, ", "))
		case berr != nil:
			b.WriteString("; blocking sessions unknown: " + oneLine(berr.Error()))
		default:
			b.WriteString("; blocking sessions not seen")
		}
	} else {
		fmt.Fprintf(&b, "ran longer than statement_timeout %s (%s)", pgtimeout.Format(to.value), to.setting)
	}
	fmt.Fprintf(&b, "; %s; %s", consequence, to.fix())
	return errors.New(b.String())
}

// fix says what the operator does.
func (to timeout) fix() string {
	if to.lock {
		return "find the blocking session by its pid (pg_stat_activity), let it finish or end it, then re-sync; raise " + to.setting + " only knowingly: every query on the table queues behind a waiting migration"
	}
	return "make the statement faster (smaller batches, CONCURRENTLY) or raise " + to.setting + " (below jobs.activeDeadlineSeconds), then re-sync"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// beginAtomic finds SQL-standard function bodies, which sqltext.Split
// cannot cut: their files get no statement number.
var beginAtomic = regexp.MustCompile(`(?i)\bbegin\s+atomic\b`)

// failedStatement locates the statement of a transactional file that
// failed, from the number of statements the server completed before it:
// "FILE:LINE (statement i of n)", or the file alone when it cannot tell.
func failedStatement(f File, completed int) string {
	stmts := sqltext.Split(f.SQL)
	if completed < 0 || completed >= len(stmts) || beginAtomic.MatchString(f.SQL) {
		return f.Name
	}
	st := stmts[completed]
	return fmt.Sprintf("%s:%d (statement %d of %d)", f.Name, sqltext.LineAt(f.SQL, st.Offset, st.SQL, 1), completed+1, len(stmts))
}

// completedStatements counts the statements of a multi-statement query
// that finished before the one that failed.
func completedStatements(results []*pgconn.Result) int {
	n := 0
	for _, r := range results {
		if r.Err == nil {
			n++
		}
	}
	return n
}
