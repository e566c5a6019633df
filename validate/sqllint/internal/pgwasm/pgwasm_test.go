package pgwasm

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestModule(t *testing.T) {
	if !bytes.HasPrefix(libPGQuery, []byte("\x00asm")) {
		t.Fatalf("libPGQuery (%d bytes) is not a WebAssembly module", len(libPGQuery))
	}
}

// use checks that p scans and parses, and reports PostgreSQL's errors.
func use(t *testing.T, p *Parser) {
	t.Helper()
	js, err := p.Parse("ALTER TABLE t ADD COLUMN c int NOT NULL;")
	if err != nil || !strings.Contains(js, `"AlterTableStmt"`) {
		t.Errorf("Parse = %.80q, %v; want an AlterTableStmt", js, err)
	}
	_, err = p.Parse("SELECT (1;")
	var pe *Error
	if !errors.As(err, &pe) || pe.Message != `syntax error at or near ";"` || pe.Cursorpos != 10 {
		t.Errorf("Parse(SELECT (1;) error = %#v, want PostgreSQL's syntax error at 10", err)
	}
	if b, err := p.Scan("SELECT 1;"); err != nil || len(b) == 0 {
		t.Errorf("Scan = %d bytes, %v", len(b), err)
	}
}

// entries lists the files under dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, path)
		}
		return nil
	})
	return files
}

// TestCompilationCache: the first New compiles and writes the folder, the
// next reads it; an entry wazero cannot read, and a folder it cannot
// write, make New compile in memory, without failing.
func TestCompilationCache(t *testing.T) {
	dir := t.TempDir()
	p, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Compiled {
		t.Errorf("first New(empty folder): Compiled = false")
	}
	use(t, p)
	p.Close()
	files := entries(t, dir)
	if len(files) != 1 {
		t.Fatalf("the folder holds %v, want one entry", files)
	}

	p, err = New(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Compiled {
		t.Errorf("second New: Compiled = true, want the folder's entry read")
	}
	use(t, p)
	p.Close()

	t.Run("corrupt entry", func(t *testing.T) {
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)/2] ^= 0xff // the checksum fails
		bad := t.TempDir()
		if err := os.CopyFS(bad, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, files[0])
		if err := os.WriteFile(filepath.Join(bad, rel), data, 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := New(bad)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if !p.Compiled {
			t.Errorf("New(corrupt entry): Compiled = false")
		}
		use(t, p)
	})

	t.Run("read-only folder without the entry", func(t *testing.T) {
		// wazero's version folder, where nobody (root included) may
		// create a file: the compiled module stays in memory.
		ro := t.TempDir()
		rel, _ := filepath.Rel(dir, filepath.Dir(files[0]))
		if err := os.Symlink("/proc/self", filepath.Join(ro, rel)); err != nil {
			t.Fatal(err)
		}
		p, err := New(ro)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if !p.Compiled {
			t.Errorf("New(read-only folder): Compiled = false")
		}
		use(t, p)
	})

}
