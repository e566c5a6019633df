package sqllint_test

import (
	"strings"
	"testing"

	"github.com/codeloc/codeloc/validate/sqllint"
)

// FuzzLint lints the fuzzer's bytes as a migration: no panic, findings on
// one line each at a position inside the file, and the parser never left
// broken for the next file (a trap past the depth guard would make every
// later lint of the process a "restart codeloc" line).
func FuzzLint(f *testing.F) {
	for _, seed := range []string{
		adrMigration,
		"CREATE INDEX i ON t (a);",
		"-- codeloc:no-transaction\nCREATE INDEX CONCURRENTLY i ON t (a);",
		"ALTER TABLE t ADD COLUMN c int NOT NULL, ALTER COLUMN d TYPE text;",
		"-- codeloc:allow sql-drop gone for good\nDROP TABLE t;",
		"CREATE FUNCTION f() RETURNS int AS $$ SELECT 1 $$ LANGUAGE sql;",
		"SELECT ((((((1))))));",
		"BEGIN; COMMIT;",
		"SET lock_timeout = 0; ALTER TABLE t RENAME TO u;",
		"DO $a$\nBEGIN\n  IF true THEN DROP TABLE t; END IF;\n  EXECUTE 'TRUNCATE u CASCADE';\n  DO $b$ BEGIN ALTER TABLE v ADD COLUMN c int NOT NULL; END $b$;\nEND $a$;",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		lines := strings.Count(sql, "\n") + 1
		for _, fd := range sqllint.Lint(sql, sqllint.Config{}) {
			if strings.ContainsAny(fd.Message+fd.Hint, "\n\r") || len([]rune(fd.Message)) > 400 {
				t.Errorf("finding not on one bounded line: %+v", fd)
			}
			if fd.Line < 1 || fd.Line > lines || fd.Column < 1 {
				t.Errorf("finding outside the file (%d lines): %+v", lines, fd)
			}
		}
		if fs := sqllint.Lint("SELECT 1;", sqllint.Config{}); len(fs) != 0 {
			t.Fatalf("the parser is broken after this input: %+v", fs)
		}
	})
}
