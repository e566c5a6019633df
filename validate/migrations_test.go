package validate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/internal/sqltext"
)

// migrationTexts are migration contents with what migrationContent says
// of them ("" when they are a migration).
var migrationTexts = []struct{ name, sql, want string }{
	{"a statement", "SELECT 1;\n", ""},
	{"a statement without semicolon", "SELECT 1", ""},
	{"after comments", "-- why\n/* how */ CREATE TABLE t (c int);", ""},
	{"after the directive", "-- codeloc:no-transaction\r\nCREATE INDEX CONCURRENTLY i ON t (c);\r\n", ""},
	{"one character", "x", ""},
	{"in a nested comment's tail", "/* a /* b */ c */ SELECT 1", ""},
	{"a vertical tab is no statement", "\v", "migration-empty: holds no SQL statement, only comments and white space"},
	{"white space", "  \n\t\r\n\f", "migration-empty: holds no SQL statement, only comments and white space"},
	{"the directive alone", "-- codeloc:no-transaction\n", "migration-empty: holds no SQL statement, only comments and white space"},
	{"the directive without newline", "-- codeloc:no-transaction", "migration-empty: holds no SQL statement, only comments and white space"},
	{"comments and semicolons", "-- one\n/* two */\n;;\n -- three", "migration-empty: holds no SQL statement, only comments and white space"},
	{"a nested block comment", "/* outer /* inner */ still the outer; SELECT 1; */", "migration-empty: holds no SQL statement, only comments and white space"},
	{"an unclosed block comment", "/* SELECT 1;", "migration-empty: holds no SQL statement, only comments and white space"},
	{"a byte order mark and Unicode spaces", "\ufeff\u00a0\u2003-- x\n\u3000", "migration-empty: holds no SQL statement, only comments and white space"},
	{"a NUL byte", "SELECT '\x00';", "migration-not-text: is not text: at byte 8 (line 1) is a NUL byte"},
	{"a NUL byte in a comment", "-- a\n-- \x00\n", "migration-not-text: is not text: at byte 8 (line 2) is a NUL byte"},
	{"Latin-1", "SELECT 1;\n-- caf\xe9\n", "migration-not-text: is not text: at byte 16 (line 2) is byte 0xe9, which is not UTF-8"},
	{"an overlong encoding", "\xc0\x80", "migration-not-text: is not text: at byte 0 (line 1) is byte 0xc0, which is not UTF-8"},
	{"a surrogate", "SELECT '\xed\xa0\x80'", "migration-not-text: is not text: at byte 8 (line 1) is byte 0xed, which is not UTF-8"},
	{"a truncated character", "SELECT '\xe2\x82'", "migration-not-text: is not text: at byte 8 (line 1) is byte 0xe2, which is not UTF-8"},
	{"gzip", "\x1f\x8b\x08\x00\x00\x00\x00\x00", "migration-not-text: is not text: at byte 1 (line 1) is byte 0x8b, which is not UTF-8"},
	{"UTF-8 text", "INSERT INTO t VALUES ('café', '日本');", ""},
}

func TestMigrationContent(t *testing.T) {
	for _, tt := range migrationTexts {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if p := migrationContent([]byte(tt.sql)); p != nil {
				got = p.Code + ": " + p.Message
			}
			if got != tt.want {
				t.Errorf("migrationContent(%q) = %q, want %q", tt.sql, got, tt.want)
			}
		})
	}
}

// TestSQLHasStatementAgreesWithSplit: what codeloc calls empty, the
// migration Job finds no statement in; on ASCII text without vertical tabs
// (PostgreSQL's one space codeloc counts and Split does not) they agree.
func TestSQLHasStatementAgreesWithSplit(t *testing.T) {
	more := []string{"", ";", "--", "/*/", "/**/;", "-- a\n;", "'--'", "$$ $$", "E'\\''", "/* */ /* */", "-\n-", "/ *", "*/"}
	texts := more
	for _, tt := range migrationTexts {
		texts = append(texts, tt.sql)
	}
	for _, s := range texts {
		split := len(sqltext.Split(s)) > 0
		if ours := sqlHasStatement(s); ours != split && (!split || asciiNoVT(s)) {
			t.Errorf("%q: sqlHasStatement %v, sqltext.Split finds statements: %v", s, ours, split)
		}
	}
}

func asciiNoVT(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] == '\v' {
			return false
		}
	}
	return true
}

// TestMigrationFilesRefused reads declared migrations from a folder:
// each refusal at its entry of dependsOn.migrations, naming the file.
func TestMigrationFilesRefused(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"001-init.sql":      "CREATE TABLE t (c int);\n",
		"002-binary.sql":    "CREATE TABLE u (c int);\n\x00\x01",
		"003-directive.sql": "-- codeloc:no-transaction\n",
		"004-comments.sql":  "/* later */\n-- TODO\n",
	}
	for name, sql := range files {
		if err := os.MkdirAll(filepath.Join(dir, MigrationsDir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, MigrationsDir, name), []byte(sql), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	doc := "codeLocation: a\nready: true\nrevision: abcdef0\ncontractVersion: 3\nresources: {cpu: 1, memory: 1Gi}\n" +
		"dependsOn:\n  database: [pgvector]\n  secrets: [pgvector-pg-auth]\n  migrations: [001-init.sql, 002-binary.sql, 003-directive.sql, 004-comments.sql]\n"
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, problems := LoadDeclaration(dir)
	var got []string
	for _, p := range problems {
		got = append(got, fmt.Sprintf("%d:%d %s %s: %s (%s)", p.Line, p.Column, p.Code, p.Path, p.Message, p.Hint))
	}
	want := []string{
		`9:30 migration-not-text dependsOn.migrations[1]: migrations/002-binary.sql: is not text: at byte 24 (line 2) is a NUL byte (save it as UTF-8 text without NUL bytes, and write binary values as SQL literals ('\x...'::bytea, decode('...', 'base64')))`,
		"9:46 migration-empty dependsOn.migrations[2]: migrations/003-directive.sql: holds no SQL statement, only comments and white space (write the SQL or remove the migration)",
		"9:65 migration-empty dependsOn.migrations[3]: migrations/004-comments.sql: holds no SQL statement, only comments and white space (write the SQL or remove the migration)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestDeclaredQuantitiesPositive: the declaration's resources and bucket
// sizes are positive quantities, whatever their spelling.
func TestDeclaredQuantitiesPositive(t *testing.T) {
	tests := []struct{ cpu, want string }{
		{"500m", ""},
		{"1", ""},
		{"+1", ""},
		{".5", ""},
		{"1e3", ""},
		{`"2"`, ""},
		{"0", `bad-quantity resources.cpu: "0" is not positive`},
		{"-0", `bad-quantity resources.cpu: "-0" is not positive`},
		{"-1", `bad-quantity resources.cpu: "-1" is not positive`},
		{"-500m", `bad-quantity resources.cpu: "-500m" is not positive`},
		{`"-1"`, `bad-quantity resources.cpu: "-1" is not positive`},
		{"-1e3", `bad-quantity resources.cpu: "-1e3" is not positive`},
		{"0x10", `bad-quantity resources.cpu: "0x10" is not a quantity`},
		{"1_000", `bad-quantity resources.cpu: "1_000" is not a quantity`},
		{"0o10", `bad-quantity resources.cpu: "0o10" is not a quantity`},
		{".inf", `bad-quantity resources.cpu: ".inf" is not a quantity`},
	}
	for _, tt := range tests {
		for _, field := range []string{"cpu", "memory", "disk"} {
			values := map[string]string{"cpu": "1", "memory": "1Gi", "disk": "1Gi"}
			values[field] = tt.cpu
			doc := fmt.Sprintf("codeLocation: a\nready: true\nrevision: abcdef0\ncontractVersion: 3\nresources: {cpu: %s, memory: %s, disk: %s}\n", values["cpu"], values["memory"], values["disk"])
			_, problems := ParseDeclaration("m.yaml", []byte(doc))
			var got string
			for _, p := range problems {
				got += p.Code + " " + p.Path + ": " + p.Message
			}
			if want := strings.Replace(tt.want, "resources.cpu", "resources."+field, 1); got != want {
				t.Errorf("%s: %s: got %q, want %q", field, tt.cpu, got, want)
			}
		}
	}
}

// TestLintMigrationsAcrossFiles: the files are linted in the Job's order as
// one session, so a CHECK (col IS NOT NULL) validated in an earlier file
// lets a later SET NOT NULL pass, and only there.
func TestLintMigrationsAcrossFiles(t *testing.T) {
	c := &Contract{}
	c.DB.Migrations.LockTimeout = DefaultLockTimeout
	lint := func(files ...string) []string {
		d := &Declaration{File: "cl/codelocation.yaml"}
		for i, sql := range files {
			d.Migrations = append(d.Migrations, Migration{Name: fmt.Sprintf("%03d-x.sql", i+1), SQL: []byte(sql)})
		}
		var got []string
		for _, p := range LintMigrations(d, c) {
			got = append(got, fmt.Sprintf("%s:%d %s", filepath.Base(p.File), p.Line, p.Code))
		}
		return got
	}
	const (
		add = "ALTER TABLE t ADD CONSTRAINT t_c_nn CHECK (c IS NOT NULL) NOT VALID;"
		val = "ALTER TABLE t VALIDATE CONSTRAINT t_c_nn;"
		set = "ALTER TABLE t ALTER COLUMN c SET NOT NULL;"
	)
	if got := lint(add, val, set); got != nil {
		t.Errorf("check, validate, set in three files: %v", got)
	}
	if got, want := lint(set, add, val), []string{"001-x.sql:1 sql-set-not-null"}; !cmp.Equal(got, want) {
		t.Errorf("set before the check: %v, want %v", got, want)
	}
}
