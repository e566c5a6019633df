package validate

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/internal/sqltext"
	"github.com/codeloc/codeloc/validate/sqllint"
)

// migrationContent checks what a declared migration holds: text (UTF-8
// without NUL bytes, which PostgreSQL refuses in a query and a ConfigMap's
// data does not carry) and at least one statement once comments, white
// space and semicolons are left out (the first line "-- codeloc:no-transaction"
// is a comment too).
func migrationContent(data []byte) *problem.Problem {
	if p := migrationNotText(data); p != nil {
		return p
	}
	if !sqlHasStatement(string(data)) {
		return &problem.Problem{Code: CodeMigrationEmpty, Message: "holds no SQL statement, only comments and white space",
			Hint: "write the SQL or remove the migration"}
	}
	return nil
}

// migrationNotText says where data stops being text: the byte offset and
// line of its first NUL byte or byte that is not UTF-8; nil when it is text.
func migrationNotText(data []byte) *problem.Problem {
	if utf8.Valid(data) && bytes.IndexByte(data, 0) < 0 {
		return nil
	}
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		var what string
		switch {
		case data[i] == 0:
			what = "a NUL byte"
		case r == utf8.RuneError && size == 1:
			what = fmt.Sprintf("byte 0x%02x, which is not UTF-8", data[i])
		default:
			i += size
			continue
		}
		line := bytes.Count(data[:i], []byte("\n")) + 1
		return &problem.Problem{Code: CodeMigrationNotText,
			Message: fmt.Sprintf("is not text: at byte %d (line %d) is %s", i, line, what),
			Hint:    `save it as UTF-8 text without NUL bytes, and write binary values as SQL literals ('\x...'::bytea, decode('...', 'base64'))`}
	}
	return nil
}

// sqlHasStatement reports whether sql holds a statement the migration Job
// would run (sqltext.Split: comments, white space and semicolons hold
// none); codeloc also counts Unicode white space and a byte order mark as
// space, which PostgreSQL would refuse as a statement.
func sqlHasStatement(sql string) bool {
	spaced := strings.Map(func(r rune) rune {
		if r == '\uFEFF' || r == '\v' || r >= utf8.RuneSelf && unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, sql)
	return len(sqltext.Split(spaced)) > 0
}

// LintMigrations reads every declared migration with PostgreSQL's grammar
// (package sqllint) and reports what would hurt the live database, with the
// severities of the contract's policy.migrations, at
// migrations/FILE:LINE:COLUMN, in the order the Job applies them. Every declared file is read, applied or not:
// render cannot know which ones the database already has. Without
// migrations it costs nothing: the parser starts on the first file.
func LintMigrations(d *Declaration, c *Contract) problem.Problems {
	if d == nil || c == nil || len(d.Migrations) == 0 {
		return nil
	}
	cfg := sqllint.Config{Severities: c.Policy.Migrations, LockTimeout: c.DB.Migrations.LockTimeout}
	dir := filepath.Join(filepath.Dir(d.File), MigrationsDir)
	var ps problem.Problems
	// One session for the files in the Job's order: an earlier file's
	// validated CHECK (col IS NOT NULL) lets a later SET NOT NULL pass.
	session := sqllint.NewSession(cfg)
	for _, m := range d.Migrations {
		for _, f := range session.Lint(string(m.SQL)) {
			p := problem.Problem{Code: f.Code, File: filepath.Join(dir, m.Name), Line: f.Line, Column: f.Column, Message: f.Message, Hint: f.Hint}
			if f.Severity == sqllint.Warning {
				p.Severity = problem.SeverityWarning
			}
			ps = append(ps, p)
		}
	}
	return ps
}
