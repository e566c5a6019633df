package sqllint

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/codeloc/codeloc/validate/sqllint/internal/pgwasm"
)

// parseMu serializes the parser: one instance of libpg_query's module
// (pg, see wasm.go) for the life of the process, made on the first
// migration linted and reused by every render after it (the sidecar's
// case). A parse takes well under a millisecond per statement, so the lock
// costs nothing a render would see.
var parseMu sync.Mutex

// broken is set once the WebAssembly module trapped: its instance is left
// with its stack pointer where the trap was, and every later parse in the
// process would read garbage.
var broken bool

// MaxDepth bounds how deep the operators of one expression may chain or
// nest. libpg_query writes its parse tree out recursively, and under
// wazero a tree about 3,500 levels deep (SELECT 1 + 1 + ... 3,500 times)
// overflows the call stack, a trap that leaves the instance unusable (see
// broken). PostgreSQL itself reads much deeper; no migration needs to.
const MaxDepth = 1000

// syntaxError is PostgreSQL's refusal of the file (or the lint's, past
// MaxDepth): its message and the byte offset it points at (-1: none).
type syntaxError struct {
	Message string
	Offset  int
}

func (e *syntaxError) Error() string { return e.Message }

// parse runs PostgreSQL's scanner and parser (libpg_query) over sql, or
// reads what they returned for the same text from the parse cache (see
// cache.go). A file PostgreSQL refuses is a *syntaxError.
func parse(sql string) (tree []node, scan []token, err error) {
	c := envCache()
	if strings.IndexByte(sql, 0) >= 0 {
		c = nil // keys with a NUL byte are PL/pgSQL's (plpgsqlKey)
	}
	var key [32]byte
	if c != nil {
		key = c.key(sql)
		if r := c.load(key); r != nil {
			if tree, scan, ok, err := r.result(sql); ok {
				return tree, scan, err
			}
		}
	}
	r, err := runParser(sql)
	if err != nil {
		return nil, nil, err // the module trapped: nothing to keep
	}
	if c != nil {
		c.store(key, r)
	}
	tree, scan, _, err = r.result(sql)
	return tree, scan, err
}

// runParser calls libpg_query (pgwasm): the scanner, and the parser unless the
// tokens show an expression deeper than MaxDepth.
func runParser(sql string) (r *rawParse, err error) {
	parseMu.Lock()
	defer parseMu.Unlock()
	if broken {
		return nil, &syntaxError{Message: "not read: PostgreSQL's parser broke on an earlier file in this process; restart codeloc", Offset: -1}
	}
	defer func() {
		// The module traps (pgwasm panics) on what libpg_query does
		// not catch itself; MaxDepth is there so that it does not happen.
		if v := recover(); v != nil {
			broken = true
			why, _, _ := strings.Cut(strings.TrimPrefix(fmt.Sprint(v), "wasm error: "), "\n")
			r, err = nil, &syntaxError{Message: "PostgreSQL's parser gave up on this file (" + cut(why, 80) + ")", Offset: -1}
		}
	}()
	p, err := theParser()
	if err != nil {
		return nil, &syntaxError{Message: "not read: PostgreSQL's parser did not start (" + cut(err.Error(), 80) + ")", Offset: -1}
	}
	r = &rawParse{}
	// The scanner is a loop, safe on any input; a file it refuses goes on
	// to the parser for PostgreSQL's own message.
	if b, err := p.Scan(sql); err == nil {
		r.scanned, r.scan = true, b
		if toks, err := scanTokens(b); err == nil {
			if depth, _ := exprDepth(toks); depth > MaxDepth {
				r.deep = true
				return r, nil
			}
		}
	}
	r.set(p.Parse(sql))
	return r, nil
}

// set keeps a parser's output: its JSON, or its error.
func (r *rawParse) set(js string, err error) {
	var pe *pgwasm.Error
	switch {
	case errors.As(err, &pe):
		r.errKind, r.errMsg, r.cursor = errParser, pe.Message, pe.Cursorpos
	case err != nil:
		r.errKind, r.errMsg = errOther, err.Error()
	default:
		r.json = js
	}
}

// depthTokens are the tokens that put what follows one level deeper in
// the parse tree: operators, casts and the keywords of operator-like
// constructs.
var depthTokens = map[int]bool{
	tokOp: true, '%': true, '*': true, '+': true, '-': true, '/': true, '<': true, '=': true, '>': true, '^': true,
	tokOpen: true, tokTypecast: true, tokLessEquals: true, tokGreaterEquals: true, tokNotEquals: true, tokNot: true,
	tokIs: true, tokIsNull: true, tokNotNull: true, tokLike: true, tokILike: true, tokSimilar: true, tokBetween: true,
	tokIn: true, tokCollate: true, tokAt: true, tokOperator: true,
}

// exprDepth bounds from above the depth of the deepest expression: per
// open parenthesis, the operators since the last comma at that level
// (a comma starts another element of a list, a sibling), summed over the
// open levels. It returns the bound and the byte offset where it is
// highest.
func exprDepth(scan []token) (int, int) {
	levels := []int{0}
	depth, maxDepth, at := 0, 0, 0
	for _, t := range scan {
		switch {
		case t.kind == tokSemicolon:
			levels, depth = levels[:1], 0
			levels[0] = 0
		case t.kind == tokComma:
			depth -= levels[len(levels)-1]
			levels[len(levels)-1] = 0
		case t.kind == tokClose:
			if len(levels) > 1 {
				depth -= levels[len(levels)-1]
				levels = levels[:len(levels)-1]
			}
		case depthTokens[t.kind]:
			levels[len(levels)-1]++
			depth++
			if t.kind == tokOpen { // ( opens a level, counted in its parent
				levels = append(levels, 0)
			}
			if depth > maxDepth {
				maxDepth, at = depth, t.start
			}
		}
	}
	return maxDepth, at
}

// cursorOffset turns PostgreSQL's 1-based character cursor into a byte
// offset (-1: no cursor).
func cursorOffset(sql string, cursor int) int {
	if cursor <= 0 {
		return -1
	}
	off := 0
	for n := 1; n < cursor && off < len(sql); n++ {
		_, size := utf8.DecodeRuneInString(sql[off:])
		off += size
	}
	return off
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
