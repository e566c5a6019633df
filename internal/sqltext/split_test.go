package sqltext_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/internal/sqltext"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		sql  string
		want []string
	}{
		{"two statements", "SELECT 1;\nSELECT 2;\n", []string{"SELECT 1", "SELECT 2"}},
		{"no final semicolon", "SELECT 1;\nSELECT 2\n", []string{"SELECT 1", "SELECT 2"}},
		{"empty statements and comment-only tail", ";;SELECT 1;;\n-- the end; really\n/* ; */\n", []string{"SELECT 1"}},
		{"leading comments dropped", "-- codeloc:no-transaction\n-- why; because\nCREATE INDEX CONCURRENTLY i ON t (c);", []string{"CREATE INDEX CONCURRENTLY i ON t (c)"}},
		{"comment inside kept", "SELECT 1 -- one; two\n+ 1; SELECT 2", []string{"SELECT 1 -- one; two\n+ 1", "SELECT 2"}},
		{"string", "SELECT 'a;b', 'it''s;'; SELECT 2", []string{"SELECT 'a;b', 'it''s;'", "SELECT 2"}},
		{"escape string", `SELECT E'\';', e'x\\'; SELECT 2`, []string{`SELECT E'\';', e'x\\'`, "SELECT 2"}},
		{"backslash in standard string", `SELECT 'a\'; SELECT 2`, []string{`SELECT 'a\'`, "SELECT 2"}},
		{"identifier ending in e before a string", `SELECT some'x;'; SELECT 2`, []string{`SELECT some'x;'`, "SELECT 2"}},
		{"quoted identifier", `CREATE TABLE "a;""b" (id int); SELECT 2`, []string{`CREATE TABLE "a;""b" (id int)`, "SELECT 2"}},
		{"dollar quote", "CREATE FUNCTION f() RETURNS int AS $$ BEGIN RETURN 1; END; $$ LANGUAGE plpgsql; SELECT 2",
			[]string{"CREATE FUNCTION f() RETURNS int AS $$ BEGIN RETURN 1; END; $$ LANGUAGE plpgsql", "SELECT 2"}},
		{"tagged dollar quote with $$ inside", "DO $body$ BEGIN EXECUTE $$SELECT 1;$$; END $body$; SELECT 2",
			[]string{"DO $body$ BEGIN EXECUTE $$SELECT 1;$$; END $body$", "SELECT 2"}},
		{"parameter is no dollar quote", "PREPARE p AS SELECT $1; EXECUTE p(1)", []string{"PREPARE p AS SELECT $1", "EXECUTE p(1)"}},
		{"dollar inside an identifier", "SELECT a$b$ FROM t; SELECT 2", []string{"SELECT a$b$ FROM t", "SELECT 2"}},
		{"nested block comment", "SELECT /* a /* b; */ c; */ 1; SELECT 2", []string{"SELECT /* a /* b; */ c; */ 1", "SELECT 2"}},
		{"parentheses", "CREATE RULE r AS ON INSERT TO t DO ALSO (INSERT INTO a VALUES (1); INSERT INTO b VALUES (2)); SELECT 2",
			[]string{"CREATE RULE r AS ON INSERT TO t DO ALSO (INSERT INTO a VALUES (1); INSERT INTO b VALUES (2))", "SELECT 2"}},
		{"unterminated string", "SELECT 'a; SELECT 2", []string{"SELECT 'a; SELECT 2"}},
		{"only comments", "-- nothing\n/* at all */\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stmts := sqltext.Split(tt.sql)
			var got []string
			for _, s := range stmts {
				got = append(got, s.SQL)
				if !strings.HasPrefix(tt.sql[s.Offset:], s.SQL) {
					t.Errorf("offset %d of %q is wrong", s.Offset, s.SQL)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Split(%q) (-want +got):\n%s", tt.sql, diff)
			}
		})
	}
}
