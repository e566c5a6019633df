package fsys

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/api/krusty"
)

// item is one entry of a test tree: a folder (path ends in "/"), a file
// (body), or a symbolic link (body starts with "->").
type item struct{ path, body string }

// tree is the tree the cases read, on both file systems.
var tree = []item{
	{"/outside.yaml", "outside: 1\n"},
	{"/app/kustomization.yaml", "resources: []\n"},
	{"/app/.hidden.yaml", "hidden: 1\n"},
	{"/app/file", "plain\n"},
	{"/app/empty/", ""},
	{"/app/base/a.yaml", "a: 1\n"},
	{"/app/base/b.yml", "b: 1\n"},
	{"/app/base/sub/c.yaml", "c: 1\n"},
	{"/app/linkdir", "->base"},                          // a link to a folder
	{"/app/linkdir2", "->linkdir"},                      // a link to a link to a folder
	{"/app/nested/deep/f.yaml", "f: 1\n"},               //
	{"/app/nested/up", "->../base/a.yaml"},              // .. in a target
	{"/app/nested/deep/upup", "->../../linkdir/a.yaml"}, // .. then a link
	{"/app/nested/deep/parent", "->.."},                 // a link to its parent folder
	{"/app/nested/linkbase", "->../base"},               // .. after it is physical
	{"/app/nested/chain1", "->chain2"},                  // nested links to a file
	{"/app/nested/chain2", "->chain3"},
	{"/app/nested/chain3", "->deep/f.yaml"},
	{"/app/dangling", "->missing.yaml"},
	{"/app/danglingdir", "->nowhere/x.yaml"},
	{"/app/loop1", "->loop2"},
	{"/app/loop2", "->loop1"},
	{"/app/self", "->self"},
	{"/app/out", "->../outside.yaml"}, // resolves outside /app
	{"/app/outdir", "->.."},           // a folder outside /app
	{"/app/dot", "->."},
}

func init() {
	// Chains of links: 50 are more than one path resolution follows (40 on
	// Linux) but fewer than EvalSymlinks does (255); 300 are more.
	for _, n := range []int{50, 300} {
		dir := fmt.Sprintf("/app/chain%d/", n)
		for i := range n - 1 {
			tree = append(tree, item{fmt.Sprintf("%sl%d", dir, i), fmt.Sprintf("->l%d", i+1)})
		}
		tree = append(tree, item{fmt.Sprintf("%sl%d", dir, n-1), "->../file"})
		queried = append(queried, dir+"l0")
	}
}

// queried are the paths each reading method is asked about.
var queried = []string{
	"/", "/app", "/app/", "/app/file", "/app/file/", "/app/file/x", "/app/missing", "/app/missing/x", "/app/empty",
	"/app/linkdir", "/app/linkdir/", "/app/linkdir/a.yaml", "/app/linkdir2/sub/c.yaml", "/app/linkdir/../file",
	"/app/nested/up", "/app/nested/deep/upup", "/app/nested/deep/parent", "/app/nested/deep/parent/up",
	"/app/nested/linkbase/../nested", "/app/nested/linkbase/../base/a.yaml", "/app/nested/chain1",
	"/app/dangling", "/app/danglingdir", "/app/loop1", "/app/loop1/x", "/app/self", "/app/out", "/app/outdir",
	"/app/outdir/outside.yaml", "/app/dot", "/app/dot/dot/file", "/app/./base/../file", "/app/base/sub/../a.yaml",
	"/app/../app/file", "/app/nested/linkbase/../file", "/app/nested/linkbase/../../outside.yaml", "/app/.hidden.yaml",
}

// side is one file system under test with the tree built in it: paths in
// the cases are rooted at "/", mapped to where the tree is.
type side struct {
	name string
	fs   FS
	root string // the tree's folder ("" for Memory)
	// symlink makes a link, as os.Symlink.
	symlink func(target, link string) error
}

// path is the case path p on s.
func (s side) path(p string) string {
	switch {
	case s.root == "":
		return p
	case p == "/":
		return s.root
	}
	return s.root + p
}

// unpath shows a path of s as a case path.
func (s side) unpath(p string) string {
	if s.root == "" {
		return p
	}
	if p == s.root {
		return "/"
	}
	return strings.Replace(p, s.root, "", 1)
}

// sides builds the tree on the disk (in a temporary folder) and in a
// Memory.
func sides(t *testing.T, items []item) []side {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := NewMemory()
	out := []side{
		{name: "disk", fs: Disk(), root: root, symlink: os.Symlink},
		{name: "memory", fs: m, symlink: m.Symlink},
	}
	for _, s := range out {
		build(t, s, items)
	}
	return out
}

func build(t *testing.T, s side, items []item) {
	t.Helper()
	for _, it := range items {
		p := s.path(it.path)
		if strings.HasSuffix(it.path, "/") {
			must(t, s.fs.MkdirAll(p))
			continue
		}
		must(t, s.fs.MkdirAll(filepath.Dir(p)))
		if target, ok := strings.CutPrefix(it.body, "->"); ok {
			must(t, s.symlink(target, p))
		} else {
			must(t, s.fs.WriteFile(p, []byte(it.body)))
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// errClass is what kind of error err is, which both file systems must
// agree on (their messages differ in the paths).
func errClass(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, fs.ErrNotExist):
		return "not-exist"
	case errors.Is(err, syscall.ENOTDIR):
		return "not-dir"
	case errors.Is(err, syscall.EISDIR):
		return "is-dir"
	case errors.Is(err, syscall.ELOOP), strings.Contains(err.Error(), "too many links"):
		return "loop"
	case errors.Is(err, fs.ErrExist):
		return "exists"
	}
	return "error"
}

// infoSeen is what the cases compare of an fs.FileInfo: the root's name
// is the temporary folder's on the disk.
type infoSeen struct {
	Name string
	Type fs.FileMode
	Size int64 // files and links only: a folder's size is the disk's own
}

func seen(fi fs.FileInfo, isRoot bool) *infoSeen {
	if fi == nil {
		return nil
	}
	i := &infoSeen{Name: fi.Name(), Type: fi.Mode().Type()}
	if isRoot {
		i.Name = "/"
	}
	if !fi.IsDir() {
		i.Size = fi.Size()
	}
	return i
}

// reading is what every reading method says about one path.
type reading struct {
	Lstat        *infoSeen
	LstatErr     string
	IsDir        bool
	Exists       bool
	ReadFile     string
	ReadFileErr  string
	Open         string
	OpenStat     *infoSeen
	OpenErr      string
	ReadDir      []string
	ReadDirErr   string
	EvalSymlinks string
	EvalErr      string
	CleanedDir   string
	CleanedFile  string
	CleanedErr   string
}

func read(s side, p string) reading {
	var r reading
	fsys, path := s.fs, s.path(p)
	fi, err := fsys.Lstat(path)
	r.Lstat, r.LstatErr = seen(fi, p == "/"), errClass(err)
	r.IsDir, r.Exists = fsys.IsDir(path), fsys.Exists(path)
	data, err := fsys.ReadFile(path)
	r.ReadFile, r.ReadFileErr = string(data), errClass(err)
	if f, err := fsys.Open(path); err != nil {
		r.OpenErr = errClass(err)
	} else {
		st, _ := f.Stat()
		r.OpenStat = seen(st, p == "/")
		data, err := io.ReadAll(f)
		r.Open, r.OpenErr = string(data), errClass(err)
		f.Close()
	}
	names, err := fsys.ReadDir(path)
	r.ReadDir, r.ReadDirErr = names, errClass(err)
	if p == "/" { // the disk's root holds what the test made
		r.ReadDir = nil
	}
	ev, err := fsys.EvalSymlinks(path)
	r.EvalSymlinks, r.EvalErr = s.unpath(ev), errClass(err)
	d, f, err := fsys.CleanedAbs(path)
	r.CleanedDir, r.CleanedFile, r.CleanedErr = s.unpath(string(d)), f, errClass(err)
	if err == nil && p == "/" {
		r.CleanedDir = "/"
	}
	return r
}

// TestReading asks both file systems the same questions about the same
// tree and compares every answer.
func TestReading(t *testing.T) {
	ss := sides(t, tree)
	for _, p := range queried {
		t.Run(p, func(t *testing.T) {
			want, got := read(ss[0], p), read(ss[1], p)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("memory differs from the disk (-disk +memory):\n%s", diff)
			}
		})
	}
	// What the comparison rests on, said once: the disk does what the
	// cases claim.
	for _, s := range ss {
		t.Run(s.name+"/expected", func(t *testing.T) {
			d, f, err := s.fs.CleanedAbs(s.path("/app/linkdir2/sub/c.yaml"))
			if err != nil || s.unpath(string(d)) != "/app/base/sub" || f != "c.yaml" {
				t.Errorf("CleanedAbs through linked folders: %q %q %v", d, f, err)
			}
			if ev, err := s.fs.EvalSymlinks(s.path("/app/out")); err != nil || s.unpath(ev) != "/outside.yaml" {
				t.Errorf("EvalSymlinks of a link out: %q %v", ev, err)
			}
			if _, err := s.fs.EvalSymlinks(s.path("/app/loop1")); errClass(err) != "loop" {
				t.Errorf("EvalSymlinks of a loop: %v", err)
			}
			if ev, err := s.fs.EvalSymlinks(s.path("/app/chain50/l0")); err != nil || s.unpath(ev) != "/app/file" {
				t.Errorf("EvalSymlinks of 50 links: %q %v", ev, err)
			}
			if _, err := s.fs.ReadFile(s.path("/app/chain50/l0")); errClass(err) != "loop" {
				t.Errorf("ReadFile through 50 links: %v, want a loop", err)
			}
			if _, err := s.fs.EvalSymlinks(s.path("/app/chain300/l0")); errClass(err) != "loop" {
				t.Errorf("EvalSymlinks of 300 links: %v, want a loop", err)
			}
			if _, err := s.fs.EvalSymlinks(s.path("/app/dangling")); errClass(err) != "not-exist" {
				t.Errorf("EvalSymlinks of a dangling link: %v", err)
			}
			// /app/nested/file, taken lexically, does not exist.
			if !s.fs.Exists(s.path("/app/nested/linkbase/../file")) {
				t.Error(".. after a link is taken lexically")
			}
		})
	}
}

// walkStep is one call of a WalkFunc.
type walkStep struct {
	Path string
	Info *infoSeen
	Err  string
}

// TestWalk compares Walk's calls: order, Lstat's info (links reported,
// not entered), SkipDir.
func TestWalk(t *testing.T) {
	ss := sides(t, tree)
	tests := []struct {
		root string
		skip string // a folder to skip
	}{
		{root: "/"},
		{root: "/app"},
		{root: "/app", skip: "/app/base"},
		{root: "/app/linkdir"}, // a link as the root: not entered
		{root: "/app/linkdir/"},
		{root: "/app/nested/deep/parent/deep"},
		{root: "/app/file"},
		{root: "/app/missing"},
	}
	for _, tt := range tests {
		t.Run(tt.root+" skip "+tt.skip, func(t *testing.T) {
			var steps [2][]walkStep
			var errs [2]string
			for i, s := range ss {
				err := s.fs.Walk(s.path(tt.root), func(p string, fi fs.FileInfo, err error) error {
					steps[i] = append(steps[i], walkStep{s.unpath(p), seen(fi, s.unpath(p) == "/"), errClass(err)})
					if tt.skip != "" && s.unpath(p) == tt.skip {
						return filepath.SkipDir
					}
					return nil
				})
				errs[i] = errClass(err)
			}
			if diff := cmp.Diff(steps[0], steps[1]); diff != "" {
				t.Errorf("walks differ (-disk +memory):\n%s", diff)
			}
			if errs[0] != errs[1] {
				t.Errorf("Walk returned %q on the disk, %q in memory", errs[0], errs[1])
			}
			if tt.root == "/app" && tt.skip == "" && len(steps[1]) < 20 {
				t.Errorf("a short walk: %v", steps[1])
			}
		})
	}
}

// TestGlob compares Glob.
func TestGlob(t *testing.T) {
	ss := sides(t, tree)
	for _, pattern := range []string{
		"/app/*.yaml", "/app/*", "/app/.h*", "/app/*/a.yaml", "/app/*/*/*", "/app/nested/deep/parent/*",
		"/app/dangling", "/app/missing", "/app/l?nkdir/sub/*.yaml", "/app/base/[ab].y*ml", "/app/[", "/*/base",
	} {
		t.Run(pattern, func(t *testing.T) {
			var got [2][]string
			var errs [2]string
			for i, s := range ss {
				matches, err := s.fs.Glob(s.path(pattern))
				for _, m := range matches {
					got[i] = append(got[i], s.unpath(m))
				}
				errs[i] = errClass(err)
			}
			if diff := cmp.Diff(got[0], got[1]); diff != "" {
				t.Errorf("matches differ (-disk +memory):\n%s", diff)
			}
			if errs[0] != errs[1] {
				t.Errorf("Glob failed with %q on the disk, %q in memory", errs[0], errs[1])
			}
		})
	}
}

// TestWriting applies the same writes to both and compares each result
// and the tree after them.
func TestWriting(t *testing.T) {
	ss := sides(t, tree)
	type op struct {
		name string
		do   func(s side) error
	}
	write := func(p, body string) func(s side) error {
		return func(s side) error { return s.fs.WriteFile(s.path(p), []byte(body)) }
	}
	ops := []op{
		{"write through a link", write("/app/nested/up", "a: 2\n")},
		{"write through a dangling link", write("/app/dangling", "made: 1\n")},
		{"write a folder", write("/app/base", "x")},
		{"write in a missing folder", write("/app/nowhere/x", "x")},
		{"write through a loop", write("/app/loop1", "x")},
		{"mkdir existing", func(s side) error { return s.fs.Mkdir(s.path("/app/base")) }},
		{"mkdir a link's place", func(s side) error { return s.fs.Mkdir(s.path("/app/self")) }},
		{"mkdir without parent", func(s side) error { return s.fs.Mkdir(s.path("/app/x/y")) }},
		{"mkdir", func(s side) error { return s.fs.Mkdir(s.path("/app/newdir")) }},
		{"mkdir through a link", func(s side) error { return s.fs.Mkdir(s.path("/app/linkdir/made")) }},
		{"mkdirall", func(s side) error { return s.fs.MkdirAll(s.path("/app/x/y/z")) }},
		{"mkdirall over a file", func(s side) error { return s.fs.MkdirAll(s.path("/app/file/y")) }},
		{"mkdirall a linked folder", func(s side) error { return s.fs.MkdirAll(s.path("/app/linkdir2")) }},
		{"remove a link to a folder", func(s side) error { return s.fs.RemoveAll(s.path("/app/linkdir2")) }},
		{"remove a folder", func(s side) error { return s.fs.RemoveAll(s.path("/app/base/sub")) }},
		{"remove nothing", func(s side) error { return s.fs.RemoveAll(s.path("/app/missing")) }},
		{"symlink over a file", func(s side) error { return s.symlink("x", s.path("/app/file")) }},
		{"create, write, read back", func(s side) error {
			f, err := s.fs.Create(s.path("/app/created"))
			if err != nil {
				return err
			}
			if _, err := io.WriteString(f, "one two"); err != nil {
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
			if data, err := s.fs.ReadFile(s.path("/app/created")); err != nil || string(data) != "one two" {
				return errors.New("read back: " + string(data))
			}
			return nil
		}},
		{"create truncates through a link", func(s side) error {
			f, err := s.fs.Create(s.path("/app/nested/chain1"))
			if err != nil {
				return err
			}
			return f.Close()
		}},
		{"write to a file opened for reading", func(s side) error {
			f, err := s.fs.Open(s.path("/app/file"))
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.Write([]byte("x"))
			if err == nil {
				return nil
			}
			return errors.New("refused")
		}},
	}
	for _, o := range ops {
		t.Run(o.name, func(t *testing.T) {
			want, got := errClass(o.do(ss[0])), errClass(o.do(ss[1]))
			if o.name == "write to a file opened for reading" {
				want, got = fmtErr(o.do(ss[0])), fmtErr(o.do(ss[1]))
			}
			if want != got {
				t.Errorf("disk: %q, memory: %q", want, got)
			}
		})
	}
	var trees [2][]walkStep
	var contents [2]map[string]string
	for i, s := range ss {
		contents[i] = map[string]string{}
		must(t, s.fs.Walk(s.path("/"), func(p string, fi fs.FileInfo, err error) error {
			trees[i] = append(trees[i], walkStep{s.unpath(p), seen(fi, s.unpath(p) == "/"), errClass(err)})
			if fi != nil && fi.Mode().IsRegular() {
				data, err := s.fs.ReadFile(p)
				must(t, err)
				contents[i][s.unpath(p)] = string(data)
			}
			return nil
		}))
	}
	if diff := cmp.Diff(trees[0], trees[1]); diff != "" {
		t.Errorf("trees after the writes differ (-disk +memory):\n%s", diff)
	}
	if diff := cmp.Diff(contents[0], contents[1]); diff != "" {
		t.Errorf("contents after the writes differ (-disk +memory):\n%s", diff)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestConcurrentReads reads a filled Memory from many goroutines (run
// with -race).
func TestConcurrentReads(t *testing.T) {
	m := sides(t, tree)[1].fs
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, p := range queried {
				_, _ = m.ReadFile(p)
				_, _ = m.EvalSymlinks(p)
				_, _, _ = m.CleanedAbs(p)
				_ = m.Walk(p, func(string, fs.FileInfo, error) error { return nil })
			}
		}()
	}
	wg.Wait()
}

// kustomizeTree is a small kustomize root /app with a base outside it, a
// configMapGenerator reading files, and resources reached through links
// that stay inside the root; /refused links a resource out of its root.
var kustomizeTree = []item{
	{"/base/kustomization.yaml", "resources:\n- deployment.yaml\n"},
	{"/base/deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n"},
	{"/app/kustomization.yaml", "namePrefix: p-\nresources:\n- ../base\n- linked.yaml\n- viadir/service.yaml\nconfigMapGenerator:\n- name: settings\n  files:\n  - config.properties\n  - data/extra.txt\n"},
	{"/app/config.properties", "a=1\nb=2\n"},
	{"/app/data/extra.txt", "extra\n"},
	{"/app/shared/service.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n"},
	{"/app/shared/sa.yaml", "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: runner\n"},
	{"/app/linked.yaml", "->shared/sa.yaml"},
	{"/app/viadir", "->shared"},
	{"/outside.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: secret-stuff\n"},
	{"/refused/kustomization.yaml", "resources:\n- out.yaml\n"},
	{"/refused/out.yaml", "->../outside.yaml"},
	{"/refused2/kustomization.yaml", "resources:\n- viadir/outside.yaml\n"},
	{"/refused2/viadir", "->.."},
}

// TestKustomize builds the same roots from the disk and from a Memory:
// the same output, and the same refusal of a link out of the root.
func TestKustomize(t *testing.T) {
	ss := sides(t, kustomizeTree)
	build := func(s side, root string) (string, error) {
		k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
		rm, err := k.Run(s.fs, s.path(root))
		if err != nil {
			return "", errors.New(strings.ReplaceAll(err.Error(), s.root, ""))
		}
		out, err := rm.AsYaml()
		return string(out), err
	}
	t.Run("build", func(t *testing.T) {
		want, err := build(ss[0], "/app")
		must(t, err)
		got, err := build(ss[1], "/app")
		must(t, err)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("outputs differ (-disk +memory):\n%s", diff)
		}
		for _, w := range []string{"name: p-web", "name: p-runner", "config.properties: |", "extra.txt: |", "kind: Service"} {
			if !strings.Contains(got, w) {
				t.Errorf("output lacks %q:\n%s", w, got)
			}
		}
	})
	for _, root := range []string{"/refused", "/refused2"} {
		t.Run("link out of "+root, func(t *testing.T) {
			_, derr := build(ss[0], root)
			_, merr := build(ss[1], root)
			if derr == nil || merr == nil {
				t.Fatalf("not refused: disk %v, memory %v", derr, merr)
			}
			for _, err := range []error{derr, merr} {
				if !strings.Contains(err.Error(), "is not in or below '"+root+"'") {
					t.Errorf("error %v, want kustomize's root-only refusal", err)
				}
			}
			if derr.Error() != merr.Error() {
				t.Errorf("errors differ:\n  disk: %v\nmemory: %v", derr, merr)
			}
		})
	}
}

// TestAbsoluteTarget checks a Memory's absolute link target is taken from
// its own root (no disk to compare with: the disk's is the machine's).
func TestAbsoluteTarget(t *testing.T) {
	m := NewMemory()
	must(t, m.MkdirAll("/app/base"))
	must(t, m.WriteFile("/app/base/a.yaml", []byte("a")))
	if err := m.Symlink("/app/base", "/missing/abs"); errClass(err) != "not-exist" {
		t.Errorf("a link in a missing folder: %v", err)
	}
	must(t, m.MkdirAll("/other"))
	must(t, m.Symlink("/app/base", "/other/abs"))
	if err := m.Symlink("x", "/other/abs"); errClass(err) != "exists" {
		t.Errorf("a link over a link: %v", err)
	}
	d, f, err := m.CleanedAbs("/other/abs/a.yaml")
	if err != nil || d != "/app/base" || f != "a.yaml" {
		t.Errorf("CleanedAbs: %q %q %v", d, f, err)
	}
	if names, err := m.ReadDir("other/abs"); err != nil || !cmp.Equal(names, []string{"a.yaml"}) {
		t.Errorf("ReadDir of a relative path: %v %v", names, err)
	}
}
