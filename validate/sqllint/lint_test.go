package sqllint_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/validate/sqllint"
)

// brief renders findings as "LINE:COL CODE", with "warning " before a
// warning's code and " allowed: REASON" after an opted-out one.
func brief(fs []sqllint.Finding) []string {
	var out []string
	for _, f := range fs {
		s := fmt.Sprintf("%d:%d ", f.Line, f.Column)
		if f.Severity == sqllint.Warning {
			s += "warning "
		}
		s += f.Code
		if f.Allowed != "" {
			s += " allowed: " + f.Allowed
		}
		out = append(out, s)
	}
	return out
}

// withTimeout is the contract's default: a lock_timeout is in force.
var withTimeout = sqllint.Config{LockTimeout: 5 * time.Second}

const noTx = "-- codeloc:no-transaction\n"

// lintCases is TestLint's table; TestCacheSameFindings lints it again
// through the parse cache.
var lintCases = []struct {
	name string
	sql  string
	cfg  sqllint.Config
	want []string
}{
	// index creation and deletion
	{"index on an existing table", "CREATE INDEX i ON t (c);", withTimeout, []string{"1:1 sql-index-blocking"}},
	{"the ADR's hnsw index in a transaction", "CREATE INDEX researchers_embedding_hnsw\n  ON researchers USING hnsw (embedding vector_cosine_ops);", withTimeout, []string{"1:1 sql-index-blocking"}},
	{"unique index too", "CREATE UNIQUE INDEX i ON t (c);", withTimeout, []string{"1:1 sql-index-blocking"}},
	{"index concurrently in a no-transaction file", noTx + "CREATE INDEX CONCURRENTLY i ON t (c);", withTimeout, nil},
	{"index concurrently in a transaction", "CREATE INDEX CONCURRENTLY i ON t (c);", withTimeout, []string{"1:1 sql-concurrently-in-transaction"}},
	{"marker not on the first line", "\n" + noTx + "CREATE INDEX CONCURRENTLY i ON t (c);", withTimeout, []string{"3:1 sql-concurrently-in-transaction"}},
	{"marker with CRLF", "-- codeloc:no-transaction\r\nCREATE INDEX CONCURRENTLY i ON t (c);", withTimeout, nil},
	{"table created in the same file", "CREATE TABLE t (c int);\nCREATE INDEX i ON t (c);\nDROP INDEX i;", withTimeout, nil},
	{"table created in the same no-transaction file, concurrently", noTx + "CREATE TABLE t (c int);\nCREATE INDEX CONCURRENTLY i ON t (c);", withTimeout, nil},
	{"table created with AS", "CREATE TABLE t AS SELECT 1 AS c;\nCREATE INDEX i ON t (c);", withTimeout, nil},
	{"drop index", "DROP INDEX i;", withTimeout, []string{"1:1 sql-index-blocking"}},
	{"drop index concurrently", noTx + "DROP INDEX CONCURRENTLY i;", withTimeout, nil},
	{"drop index concurrently in a transaction", "DROP INDEX CONCURRENTLY i;", withTimeout, []string{"1:1 sql-concurrently-in-transaction"}},
	{"reindex", "REINDEX INDEX i;", withTimeout, []string{"1:1 sql-reindex-blocking"}},
	{"reindex concurrently", noTx + "REINDEX INDEX CONCURRENTLY i;\nREINDEX (CONCURRENTLY) TABLE t;", withTimeout, nil},
	{"reindex concurrently false", noTx + "REINDEX (CONCURRENTLY false) TABLE t;", withTimeout, []string{"2:1 sql-reindex-blocking"}},
	{"reindex concurrently in a transaction", "REINDEX TABLE CONCURRENTLY t;", withTimeout, []string{"1:1 sql-concurrently-in-transaction"}},

	// columns
	{"add column not null without default", "ALTER TABLE t ADD COLUMN c int NOT NULL;", withTimeout, []string{"1:26 sql-add-column-not-null"}},
	{"add column not null with a constant default", "ALTER TABLE t ADD COLUMN c int NOT NULL DEFAULT 0;", withTimeout, nil},
	{"add column nullable", "ALTER TABLE t ADD COLUMN c int;", withTimeout, nil},
	{"add column on a table of the file", "CREATE TABLE t (id int);\nALTER TABLE t ADD COLUMN c int NOT NULL;", withTimeout, nil},
	{"volatile default", "ALTER TABLE t ADD COLUMN c float DEFAULT random();", withTimeout, []string{"1:34 sql-volatile-default"}},
	{"volatile default, schema-qualified and nested", "ALTER TABLE t ADD COLUMN c text DEFAULT md5(public.gen_random_uuid()::text);", withTimeout, []string{"1:33 sql-volatile-default"}},
	{"volatile default and not null", "ALTER TABLE t ADD COLUMN c timestamptz NOT NULL DEFAULT clock_timestamp();", withTimeout, []string{"1:49 sql-volatile-default"}},
	{"stable defaults do not rewrite", "ALTER TABLE t ADD COLUMN a timestamptz DEFAULT now(), ADD COLUMN b timestamptz DEFAULT CURRENT_TIMESTAMP, ADD COLUMN c timestamptz DEFAULT statement_timestamp();", withTimeout, nil},
	{"serial column", "ALTER TABLE t ADD COLUMN n bigserial;", withTimeout, []string{"1:26 sql-volatile-default"}},
	{"identity column", "ALTER TABLE t ADD COLUMN n int GENERATED ALWAYS AS IDENTITY;", withTimeout, []string{"1:32 sql-volatile-default"}},
	{"set default is not a rewrite", "ALTER TABLE t ALTER COLUMN c SET DEFAULT random();", withTimeout, nil},
	{"type change", "ALTER TABLE t ALTER COLUMN c TYPE bigint;", withTimeout, []string{"1:28 sql-column-type-change"}},
	{"set not null", "ALTER TABLE t ALTER COLUMN c SET NOT NULL;", withTimeout, []string{"1:1 sql-set-not-null"}},
	{"drop not null", "ALTER TABLE t ALTER COLUMN c DROP NOT NULL;", withTimeout, nil},

	// constraints
	{"check constraint", "ALTER TABLE t ADD CONSTRAINT c CHECK (c > 0);", withTimeout, []string{"1:19 sql-constraint-validated"}},
	{"check constraint not valid, then validated", "ALTER TABLE t ADD CONSTRAINT c CHECK (c > 0) NOT VALID;\nALTER TABLE t VALIDATE CONSTRAINT c;", withTimeout, nil},
	{"foreign key", "ALTER TABLE t ADD FOREIGN KEY (u) REFERENCES u (id);", withTimeout, []string{"1:19 sql-constraint-validated"}},
	{"foreign key not valid", "ALTER TABLE t ADD FOREIGN KEY (u) REFERENCES u (id) NOT VALID;", withTimeout, nil},
	{"inline foreign key on a new column", "ALTER TABLE t ADD COLUMN u int REFERENCES u (id);", withTimeout, []string{"1:32 sql-constraint-validated"}},
	{"unique constraint", "ALTER TABLE t ADD CONSTRAINT k UNIQUE (c);", withTimeout, []string{"1:19 sql-unique-constraint"}},
	{"primary key", "ALTER TABLE t ADD PRIMARY KEY (id);", withTimeout, []string{"1:19 sql-unique-constraint"}},
	{"unique using an index built concurrently", "ALTER TABLE t ADD CONSTRAINT k UNIQUE USING INDEX k_idx;", withTimeout, nil},
	{"constraints on a table of the file", "CREATE TABLE t (c int);\nALTER TABLE t ADD CONSTRAINT k UNIQUE (c), ADD CHECK (c > 0);", withTimeout, nil},

	// drops and renames
	{"drop table", "DROP TABLE t;", withTimeout, []string{"1:1 sql-drop"}},
	{"drop schema", "DROP SCHEMA s CASCADE;", withTimeout, []string{"1:1 sql-drop"}},
	{"drop column", "ALTER TABLE t DROP COLUMN c;", withTimeout, []string{"1:1 sql-drop"}},
	{"drop a table of the file", "CREATE TABLE scratch (c int);\nDROP TABLE scratch;", withTimeout, nil},
	{"drop a view is not a drop of data", "DROP VIEW v;", withTimeout, nil},
	{"rename table", "ALTER TABLE t RENAME TO u;", withTimeout, []string{"1:1 sql-rename"}},
	{"rename column", "ALTER TABLE t RENAME COLUMN a TO b;", withTimeout, []string{"1:1 sql-rename"}},
	{"rename an index", "ALTER INDEX i RENAME TO j;", withTimeout, nil},

	// transactions
	{"begin and commit", "BEGIN;\nCREATE TABLE t (c int);\nCOMMIT;", withTimeout, []string{"1:1 sql-transaction-control", "3:1 sql-transaction-control"}},
	{"savepoint and rollback", "SAVEPOINT s;\nROLLBACK TO SAVEPOINT s;", withTimeout, []string{"1:1 sql-transaction-control", "2:1 sql-transaction-control"}},

	// lock_timeout
	{"no lock_timeout", "ALTER TABLE t ALTER COLUMN c SET DEFAULT 0;", sqllint.Config{}, []string{"1:1 warning sql-lock-timeout"}},
	{"the contract's lock_timeout", "ALTER TABLE t ALTER COLUMN c SET DEFAULT 0;", withTimeout, nil},
	{"the file's own lock_timeout", "SET lock_timeout = '2s';\nALTER TABLE t ALTER COLUMN c SET DEFAULT 0;", sqllint.Config{}, nil},
	{"the file sets lock_timeout to 0", "SET lock_timeout TO 0;\nALTER TABLE t ALTER COLUMN c SET DEFAULT 0;", withTimeout, []string{"2:1 warning sql-lock-timeout"}},
	{"the file sets lock_timeout to '0ms'", "SET LOCAL lock_timeout = '0ms';\nTRUNCATE t;", withTimeout, []string{"2:1 warning sql-lock-timeout"}},
	{"reset lock_timeout to the contract's", "SET lock_timeout = 0;\nRESET lock_timeout;\nTRUNCATE t;", withTimeout, nil},
	{"lock_timeout only after the statement", "ALTER TABLE t ALTER COLUMN c SET DEFAULT 0;\nSET lock_timeout = '1s';", sqllint.Config{}, []string{"1:1 warning sql-lock-timeout"}},
	{"weak locks need none", "CREATE TABLE t (c int);\nALTER TABLE t ADD COLUMN d int;\nALTER TABLE u VALIDATE CONSTRAINT k;\nINSERT INTO u VALUES (1);", sqllint.Config{}, nil},
	{"one finding per statement", "CREATE INDEX i ON t (c);", sqllint.Config{}, []string{"1:1 sql-index-blocking"}},

	// severities
	{"a rule turned off", "DROP TABLE t;", sqllint.Config{LockTimeout: time.Second, Severities: map[string]sqllint.Severity{sqllint.RuleDrop: sqllint.Off}}, nil},
	{"a rule made a warning", "DROP TABLE t;", sqllint.Config{LockTimeout: time.Second, Severities: map[string]sqllint.Severity{sqllint.RuleDrop: sqllint.Warning}}, []string{"1:1 warning sql-drop"}},
	{"lock_timeout made an error", "TRUNCATE t;", sqllint.Config{Severities: map[string]sqllint.Severity{sqllint.RuleLockTimeout: sqllint.Error}}, []string{"1:1 sql-lock-timeout"}},

	// opt-outs
	{"allowed above", "-- codeloc:allow sql-drop the table has been unused since 2025-01\nDROP TABLE t;", withTimeout, []string{"2:1 warning sql-drop allowed: the table has been unused since 2025-01"}},
	{"allowed among comment lines above", "-- codeloc:allow sql-drop unused\n-- (see the ticket)\nDROP TABLE t;", withTimeout, []string{"3:1 warning sql-drop allowed: unused"}},
	{"allowed on the statement's line", "DROP TABLE t; -- codeloc:allow sql-drop unused", withTimeout, []string{"1:1 warning sql-drop allowed: unused"}},
	{"allowed for another rule only", "-- codeloc:allow sql-rename unused\nDROP TABLE t;", withTimeout, []string{"2:1 sql-drop"}},
	{"an opt-out does not reach past a blank line", "-- codeloc:allow sql-drop unused\n\nDROP TABLE t;", withTimeout, []string{"3:1 sql-drop"}},
	{"an opt-out covers one statement", "-- codeloc:allow sql-drop unused\nDROP TABLE t;\nDROP TABLE u;", withTimeout, []string{"2:1 warning sql-drop allowed: unused", "3:1 sql-drop"}},
	{"opt-out without a reason", "-- codeloc:allow sql-drop\nDROP TABLE t;", withTimeout, []string{"1:1 sql-allow-reason", "2:1 sql-drop"}},
	{"opt-out without anything", "--codeloc:allow\nSELECT 1;", withTimeout, []string{"1:1 sql-allow-reason"}},
	{"opt-out of an unknown rule", "SELECT 1; -- codeloc:allow drop-table because", withTimeout, []string{"1:11 sql-allow-rule"}},
	{"an opt-out in a string is not one", "SELECT '-- codeloc:allow nothing';\nSELECT $x$\n-- codeloc:allow\n$x$;", withTimeout, nil},
	{"an allowed lock needs a lock_timeout still", "-- codeloc:allow sql-drop unused\nDROP TABLE t;", sqllint.Config{}, []string{"2:1 warning sql-drop allowed: unused", "2:1 warning sql-lock-timeout"}},

	// positions and text
	{"after comments and blank lines", "-- one\n/* two\n three */\n\n   DROP TABLE t;", withTimeout, []string{"5:4 sql-drop"}},
	{"second statement on a line", "SELECT 1;  DROP TABLE t;", withTimeout, []string{"1:12 sql-drop"}},
	{"characters, not bytes", "-- Été\nSELECT 'déjà'; /* ü */ ALTER TABLE t ADD COLUMN c int NOT NULL;", withTimeout, []string{"2:49 sql-add-column-not-null"}},
	{"dollar-quoted body", "CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $body$\nBEGIN\n  DROP TABLE t;\n  COMMIT;\nEND\n$body$;\nDROP TABLE u;", withTimeout, []string{"7:1 sql-drop"}},
	{"quoted names", `ALTER TABLE "Weird;Name" ADD COLUMN "Ç" int NOT NULL;`, withTimeout, []string{"1:37 sql-add-column-not-null"}},

	// syntax
	{"syntax error", "CREATE TABLE t (c int,);", withTimeout, []string{"1:23 sql-syntax"}},
	{"syntax error after multi-byte text", "-- «é»\nSELECT 'ü' FROM;", withTimeout, []string{"2:16 sql-syntax"}},
	{"syntax error at the end", "SELECT (1", withTimeout, []string{"1:10 sql-syntax"}},
	{"unterminated string", "SELECT 'abc", withTimeout, []string{"1:8 sql-syntax"}},
	{"one syntax problem, no other finding", "DROP TABLE t;\nSELEC 1;", withTimeout, []string{"2:1 sql-syntax"}},
}

func TestLint(t *testing.T) {
	for _, tt := range lintCases {
		t.Run(tt.name, func(t *testing.T) {
			got := brief(sqllint.Lint(tt.sql, tt.cfg))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMessages checks every finding says what PostgreSQL does and how to
// do it safely, on one line.
func TestMessages(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range sqllint.Lint(sampler, sqllint.Config{}) {
		seen[f.Code] = true
		if f.Message == "" || f.Hint == "" || strings.ContainsAny(f.Message+f.Hint, "\n\r") {
			t.Errorf("%s: message %q, hint %q", f.Code, f.Message, f.Hint)
		}
	}
	for _, r := range sqllint.Rules {
		if !seen[r.Code] {
			t.Errorf("rule %s found nothing in the sampler", r.Code)
		}
	}
}

// sampler is a file with a finding of every rule.
const sampler = "CREATE INDEX i ON t (c); DROP INDEX j; REINDEX TABLE t; ALTER TABLE t ADD COLUMN a int NOT NULL; " +
	"ALTER TABLE t ADD COLUMN b float DEFAULT random(); ALTER TABLE t ALTER COLUMN c TYPE text; ALTER TABLE t ALTER COLUMN c SET NOT NULL; " +
	"ALTER TABLE t ADD CHECK (c > 0); ALTER TABLE t ADD UNIQUE (c); DROP TABLE t; ALTER TABLE t RENAME TO u; BEGIN; " +
	"CREATE INDEX CONCURRENTLY k ON t (c); TRUNCATE u;"

// TestHostile feeds what a hostile or broken repo might: each is a result,
// never a crash, and a file PostgreSQL refuses is one sql-syntax line.
func TestHostile(t *testing.T) {
	for _, tt := range hostileCases() {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range sqllint.Lint(tt.sql, withTimeout) {
				got = append(got, f.Code)
				if f.Line < 1 || f.Column < 1 || len(f.Message) > 300 {
					t.Errorf("finding at %d:%d, message of %d bytes", f.Line, f.Column, len(f.Message))
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("codes (-want +got):\n%s", diff)
			}
		})
	}
	// The parser still works after the hostile inputs.
	for range 3 {
		if got := brief(sqllint.Lint("SELECT 1;\nDROP TABLE t;", withTimeout)); !cmp.Equal(got, []string{"2:1 sql-drop"}) {
			t.Errorf("after hostile inputs: %v", got)
		}
	}
}

func slicesRepeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestConcurrent lints from many goroutines: the parser is shared.
func TestConcurrent(t *testing.T) {
	done := make(chan []string)
	for range 8 {
		go func() { done <- brief(sqllint.Lint("SELECT 1;\nDROP TABLE t;", withTimeout)) }()
	}
	for range 8 {
		if got := <-done; !cmp.Equal(got, []string{"2:1 sql-drop"}) {
			t.Errorf("got %v", got)
		}
	}
}

// hostileCases is TestHostile's table.
func hostileCases() []struct {
	name string
	sql  string
	want []string
} {
	deep := strings.Repeat("(", 100_000) + "1" + strings.Repeat(")", 100_000)
	return []struct {
		name string
		sql  string
		want []string
	}{
		{"1 MiB of semicolons", strings.Repeat(";", 1<<20), nil},
		{"deeply nested parentheses", "SELECT " + deep + ";", []string{"sql-syntax"}},
		{"deeply nested subqueries", "SELECT " + strings.Repeat("(SELECT ", 5000) + "1" + strings.Repeat(")", 5000) + ";", []string{"sql-syntax"}},
		{"deeply nested unary minus", "SELECT " + strings.Repeat("- ", 100_000) + "1;", []string{"sql-syntax"}},
		{"10,000 statements", strings.Repeat("DROP TABLE t;\n", 10_000), slicesRepeat("sql-drop", 10_000)},
		{"a stack overflow in the parser", "SELECT 1" + strings.Repeat(" + 1", 200_000) + ";", []string{"sql-syntax"}},
		{"an unclosed comment", "SELECT 1; /* and so on", []string{"sql-syntax"}},
		{"an unclosed dollar quote", "SELECT $a$ forever", []string{"sql-syntax"}},
	}
}
