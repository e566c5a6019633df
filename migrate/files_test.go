package migrate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/migrate"
)

func names(files []migrate.File) []string {
	var n []string
	for _, f := range files {
		n = append(n, f.Name)
	}
	return n
}

func TestLoadOrder(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"010-ten.sql": "SELECT 10;\n",
		"002-two.sql": "SELECT 2;\n",
		"001-one.sql": "-- codeloc:no-transaction\r\nCREATE INDEX CONCURRENTLY i ON t (c);\r\n",
		"README.md":   "not a migration",
	})
	files, err := migrate.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"001-one.sql", "002-two.sql", "010-ten.sql"}, names(files)); diff != "" {
		t.Errorf("all *.sql, lexical (-want +got):\n%s", diff)
	}
	if !files[0].NoTransaction || files[1].NoTransaction {
		t.Errorf("NoTransaction = %v, %v; want true, false", files[0].NoTransaction, files[1].NoTransaction)
	}
	// printf 'SELECT 2;\n' | sha256sum
	if got, want := files[1].SHA256, "a41109d24069b4822ddc5f367b25d484dc7e839bff338ce7a3e5da641caacda0"; got != want {
		t.Errorf("SHA256 = %q, want %q", got, want)
	}

	files, err = migrate.Load(dir, []string{"010-ten.sql", "001-one.sql"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"010-ten.sql", "001-one.sql"}, names(files)); diff != "" {
		t.Errorf("listed order (-want +got):\n%s", diff)
	}
}

// A mounted ConfigMap is made of links into a hidden, timestamped folder.
func TestLoadConfigMapMount(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "..2026_06_24_10_00_00.123")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "001-one.sql"), []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, "..2026_06_24_10_00_00.123", filepath.Join(dir, "..data"))
	mustSymlink(t, "..data/001-one.sql", filepath.Join(dir, "001-one.sql"))
	files, err := migrate.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].SQL != "SELECT 1;\n" {
		t.Errorf("files = %+v", files)
	}
}

func TestLoadProblems(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.sql")
	if err := os.WriteFile(outside, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := writeFiles(t, map[string]string{
		"001-ok.sql":        "SELECT 1;\n",
		"002-empty.sql":     " \n",
		"003-late.sql":      "SELECT 1;\n-- codeloc:no-transaction\n",
		"004-spaced.sql":    "-- codeloc:no-transaction \nSELECT 1;\n",
		"Bad-name.sql":      "SELECT 1;\n",
		"006-uppercase.SQL": "SELECT 1;\n",
	})
	if err := os.Mkdir(filepath.Join(dir, "005-folder.sql"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, outside, filepath.Join(dir, "007-escape.sql"))
	mustSymlink(t, "../"+filepath.Base(filepath.Dir(outside))+"/secret.sql", filepath.Join(dir, "008-relative-escape.sql"))

	tests := []struct {
		name  string
		files []string
		want  []string // error lines
	}{{
		name:  "each problem once, all together",
		files: []string{"001-ok.sql", "002-empty.sql", "003-late.sql", "004-spaced.sql", "005-folder.sql", "001-ok.sql", "009-missing.sql"},
		want: []string{
			"002-empty.sql: is empty: write the SQL or remove the file",
			`003-late.sql: mentions codeloc:no-transaction but its first line is not exactly "-- codeloc:no-transaction": fix the first line, or remove the mention`,
			`004-spaced.sql: mentions codeloc:no-transaction but its first line is not exactly "-- codeloc:no-transaction": fix the first line, or remove the mention`,
			"005-folder.sql: is not a regular file",
			"001-ok.sql is listed twice",
			"009-missing.sql: file not found in the migrations folder",
		},
	}, {
		name:  "names",
		files: []string{"Bad-name.sql", "1-short.sql", "../001-ok.sql", "sub/001-ok.sql", "/etc/001-ok.sql", "006-uppercase.SQL", "001-ok"},
		want: []string{
			`"Bad-name.sql" is not a migration file name: name it NNN-name.sql (3+ digits, '-', lowercase name), a plain file in the folder`,
			`"1-short.sql" is not a migration file name: name it NNN-name.sql (3+ digits, '-', lowercase name), a plain file in the folder`,
			`"../001-ok.sql" is not a migration file name: name it NNN-name.sql (3+ digits, '-', lowercase name), a plain file in the folder`,
			`"sub/001-ok.sql" is not a migration file name: name it NNN-name.sql (3+ digits, '-', lowercase name), a plain file in the folder`,
			`"/etc/001-ok.sql" is not a migration file name: name it NNN-name.sql (3+ digits, '-', lowercase name), a plain file in the folder`,
			`"006-uppercase.SQL" is not a migration file name: name it NNN-name.sql (3+ digits, '-', lowercase name), a plain file in the folder`,
			`"001-ok" is not a migration file name: name it NNN-name.sql (3+ digits, '-', lowercase name), a plain file in the folder`,
		},
	}, {
		name:  "links leaving the folder",
		files: []string{"007-escape.sql", "008-relative-escape.sql"},
		want:  []string{"007-escape.sql: path escapes from parent", "008-relative-escape.sql: path escapes from parent"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := migrate.Load(dir, tt.files)
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tt.want, strings.Split(err.Error(), "\n")); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadFolderProblems(t *testing.T) {
	empty := writeFiles(t, map[string]string{"notes.txt": "x"})
	for _, tt := range []struct{ dir, want string }{
		{empty, "migrations folder " + empty + " holds no *.sql file"},
		{filepath.Join(empty, "missing"), "migrations folder " + filepath.Join(empty, "missing") + ": no such file or directory"},
		{filepath.Join(empty, "notes.txt"), "migrations folder " + filepath.Join(empty, "notes.txt") + ": not a directory"},
	} {
		_, err := migrate.Load(tt.dir, nil)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Load(%s) = %v, want %q", tt.dir, err, tt.want)
		}
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
