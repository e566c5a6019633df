package appofapps

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// given is a code-location directory given, in the tree of its repo root.
type given struct {
	*folder
	tree *tree
	wave int
}

// loadGiven reads the declaration of each directory given (a directory given
// twice is read once) and every declaration under their repo roots, each
// root walked once.
func loadGiven(dirs []string, repoRoot string) ([]*given, error) {
	trees := map[string]*tree{}
	var out []*given
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		root, absRoot, err := rootOf(dir, abs, repoRoot)
		if err != nil {
			return nil, err
		}
		t := trees[absRoot]
		if t == nil {
			t = newTree(root, absRoot)
			trees[absRoot] = t
		}
		if _, dup := t.byAbs[abs]; !dup {
			out = append(out, &given{folder: t.add(dir, abs), tree: t})
		}
	}
	for _, absRoot := range slices.Sorted(maps.Keys(trees)) {
		if err := trees[absRoot].addAll(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rootOf is the repo root of dir, as shown in problems and absolute:
// repoRoot, else the git top level above dir. dir must be inside it.
func rootOf(dir, abs, repoRoot string) (root, absRoot string, err error) {
	if repoRoot != "" {
		root = repoRoot
		if absRoot, err = filepath.Abs(repoRoot); err != nil {
			return "", "", err
		}
	} else {
		if absRoot, err = gitTopLevel(abs); err != nil {
			return "", "", err
		}
		root = shown(dir, absRoot)
	}
	rel, err := filepath.Rel(absRoot, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", "", fmt.Errorf("%s is not inside the repo root %s", dir, root)
	}
	return root, absRoot, nil
}

// shown is the git top level as the user would write it: relative to the
// working directory when dir was given relative.
func shown(dir, absRoot string) string {
	if filepath.IsAbs(dir) {
		return absRoot
	}
	wd, err := os.Getwd()
	if err != nil {
		return absRoot
	}
	rel, err := filepath.Rel(wd, absRoot)
	if err != nil {
		return absRoot
	}
	return rel
}

// gitTopLevel is the nearest directory at or above dir holding .git (a
// folder, or a file for worktrees and submodules).
func gitTopLevel(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%s is not in a git work tree: pass --repo-root", dir)
		}
	}
}

// checkGiven checks each directory given: its declaration, on its own and
// against the contract, and its codeLocation its own. Readiness is left to
// the render: a not-ready code-location still gets its Application, so that
// Argo CD shows the render's refusal, and waves do not change with it.
func checkGiven(gs []*given, c *validate.Contract) problem.Problems {
	var problems problem.Problems
	for _, g := range gs {
		problems = append(problems, g.problems...)
		if !g.valid() {
			continue
		}
		problems = append(problems, slices.DeleteFunc(validate.Check(g.decl, c), func(p problem.Problem) bool {
			return p.Code == validate.CodeNotReady
		})...)
		problems = append(problems, g.ownName()...)
	}
	return append(problems, checkPrefixes(gs)...)
}

// checkPrefixes refuses a code-location given whose name, followed by '-',
// starts the name of another code-location under its repo root, or the
// other way round: all code-locations share one namespace and each owns
// every name <codeLocation>-*, so media owns every object of media-watch.
// A pair of which both are given is reported once, at the shorter name.
// Names codeloc keeps are left to validate.Check, which refuses them.
func checkPrefixes(gs []*given) problem.Problems {
	checked := map[*folder]bool{}
	for _, g := range gs {
		if g.valid() && g.isOwner() {
			checked[g.folder] = true
		}
	}
	var problems problem.Problems
	for _, g := range gs {
		if !checked[g.folder] || reserved(g.decl.CodeLocation) {
			continue
		}
		for _, other := range slices.Sorted(maps.Keys(g.tree.byName)) {
			if p, ok := g.prefixProblem(other, checked); ok {
				problems = append(problems, p)
			}
		}
	}
	return problems
}

// prefixProblem is the problem of g's name against the code-location
// other of its tree, when one owns the other's names and g is where the
// pair is reported.
func (g *given) prefixProblem(other string, checked map[*folder]bool) (problem.Problem, bool) {
	name := g.decl.CodeLocation
	if other == name || reserved(other) {
		return problem.Problem{}, false
	}
	owner, candidates := g.tree.owner(other)
	otherFile := files(candidates, nil)
	if owner != nil {
		otherFile = owner.file()
	}
	var msg string
	switch {
	case names.Owns(name, other):
		msg = prefixMessage(name, g.file(), other, otherFile)
	case names.Owns(other, name) && !checked[owner]:
		msg = prefixMessage(other, otherFile, name, g.file())
	default:
		return problem.Problem{}, false
	}
	return g.decl.PosOf("codeLocation").At(CodeCodeLocationPrefix, "codeLocation", msg,
		"rename one of them (its folder, codeLocation and images) so that neither name followed by '-' starts the other"), true
}

// prefixMessage says that code-location short owns the names of long.
func prefixMessage(short, shortFile, long, longFile string) string {
	return fmt.Sprintf("code-location %q (%s) owns the names of code-location %q (%s): every object of %s is named %s or %s-<name>, which start with %s-, and all code-locations share one namespace",
		short, shortFile, long, longFile, long, long, long, short)
}

// reserved reports whether codeloc keeps the name (validate.Check refuses
// such a codeLocation).
func reserved(name string) bool {
	_, ok := names.Reserved(name)
	return ok
}

// isOwner says the folder is the code-location it declares.
func (g *given) isOwner() bool {
	if g.decl == nil || g.decl.CodeLocation == "" {
		return false
	}
	owner, _ := g.tree.owner(g.decl.CodeLocation)
	return owner == g.folder
}

// ownName refuses a directory given whose codeLocation is another folder's,
// or shared by several folders none of which alone is named after it.
func (g *given) ownName() problem.Problems {
	if g.isOwner() {
		return nil
	}
	name := g.decl.CodeLocation
	owner, candidates := g.tree.owner(name)
	msg := fmt.Sprintf("%q is also declared by %s", name, files(candidates, g.folder))
	hint := "each code-location has one folder, named after it; fix the codeLocation of the others or remove them"
	if owner != nil {
		msg = fmt.Sprintf("%q is declared by %s, the folder named after it", name, owner.file())
		hint = "each code-location has one folder, named after it; fix this codeLocation or remove this folder"
	}
	return problem.Problems{g.decl.PosOf("codeLocation").At(CodeDuplicateCodeLocation, "codeLocation", msg, hint)}
}

// assignWaves computes, tree by tree, the wave of each directory given whose
// declaration is its own, from the graph of every declaration it reaches.
func assignWaves(gs []*given) problem.Problems {
	graphs := map[*tree]*graph{}
	roots := map[*tree][]*given{}
	for _, g := range gs {
		gr := graphs[g.tree]
		if gr == nil {
			gr = newGraph(g.tree.resolve, "under "+g.tree.root)
			graphs[g.tree] = gr
		}
		switch {
		case g.valid() && len(g.ownName()) == 0:
			roots[g.tree] = append(roots[g.tree], g)
		case !g.valid() && g.isOwner():
			// checkGiven reports its problems; a dependent must not again.
			gr.seen[invalidKey(g.decl.CodeLocation)] = true
		}
	}
	trees := slices.SortedFunc(maps.Keys(graphs), func(a, b *tree) int { return cmp.Compare(a.absRoot, b.absRoot) })
	var problems problem.Problems
	for _, t := range trees {
		gr := graphs[t]
		decls := make([]*validate.Declaration, len(roots[t]))
		for i, g := range roots[t] {
			decls[i] = g.decl
		}
		gr.walk(decls)
		problems = append(problems, gr.problems...)
		for _, g := range roots[t] {
			g.wave = gr.depth[g.decl.CodeLocation]
		}
	}
	return problems
}
