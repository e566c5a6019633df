package sqllint_test

import (
	"fmt"
	"slices"
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
	{"index concurrently in a no-transaction file", noTx + "CREATE INDEX CONCURRENTLY IF NOT EXISTS i ON t (c);", withTimeout, nil},
	{"index concurrently in a transaction", "CREATE INDEX CONCURRENTLY i ON t (c);", withTimeout, []string{"1:1 sql-concurrently-in-transaction"}},
	{"marker not on the first line", "\n" + noTx + "CREATE INDEX CONCURRENTLY i ON t (c);", withTimeout, []string{"3:1 sql-concurrently-in-transaction"}},
	{"marker with CRLF", "-- codeloc:no-transaction\r\nCREATE INDEX CONCURRENTLY IF NOT EXISTS i ON t (c);", withTimeout, nil},
	{"table created in the same file", "CREATE TABLE t (c int);\nCREATE INDEX i ON t (c);\nDROP INDEX i;", withTimeout, nil},
	{"table created in the same no-transaction file, concurrently", noTx + "CREATE TABLE IF NOT EXISTS t (c int);\nCREATE INDEX CONCURRENTLY IF NOT EXISTS i ON t (c);", withTimeout, nil},
	{"table created with AS", "CREATE TABLE t AS SELECT 1 AS c;\nCREATE INDEX i ON t (c);", withTimeout, nil},

	// what the file created: by schema, name and namespace
	{"a table of another schema", "CREATE TABLE scratch.users (id int);\nALTER TABLE public.users ALTER COLUMN email TYPE text;", withTimeout, []string{"2:39 sql-column-type-change"}},
	{"qualified then unqualified: search_path decides", "CREATE TABLE scratch.users (id int);\nALTER TABLE users DROP COLUMN email;", withTimeout, []string{"2:1 sql-drop"}},
	{"the same qualified name", "CREATE TABLE app.users (id int);\nALTER TABLE app.users ALTER COLUMN id TYPE bigint;\nCREATE INDEX i ON app.users (id);\nDROP INDEX app.i;", withTimeout, nil},
	{"an index lives in its table's schema", "CREATE TABLE app.t (c int);\nCREATE INDEX i ON app.t (c);\nDROP INDEX i;", withTimeout, []string{"3:1 sql-index-blocking"}},
	{"a domain is no table", "CREATE DOMAIN users AS int;\nALTER TABLE users DROP COLUMN email;", withTimeout, []string{"2:1 sql-drop"}},
	{"a table is no schema", "CREATE TABLE public (c int);\nDROP SCHEMA public CASCADE;", withTimeout, []string{"2:1 sql-drop"}},
	{"a schema of the file", "CREATE SCHEMA scratch;\nDROP SCHEMA scratch;", withTimeout, nil},
	{"a table is no domain", "CREATE TABLE positive (c int);\nALTER DOMAIN positive ADD CONSTRAINT positive_check CHECK (VALUE > 0);", withTimeout, []string{"2:1 sql-domain-constraint"}},
	{"search_path changed: an unqualified name may be another table", "CREATE TABLE t (c int);\nSET search_path = other;\nALTER TABLE t ALTER COLUMN c TYPE text;", withTimeout, []string{"3:28 sql-column-type-change"}},
	{"set schema, reset all", "CREATE TABLE t (c int);\nSET SCHEMA 'other';\nDROP TABLE t;\nCREATE TABLE u (c int);\nRESET ALL;\nDROP TABLE u;", withTimeout, []string{"3:1 sql-drop", "6:1 sql-drop"}},
	{"search_path changed: a qualified name is still the file's", "CREATE TABLE app.t (c int);\nSET search_path = other;\nDROP TABLE app.t;", withTimeout, nil},
	{"an index is no other schema's table", "CREATE INDEX CONCURRENTLY orders ON scratch.t (c);\nTRUNCATE public.orders;\nREFRESH MATERIALIZED VIEW public.orders;", withTimeout, []string{"1:1 sql-concurrently-in-transaction", "3:1 sql-refresh-blocking"}},
	{"drop index", "DROP INDEX i;", withTimeout, []string{"1:1 sql-index-blocking"}},
	{"drop index concurrently", noTx + "DROP INDEX CONCURRENTLY IF EXISTS i;", withTimeout, nil},
	{"drop index concurrently in a transaction", "DROP INDEX CONCURRENTLY i;", withTimeout, []string{"1:1 sql-concurrently-in-transaction"}},
	{"reindex", "REINDEX INDEX i;", withTimeout, []string{"1:1 sql-reindex-blocking"}},
	{"reindex concurrently", noTx + "REINDEX INDEX CONCURRENTLY i;\nREINDEX (CONCURRENTLY) TABLE t;", withTimeout, nil},
	{"reindex concurrently false", noTx + "REINDEX (CONCURRENTLY false) TABLE t;", withTimeout, []string{"2:1 sql-reindex-blocking"}},
	{"reindex concurrently in a transaction", "REINDEX TABLE CONCURRENTLY t;", withTimeout, []string{"1:1 sql-concurrently-in-transaction"}},

	// columns
	{"add column not null without default", "ALTER TABLE t ADD COLUMN c int NOT NULL;", withTimeout, []string{"1:26 sql-add-column-not-null"}},
	{"add column not null with a constant default", "ALTER TABLE t ADD COLUMN c int NOT NULL DEFAULT 0;", withTimeout, nil},
	{"a NULL default is no default", "ALTER TABLE t ADD COLUMN c int DEFAULT NULL NOT NULL;\nALTER TABLE t ADD c int NOT NULL DEFAULT CAST(NULL AS int);\nALTER TABLE t ADD c int NOT NULL DEFAULT NULL::int::int;", withTimeout,
		[]string{"1:26 sql-add-column-not-null", "2:19 sql-add-column-not-null", "3:19 sql-add-column-not-null"}},
	{"a NULL default on a nullable column", "ALTER TABLE t ADD COLUMN c int DEFAULT NULL;", withTimeout, nil},
	{"a column of a domain the file constrained", "CREATE DOMAIN positive AS int CHECK (VALUE > 0);\nALTER TABLE t ADD COLUMN c positive;\nALTER TABLE t ADD COLUMN d app.positive DEFAULT 1;", withTimeout,
		[]string{"2:26 sql-table-rewrite", "3:26 sql-table-rewrite"}},
	{"a domain's NOT NULL, and a domain over a constrained one", "CREATE DOMAIN nn AS int NOT NULL DEFAULT 0;\nCREATE DOMAIN positive AS int CHECK (VALUE > 0);\nCREATE DOMAIN small AS positive;\nALTER TABLE t ADD COLUMN c nn, ADD COLUMN d small;", withTimeout,
		[]string{"4:26 sql-table-rewrite", "4:43 sql-table-rewrite"}},
	{"a domain constrained by ALTER DOMAIN, NOT VALID too", "CREATE DOMAIN positive AS int;\nALTER DOMAIN positive ADD CONSTRAINT p CHECK (VALUE > 0) NOT VALID;\nALTER TABLE t ADD COLUMN c positive;", withTimeout,
		[]string{"3:26 sql-table-rewrite"}},
	{"a constrained domain renamed", "CREATE DOMAIN positive AS int CHECK (VALUE > 0);\nALTER DOMAIN positive RENAME TO pos;\nALTER TYPE pos RENAME TO p;\nALTER TABLE t ADD COLUMN c p;", withTimeout,
		[]string{"4:26 sql-table-rewrite"}},
	{"a domain's volatile default, when the column has none of its own", "CREATE DOMAIN token AS uuid DEFAULT gen_random_uuid();\nCREATE DOMAIN tok2 AS token;\nCREATE DOMAIN plain AS uuid;\nALTER DOMAIN plain SET DEFAULT gen_random_uuid();\nCREATE DOMAIN fixed AS token DEFAULT '00000000-0000-0000-0000-000000000000';\n" +
		"ALTER TABLE t ADD COLUMN a token, ADD COLUMN b tok2, ADD COLUMN c plain, ADD COLUMN d token DEFAULT NULL, ADD COLUMN e fixed, ADD COLUMN f token[];", withTimeout,
		[]string{"6:26 sql-volatile-default", "6:46 sql-volatile-default", "6:65 sql-volatile-default"}},
	{"a volatile default dropped from the domain", "CREATE DOMAIN token AS uuid DEFAULT gen_random_uuid();\nALTER DOMAIN token DROP DEFAULT;\nALTER TABLE t ADD COLUMN a token;", withTimeout, nil},
	{"a domain without constraints, an array of a constrained one, a new table", "CREATE DOMAIN plain AS int;\nCREATE DOMAIN positive AS int CHECK (VALUE > 0);\nCREATE TABLE n (id int);\nALTER TABLE t ADD COLUMN c plain, ADD COLUMN d positive[];\nALTER TABLE n ADD COLUMN c positive;", withTimeout, nil},
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
	{"check constraint not valid, then validated in the same transaction", "ALTER TABLE t ADD CONSTRAINT c CHECK (c > 0) NOT VALID;\nALTER TABLE t VALIDATE CONSTRAINT c;", withTimeout, []string{"2:1 sql-validate-same-transaction"}},
	{"check constraint not valid, then validated in a no-transaction file", noTx + "ALTER TABLE t DROP CONSTRAINT IF EXISTS c;\nALTER TABLE t ADD CONSTRAINT c CHECK (c > 0) NOT VALID;\nALTER TABLE t VALIDATE CONSTRAINT c;", withTimeout, nil},
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
	// The Job SETs the contract's lock_timeout (set_config): RESET goes
	// back past it, to a default codeloc cannot know.
	{"reset lock_timeout: not the contract's", "SET lock_timeout = '2s';\nRESET lock_timeout;\nTRUNCATE t;", withTimeout, []string{"3:1 warning sql-lock-timeout"}},
	{"lock_timeout to default", "SET lock_timeout TO DEFAULT;\nTRUNCATE t;", withTimeout, []string{"2:1 warning sql-lock-timeout"}},
	{"reset all", "SET lock_timeout = '2s';\nRESET ALL;\nTRUNCATE t;", withTimeout, []string{"3:1 warning sql-lock-timeout"}},
	{"discard all", noTx + "SET lock_timeout = '2s';\nDISCARD ALL;\nALTER TABLE t ADD COLUMN IF NOT EXISTS c int;", withTimeout, []string{"4:1 warning sql-lock-timeout"}},
	{"set_config, as the Job does", "SELECT set_config('lock_timeout', '2s', false);\nTRUNCATE t;\nSELECT pg_catalog.set_config('lock_timeout', '0', false);\nTRUNCATE t;\nSELECT set_config('lock_timeout', current_setting('x'), false);\nTRUNCATE t;", sqllint.Config{},
		[]string{"4:1 warning sql-lock-timeout", "6:1 warning sql-lock-timeout"}},
	{"set_config wherever a statement calls it, in any case, by any name", "SET lock_timeout = '2s';\nSELECT 1 FROM set_config('lock_timeout', '0', false);\nTRUNCATE t;\n" +
		"SET lock_timeout = '2s';\nSELECT coalesce(set_config('LOCK_TIMEOUT', '0', false), '');\nTRUNCATE t;\n" +
		"SET lock_timeout = '2s';\nSELECT set_config('lock' || '_timeout', '0', false);\nTRUNCATE t;\n" +
		"SET lock_timeout = '2s';\nSET \"Lock_Timeout\" = 0;\nTRUNCATE t;\n" +
		"SET lock_timeout = '2s';\nUPDATE pg_settings SET setting = '0' WHERE name = 'lock_timeout';\nTRUNCATE t;\n" +
		"SET lock_timeout = '2s';\nSELECT set_config('lock_timeout', '5s', false), set_config('lock_timeout', '0', false);\nTRUNCATE t;", sqllint.Config{},
		[]string{"3:1 warning sql-lock-timeout", "6:1 warning sql-lock-timeout", "9:1 warning sql-lock-timeout", "12:1 warning sql-lock-timeout", "15:1 warning sql-lock-timeout", "18:1 warning sql-lock-timeout"}},
	{"set_config in what only defines", "SET lock_timeout = '2s';\nCREATE VIEW v AS SELECT set_config('lock_timeout', '0', false);\nCREATE FUNCTION f() RETURNS text LANGUAGE sql BEGIN ATOMIC SELECT set_config('lock_timeout', '0', false); END;\nPREPARE p AS SELECT set_config('lock_timeout', '0', false);\nTRUNCATE t;", sqllint.Config{}, nil},
	{"set_config of search_path, and SET of it quoted", "CREATE TABLE t (c int);\nSELECT set_config('search_path', 'other', false);\nCREATE INDEX i ON t (c);\nCREATE TABLE u (c int);\nSET \"Search_Path\" = other;\nCREATE INDEX j ON u (c);", withTimeout,
		[]string{"3:1 sql-index-blocking", "6:1 sql-index-blocking"}},
	{"set_config local outside a transaction", noTx + "SELECT set_config('lock_timeout', '2s', true);\nALTER TABLE t ADD COLUMN IF NOT EXISTS c int;", sqllint.Config{}, []string{"3:1 warning sql-lock-timeout"}},
	{"set local in a transaction", "SET LOCAL lock_timeout = '2s';\nTRUNCATE t;", sqllint.Config{}, nil},
	{"set local outside one does nothing", noTx + "SET LOCAL lock_timeout = '2s';\nALTER TABLE t ADD COLUMN IF NOT EXISTS c int;", sqllint.Config{}, []string{"3:1 warning sql-lock-timeout"}},
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

	// REINDEX options as PostgreSQL reads a boolean
	{"reindex concurrently 0", noTx + "REINDEX (CONCURRENTLY 0) TABLE t;", withTimeout, []string{"2:1 sql-reindex-blocking"}},
	{"reindex concurrently FALSE and off", noTx + "REINDEX (CONCURRENTLY FALSE) INDEX i;\nREINDEX (CONCURRENTLY off) INDEX j;", withTimeout, []string{"2:1 sql-reindex-blocking", "3:1 sql-reindex-blocking"}},
	{"reindex concurrently 1 and true", noTx + "REINDEX (CONCURRENTLY 1) TABLE t;\nREINDEX (CONCURRENTLY true) TABLE t;", withTimeout, nil},

	// volatility by an allowlist of IMMUTABLE and STABLE built-ins
	{"a user function's default", "ALTER TABLE t ADD COLUMN c uuid DEFAULT uuid();", withTimeout, []string{"1:33 sql-volatile-default"}},
	{"a function of another schema, though named as a built-in", "ALTER TABLE t ADD COLUMN c timestamptz DEFAULT app.now();", withTimeout, []string{"1:40 sql-volatile-default"}},
	{"a user operator", "ALTER TABLE t ADD COLUMN c int DEFAULT 1 @@@ 2;", withTimeout, []string{"1:32 sql-volatile-default"}},
	{"an operator of another schema, though named as a built-in", "ALTER TABLE t ADD COLUMN c int DEFAULT 1 OPERATOR(app.+) 2;", withTimeout, []string{"1:32 sql-volatile-default"}},
	{"a user operator in IN and ANY", "ALTER TABLE t ADD COLUMN c bool DEFAULT (1 === ANY (ARRAY[1])), ADD COLUMN d bool DEFAULT ('a' IS DISTINCT FROM 'b');", withTimeout, []string{"1:33 sql-volatile-default"}},
	{"built-in operators", "ALTER TABLE t ADD COLUMN c int DEFAULT (1 + 2) * 3 % 4, ADD COLUMN d text DEFAULT 'a' || 'b', ADD COLUMN e bool DEFAULT ('a' LIKE 'b' AND 1 <> 2 AND 1 BETWEEN 0 AND 2), " +
		"ADD COLUMN f text DEFAULT '{}'::jsonb ->> 'k', ADD COLUMN g bool DEFAULT (1 = ANY (ARRAY[1]) AND 'a' IS DISTINCT FROM 'b'), ADD COLUMN h int DEFAULT OPERATOR(pg_catalog.+) 1;", withTimeout, nil},
	{"nextval", "ALTER TABLE t ADD COLUMN n bigint DEFAULT nextval('t_n_seq');", withTimeout, []string{"1:35 sql-volatile-default"}},
	{"a function the file declared IMMUTABLE or STABLE", "CREATE FUNCTION f() RETURNS int IMMUTABLE LANGUAGE sql AS 'SELECT 1';\nCREATE FUNCTION app.g() RETURNS int LANGUAGE sql STABLE AS 'SELECT 1';\n" +
		"ALTER TABLE t ADD COLUMN c int DEFAULT f() + app.g(), ADD COLUMN d int DEFAULT app.f(), ADD COLUMN e int DEFAULT g();", withTimeout, []string{"3:72 sql-volatile-default", "3:106 sql-volatile-default"}},
	{"a function declared VOLATILE, or with no volatility", "CREATE FUNCTION f() RETURNS int VOLATILE LANGUAGE sql AS 'SELECT 1';\nCREATE FUNCTION g() RETURNS int LANGUAGE sql AS 'SELECT 1';\nALTER TABLE t ADD COLUMN c int DEFAULT f(), ADD COLUMN d int DEFAULT g();",
		withTimeout, []string{"3:32 sql-volatile-default", "3:62 sql-volatile-default"}},
	{"an overload declared VOLATILE, before or after", "CREATE FUNCTION f(int) RETURNS int LANGUAGE sql AS 'SELECT 1';\nCREATE FUNCTION f(text) RETURNS int IMMUTABLE LANGUAGE sql AS 'SELECT 1';\nCREATE FUNCTION g(text) RETURNS int IMMUTABLE LANGUAGE sql AS 'SELECT 1';\nCREATE FUNCTION g(int) RETURNS int LANGUAGE sql AS 'SELECT 1';\nALTER TABLE t ADD COLUMN c int DEFAULT f(1), ADD COLUMN d int DEFAULT g(1);",
		withTimeout, []string{"5:32 sql-volatile-default", "5:63 sql-volatile-default"}},
	{"made VOLATILE by ALTER or CREATE OR REPLACE", "CREATE FUNCTION f() RETURNS int IMMUTABLE LANGUAGE sql AS 'SELECT 1';\nALTER FUNCTION f() VOLATILE;\nCREATE FUNCTION g() RETURNS int STABLE LANGUAGE sql AS 'SELECT 1';\nCREATE OR REPLACE FUNCTION g() RETURNS int LANGUAGE sql AS 'SELECT 2';\nALTER TABLE t ADD COLUMN c int DEFAULT f(), ADD COLUMN d int DEFAULT g();",
		withTimeout, []string{"5:32 sql-volatile-default", "5:62 sql-volatile-default"}},
	{"ALTER FUNCTION ... IMMUTABLE, and another action", "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1';\nALTER FUNCTION f() IMMUTABLE;\nCREATE FUNCTION g() RETURNS int IMMUTABLE LANGUAGE sql AS 'SELECT 1';\nALTER FUNCTION g() COST 10;\nALTER TABLE t ADD COLUMN c int DEFAULT f(), ADD COLUMN d int DEFAULT g();",
		withTimeout, []string{"5:32 sql-volatile-default"}},
	{"a function of the files named as a volatile built-in", "CREATE FUNCTION random() RETURNS double precision IMMUTABLE LANGUAGE sql AS 'SELECT 0.5';\nCREATE FUNCTION app.random() RETURNS double precision IMMUTABLE LANGUAGE sql AS 'SELECT 0.5';\nALTER TABLE t ADD COLUMN c float DEFAULT random(), ADD COLUMN d float DEFAULT app.random();",
		withTimeout, []string{"3:34 sql-volatile-default"}},
	{"a VOLATILE function renamed or moved onto a name declared IMMUTABLE", "CREATE FUNCTION f() RETURNS int IMMUTABLE LANGUAGE sql AS 'SELECT 1';\nCREATE FUNCTION g(int) RETURNS int LANGUAGE sql AS 'SELECT 1';\nALTER FUNCTION g(int) RENAME TO f;\n" +
		"CREATE FUNCTION app.h() RETURNS int IMMUTABLE LANGUAGE sql AS 'SELECT 1';\nCREATE FUNCTION h(int) RETURNS int IMMUTABLE LANGUAGE sql AS 'SELECT 1';\nCREATE FUNCTION other.h(text) RETURNS int LANGUAGE sql AS 'SELECT 1';\nALTER ROUTINE other.h(text) SET SCHEMA app;\n" +
		"CREATE FUNCTION k() RETURNS int STABLE LANGUAGE sql AS 'SELECT 1';\nALTER FUNCTION k() RENAME TO m;\n" +
		"ALTER TABLE t ADD COLUMN c int DEFAULT f(), ADD COLUMN d int DEFAULT app.h(), ADD COLUMN e int DEFAULT h(1), ADD COLUMN x int DEFAULT m();",
		withTimeout, []string{"10:32 sql-volatile-default", "10:62 sql-volatile-default", "10:96 sql-volatile-default"}},
	{"search_path changed after the definition", "CREATE FUNCTION f() RETURNS int IMMUTABLE LANGUAGE sql AS 'SELECT 1';\nCREATE FUNCTION app.g() RETURNS int IMMUTABLE LANGUAGE sql AS 'SELECT 1';\nSET search_path = other;\nALTER TABLE t ADD COLUMN c int DEFAULT f(), ADD COLUMN d int DEFAULT app.g();",
		withTimeout, []string{"4:32 sql-volatile-default"}},
	{"a domain's default calling a function the file declared IMMUTABLE", "CREATE FUNCTION f() RETURNS int IMMUTABLE LANGUAGE sql AS 'SELECT 1';\nCREATE DOMAIN d AS int DEFAULT f();\nALTER TABLE t ADD COLUMN c d;", withTimeout, nil},
	{"uuid-ossp's v4", "ALTER TABLE t ADD COLUMN u uuid DEFAULT uuid_generate_v4();", withTimeout, []string{"1:33 sql-volatile-default"}},
	{"known stable and immutable built-ins", "ALTER TABLE t ADD COLUMN a timestamptz DEFAULT pg_catalog.now(), ADD COLUMN b text DEFAULT lower(to_char(now(), 'YYYY')) || 'x', " +
		"ADD COLUMN c jsonb DEFAULT jsonb_build_object('k', 1), ADD COLUMN d timestamp DEFAULT (now() AT TIME ZONE 'utc'), ADD COLUMN e text DEFAULT current_user, " +
		"ADD COLUMN f uuid DEFAULT uuid_generate_v5(uuid_ns_url(), 'x'), ADD COLUMN g text DEFAULT current_setting('app.region');", withTimeout, nil},

	// NOT VALID then VALIDATE in one transaction
	{"foreign key not valid, validated in the same transaction", "ALTER TABLE t ADD CONSTRAINT t_u_fk FOREIGN KEY (u) REFERENCES u (id) NOT VALID;\nALTER TABLE t VALIDATE CONSTRAINT t_u_fk;", withTimeout, []string{"2:1 sql-validate-same-transaction"}},
	{"an unnamed check validated by the name PostgreSQL gives it", "ALTER TABLE t ADD CHECK (c IS NOT NULL) NOT VALID;\nALTER TABLE t VALIDATE CONSTRAINT t_c_check;", withTimeout, []string{"2:1 sql-validate-same-transaction"}},
	{"validated under a new name: the constraint's, or its table's", "ALTER TABLE t ADD CONSTRAINT c CHECK (c > 0) NOT VALID;\nALTER TABLE t RENAME CONSTRAINT c TO d;\nALTER TABLE t VALIDATE CONSTRAINT d;\n" +
		"ALTER TABLE a ADD CONSTRAINT k CHECK (c > 0) NOT VALID;\n-- codeloc:allow sql-rename unused\nALTER TABLE a RENAME TO b;\nALTER TABLE b VALIDATE CONSTRAINT k;\nALTER TABLE x ADD CONSTRAINT k CHECK (c > 0) NOT VALID;\nALTER TABLE x RENAME CONSTRAINT other TO k2;\nALTER TABLE x VALIDATE CONSTRAINT k2;", withTimeout,
		[]string{"3:1 sql-validate-same-transaction", "6:1 warning sql-rename allowed: unused", "7:1 sql-validate-same-transaction"}},
	{"an unnamed foreign key likewise", "ALTER TABLE t ADD FOREIGN KEY (u) REFERENCES u (id) NOT VALID;\nALTER TABLE t VALIDATE CONSTRAINT t_u_fkey;", withTimeout, []string{"2:1 sql-validate-same-transaction"}},
	{"validating another table's constraint", "ALTER TABLE t ADD CONSTRAINT c CHECK (c > 0) NOT VALID;\nALTER TABLE u VALIDATE CONSTRAINT c;", withTimeout, nil},
	{"validating alone", "ALTER TABLE t VALIDATE CONSTRAINT c;", withTimeout, nil},

	// SET NOT NULL after a validated CHECK (col IS NOT NULL)
	{"set not null after a check validated earlier in a no-transaction file", noTx + "ALTER TABLE t DROP CONSTRAINT IF EXISTS c_nn, ADD CONSTRAINT c_nn CHECK (c IS NOT NULL) NOT VALID;\nALTER TABLE t VALIDATE CONSTRAINT c_nn;\nALTER TABLE t ALTER COLUMN c SET NOT NULL;", withTimeout, nil},
	{"set not null after a check validated in the same transaction: the validation is what is flagged", "ALTER TABLE t ADD CONSTRAINT c_nn CHECK (c IS NOT NULL) NOT VALID;\nALTER TABLE t VALIDATE CONSTRAINT c_nn;\nALTER TABLE t ALTER COLUMN c SET NOT NULL;", withTimeout, []string{"2:1 sql-validate-same-transaction"}},
	{"set not null after a check in an AND", noTx + "ALTER TABLE t VALIDATE CONSTRAINT k;\nALTER TABLE t DROP CONSTRAINT IF EXISTS k, ADD CONSTRAINT k CHECK (c IS NOT NULL AND d > 0) NOT VALID;\nALTER TABLE t VALIDATE CONSTRAINT k;\nALTER TABLE t ALTER COLUMN c SET NOT NULL;", withTimeout, nil},
	{"set not null before the validation", noTx + "ALTER TABLE t DROP CONSTRAINT IF EXISTS c_nn, ADD CONSTRAINT c_nn CHECK (c IS NOT NULL) NOT VALID;\nALTER TABLE t ALTER COLUMN c SET NOT NULL;", withTimeout, []string{"3:1 sql-set-not-null"}},
	{"a check of another column", noTx + "ALTER TABLE t DROP CONSTRAINT IF EXISTS d_nn, ADD CONSTRAINT d_nn CHECK (d IS NOT NULL) NOT VALID;\nALTER TABLE t VALIDATE CONSTRAINT d_nn;\nALTER TABLE t ALTER COLUMN c SET NOT NULL;", withTimeout, []string{"4:1 sql-set-not-null"}},
	{"a check in an OR proves nothing", noTx + "ALTER TABLE t DROP CONSTRAINT IF EXISTS k, ADD CONSTRAINT k CHECK (c IS NOT NULL OR d IS NOT NULL) NOT VALID;\nALTER TABLE t VALIDATE CONSTRAINT k;\nALTER TABLE t ALTER COLUMN c SET NOT NULL;", withTimeout, []string{"4:1 sql-set-not-null"}},
	{"a check dropped before the set", noTx + "ALTER TABLE t DROP CONSTRAINT IF EXISTS c_nn, ADD CONSTRAINT c_nn CHECK (c IS NOT NULL) NOT VALID;\nALTER TABLE t VALIDATE CONSTRAINT c_nn;\nALTER TABLE t DROP CONSTRAINT IF EXISTS c_nn;\nALTER TABLE t ALTER COLUMN c SET NOT NULL;", withTimeout, []string{"5:1 sql-set-not-null"}},

	// statements that had no rule
	{"drop database", "DROP DATABASE legacy;", withTimeout, []string{"1:1 sql-drop-database"}},
	{"drop database if exists in a no-transaction file", noTx + "DROP DATABASE IF EXISTS legacy;", withTimeout, []string{"2:1 sql-drop-database"}},
	{"cluster", "CLUSTER t USING t_pkey;", withTimeout, []string{"1:1 sql-table-rewrite"}},
	{"cluster every table, in a transaction", "CLUSTER;", withTimeout, []string{"1:1 sql-concurrently-in-transaction", "1:1 sql-table-rewrite"}},
	{"cluster a table of the file", "CREATE TABLE t (c int PRIMARY KEY);\nCLUSTER t USING t_pkey;", withTimeout, nil},
	{"vacuum full", noTx + "VACUUM FULL t;", withTimeout, []string{"2:1 sql-table-rewrite"}},
	{"reindex, vacuum full and truncate cascade of the file's own tables", noTx + "CREATE TABLE IF NOT EXISTS t (c int);\nCREATE INDEX CONCURRENTLY IF NOT EXISTS i ON t (c);\nREINDEX TABLE t;\nREINDEX INDEX i;\nVACUUM FULL t;\nTRUNCATE t CASCADE;\nVACUUM FULL t, u;\nREINDEX TABLE u;\nTRUNCATE t, u CASCADE;", withTimeout,
		[]string{"8:1 sql-table-rewrite", "9:1 sql-reindex-blocking", "10:1 sql-truncate-cascade"}},
	{"vacuum (full, analyze)", noTx + "VACUUM (FULL, ANALYZE) t;", withTimeout, []string{"2:1 sql-table-rewrite"}},
	{"vacuum (full false) and (full 0)", noTx + "VACUUM (FULL false) t;\nVACUUM (FULL 0, ANALYZE) t;", withTimeout, nil},
	{"vacuum in a transaction", "VACUUM (ANALYZE) t;", withTimeout, []string{"1:1 sql-concurrently-in-transaction"}},
	{"analyze in a transaction", "ANALYZE t;", sqllint.Config{}, nil},
	{"refresh", "REFRESH MATERIALIZED VIEW v;", withTimeout, []string{"1:1 sql-refresh-blocking"}},
	{"refresh with no data", "REFRESH MATERIALIZED VIEW v WITH NO DATA;", withTimeout, []string{"1:1 sql-refresh-blocking"}},
	{"refresh concurrently, in a transaction too", "REFRESH MATERIALIZED VIEW CONCURRENTLY v;", sqllint.Config{}, nil},
	{"refresh a view of the file", "CREATE MATERIALIZED VIEW v AS SELECT 1 AS c WITH NO DATA;\nREFRESH MATERIALIZED VIEW v;", withTimeout, nil},
	{"detach partition", "ALTER TABLE p DETACH PARTITION p2024;", withTimeout, []string{"1:1 sql-detach-blocking"}},
	{"detach partition concurrently in a transaction", "ALTER TABLE p DETACH PARTITION p2024 CONCURRENTLY;", withTimeout, []string{"1:1 sql-concurrently-in-transaction"}},
	{"detach partition concurrently", noTx + "ALTER TABLE p DETACH PARTITION p2024 CONCURRENTLY;", sqllint.Config{}, nil},
	{"detach finalize", "ALTER TABLE p DETACH PARTITION p2024 FINALIZE;", sqllint.Config{}, nil},
	{"rewrites by ALTER TABLE", "ALTER TABLE t SET TABLESPACE fast;\nALTER TABLE t SET LOGGED;\nALTER TABLE t SET UNLOGGED;\nALTER TABLE t SET ACCESS METHOD heap2;\nALTER TABLE t ALTER COLUMN g SET EXPRESSION AS (a + 1);", withTimeout,
		[]string{"1:1 sql-table-rewrite", "2:1 sql-table-rewrite", "3:1 sql-table-rewrite", "4:1 sql-table-rewrite", "5:1 sql-table-rewrite"}},
	{"a generated column's expression dropped: no rewrite", "ALTER TABLE t ALTER COLUMN g DROP EXPRESSION;", withTimeout, nil},
	{"moves of an index, a view, a tablespace", "ALTER INDEX i SET TABLESPACE fast;\nALTER MATERIALIZED VIEW v SET TABLESPACE fast;\nALTER TABLE ALL IN TABLESPACE a SET TABLESPACE b;", withTimeout,
		[]string{"1:1 sql-table-rewrite", "2:1 sql-table-rewrite", "3:1 sql-table-rewrite"}},
	{"a table of the file moved", "CREATE TABLE t (c int);\nCREATE INDEX i ON t (c);\nALTER TABLE t SET TABLESPACE fast, SET LOGGED;\nALTER INDEX i SET TABLESPACE fast;", withTimeout, nil},
	{"drops that take columns along", "DROP TYPE mood CASCADE;\nDROP DOMAIN app.positive CASCADE;\nDROP EXTENSION vector CASCADE;\nDROP COLLATION c CASCADE;\nDROP FUNCTION f() CASCADE;\nDROP OWNED BY app_owner;", withTimeout,
		[]string{"1:1 sql-drop", "2:1 sql-drop", "3:1 sql-drop", "4:1 sql-drop", "5:1 sql-drop", "6:1 sql-drop"}},
	{"every other CASCADE that may reach a column or a table", "DROP OPERATOR === (int, int) CASCADE;\nDROP TEXT SEARCH CONFIGURATION app_english CASCADE;\nDROP ACCESS METHOD columnar CASCADE;\nDROP SERVER s CASCADE;\nDROP LANGUAGE plperl CASCADE;\nDROP SEQUENCE s CASCADE;\nDROP OPERATOR CLASS oc USING btree CASCADE;", withTimeout,
		[]string{"1:1 sql-drop", "2:1 sql-drop", "3:1 sql-drop", "4:1 sql-drop", "5:1 sql-drop", "6:1 sql-drop", "7:1 sql-drop"}},
	{"a CASCADE that reaches no column", "DROP VIEW v CASCADE;\nDROP MATERIALIZED VIEW m CASCADE;\nDROP PROCEDURE p CASCADE;\nDROP AGGREGATE a(int) CASCADE;\nDROP TRIGGER tr ON t CASCADE;\nDROP POLICY p ON t CASCADE;\nDROP STATISTICS s CASCADE;\nDROP CAST (int AS text) CASCADE;", withTimeout, nil},
	{"the same drops without CASCADE: PostgreSQL refuses while a column uses it", "DROP TYPE mood;\nDROP DOMAIN positive RESTRICT;\nDROP EXTENSION vector;\nDROP FUNCTION f();", withTimeout, nil},
	{"a type is no extension", "CREATE TYPE vector AS (x float8);\nDROP EXTENSION vector CASCADE;", withTimeout, []string{"2:1 sql-drop"}},
	{"types of the file dropped", "CREATE TYPE app.mood AS ENUM ('a');\nCREATE DOMAIN d AS int;\nCREATE TYPE r AS RANGE (subtype = int);\nCREATE TYPE c AS (a int);\nDROP TYPE app.mood, r, c CASCADE;\nDROP DOMAIN d CASCADE;", withTimeout, nil},
	{"renames of views, schemas and enum values, moves", "ALTER VIEW v RENAME TO w;\nALTER MATERIALIZED VIEW m RENAME TO n;\nALTER SCHEMA app RENAME TO app2;\nALTER TYPE mood RENAME VALUE 'sad' TO 'blue';\nALTER TABLE t SET SCHEMA archive;\nALTER VIEW v SET SCHEMA archive;", withTimeout,
		[]string{"1:1 sql-rename", "2:1 sql-rename", "3:1 sql-rename", "4:1 sql-rename", "5:1 sql-rename", "6:1 sql-rename"}},
	{"renames and moves of what the file created", "CREATE SCHEMA s;\nALTER SCHEMA s RENAME TO s2;\nCREATE TYPE mood AS ENUM ('sad');\nALTER TYPE mood RENAME VALUE 'sad' TO 'blue';\nCREATE TABLE t (c int);\nALTER TABLE t SET SCHEMA archive;\nALTER TYPE mood ADD VALUE 'happy';\nALTER FUNCTION f() SET SCHEMA x;", withTimeout, nil},
	{"truncate cascade", "TRUNCATE t CASCADE;", withTimeout, []string{"1:1 sql-truncate-cascade"}},
	{"truncate naming every table", "TRUNCATE t, u RESTRICT;", withTimeout, nil},
	{"domain constraint added", "ALTER DOMAIN positive ADD CONSTRAINT positive_check CHECK (VALUE > 0);", withTimeout, []string{"1:1 sql-domain-constraint"}},
	{"domain constraint not valid", "ALTER DOMAIN positive ADD CONSTRAINT positive_check CHECK (VALUE > 0) NOT VALID;", sqllint.Config{}, nil},
	{"domain constraint validated", "ALTER DOMAIN positive VALIDATE CONSTRAINT positive_check;", withTimeout, []string{"1:1 sql-domain-constraint"}},
	{"domain set not null", "ALTER DOMAIN positive SET NOT NULL;", withTimeout, []string{"1:1 sql-domain-constraint"}},
	{"domain not null constraint", "ALTER DOMAIN positive ADD CONSTRAINT nn NOT NULL;", withTimeout, []string{"1:1 sql-domain-constraint"}},
	{"a new domain with a check", "CREATE DOMAIN positive AS int CHECK (VALUE > 0);", withTimeout, nil},
	{"a domain of the file altered", "CREATE DOMAIN positive AS int;\nALTER DOMAIN positive ADD CONSTRAINT positive_check CHECK (VALUE > 0);", withTimeout, nil},

	// re-runnable no-transaction files
	{"not re-runnable creates", noTx + "CREATE TABLE t (c int);\nCREATE INDEX CONCURRENTLY i ON u (c);\nCREATE INDEX CONCURRENTLY ON u (d);\nCREATE VIEW v AS SELECT 1;\nCREATE SCHEMA s;\nCREATE EXTENSION vector;\nCREATE TYPE mood AS ENUM ('a');\nCREATE DOMAIN d AS int;", withTimeout,
		[]string{"2:1 sql-not-rerunnable", "3:1 sql-not-rerunnable", "4:1 sql-not-rerunnable", "5:1 sql-not-rerunnable", "6:1 sql-not-rerunnable", "7:1 sql-not-rerunnable", "8:1 sql-not-rerunnable", "9:1 sql-not-rerunnable"}},
	{"not re-runnable alters and drops", noTx + "ALTER TABLE u ADD COLUMN c int;\nALTER TABLE u DROP COLUMN IF EXISTS d, DROP CONSTRAINT k;\nALTER TABLE u ADD CONSTRAINT k CHECK (c > 0) NOT VALID;\nDROP INDEX CONCURRENTLY i;\nALTER TYPE mood ADD VALUE 'b';\nALTER TABLE u RENAME COLUMN a TO b;", withTimeout,
		[]string{"2:1 sql-not-rerunnable", "3:1 sql-not-rerunnable", "3:1 sql-drop", "4:1 sql-not-rerunnable", "5:1 sql-not-rerunnable", "6:1 sql-not-rerunnable", "7:1 sql-not-rerunnable", "7:1 sql-rename"}},
	{"re-runnable forms", noTx + "CREATE TABLE IF NOT EXISTS t (c int);\nCREATE INDEX CONCURRENTLY IF NOT EXISTS i ON u (c);\nCREATE OR REPLACE VIEW v AS SELECT 1;\nCREATE SCHEMA IF NOT EXISTS s;\n" +
		"ALTER TABLE u ADD COLUMN IF NOT EXISTS c int;\nALTER TABLE u DROP CONSTRAINT IF EXISTS k, ADD CONSTRAINT k CHECK (c > 0) NOT VALID;\nALTER TABLE u VALIDATE CONSTRAINT k;\nDROP INDEX CONCURRENTLY IF EXISTS j;\n" +
		"ALTER TYPE mood ADD VALUE IF NOT EXISTS 'b';\nUPDATE u SET c = 0 WHERE c IS NULL;\nREINDEX INDEX CONCURRENTLY i;\nVACUUM (ANALYZE) u;", withTimeout, nil},
	{"every other CREATE without IF NOT EXISTS or OR REPLACE", noTx + "CREATE POLICY p ON t USING (true);\nCREATE STATISTICS s ON a, b FROM t;\nCREATE ROLE r;\nCREATE AGGREGATE a (int) (sfunc = int4pl, stype = int);\nCREATE RULE r AS ON INSERT TO t DO NOTHING;\nCREATE FOREIGN TABLE f (a int) SERVER s;\nSELECT 1 AS a INTO t2;\nCREATE TYPE base;", withTimeout,
		[]string{"2:1 sql-not-rerunnable", "3:1 sql-not-rerunnable", "4:1 sql-not-rerunnable", "5:1 sql-not-rerunnable", "6:1 sql-not-rerunnable", "7:1 sql-not-rerunnable", "8:1 sql-not-rerunnable", "9:1 sql-not-rerunnable"}},
	{"alters that fail the second time", noTx + "ALTER TABLE p ATTACH PARTITION c FOR VALUES IN (1);\nALTER TABLE t INHERIT parent;\nALTER TABLE t ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY;\nALTER TYPE comp ADD ATTRIBUTE x int;", withTimeout,
		[]string{"2:1 sql-not-rerunnable", "3:1 sql-not-rerunnable", "4:1 sql-not-rerunnable", "5:1 sql-not-rerunnable"}},
	{"their re-runnable forms, and what a transaction refuses", noTx + "CREATE STATISTICS IF NOT EXISTS s ON a, b FROM t;\nCREATE OR REPLACE AGGREGATE a (int) (sfunc = int4pl, stype = int);\nCREATE COLLATION IF NOT EXISTS c (locale = 'C');\nCREATE OR REPLACE RULE r AS ON INSERT TO t DO NOTHING;\n" +
		"CREATE FOREIGN TABLE IF NOT EXISTS f (a int) SERVER s;\nCREATE SERVER IF NOT EXISTS s FOREIGN DATA WRAPPER w;\nCREATE DATABASE d;\nCREATE TABLESPACE ts LOCATION '/x';\nSELECT 1;", withTimeout, nil},
	{"dropped if exists on one table, added on another", noTx + "ALTER TABLE a.t DROP CONSTRAINT IF EXISTS k;\nALTER TABLE b.t ADD CONSTRAINT k CHECK (c > 0) NOT VALID;", withTimeout, []string{"3:1 sql-not-rerunnable"}},
	{"the same statements in a transaction", "CREATE TABLE t (c int);\nALTER TABLE u ADD COLUMN c int;\nCREATE VIEW v AS SELECT 1;", withTimeout, nil},

	// lock_timeout: only the locks that block reads or writes
	{"weak ALTER TABLE forms need no lock_timeout", "ALTER TABLE t SET (fillfactor = 70, autovacuum_vacuum_scale_factor = 0.01, toast.autovacuum_enabled = false);\nALTER TABLE t ALTER COLUMN c SET STATISTICS 500, ALTER COLUMN c SET (n_distinct = 100);\n" +
		"ALTER TABLE t CLUSTER ON i;\nALTER TABLE t VALIDATE CONSTRAINT k;\nALTER TABLE t RESET (fillfactor);", sqllint.Config{}, nil},
	{"strong locks on another table or a view", "CREATE TABLE p2024 PARTITION OF events FOR VALUES IN (2024);\nCREATE TABLE n (id int REFERENCES app.users (id));\nCREATE TABLE m (u int, FOREIGN KEY (u) REFERENCES users);\n" +
		"CREATE POLICY own ON users USING (true);\nALTER POLICY own ON users USING (false);\nCREATE RULE r AS ON INSERT TO users DO NOTHING;\n" +
		"DROP TRIGGER tr ON app.users;\nDROP POLICY own ON users;\nDROP RULE r ON users;\nDROP VIEW v;\nDROP MATERIALIZED VIEW mv;\nCREATE OR REPLACE VIEW v2 AS SELECT 1;\nALTER VIEW v3 ALTER COLUMN c SET DEFAULT 1;", sqllint.Config{},
		[]string{"1:1 warning sql-lock-timeout", "2:1 warning sql-lock-timeout", "3:1 warning sql-lock-timeout", "4:1 warning sql-lock-timeout", "5:1 warning sql-lock-timeout", "6:1 warning sql-lock-timeout",
			"7:1 warning sql-lock-timeout", "8:1 warning sql-lock-timeout", "9:1 warning sql-lock-timeout", "10:1 warning sql-lock-timeout", "11:1 warning sql-lock-timeout", "12:1 warning sql-lock-timeout", "13:1 warning sql-lock-timeout"}},
	{"the same on what the file created", "CREATE TABLE events (y int) PARTITION BY LIST (y);\nCREATE TABLE p2024 PARTITION OF events FOR VALUES IN (2024);\nCREATE TABLE users (id int PRIMARY KEY);\nCREATE TABLE n (id int REFERENCES users (id));\n" +
		"CREATE TABLE tree (id int PRIMARY KEY, parent int REFERENCES tree (id));\nCREATE POLICY own ON users USING (true);\nDROP POLICY own ON users;\nCREATE VIEW v AS SELECT 1;\nCREATE OR REPLACE VIEW v AS SELECT 2;\nALTER VIEW v ALTER COLUMN c SET DEFAULT 1;\nDROP VIEW v;\nCREATE TABLE c () INHERITS (parent);\nCREATE TABLE l (LIKE users);", sqllint.Config{}, nil},
	{"weak LOCK modes need none", "LOCK t IN ACCESS SHARE MODE;\nLOCK t IN ROW EXCLUSIVE MODE;\nLOCK t IN SHARE UPDATE EXCLUSIVE MODE;", sqllint.Config{}, nil},
	{"strong LOCK modes do", "LOCK t IN SHARE MODE;\nLOCK t;", sqllint.Config{}, []string{"1:1 warning sql-lock-timeout", "2:1 warning sql-lock-timeout"}},
	{"ALTER SEQUENCE: nextval waits for it", "ALTER SEQUENCE s RESTART;\nALTER SEQUENCE IF EXISTS app.s OWNED BY t.id;", sqllint.Config{}, []string{"1:1 warning sql-lock-timeout", "2:1 warning sql-lock-timeout"}},
	{"ALTER SEQUENCE of a sequence the file created", "CREATE SEQUENCE s;\nALTER SEQUENCE s OWNED BY t.id;\nCREATE SEQUENCE app.u;\nALTER SEQUENCE u RESTART;", sqllint.Config{}, []string{"4:1 warning sql-lock-timeout"}},
	{"ALTER SEQUENCE under the contract's timeout", "ALTER SEQUENCE s INCREMENT BY 2;", withTimeout, nil},
	{"a storage parameter that takes ACCESS EXCLUSIVE", "ALTER TABLE t SET (user_catalog_table = true);", sqllint.Config{}, []string{"1:1 warning sql-lock-timeout"}},
	{"a foreign key not valid, a trigger enabled", "ALTER TABLE t ADD FOREIGN KEY (u) REFERENCES u (id) NOT VALID;\nALTER TABLE t ENABLE TRIGGER x;", sqllint.Config{}, []string{"1:1 warning sql-lock-timeout", "2:1 warning sql-lock-timeout"}},

	// DO blocks: their statements at their lines
	{"a DO block's statements", "DO $$\nBEGIN\n  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'k') THEN\n    ALTER TABLE t ADD CONSTRAINT k CHECK (c > 0);\n  END IF;\n  DROP TABLE   u;\nEND\n$$;", withTimeout,
		[]string{"4:23 sql-constraint-validated", "6:3 sql-drop"}},
	{"a DO block's guard is its own: re-runnable", noTx + "DO $$ BEGIN IF NOT EXISTS (SELECT 1) THEN ALTER TABLE t ADD CONSTRAINT k CHECK (c > 0) NOT VALID; END IF; END $$;", withTimeout, nil},
	{"a DO block runs in a transaction", noTx + "DO $$ BEGIN CREATE INDEX CONCURRENTLY i ON t (c); END $$;", withTimeout, []string{"2:13 sql-concurrently-in-transaction"}},
	{"EXECUTE of a constant, a computed one", "DO $a$ BEGIN EXECUTE 'TRUNCATE w CASCADE'; EXECUTE $$DROP TABLE x$$; EXECUTE 'DROP TABLE ' || quote_ident('v'); END $a$;", withTimeout,
		[]string{"1:23 sql-truncate-cascade", "1:54 sql-drop", "1:78 warning sql-do-unchecked"}},
	{"FOR ... IN a query, FOR ... IN EXECUTE", "DO $$ DECLARE r record; BEGIN FOR r IN SELECT 1 LOOP TRUNCATE t CASCADE; END LOOP; FOR r IN EXECUTE 'SELECT ' || 1 LOOP NULL; END LOOP; END $$;", withTimeout,
		[]string{"1:54 sql-truncate-cascade", "1:101 warning sql-do-unchecked"}},
	{"a DO inside a DO, a loop", "DO $a$ DECLARE r record; BEGIN FOR r IN SELECT * FROM x LOOP DELETE FROM x; END LOOP; DO $b$ BEGIN DROP TABLE y; END $b$; END $a$;", withTimeout, []string{"1:100 sql-drop"}},
	{"an allow comment above the DO covers its statements", "-- codeloc:allow sql-drop retired in 2025\nDO $$ BEGIN DROP TABLE u; DROP TABLE v; END $$;", withTimeout,
		[]string{"2:13 warning sql-drop allowed: retired in 2025", "2:27 warning sql-drop allowed: retired in 2025"}},
	{"a DO block's lock_timeout", "DO $$ BEGIN SET lock_timeout = '1s'; ALTER TABLE t ADD COLUMN c int; END $$;\nALTER TABLE u ADD COLUMN d int;\nDO $$ BEGIN RESET lock_timeout; TRUNCATE t; END $$;", sqllint.Config{},
		[]string{"3:33 warning sql-lock-timeout"}},
	{"a quoted body", "DO 'BEGIN DROP TABLE u; END';", withTimeout, []string{"1:11 sql-drop"}},
	{"what the lint cannot read", "DO LANGUAGE plpython3u $$ plpy.execute('DROP TABLE t') $$;\nDO $$ BEGIN NOT VALID SQL; END $$;\nDO $$ BEGIN " + strings.Repeat("IF true THEN ", 501) + "DROP TABLE t;" + strings.Repeat(" END IF;", 501) + " END $$;", withTimeout,
		[]string{"1:1 warning sql-do-unchecked", "2:1 warning sql-do-unchecked", "3:1 warning sql-do-unchecked"}},
	{"a statement PostgreSQL refuses: PL/pgSQL refuses the block", "DO $$ BEGIN DROP TABLE t; ALTER TABLE u ADD; END $$;", withTimeout, []string{"1:1 warning sql-do-unchecked"}},
	{"past 200 EXECUTEs in a file", "DO $$ BEGIN " + strings.Repeat("EXECUTE 'SELECT 1'; ", 200) + "EXECUTE 'DROP TABLE t'; END $$;", withTimeout, []string{"1:4021 warning sql-do-unchecked"}},
	{"past 100 bodies in a file", strings.Repeat("DO $$ BEGIN PERFORM 1; END $$;\n", 100) + "DO $$ BEGIN DROP TABLE t; END $$;", withTimeout, []string{"101:1 warning sql-do-unchecked"}},
	{"a table the DO created", "DO $$ BEGIN CREATE TABLE t (c int); CREATE INDEX i ON t (c); END $$;\nALTER TABLE t ALTER COLUMN c TYPE text;", withTimeout, nil},
	{"a function's body is not run where it is defined", "CREATE OR REPLACE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$ BEGIN DROP TABLE t; END $$;", withTimeout, nil},
	{"but where it is called", "CREATE FUNCTION migrate_x() RETURNS void LANGUAGE plpgsql AS $$ BEGIN DROP TABLE t; END $$;\nSELECT migrate_x();\nDROP FUNCTION migrate_x();", withTimeout, []string{"2:1 sql-drop"}},
	{"recursion, mutual recursion, PERFORM", "CREATE FUNCTION a() RETURNS void LANGUAGE plpgsql AS $$ BEGIN PERFORM b(); PERFORM a(); END $$;\n" +
		"CREATE FUNCTION b() RETURNS void LANGUAGE plpgsql AS $$ BEGIN PERFORM a(); TRUNCATE z CASCADE; END $$;\nDO $$ BEGIN PERFORM a(); END $$;", withTimeout, []string{"3:21 sql-truncate-cascade"}},
	{"a SQL function, a trigger function", "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\nSELECT f();\n" +
		"CREATE FUNCTION g() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN DROP TABLE t; RETURN NEW; END $$;\nCREATE TRIGGER x AFTER INSERT ON u FOR EACH ROW EXECUTE FUNCTION g();", sqllint.Config{}, []string{"4:1 warning sql-lock-timeout"}},

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
	for _, f := range append(sqllint.Lint(sampler, sqllint.Config{}), sqllint.Lint(noTxSampler, sqllint.Config{})...) {
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
	"CREATE INDEX CONCURRENTLY k ON t (c); TRUNCATE u; ALTER TABLE t ADD CONSTRAINT k CHECK (c > 0) NOT VALID; ALTER TABLE t VALIDATE CONSTRAINT k; " +
	"ALTER DOMAIN d SET NOT NULL; CLUSTER t; REFRESH MATERIALIZED VIEW v; ALTER TABLE p DETACH PARTITION c; TRUNCATE u CASCADE; DROP DATABASE x; DO $$ BEGIN EXECUTE 'DROP TABLE ' || 'w'; END $$;"

// noTxSampler is a no-transaction file with a finding of the rules only
// such a file has.
const noTxSampler = noTx + "CREATE TABLE t (c int);"

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

// TestSession lints files in order, as the Job applies them: what an
// earlier file did changes what a later statement costs.
func TestSession(t *testing.T) {
	const (
		addNN      = "ALTER TABLE t ADD CONSTRAINT t_c_nn CHECK (c IS NOT NULL) NOT VALID;"
		validateNN = "ALTER TABLE t VALIDATE CONSTRAINT t_c_nn;"
		setNN      = "ALTER TABLE t ALTER COLUMN c SET NOT NULL;"
	)
	for _, tt := range []struct {
		name  string
		files []string
		want  [][]string
	}{
		{"check, validate, set: three files", []string{addNN, validateNN, setNN}, [][]string{nil, nil, nil}},
		{"validate and set in the second file", []string{addNN, validateNN + "\n" + setNN}, [][]string{nil, nil}},
		{"set without the validation", []string{addNN, setNN}, [][]string{nil, {"1:1 sql-set-not-null"}}},
		{"validated in the transaction that added it", []string{addNN + "\n" + validateNN, setNN}, [][]string{{"2:1 sql-validate-same-transaction"}, nil}},
		{"a check added valid (allowed) counts", []string{"-- codeloc:allow sql-constraint-validated the table is small\nALTER TABLE t ADD CONSTRAINT t_c_nn CHECK (c IS NOT NULL);", setNN},
			[][]string{{"2:19 warning sql-constraint-validated allowed: the table is small"}, nil}},
		{"the constraint dropped in between", []string{addNN, validateNN, "ALTER TABLE t DROP CONSTRAINT t_c_nn;", setNN}, [][]string{nil, nil, nil, {"1:1 sql-set-not-null"}}},
		{"the table dropped and made again", []string{addNN, validateNN, "-- codeloc:allow sql-drop rebuilt\nDROP TABLE t;", setNN},
			[][]string{nil, nil, {"2:1 warning sql-drop allowed: rebuilt"}, {"1:1 sql-set-not-null"}}},
		{"another table's check", []string{"ALTER TABLE u ADD CONSTRAINT t_c_nn CHECK (c IS NOT NULL) NOT VALID;", "ALTER TABLE u VALIDATE CONSTRAINT t_c_nn;", setNN},
			[][]string{nil, nil, {"1:1 sql-set-not-null"}}},
		{"another schema's table of that name", []string{"ALTER TABLE app.t ADD CONSTRAINT t_c_nn CHECK (c IS NOT NULL) NOT VALID;", "ALTER TABLE app.t VALIDATE CONSTRAINT t_c_nn;", "ALTER TABLE other.t ALTER COLUMN c SET NOT NULL;"},
			[][]string{nil, nil, {"1:1 sql-set-not-null"}}},
		{"the same qualified table", []string{"ALTER TABLE app.t ADD CONSTRAINT t_c_nn CHECK (c IS NOT NULL) NOT VALID;", "ALTER TABLE app.t VALIDATE CONSTRAINT t_c_nn;", "ALTER TABLE app.t ALTER COLUMN c SET NOT NULL;"},
			[][]string{nil, nil, nil}},
		{"another schema's table dropped: forgotten too", []string{addNN, validateNN, "-- codeloc:allow sql-drop gone\nDROP TABLE old.t;", setNN},
			[][]string{nil, nil, {"2:1 warning sql-drop allowed: gone"}, {"1:1 sql-set-not-null"}}},
		{"a function an earlier file declared IMMUTABLE", []string{"CREATE FUNCTION tenant() RETURNS int IMMUTABLE LANGUAGE sql AS 'SELECT 1';", "ALTER TABLE t ADD COLUMN c int DEFAULT tenant();"},
			[][]string{nil, nil}},
		{"a SQL procedure of an earlier file, called", []string{"CREATE PROCEDURE widen() LANGUAGE sql AS $$\n  -- text, not varchar\n  ALTER TABLE t ALTER COLUMN c TYPE text;\n  CREATE INDEX i ON t (c);\n$$;", "CALL widen();"},
			[][]string{nil, {"1:1 sql-column-type-change", "1:1 sql-index-blocking"}}},
		{"SQL functions: a quoted body, a harmless one, one PostgreSQL refuses, two that call each other", []string{"CREATE FUNCTION a() RETURNS void LANGUAGE sql AS 'SELECT 1; DROP TABLE t';\nCREATE FUNCTION b() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\nCREATE FUNCTION c() RETURNS void LANGUAGE sql AS $$ SELECT broken( $$;\n" +
			"CREATE FUNCTION d() RETURNS void LANGUAGE sql AS $$ SELECT e() $$;\nCREATE FUNCTION e() RETURNS void LANGUAGE sql AS $$ SELECT d() $$;", "SELECT a();\nSELECT b();\nSELECT c();\nSELECT d();"},
			[][]string{nil, {"1:1 sql-drop", "3:1 warning sql-do-unchecked"}}},
		{"a procedure of an earlier file, called", []string{"CREATE OR REPLACE PROCEDURE app.p() LANGUAGE plpgsql AS $$ BEGIN ALTER TABLE t ALTER COLUMN c TYPE text; END $$;", "CALL p();"},
			[][]string{nil, {"1:1 sql-column-type-change"}}},
		{"create if not exists of an earlier file's table creates nothing", []string{"CREATE TABLE users (id int);", "CREATE TABLE IF NOT EXISTS users (id int);\nALTER TABLE users ALTER COLUMN id TYPE bigint;\nCREATE INDEX IF NOT EXISTS i ON users (id);"},
			[][]string{nil, {"2:32 sql-column-type-change", "3:1 sql-index-blocking"}}},
		{"nor of a table an earlier file altered", []string{"ALTER TABLE users ADD COLUMN IF NOT EXISTS email text;", "CREATE TABLE IF NOT EXISTS users (id int);\nCREATE INDEX i ON users (id);"},
			[][]string{nil, {"2:1 sql-index-blocking"}}},
		{"a new table, if not exists", []string{"CREATE TABLE orders (id int);", "CREATE TABLE IF NOT EXISTS users (id int);\nCREATE INDEX i ON users (id);"},
			[][]string{nil, nil}},
		{"an index on a partitioned table, as PostgreSQL's docs build one", []string{"CREATE TABLE events (at date, c int) PARTITION BY RANGE (at);\nCREATE TABLE events_2024 PARTITION OF events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');",
			"CREATE INDEX events_c ON ONLY events (c);", noTx + "CREATE INDEX CONCURRENTLY IF NOT EXISTS events_2024_c ON events_2024 (c);", "ALTER INDEX events_c ATTACH PARTITION events_2024_c;"},
			[][]string{nil, nil, nil, nil}},
		{"ON ONLY a table not known to be partitioned, or without ONLY", []string{"CREATE TABLE events (at date, c int) PARTITION BY RANGE (at);", "CREATE INDEX a ON ONLY logs (c);\nCREATE INDEX b ON events (c);\nCREATE INDEX d ON ONLY other.events (c);"},
			[][]string{nil, {"1:1 sql-index-blocking", "2:1 sql-index-blocking", "3:1 sql-index-blocking"}}},
		{"a partitioned table dropped and made again plain", []string{"CREATE TABLE events (at date, c int) PARTITION BY RANGE (at);", "-- codeloc:allow sql-drop rebuilt\nDROP TABLE events;\nCREATE TABLE IF NOT EXISTS events (at date, c int);", "CREATE INDEX a ON ONLY events (c);"},
			[][]string{nil, {"2:1 warning sql-drop allowed: rebuilt"}, {"1:1 sql-index-blocking"}}},
		{"type changes PostgreSQL makes in the catalog: widenings of a type the files gave", []string{"CREATE TABLE t (a varchar(10), b numeric(10,2), c text, d varchar, e character varying(5), f numeric, g varbit(3));",
			"ALTER TABLE t ALTER COLUMN a TYPE varchar(20), ALTER COLUMN b TYPE numeric(12,2), ALTER COLUMN c TYPE varchar, ALTER COLUMN d TYPE text, ALTER COLUMN e TYPE text, ALTER COLUMN f TYPE numeric, ALTER COLUMN g TYPE varbit(5);",
			"ALTER TABLE t ADD COLUMN h varchar(3);", "ALTER TABLE t ALTER COLUMN h TYPE varchar(4);"},
			[][]string{nil, nil, nil, nil}},
		{"narrowings, other types, USING, COLLATE, an unknown column or table", []string{"CREATE TABLE t (a varchar(10), b numeric(10,2), c text, f numeric, h int, i varchar(10)[]);",
			"ALTER TABLE t ALTER COLUMN a TYPE varchar(5);\nALTER TABLE t ALTER COLUMN b TYPE numeric(12,3);\nALTER TABLE t ALTER COLUMN c TYPE varchar(10);\nALTER TABLE t ALTER COLUMN f TYPE numeric(10,2);\n" +
				"ALTER TABLE t ALTER COLUMN h TYPE bigint;\nALTER TABLE t ALTER COLUMN i TYPE varchar(20)[];\nALTER TABLE t ALTER COLUMN c TYPE text USING c || '';\nALTER TABLE t ALTER COLUMN c TYPE text COLLATE \"C\";\n" +
				"ALTER TABLE app.t ALTER COLUMN a TYPE varchar(30);\nALTER TABLE t ALTER COLUMN z TYPE text;"},
			[][]string{nil, {"1:28 sql-column-type-change", "2:28 sql-column-type-change", "3:28 sql-column-type-change", "4:28 sql-column-type-change", "5:28 sql-column-type-change",
				"6:28 sql-column-type-change", "7:28 sql-column-type-change", "8:28 sql-column-type-change", "9:32 sql-column-type-change", "10:28 sql-column-type-change"}}},
		{"a widening on a table with a plain index, a foreign key", []string{"CREATE TABLE u (id int PRIMARY KEY);\nCREATE TABLE t (a varchar(10) UNIQUE, u int REFERENCES u);\nCREATE INDEX t_a ON t (a);", "ALTER TABLE t ALTER COLUMN a TYPE varchar(20);"},
			[][]string{nil, nil}},
		{"not on a table with a CHECK, an EXCLUDE, an index on an expression or a partial index: the change scans or rebuilds them", []string{
			"CREATE TABLE a (c varchar(10) CHECK (c <> ''));\nCREATE TABLE b (c varchar(10));\nCREATE TABLE d (c varchar(10));\nCREATE TABLE e (c varchar(10));\nCREATE TABLE f (c varchar(10));",
			"ALTER TABLE b ADD CONSTRAINT k CHECK (length(c) > 1) NOT VALID;\nCREATE INDEX d_lower ON d (lower(c));\nCREATE INDEX e_some ON e (c) WHERE c IS NOT NULL;\nALTER TABLE f ADD CONSTRAINT x EXCLUDE USING gist (c WITH =);",
			"ALTER TABLE a ALTER COLUMN c TYPE varchar(20);\nALTER TABLE b ALTER COLUMN c TYPE varchar(20);\nALTER TABLE d ALTER COLUMN c TYPE varchar(20);\nALTER TABLE e ALTER COLUMN c TYPE varchar(20);\nALTER TABLE f ALTER COLUMN c TYPE varchar(20);"},
			[][]string{nil, {"2:1 sql-index-blocking", "3:1 sql-index-blocking", "4:19 sql-unique-constraint"}, {"1:28 sql-column-type-change", "2:28 sql-column-type-change", "3:28 sql-column-type-change", "4:28 sql-column-type-change", "5:28 sql-column-type-change"}}},
		{"not of a column given a COLLATE: a type change without one resets it, and rebuilds the indexes", []string{"CREATE TABLE t (a varchar(10) COLLATE \"C\");\nALTER TABLE t ADD COLUMN b varchar(10) COLLATE \"C\";", "ALTER TABLE t ALTER COLUMN a TYPE varchar(20), ALTER COLUMN b TYPE text;"},
			[][]string{nil, {"1:28 sql-column-type-change", "1:61 sql-column-type-change"}}},
		{"a widening judged from the type the last change gave", []string{"CREATE TABLE t (a varchar(10));", "ALTER TABLE t ALTER COLUMN a TYPE varchar(20);", "ALTER TABLE t ALTER COLUMN a TYPE varchar(15);"},
			[][]string{nil, nil, {"1:28 sql-column-type-change"}}},
		{"a type the files may not have set: IF NOT EXISTS, a DO block, a column dropped and added again, renamed", []string{"CREATE TABLE IF NOT EXISTS t (a varchar(10));\nCREATE TABLE u (a varchar(10), b varchar(10), c varchar(10));",
			"ALTER TABLE t ALTER COLUMN a TYPE varchar(20);\nALTER TABLE u ADD COLUMN IF NOT EXISTS a varchar(5);\nDO $$ BEGIN IF false THEN ALTER TABLE u ALTER COLUMN b TYPE varchar(40); END IF; END $$;",
			"ALTER TABLE u ALTER COLUMN a TYPE varchar(20), ALTER COLUMN b TYPE varchar(30);\n-- codeloc:allow sql-drop unused\nALTER TABLE u DROP COLUMN c;\nALTER TABLE u ADD COLUMN c int;",
			"ALTER TABLE u ALTER COLUMN c TYPE text;"},
			[][]string{nil, {"1:28 sql-column-type-change"}, {"1:28 sql-column-type-change", "1:61 sql-column-type-change", "3:1 warning sql-drop allowed: unused"}, {"1:28 sql-column-type-change"}}},
		{"PRIMARY KEY USING INDEX on NOT NULL columns", []string{"CREATE TABLE t (a int NOT NULL, b serial, c int GENERATED ALWAYS AS IDENTITY, d int, e int);\nALTER TABLE t ADD COLUMN f int NOT NULL DEFAULT 0;",
			"ALTER TABLE t ADD CONSTRAINT t_e_nn CHECK (e IS NOT NULL) NOT VALID;", "ALTER TABLE t VALIDATE CONSTRAINT t_e_nn;\nALTER TABLE t ALTER COLUMN d SET NOT NULL;",
			noTx + "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS t_key ON t (a, b, c, d, e, f);", "ALTER TABLE t ADD CONSTRAINT t_pkey PRIMARY KEY USING INDEX t_key;"},
			[][]string{nil, nil, {"2:1 sql-set-not-null"}, nil, nil}},
		{"PRIMARY KEY USING INDEX: a nullable column, an unknown index, a dropped NOT NULL, a dropped index", []string{"CREATE TABLE t (a int NOT NULL, b int);",
			noTx + "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS t_ab ON t (a, b);\nCREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS t_a ON t (a);",
			"ALTER TABLE t ADD CONSTRAINT k1 PRIMARY KEY USING INDEX t_ab;\nALTER TABLE t ADD CONSTRAINT k2 PRIMARY KEY USING INDEX other;",
			"ALTER TABLE t ALTER COLUMN a DROP NOT NULL;\nALTER TABLE t ADD CONSTRAINT k3 PRIMARY KEY USING INDEX t_a;"},
			[][]string{nil, nil, {"1:1 sql-set-not-null", "2:1 sql-set-not-null"}, {"2:1 sql-set-not-null"}}},
		{"SET NOT NULL of a column already NOT NULL is nothing", []string{"CREATE TABLE t (a int NOT NULL);", "ALTER TABLE t ALTER COLUMN a SET NOT NULL;"}, [][]string{nil, nil}},
		{"a domain constrained in an earlier file", []string{"CREATE DOMAIN positive AS int;", "ALTER DOMAIN positive SET NOT NULL;", "ALTER TABLE t ADD COLUMN c positive DEFAULT 1;"},
			[][]string{nil, {"1:1 sql-domain-constraint"}, {"1:26 sql-table-rewrite"}}},
		{"a check declared by CREATE TABLE is valid", []string{"CREATE TABLE t (c int, CONSTRAINT t_c_nn CHECK (c IS NOT NULL));", setNN}, [][]string{nil, nil}},
		{"on the column too", []string{"CREATE TABLE t (id int, c int CHECK (c IS NOT NULL));", setNN}, [][]string{nil, nil}},
		{"NOT VALID in CREATE TABLE: valid all the same", []string{"CREATE TABLE t (c int, CONSTRAINT k CHECK (c IS NOT NULL) NOT VALID);", setNN}, [][]string{nil, nil}},
		{"a new table's check on another column", []string{"CREATE TABLE t (c int, d int CHECK (d IS NOT NULL));", setNN}, [][]string{nil, {"1:1 sql-set-not-null"}}},
		{"nor a CREATE TABLE in a DO block, which may sit behind an IF", []string{"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_tables WHERE tablename = 't') THEN CREATE TABLE t (c int CHECK (c IS NOT NULL)); END IF; END $$;", setNN},
			[][]string{nil, {"1:1 sql-set-not-null"}}},
		{"CREATE TABLE IF NOT EXISTS may have created nothing", []string{"CREATE TABLE IF NOT EXISTS t (c int CHECK (c IS NOT NULL));", setNN}, [][]string{nil, {"1:1 sql-set-not-null"}}},
		{"the table made again without the check", []string{"CREATE TABLE t (c int CHECK (c IS NOT NULL));", "-- codeloc:allow sql-drop rebuilt\nDROP TABLE t;\nCREATE TABLE t (c int);", setNN},
			[][]string{nil, {"2:1 warning sql-drop allowed: rebuilt"}, {"1:1 sql-set-not-null"}}},
		{"a table renamed away and made again", []string{"CREATE TABLE t (c int CHECK (c IS NOT NULL));", "-- codeloc:allow sql-rename unused\nALTER TABLE t RENAME TO t_old;\nCREATE TABLE t (c int);", setNN},
			[][]string{nil, {"2:1 warning sql-rename allowed: unused"}, {"1:1 sql-set-not-null"}}},
		{"a schema dropped whole and made again", []string{"CREATE TABLE app.t (c int CHECK (c IS NOT NULL));", "-- codeloc:allow sql-drop rebuilt\nDROP SCHEMA app CASCADE;\nCREATE SCHEMA app;\nCREATE TABLE app.t (c int);", "ALTER TABLE app.t ALTER COLUMN c SET NOT NULL;"},
			[][]string{nil, {"2:1 warning sql-drop allowed: rebuilt"}, {"1:1 sql-set-not-null"}}},
		{"a schema dropped, its table made again if not exists", []string{addNN, validateNN, "-- codeloc:allow sql-drop rebuilt\nDROP SCHEMA public CASCADE;\nCREATE SCHEMA public;\nCREATE TABLE IF NOT EXISTS t (c int);", setNN},
			[][]string{nil, nil, {"2:1 warning sql-drop allowed: rebuilt"}, {"1:1 sql-set-not-null"}}},
		{"another schema dropped: the check stays", []string{"ALTER TABLE app.t ADD CONSTRAINT k CHECK (c IS NOT NULL) NOT VALID;", "ALTER TABLE app.t VALIDATE CONSTRAINT k;", "-- codeloc:allow sql-drop unused\nDROP SCHEMA scratch;", "ALTER TABLE app.t ALTER COLUMN c SET NOT NULL;"},
			[][]string{nil, nil, {"2:1 warning sql-drop allowed: unused"}, nil}},
		{"a function dropped with CASCADE takes the checks that call it", []string{"ALTER TABLE t ADD CONSTRAINT k CHECK (c IS NOT NULL AND f(d)) NOT VALID;", "ALTER TABLE t VALIDATE CONSTRAINT k;", "-- codeloc:allow sql-drop unused\nDROP FUNCTION f CASCADE;", setNN},
			[][]string{nil, nil, {"2:1 warning sql-drop allowed: unused"}, {"1:1 sql-set-not-null"}}},
		{"DROP OWNED drops the tables", []string{addNN, validateNN, "-- codeloc:allow sql-drop rebuilt\nDROP OWNED BY app;\nCREATE TABLE IF NOT EXISTS t (c int);", setNN},
			[][]string{nil, nil, {"2:1 warning sql-drop allowed: rebuilt"}, {"1:1 sql-set-not-null"}}},
		{"columns of a new table renamed in its own file", []string{"CREATE TABLE t (c int CHECK (c IS NOT NULL), d int);\nALTER TABLE t RENAME COLUMN c TO x;\nALTER TABLE t RENAME COLUMN d TO c;", setNN},
			[][]string{nil, {"1:1 sql-set-not-null"}}},
		{"a new table moved to another schema in its own file", []string{"CREATE TABLE t (c int CHECK (c IS NOT NULL));\nALTER TABLE t SET SCHEMA old;\nCREATE TABLE IF NOT EXISTS t (c int);", setNN},
			[][]string{nil, {"1:1 sql-set-not-null"}}},
		{"a schema renamed", []string{"ALTER TABLE app.t ADD CONSTRAINT k CHECK (c IS NOT NULL) NOT VALID;", "ALTER TABLE app.t VALIDATE CONSTRAINT k;", "-- codeloc:allow sql-rename unused\nALTER SCHEMA app RENAME TO old;\nCREATE SCHEMA app;\nCREATE TABLE IF NOT EXISTS app.t (c int);", "ALTER TABLE app.t ALTER COLUMN c SET NOT NULL;"},
			[][]string{nil, nil, {"2:1 warning sql-rename allowed: unused"}, {"1:1 sql-set-not-null"}}},
		{"a drop the lint cannot read: CREATE TABLE of the name starts afresh", []string{"CREATE TABLE t (c int CHECK (c IS NOT NULL));", "-- codeloc:allow sql-do-unchecked reviewed\nDO $$ BEGIN EXECUTE format('DROP TABLE %I', 't'); END $$;\nCREATE TABLE t (c int);", setNN},
			[][]string{nil, {"2:21 warning sql-do-unchecked allowed: reviewed"}, {"1:1 sql-set-not-null"}}},
		{"the new table's check dropped", []string{"CREATE TABLE t (c int CHECK (c IS NOT NULL));", "ALTER TABLE t DROP CONSTRAINT t_c_check;", setNN}, [][]string{nil, nil, {"1:1 sql-set-not-null"}}},
		{"a syntax error in between changes nothing", []string{addNN, "SELEC 1;", validateNN, setNN}, [][]string{nil, {"1:1 sql-syntax"}, nil, nil}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := sqllint.NewSession(withTimeout)
			for i, f := range tt.files {
				if diff := cmp.Diff(tt.want[i], brief(s.Lint(f))); diff != "" {
					t.Errorf("file %d: findings (-want +got):\n%s", i+1, diff)
				}
			}
		})
	}
}

// TestSafeForms holds each rule to its hint: the unsafe form is flagged
// with the rule, and the safe form the hint leads to, file by file, lints
// clean (with the contract's lock_timeout).
func TestSafeForms(t *testing.T) {
	seen := map[string]bool{}
	for _, tt := range []struct {
		rule   string
		unsafe string
		safe   []string
	}{
		{sqllint.RuleIndexBlocking, "CREATE INDEX i ON t (c);", []string{noTx + "CREATE INDEX CONCURRENTLY IF NOT EXISTS i ON t (c);"}},
		{sqllint.RuleConcurrentlyInTx, "CREATE INDEX CONCURRENTLY IF NOT EXISTS i ON t (c);", []string{noTx + "CREATE INDEX CONCURRENTLY IF NOT EXISTS i ON t (c);"}},
		{sqllint.RuleReindexBlocking, "REINDEX INDEX i;", []string{noTx + "REINDEX INDEX CONCURRENTLY i;"}},
		{sqllint.RuleAddColumnNotNull, "ALTER TABLE t ADD COLUMN c int NOT NULL;", []string{"ALTER TABLE t ADD COLUMN c int NOT NULL DEFAULT 0;"}},
		{sqllint.RuleVolatileDefault, "ALTER TABLE t ADD COLUMN c uuid DEFAULT gen_random_uuid();", []string{
			"ALTER TABLE t ADD COLUMN c uuid;\nALTER TABLE t ALTER COLUMN c SET DEFAULT gen_random_uuid();",
			"UPDATE t SET c = gen_random_uuid() WHERE c IS NULL AND id < 10000;"}},
		{sqllint.RuleColumnTypeChange, "ALTER TABLE t ALTER COLUMN c TYPE bigint;", []string{"ALTER TABLE t ADD COLUMN c_new bigint;", "UPDATE t SET c_new = c WHERE c_new IS NULL;"}},
		{sqllint.RuleSetNotNull, "ALTER TABLE t ALTER COLUMN c SET NOT NULL;", []string{
			"ALTER TABLE t ADD CONSTRAINT t_c_nn CHECK (c IS NOT NULL) NOT VALID;", "ALTER TABLE t VALIDATE CONSTRAINT t_c_nn;", "ALTER TABLE t ALTER COLUMN c SET NOT NULL;"}},
		{sqllint.RuleConstraintValidated, "ALTER TABLE t ADD CONSTRAINT k CHECK (c > 0);", []string{"ALTER TABLE t ADD CONSTRAINT k CHECK (c > 0) NOT VALID;", "ALTER TABLE t VALIDATE CONSTRAINT k;"}},
		{sqllint.RuleUniqueConstraint, "ALTER TABLE t ADD CONSTRAINT k UNIQUE (c);", []string{noTx + "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS k ON t (c);", "ALTER TABLE t ADD CONSTRAINT k UNIQUE USING INDEX k;"}},
		{sqllint.RuleDrop, "DROP TABLE t;", []string{"-- codeloc:allow sql-drop unused since revision 41\nDROP TABLE t;"}},
		{sqllint.RuleRename, "ALTER TABLE t RENAME COLUMN a TO b;", []string{"ALTER TABLE t ADD COLUMN b text;", "UPDATE t SET b = a WHERE b IS NULL;"}},
		{sqllint.RuleTransactionControl, "BEGIN;\nCREATE TABLE t (c int);\nCOMMIT;", []string{"CREATE TABLE t (c int);"}},
		{sqllint.RuleValidateSameTx, "ALTER TABLE t ADD CONSTRAINT k CHECK (c > 0) NOT VALID;\nALTER TABLE t VALIDATE CONSTRAINT k;", []string{"ALTER TABLE t ADD CONSTRAINT k CHECK (c > 0) NOT VALID;", "ALTER TABLE t VALIDATE CONSTRAINT k;"}},
		{sqllint.RuleDomainConstraint, "ALTER DOMAIN d ADD CONSTRAINT k CHECK (VALUE > 0);", []string{
			"ALTER DOMAIN d ADD CONSTRAINT k CHECK (VALUE > 0) NOT VALID;\nALTER TABLE t ADD CONSTRAINT t_c_positive CHECK (c > 0) NOT VALID;", "ALTER TABLE t VALIDATE CONSTRAINT t_c_positive;"}},
		{sqllint.RuleTableRewrite, "VACUUM FULL t;", []string{noTx + "VACUUM (ANALYZE) t;"}},
		{sqllint.RuleRefreshBlocking, "REFRESH MATERIALIZED VIEW v;", []string{noTx + "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS v_id ON v (id);", "REFRESH MATERIALIZED VIEW CONCURRENTLY v;"}},
		{sqllint.RuleDetachBlocking, "ALTER TABLE p DETACH PARTITION p2024;", []string{noTx + "ALTER TABLE p DETACH PARTITION p2024 CONCURRENTLY;"}},
		{sqllint.RuleTruncateCascade, "TRUNCATE t CASCADE;", []string{"TRUNCATE t, t_items;"}},
		{sqllint.RuleDropDatabase, "DROP DATABASE legacy;", []string{"SELECT 1;"}},
		{sqllint.RuleNotRerunnable, noTx + "CREATE TABLE t (c int);\nCREATE INDEX CONCURRENTLY i ON t (c);", []string{
			noTx + "CREATE TABLE IF NOT EXISTS t (c int);\nCREATE INDEX CONCURRENTLY IF NOT EXISTS i ON t (c);"}},
		{sqllint.RuleLockTimeout, "ALTER TABLE t ALTER COLUMN c SET DEFAULT 0;", []string{"SET lock_timeout = '5s';\nALTER TABLE t ALTER COLUMN c SET DEFAULT 0;"}},
		{sqllint.RuleDoUnchecked, "DO $$ BEGIN EXECUTE format('ALTER TABLE %I ADD COLUMN c int', 't'); END $$;", []string{"DO $$ BEGIN ALTER TABLE t ADD COLUMN c int; END $$;"}},
	} {
		seen[tt.rule] = true
		t.Run(tt.rule, func(t *testing.T) {
			cfg := withTimeout
			if tt.rule == sqllint.RuleLockTimeout {
				cfg = sqllint.Config{}
			}
			var codes []string
			for _, f := range sqllint.Lint(tt.unsafe, cfg) {
				codes = append(codes, f.Code)
			}
			if !slices.Contains(codes, tt.rule) {
				t.Errorf("the unsafe form gives %v, not %s", codes, tt.rule)
			}
			s := sqllint.NewSession(cfg)
			for i, f := range tt.safe {
				for _, got := range s.Lint(f) {
					if got.Allowed == "" {
						t.Errorf("safe form, file %d: %d:%d %s: %s", i+1, got.Line, got.Column, got.Code, got.Message)
					}
				}
			}
		})
	}
	for _, r := range sqllint.Rules {
		if !seen[r.Code] {
			t.Errorf("rule %s has no safe form here", r.Code)
		}
	}
}
