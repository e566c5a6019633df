package migrate

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ConnectTimeout bounds a connection attempt unless PGCONNECT_TIMEOUT (or
// connect_timeout in the URL) says otherwise.
const ConnectTimeout = 10 * time.Second

// ConnConfig returns the connection settings: databaseURL when it is not
// empty (PG* variables fill what it leaves out), else libpq's PG* variables
// (PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD, PGSSLMODE, ...). Errors
// never quote the settings: they may hold the password.
func ConnConfig(databaseURL string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		source := "the PG* variables do not form"
		if databaseURL != "" {
			source = "DATABASE_URL is not"
		}
		return nil, fmt.Errorf("%s a valid PostgreSQL connection (value not shown, it may hold the password): %s",
			source, redact(parseProblem(err), secrets(databaseURL, nil)))
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = ConnectTimeout
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "codeloc-migrate"
	}
	// One round trip per query, and no prepared statement left in the session.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	return cfg, nil
}

// parseProblem says what is wrong in a connection string without quoting
// it: pgx's message without the string, and without net/url's quote of it.
func parseProblem(err error) string {
	var pe *pgconn.ParseConfigError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	bare := *pe
	bare.ConnString = ""
	msg := strings.TrimPrefix(bare.Error(), "cannot parse ``: ")
	if inner := pe.Unwrap(); inner != nil {
		msg = strings.TrimSuffix(msg, " ("+inner.Error()+")")
		var ue *url.Error
		if errors.As(inner, &ue) {
			inner = ue.Err
		}
		msg += " (" + inner.Error() + ")"
	}
	return msg
}

// Target names the server and role of cfg, never the password.
func Target(cfg *pgx.ConnConfig) string {
	return fmt.Sprintf("host=%s port=%d database=%s user=%s", cfg.Host, cfg.Port, cfg.Database, cfg.User)
}

// sessionSettings make the server notice a vanished client (a killed Job)
// even while a statement runs, so that its session, and the advisory lock
// with it, ends within seconds: it polls the socket every 2 s (PostgreSQL
// 14 and later; kept when someone set another interval) and probes a silent
// TCP peer after 30 s.
const sessionSettings = `SELECT set_config('tcp_keepalives_idle', '30', false),
       set_config('tcp_keepalives_interval', '10', false),
       set_config('tcp_keepalives_count', '3', false),
       (SELECT set_config('client_connection_check_interval', '2s', false)
        WHERE current_setting('client_connection_check_interval', true) = '0')`

// Connect opens the one connection a run uses, within cfg.ConnectTimeout.
// Errors name the target (host, port, database, user), never the password.
func Connect(ctx context.Context, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		var ce *pgconn.ConnectError
		if errors.As(err, &ce) && ce.Unwrap() != nil {
			err = ce.Unwrap()
		}
		return nil, fmt.Errorf("cannot connect to PostgreSQL (%s): %s", Target(cfg), redact(err.Error(), secrets("", cfg)))
	}
	if _, err := conn.Exec(ctx, sessionSettings); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("cannot configure the session on %s: %w", Target(cfg), err)
	}
	return conn, nil
}

// secrets lists the passwords an error message must not show.
func secrets(databaseURL string, cfg *pgx.ConnConfig) []string {
	s := []string{os.Getenv("PGPASSWORD")}
	if cfg != nil {
		s = append(s, cfg.Password)
	}
	if u, err := url.Parse(databaseURL); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			s = append(s, pw, url.QueryEscape(pw), url.PathEscape(pw))
		}
	}
	if m := userinfoPassword.FindStringSubmatch(databaseURL); m != nil {
		s = append(s, m[1]) // even when the URL does not parse
	}
	for _, m := range keywordPassword.FindAllStringSubmatch(databaseURL, -1) {
		s = append(s, strings.Trim(m[1], "'"))
	}
	return s
}

var (
	userinfoPassword = regexp.MustCompile(`://[^:/@]*:([^@]+)@`)
	keywordPassword  = regexp.MustCompile(`password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)`)
)

// redact replaces every non-empty secret in msg.
func redact(msg string, secrets []string) string {
	for _, s := range secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	return msg
}
