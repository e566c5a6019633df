package migrate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/sqltext"
)

// NoTransactionMarker is the exact first line that makes a file run
// outside a transaction (for CREATE INDEX CONCURRENTLY and the like): the
// one the render's lint reads too.
const NoTransactionMarker = sqltext.NoTransactionMarker

// MaxFileBytes bounds one migration file: the same bound as the
// declaration's, since the files travel in one ConfigMap.
const MaxFileBytes = names.MaxMigrationBytes

// File is one migration read from disk.
type File struct {
	Name          string // NNN-name.sql
	SQL           string // the whole content
	SHA256        string // hex sha256 of the content
	NoTransaction bool   // the first line is NoTransactionMarker
}

// Load reads the named files of dir in the given order, or every *.sql file
// of dir in lexical order when names is empty. Each must be a plain
// NNN-name.sql name of a regular file inside dir; a symbolic link is
// followed only when it stays inside dir (a mounted ConfigMap is made of
// such links). All problems are reported together, one line each.
func Load(dir string, names []string) ([]File, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("migrations folder %s: %w", dir, unwrapPath(err))
	}
	defer root.Close()
	if len(names) == 0 {
		if names, err = listSQL(root); err != nil {
			return nil, fmt.Errorf("migrations folder %s: %w", dir, unwrapPath(err))
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("migrations folder %s holds no *.sql file", dir)
		}
	}
	var files []File
	var errs []error
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			errs = append(errs, fmt.Errorf("%s is listed twice", name))
			continue
		}
		seen[name] = true
		f, err := loadFile(root, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		files = append(files, f)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return files, nil
}

// listSQL returns the *.sql entries of root in lexical order.
func listSQL(root *os.Root) ([]string, error) {
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sql") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// loadFile reads and checks one migration file.
func loadFile(root *os.Root, name string) (File, error) {
	if !names.IsMigrationName(name) {
		return File{}, fmt.Errorf("%q is not a migration file name: name it NNN-name.sql (3+ digits, '-', lowercase name), a plain file in the folder", name)
	}
	data, err := readRegular(root, name)
	if err != nil {
		return File{}, fmt.Errorf("%s: %w", name, err)
	}
	sum := sha256.Sum256(data)
	f := File{Name: name, SQL: string(data), SHA256: hex.EncodeToString(sum[:])}
	if strings.TrimSpace(f.SQL) == "" {
		return File{}, fmt.Errorf("%s: is empty: write the SQL or remove the file", name)
	}
	f.NoTransaction = sqltext.NoTransaction(f.SQL)
	if !f.NoTransaction && strings.Contains(f.SQL, "codeloc:no-transaction") {
		return File{}, fmt.Errorf("%s: mentions codeloc:no-transaction but its first line is not exactly %q: fix the first line, or remove the mention", name, NoTransactionMarker)
	}
	return f, nil
}

// readRegular reads name from root; it must be a regular file, possibly
// behind symbolic links that stay inside root.
func readRegular(root *os.Root, name string) ([]byte, error) {
	fh, err := root.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errors.New("file not found in the migrations folder")
		}
		return nil, unwrapPath(err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, unwrapPath(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("is not a regular file")
	}
	if fi.Size() > MaxFileBytes {
		return nil, fmt.Errorf("is %d bytes, more than %d: split the migration", fi.Size(), MaxFileBytes)
	}
	return io.ReadAll(io.LimitReader(fh, MaxFileBytes+1))
}

// unwrapPath drops the *PathError wrapper, whose path the caller already
// names; a link leaving the folder reads "path escapes from parent".
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// firstLine returns the first line of s without its line ending.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(s, "\r")
}
