package sqllint

import (
	"errors"
	"fmt"
	"sync"

	pgq "github.com/pganalyze/pg_query_go/v6"
	pgquery "github.com/wasilibs/go-pgquery"
	"github.com/wasilibs/go-pgquery/parser"
)

// parseMu serializes the parser. go-pgquery keeps a pool of WebAssembly
// instances and builds a new one (a fresh wazero runtime: compiling
// libpg_query again, about 1.5 s and 100+ MiB) whenever a call finds the
// pool empty. One call at a time keeps the pool at one instance for the
// life of the process: compiled once, on the first migration linted, and
// reused by every render after it (the sidecar's case). A parse takes
// well under a millisecond per statement, so the lock costs nothing a
// render would see.
var parseMu sync.Mutex

// syntaxError is PostgreSQL's refusal of the file: its message and the
// 1-based character position of its cursor (0: none).
type syntaxError struct {
	Message string
	Cursor  int
}

func (e *syntaxError) Error() string { return e.Message }

// parse runs PostgreSQL's parser (libpg_query) over sql and its scanner for
// the comments. A file PostgreSQL refuses is a *syntaxError.
func parse(sql string) (tree *pgq.ParseResult, scan *pgq.ScanResult, err error) {
	parseMu.Lock()
	defer parseMu.Unlock()
	defer func() {
		// The WebAssembly module traps (a panic in go-pgquery) on what
		// libpg_query does not catch itself; the file is then unreadable,
		// which is a problem of the file, not a crash of the render.
		if r := recover(); r != nil {
			tree, scan, err = nil, nil, &syntaxError{Message: fmt.Sprintf("PostgreSQL's parser gave up on this file (%v)", r)}
		}
	}()
	tree, err = pgquery.Parse(sql)
	if err == nil {
		scan, err = pgquery.Scan(sql)
	}
	var pe *parser.Error
	switch {
	case errors.As(err, &pe):
		return nil, nil, &syntaxError{Message: pe.Message, Cursor: pe.Cursorpos}
	case err != nil: // the parse tree does not decode: nested deeper than protobuf reads
		return nil, nil, &syntaxError{Message: "the statement is nested too deeply to be read: " + err.Error()}
	}
	return tree, scan, nil
}
