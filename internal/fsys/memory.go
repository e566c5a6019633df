package fsys

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Memory is a file system held in memory: folders, regular files and
// symbolic links, under one root "/". Paths are absolute slash paths; a
// relative path is taken from the root. Every method but Lstat follows
// symbolic links as the Linux kernel and Go's os package do on the disk
// (a ".." after a link leaves the folder the link resolved to; a final
// link is followed by ReadFile, Open, IsDir, Exists, ReadDir, WriteFile
// and Create; Walk reports a link without entering it, as filepath.Walk
// does), so that kustomize, reading a Memory, sees the same tree, and the
// same escapes out of a folder, as on the disk. A link's target is kept as
// given: a relative one is taken from the link's folder, an absolute one
// from the Memory's root.
//
// A Memory is safe for concurrent use; it is meant to be filled once and
// then read by many.
type Memory struct {
	mu   sync.RWMutex
	root *node
}

// NewMemory returns an empty Memory: the root folder alone.
func NewMemory() *Memory {
	return &Memory{root: newDir()}
}

var _ FS = (*Memory)(nil)

// node is a folder, a regular file or a symbolic link.
type node struct {
	mode     fs.FileMode      // type bits and permissions
	data     []byte           // a file's content
	target   string           // a link's target
	children map[string]*node // a folder's entries
}

func newDir() *node { return &node{mode: fs.ModeDir | 0o755, children: map[string]*node{}} }

func (n *node) isDir() bool  { return n.mode.IsDir() }
func (n *node) isLink() bool { return n.mode&fs.ModeSymlink != 0 }

// Limits on following links: what Linux allows in one path resolution
// (MAXSYMLINKS), and what filepath.EvalSymlinks allows.
const (
	maxFollow = 40
	maxEval   = 255
)

// errTooManyLinks is filepath.EvalSymlinks's error for a loop.
var errTooManyLinks = errors.New("EvalSymlinks: too many links")

// found is where a path resolved: the folder holding its last component
// (dir, at the components parts, nil for the root), that component's name
// and node (nil when it does not exist, dir existing).
type found struct {
	dir   *node
	parts []string // the path of the node (or of where it would be), from the root
	name  string
	n     *node
}

// abs makes p absolute: a relative path is taken from the root.
func abs(p string) string {
	if !strings.HasPrefix(p, "/") {
		return "/" + p
	}
	return p
}

// trimSlash is p, absolute, without a trailing slash (but "/").
func trimSlash(p string) string {
	if t := strings.TrimRight(abs(p), "/"); t != "" {
		return t
	}
	return "/"
}

// split is p's components, without empty ones and ".".
func split(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// resolve walks p from the root as the kernel does: each component is
// looked up in the folder reached so far, a link on the way is followed
// (at most limit links in all; its target replaces it, relative to its
// folder), ".." leaves the folder reached (the root's parent is the root).
// The last component is followed when it is a link and followLast is set,
// or when p ends in a slash, which also requires a folder. A missing last
// component is no error: found.n is nil. The caller holds m.mu.
func (m *Memory) resolve(p string, followLast bool, limit int, loopErr error) (found, error) {
	if p == "" {
		return found{}, syscall.ENOENT
	}
	p = abs(p)
	trailing := len(p) > 1 && strings.HasSuffix(p, "/")
	followLast = followLast || trailing
	rest := split(p)
	stack := []*node{m.root} // the folders from the root down to where we are
	var parts []string
	// here is the folder reached, when p ends there (in "..", or in a link
	// to "." or "/", or p is the root).
	here := func() found {
		f := found{n: stack[len(stack)-1], parts: slices.Clone(parts)}
		if len(stack) > 1 {
			f.dir, f.name = stack[len(stack)-2], parts[len(parts)-1]
		}
		return f
	}
	for hops := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		if c == ".." {
			if len(stack) > 1 {
				stack, parts = stack[:len(stack)-1], parts[:len(parts)-1]
			}
			continue
		}
		dir := stack[len(stack)-1]
		child := dir.children[c]
		last := len(rest) == 0
		switch {
		case child == nil && last:
			return found{dir: dir, parts: append(slices.Clone(parts), c), name: c}, nil
		case child == nil:
			return found{}, syscall.ENOENT
		case child.isLink() && (!last || followLast):
			if hops++; hops > limit {
				return found{}, loopErr
			}
			if strings.HasPrefix(child.target, "/") {
				stack, parts = stack[:1], parts[:0]
			}
			rest = append(split(child.target), rest...)
		case last && trailing && !child.isDir():
			return found{}, syscall.ENOTDIR
		case last:
			return found{dir: dir, parts: append(slices.Clone(parts), c), name: c, n: child}, nil
		case !child.isDir():
			return found{}, syscall.ENOTDIR
		default:
			stack, parts = append(stack, child), append(parts, c)
		}
	}
	return here(), nil
}

// lookup is what p names, following a final link when follow is set; an
// *fs.PathError (op, p) when it does not exist or cannot be reached.
func (m *Memory) lookup(op, p string, follow bool) (found, error) {
	f, err := m.resolve(p, follow, maxFollow, syscall.ELOOP)
	if err == nil && f.n == nil {
		err = syscall.ENOENT
	}
	if err != nil {
		return found{}, &fs.PathError{Op: op, Path: p, Err: err}
	}
	return f, nil
}

// Lstat describes p without following a final symbolic link.
func (m *Memory) Lstat(p string) (fs.FileInfo, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	f, err := m.lookup("lstat", p, false)
	if err != nil {
		return nil, err
	}
	return info(f.n, p), nil
}

// stat describes p after links.
func (m *Memory) stat(p string) (fs.FileInfo, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	f, err := m.lookup("stat", p, true)
	if err != nil {
		return nil, err
	}
	return info(f.n, p), nil
}

// EvalSymlinks is p, made absolute and clean (lexically, as Disk's
// filepath.Abs does), with every link resolved, as filepath.EvalSymlinks
// gives it: an error when a component is missing (a
// dangling link), is not a folder where one is needed, or when more than
// 255 links are followed (a loop).
func (m *Memory) EvalSymlinks(p string) (string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	f, err := m.resolve(filepath.Clean(abs(p)), true, maxEval, errTooManyLinks)
	if err == nil && f.n == nil {
		err = &fs.PathError{Op: "lstat", Path: "/" + strings.Join(f.parts, "/"), Err: syscall.ENOENT}
	}
	if err != nil {
		return "", err
	}
	return "/" + strings.Join(f.parts, "/"), nil
}

// IsDir reports whether p is a folder, after links.
func (m *Memory) IsDir(p string) bool {
	fi, err := m.stat(p)
	return err == nil && fi.IsDir()
}

// Exists reports whether p exists, after links (a dangling link does not).
func (m *Memory) Exists(p string) bool {
	_, err := m.stat(p)
	return err == nil
}

// ReadFile returns a copy of the file p's content.
func (m *Memory) ReadFile(p string) ([]byte, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	f, err := m.lookup("open", p, true)
	if err != nil {
		return nil, err
	}
	if f.n.isDir() {
		return nil, &fs.PathError{Op: "read", Path: p, Err: syscall.EISDIR}
	}
	return slices.Clone(f.n.data), nil
}

// readDirNames is the names in the folder p, after links, sorted.
func (m *Memory) readDirNames(op, p string) ([]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	f, err := m.lookup(op, p, true)
	if err != nil {
		return nil, err
	}
	if !f.n.isDir() {
		return nil, &fs.PathError{Op: "readdirent", Path: p, Err: syscall.ENOTDIR}
	}
	names := make([]string, 0, len(f.n.children))
	for name := range f.n.children {
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

// ReadDir returns the names in the folder p (after links), sorted, as
// kustomize's disk file system does.
func (m *Memory) ReadDir(p string) ([]string, error) {
	return m.readDirNames("open", p)
}

// CleanedAbs is p, made absolute and clean and with its links resolved,
// as a folder and a file name in it ("" when p is a folder), as
// kustomize's disk file system gives it (without its log.Fatal).
func (m *Memory) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	absolute := filepath.Clean(abs(p))
	deLinked, err := m.EvalSymlinks(absolute)
	if err != nil {
		return "", "", fmt.Errorf("evalsymlink failure on '%s' : %w", p, err)
	}
	if m.IsDir(deLinked) {
		return filesys.ConfirmedDir(deLinked), "", nil
	}
	d, f := filepath.Split(deLinked)
	d = filepath.Clean(d)
	if !m.IsDir(d) {
		return "", "", fmt.Errorf("first part of '%s' not a directory", deLinked)
	}
	return filesys.ConfirmedDir(d), f, nil
}

// Glob returns the paths matching pattern, as filepath.Glob does on the
// disk (folders too; a pattern without meta characters is returned when
// Lstat finds it), without hidden files unless the pattern's last
// component starts with a dot, as kustomize's disk file system does.
func (m *Memory) Glob(pattern string) ([]string, error) {
	all, err := m.glob(pattern, 0)
	if err != nil {
		return nil, err
	}
	if filesys.IsHiddenFilePath(pattern) {
		return all, nil
	}
	return filesys.RemoveHiddenFiles(all), nil
}

// glob is filepath.Glob's globWithLimit over m.
func (m *Memory) glob(pattern string, depth int) ([]string, error) {
	const pathSeparatorsLimit = 10000
	if depth == pathSeparatorsLimit {
		return nil, filepath.ErrBadPattern
	}
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, err
	}
	if !hasMeta(pattern) {
		if _, err := m.Lstat(pattern); err != nil {
			return nil, nil
		}
		return []string{pattern}, nil
	}
	dir, file := filepath.Split(pattern)
	switch dir {
	case "":
		dir = "."
	case "/":
	default:
		dir = dir[:len(dir)-1]
	}
	if !hasMeta(dir) {
		return m.globIn(dir, file, nil)
	}
	if dir == pattern {
		return nil, filepath.ErrBadPattern
	}
	dirs, err := m.glob(dir, depth+1)
	if err != nil {
		return nil, err
	}
	var matches []string
	for _, d := range dirs {
		if matches, err = m.globIn(d, file, matches); err != nil {
			return matches, err
		}
	}
	return matches, nil
}

// globIn adds the names in the folder dir that match pattern.
func (m *Memory) globIn(dir, pattern string, matches []string) ([]string, error) {
	if !m.IsDir(dir) {
		return matches, nil
	}
	names, err := m.readDirNames("open", dir)
	if err != nil {
		return matches, nil
	}
	for _, n := range names {
		ok, err := filepath.Match(pattern, n)
		if err != nil {
			return matches, err
		}
		if ok {
			matches = append(matches, filepath.Join(dir, n))
		}
	}
	return matches, nil
}

func hasMeta(p string) bool { return strings.ContainsAny(p, `*?[\`) }

// Walk walks the tree at root as filepath.Walk does on the disk: in
// lexical order, each entry described by Lstat, a link (to a folder too)
// reported and not entered. walkFn may read m but not write it.
func (m *Memory) Walk(root string, walkFn filepath.WalkFunc) error {
	fi, err := m.Lstat(root)
	if err != nil {
		err = walkFn(root, nil, err)
	} else {
		err = m.walk(root, fi, walkFn)
	}
	// Compared as filepath.Walk does: a wrapped SkipDir is an error.
	if err == filepath.SkipDir || err == filepath.SkipAll { //nolint:errorlint
		return nil
	}
	return err
}

// walk is filepath.Walk's walk over m.
func (m *Memory) walk(p string, fi fs.FileInfo, walkFn filepath.WalkFunc) error {
	if !fi.IsDir() {
		return walkFn(p, fi, nil)
	}
	names, err := m.readDirNames("open", p)
	err1 := walkFn(p, fi, err)
	if err != nil || err1 != nil {
		return err1
	}
	for _, name := range names {
		name := filepath.Join(p, name)
		fi, err := m.Lstat(name)
		if err != nil {
			if err := walkFn(name, fi, err); err != nil && err != filepath.SkipDir { //nolint:errorlint // as filepath.Walk
				return err
			}
			continue
		}
		if err := m.walk(name, fi, walkFn); err != nil && (!fi.IsDir() || err != filepath.SkipDir) { //nolint:errorlint // as filepath.Walk
			return err
		}
	}
	return nil
}

// Open opens the file p (after links) for reading.
func (m *Memory) Open(p string) (filesys.File, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	f, err := m.lookup("open", p, true)
	if err != nil {
		return nil, err
	}
	return &file{m: m, n: f.n, path: p}, nil
}

// Create creates or truncates the file p (after links; a dangling link's
// target is created) and opens it for reading and writing.
func (m *Memory) Create(p string) (filesys.File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, err := m.writable("open", p)
	if err != nil {
		return nil, err
	}
	f.n.data = nil
	return &file{m: m, n: f.n, path: p, write: true}, nil
}

// WriteFile writes data to the file p (after links; a dangling link's
// target is created), replacing its content.
func (m *Memory) WriteFile(p string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, err := m.writable("open", p)
	if err != nil {
		return err
	}
	f.n.data = slices.Clone(data)
	return nil
}

// writable is the regular file p, after links, made when missing in an
// existing folder. The caller holds m.mu for writing.
func (m *Memory) writable(op, p string) (found, error) {
	f, err := m.resolve(p, true, maxFollow, syscall.ELOOP)
	switch {
	case err != nil:
	case f.n == nil:
		if strings.HasSuffix(p, "/") {
			err = syscall.EISDIR
			break
		}
		f.n = &node{mode: 0o644}
		f.dir.children[f.name] = f.n
	case f.n.isDir():
		err = syscall.EISDIR
	}
	if err != nil {
		return found{}, &fs.PathError{Op: op, Path: p, Err: err}
	}
	return f, nil
}

// Mkdir makes the folder p, whose parent must exist, as os.Mkdir does: an
// error when p exists (a dangling link too).
func (m *Memory) Mkdir(p string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mkdir(p)
}

func (m *Memory) mkdir(p string) error {
	f, err := m.resolve(trimSlash(p), false, maxFollow, syscall.ELOOP)
	switch {
	case err != nil:
	case f.n != nil:
		err = syscall.EEXIST
	default:
		f.dir.children[f.name] = newDir()
	}
	if err != nil {
		return &fs.PathError{Op: "mkdir", Path: p, Err: err}
	}
	return nil
}

// MkdirAll makes the folder p and the missing folders above it, as
// os.MkdirAll does.
func (m *Memory) MkdirAll(p string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mkdirAll(p)
}

func (m *Memory) mkdirAll(p string) error {
	if f, err := m.resolve(p, true, maxFollow, syscall.ELOOP); err == nil && f.n != nil {
		if f.n.isDir() {
			return nil
		}
		return &fs.PathError{Op: "mkdir", Path: p, Err: syscall.ENOTDIR}
	}
	trimmed := trimSlash(p)
	if parent := filepath.Dir(trimmed); parent != trimmed {
		if err := m.mkdirAll(parent); err != nil {
			return err
		}
	}
	if err := m.mkdir(p); err != nil {
		if f, ferr := m.resolve(p, false, maxFollow, syscall.ELOOP); ferr == nil && f.n != nil && f.n.isDir() {
			return nil
		}
		return err
	}
	return nil
}

// RemoveAll removes p and what it holds, not following a final link; a
// missing p is no error. The root cannot be removed.
func (m *Memory) RemoveAll(p string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, err := m.resolve(trimSlash(p), false, maxFollow, syscall.ELOOP)
	switch {
	case errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) || err == nil && f.n == nil:
		return nil
	case err != nil:
		return &fs.PathError{Op: "unlinkat", Path: p, Err: err}
	case f.dir == nil:
		return &fs.PathError{Op: "unlinkat", Path: p, Err: syscall.EBUSY}
	}
	delete(f.dir.children, f.name)
	return nil
}

// Symlink makes linkPath a symbolic link to target, as os.Symlink does:
// the parent must exist, linkPath must not. The target is not checked.
func (m *Memory) Symlink(target, linkPath string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, err := m.resolve(trimSlash(linkPath), false, maxFollow, syscall.ELOOP)
	switch {
	case err != nil:
	case target == "":
		err = syscall.ENOENT
	case f.n != nil:
		err = syscall.EEXIST
	default:
		f.dir.children[f.name] = &node{mode: fs.ModeSymlink | 0o777, target: target}
	}
	if err != nil {
		return &os.LinkError{Op: "symlink", Old: target, New: linkPath, Err: err}
	}
	return nil
}

// basename is the name os.Stat gives the path p: its last component,
// trailing slashes removed.
func basename(p string) string {
	for len(p) > 1 && p[len(p)-1] == '/' {
		p = p[:len(p)-1]
	}
	if i := strings.LastIndexByte(p, '/'); i >= 0 && len(p) > 1 {
		p = p[i+1:]
	}
	return p
}

// info describes the node p names.
func info(n *node, p string) fs.FileInfo {
	fi := fileInfo{name: basename(p), mode: n.mode}
	switch {
	case n.isLink():
		fi.size = int64(len(n.target))
	case !n.isDir():
		fi.size = int64(len(n.data))
	}
	return fi
}

// fileInfo is a node's fs.FileInfo, taken when it was asked for.
type fileInfo struct {
	name string
	size int64
	mode fs.FileMode
}

func (fi fileInfo) Name() string       { return fi.name }
func (fi fileInfo) Size() int64        { return fi.size }
func (fi fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi fileInfo) ModTime() time.Time { return time.Time{} }
func (fi fileInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi fileInfo) Sys() any           { return nil }

// file is an open file of a Memory, with its own offset.
type file struct {
	m      *Memory
	n      *node
	path   string
	off    int
	write  bool
	closed bool
}

func (f *file) Read(p []byte) (int, error) {
	if f.closed {
		return 0, &fs.PathError{Op: "read", Path: f.path, Err: fs.ErrClosed}
	}
	f.m.mu.RLock()
	defer f.m.mu.RUnlock()
	if f.n.isDir() {
		return 0, &fs.PathError{Op: "read", Path: f.path, Err: syscall.EISDIR}
	}
	if f.off >= len(f.n.data) {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := copy(p, f.n.data[f.off:])
	f.off += n
	return n, nil
}

func (f *file) Write(p []byte) (int, error) {
	if f.closed {
		return 0, &fs.PathError{Op: "write", Path: f.path, Err: fs.ErrClosed}
	}
	if !f.write {
		return 0, &fs.PathError{Op: "write", Path: f.path, Err: syscall.EBADF}
	}
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if end := f.off + len(p); end > len(f.n.data) {
		f.n.data = append(f.n.data, make([]byte, end-len(f.n.data))...)
	}
	f.off += copy(f.n.data[f.off:], p)
	return len(p), nil
}

func (f *file) Close() error {
	if f.closed {
		return &fs.PathError{Op: "close", Path: f.path, Err: fs.ErrClosed}
	}
	f.closed = true
	return nil
}

func (f *file) Stat() (fs.FileInfo, error) {
	if f.closed {
		return nil, &fs.PathError{Op: "stat", Path: f.path, Err: fs.ErrClosed}
	}
	f.m.mu.RLock()
	defer f.m.mu.RUnlock()
	return info(f.n, f.path), nil
}
