package appofapps

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// Bounds of the walk under a repo root. An atlas repo holds a few hundred
// code-locations a few folders deep; a tree past these bounds is not one, and
// an incomplete walk would give wrong waves, so it is an error.
const (
	// MaxWalkDepth is how many folders below the repo root a declaration may be.
	MaxWalkDepth = 16
	// MaxWalkEntries bounds the files and folders read outside code-location
	// folders.
	MaxWalkEntries = 100_000
)

// skippedDirs are never searched for declarations, besides hidden folders
// (.git among them): installed dependencies and vendored code.
var skippedDirs = map[string]bool{"node_modules": true, "vendor": true}

// folder is one code-location folder with its declaration as loaded on its
// own (validate.LoadDeclaration) and that load's problems.
type folder struct {
	dir      string // as shown in problems
	abs      string
	decl     *validate.Declaration // nil when unreadable
	problems problem.Problems
}

// valid says the declaration loaded without problems: its dependsOn can be
// followed.
func (f *folder) valid() bool { return f.decl != nil && len(f.problems) == 0 }

func (f *folder) file() string { return filepath.Join(f.dir, validate.ManifestFile) }

// tree is every declaration under one repo root, by codeLocation.
type tree struct {
	root    string // as shown in problems
	absRoot string
	byAbs   map[string]*folder
	byName  map[string][]*folder
}

func newTree(root, absRoot string) *tree {
	return &tree{root: root, absRoot: absRoot, byAbs: map[string]*folder{}, byName: map[string][]*folder{}}
}

// add loads the declaration in dir (shown as given) once.
func (t *tree) add(dir, abs string) *folder {
	if f, ok := t.byAbs[abs]; ok {
		return f
	}
	d, ps := validate.LoadDeclaration(dir)
	f := &folder{dir: dir, abs: abs, decl: d, problems: ps}
	t.byAbs[abs] = f
	if d != nil && d.CodeLocation != "" {
		t.byName[d.CodeLocation] = append(t.byName[d.CodeLocation], f)
	}
	return f
}

// addAll walks the repo root and loads every declaration found; folders
// already added keep the path they were given as.
func (t *tree) addAll() error {
	s := &scan{root: t.absRoot, maxDepth: MaxWalkDepth, maxEntries: MaxWalkEntries}
	if err := s.dir(t.absRoot, 0); err != nil {
		return err
	}
	for _, abs := range s.found {
		rel, err := filepath.Rel(t.absRoot, abs)
		if err != nil {
			return err
		}
		t.add(filepath.Join(t.root, rel), abs)
	}
	return nil
}

// owner is the folder of the code-location name: the only folder declaring
// it, else the only one of them named after it (atlas's layout: a folder
// per code-location, named after it). Otherwise it returns nil and the
// folders declaring name, sorted (none when no folder does).
func (t *tree) owner(name string) (*folder, []*folder) {
	fs := t.byName[name]
	if len(fs) == 1 {
		return fs[0], nil
	}
	var named []*folder
	for _, f := range fs {
		if filepath.Base(f.abs) == name {
			named = append(named, f)
		}
	}
	if len(named) == 1 {
		return named[0], nil
	}
	return nil, slices.SortedFunc(slices.Values(fs), func(a, b *folder) int { return cmp.Compare(a.abs, b.abs) })
}

// files lists the declaration files of fs, except skip's, for messages.
func files(fs []*folder, skip *folder) string {
	var out []string
	for _, f := range fs {
		if f != skip {
			out = append(out, f.file())
		}
	}
	return strings.Join(out, ", ")
}

// scan finds the folders holding a declaration under a repo root, within
// MaxWalkDepth and MaxWalkEntries. A code-location's subfolders are its own
// and are not searched; links are not followed.
type scan struct {
	root                 string
	maxDepth, maxEntries int
	found                []string
	entries              int
}

func (s *scan) dir(dir string, depth int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("reading the repo root: %w", err)
	}
	s.entries += len(entries)
	if s.entries > s.maxEntries {
		return fmt.Errorf("more than %d files and folders under %s outside code-location folders: pass --repo-root at the folder holding the code-locations", s.maxEntries, s.root)
	}
	if slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == validate.ManifestFile }) {
		s.found = append(s.found, dir)
		return nil
	}
	for _, e := range entries {
		if !e.IsDir() || skippedDirs[e.Name()] || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if depth == s.maxDepth {
			return fmt.Errorf("%s is more than %d folders below the repo root %s: pass --repo-root at the folder holding the code-locations", filepath.Join(dir, e.Name()), s.maxDepth, s.root)
		}
		if err := s.dir(filepath.Join(dir, e.Name()), depth+1); err != nil {
			return err
		}
	}
	return nil
}

// resolve is what the dependency name leads to in the tree.
func (t *tree) resolve(name string) resolution {
	f, candidates := t.owner(name)
	switch {
	case f != nil && f.valid():
		return resolution{decl: f.decl}
	case f != nil:
		return resolution{invalid: f.problems}
	case len(candidates) > 0:
		return resolution{ambiguous: files(candidates, nil)}
	}
	return resolution{}
}

// CodeLocationDirs lists every code-location folder under repoRoot (a
// folder holding a code-location.manifest.yaml, found as the dependency
// graph finds them: hidden folders, node_modules, vendor and a
// code-location's own subfolders skipped, within MaxWalkDepth and
// MaxWalkEntries), as repoRoot joined with its path, sorted by that path:
// the same list whatever order the disk gives.
func CodeLocationDirs(repoRoot string) ([]string, error) {
	absRoot, err := filepath.Abs(repoRoot)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(absRoot)
	if err != nil {
		return nil, fmt.Errorf("--repo-root: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("--repo-root %s is not a folder", repoRoot)
	}
	s := &scan{root: repoRoot, maxDepth: MaxWalkDepth, maxEntries: MaxWalkEntries}
	if err := s.dir(absRoot, 0); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(s.found))
	for _, abs := range s.found {
		rel, err := filepath.Rel(absRoot, abs)
		if err != nil {
			return nil, err
		}
		out = append(out, filepath.Join(repoRoot, rel))
	}
	slices.Sort(out)
	return out, nil
}
