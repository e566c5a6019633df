// Package sqltext cuts PostgreSQL migration text into statements as psql
// does, for the migration Job (which runs them) and the declaration's check
// (which refuses a file without one). It is a leaf of the standard library,
// so that the lean CLI can use it.
package sqltext

import (
	"strings"
	"unicode/utf8"
)

// Statement is one SQL statement of a file.
type Statement struct {
	SQL    string // the statement, without its terminating semicolon
	Offset int    // byte offset of SQL in the file
}

// Split cuts sql into statements at top-level semicolons, as psql does:
// a semicolon inside a string, a quoted identifier, a dollar-quoted body, a
// comment or parentheses does not end a statement. Comments before a
// statement are dropped, and so are pieces holding only comments and space. A no-transaction file is run one
// statement at a time, because PostgreSQL runs a multi-statement query
// string as one implicit transaction, where CREATE INDEX CONCURRENTLY is
// refused. (SQL-standard function bodies, BEGIN ATOMIC ... END, are not
// recognized: keep them in transactional files.)
func Split(sql string) []Statement {
	var out []Statement
	start, depth, code := 0, 0, false // start: where the piece's code starts
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			i = skipLineComment(sql, i)
			continue
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			i = skipBlockComment(sql, i)
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
			continue
		case c == ';' && depth == 0:
			out = appendStatement(out, sql, start, i, code)
			i++
			start, code = i, false
			continue
		}
		if !code {
			start, code = i, true
		}
		switch c {
		case '\'':
			i = skipQuoted(sql, i, '\'', isEscapeString(sql, i))
		case '"':
			i = skipQuoted(sql, i, '"', false)
		case '$':
			i = skipDollar(sql, i)
		case '(':
			depth++
			i++
		case ')':
			depth = max(depth-1, 0)
			i++
		default:
			i++
		}
	}
	return appendStatement(out, sql, start, len(sql), code)
}

// appendStatement appends sql[start:end] without its trailing space when
// the piece holds code; start is where its code starts, after any leading
// comments.
func appendStatement(out []Statement, sql string, start, end int, code bool) []Statement {
	if !code {
		return out
	}
	return append(out, Statement{SQL: strings.TrimRight(sql[start:end], " \t\r\n\f"), Offset: start})
}

func skipLineComment(sql string, i int) int {
	if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(sql)
}

// skipBlockComment skips a /* */ comment; they nest in PostgreSQL.
func skipBlockComment(sql string, i int) int {
	depth := 0
	for i < len(sql) {
		switch {
		case strings.HasPrefix(sql[i:], "/*"):
			depth++
			i += 2
		case strings.HasPrefix(sql[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(sql)
}

// skipQuoted skips a quoted string or identifier starting at i, where a
// doubled quote stands for itself and, in E'...' strings, a backslash escapes.
func skipQuoted(sql string, i int, q byte, backslash bool) int {
	for j := i + 1; j < len(sql); j++ {
		switch {
		case backslash && sql[j] == '\\':
			j++
		case sql[j] == q && j+1 < len(sql) && sql[j+1] == q:
			j++
		case sql[j] == q:
			return j + 1
		}
	}
	return len(sql)
}

// isEscapeString reports whether the quote at i opens an E'...' string (backslash escapes).
func isEscapeString(sql string, i int) bool {
	if i == 0 || (sql[i-1] != 'E' && sql[i-1] != 'e') {
		return false
	}
	return i == 1 || !isIdentByte(sql[i-2])
}

// skipDollar skips a $tag$...$tag$ body starting at i, or just the '$' when
// it is not an opening tag (a $1 parameter, a '$' inside an identifier).
func skipDollar(sql string, i int) int {
	if i > 0 && isIdentByte(sql[i-1]) {
		return i + 1
	}
	j := i + 1
	for j < len(sql) && isIdentByte(sql[j]) && sql[j] != '$' {
		j++
	}
	if j >= len(sql) || sql[j] != '$' || (j > i+1 && sql[i+1] >= '0' && sql[i+1] <= '9') {
		return i + 1
	}
	tag := sql[i : j+1]
	end := strings.Index(sql[j+1:], tag)
	if end < 0 {
		return len(sql)
	}
	return j + 1 + end + len(tag)
}

// isIdentByte reports whether b may continue an identifier.
func isIdentByte(b byte) bool {
	return b == '_' || b == '$' || b >= 0x80 ||
		(b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
}

// LineAt returns the 1-based line of the character at 1-based position pos
// (as PostgreSQL counts it) in stmt, where stmt starts at byte offset in
// file. It returns 0 when pos is unknown.
func LineAt(file string, offset int, stmt string, pos int) int {
	if pos <= 0 {
		return 0
	}
	b := 0
	for n := 1; n < pos && b < len(stmt); n++ {
		_, size := utf8.DecodeRuneInString(stmt[b:])
		b += size
	}
	return strings.Count(file[:offset+b], "\n") + 1
}

// NoTransactionMarker is the line that, as a migration's exact first line,
// makes the migration Job run the file outside a transaction, one statement
// at a time.
const NoTransactionMarker = "-- codeloc:no-transaction"

// NoTransaction reports whether sql's first line is exactly
// NoTransactionMarker (a trailing carriage return aside).
func NoTransaction(sql string) bool {
	line, _, _ := strings.Cut(sql, "\n")
	return strings.TrimSuffix(line, "\r") == NoTransactionMarker
}
