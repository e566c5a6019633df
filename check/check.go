package check

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codeloc/codeloc/appofapps"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/plugin"
	"github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/validate"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Options says what to check.
type Options struct {
	// Repo is the atlas git repo (a work tree or a bare repo).
	Repo string
	// Base and Head are the revisions compared; Head may be Index.
	Base, Head string
	// Contract is the contract the cluster serves.
	Contract *Contract
	// Bounds bound each render.
	Bounds plugin.Bounds
}

// side is one revision exported.
type side struct {
	rev, tree string
	root      string          // the exported tree
	dirs      map[string]bool // code-location folders, relative, slash-separated
	links     problem.Problems
}

// Run checks the change from Base to Head. Problems of the head are in
// the report (Refused); errors are the repo's, git's or the bounds'.
func Run(ctx context.Context, o Options) (*Report, error) {
	g := git{dir: o.Repo}
	c, err := planChange(ctx, g, o.Base, o.Head)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "codeloc-check-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	base, err := exportSide(ctx, g, o.Base, c.baseTree, filepath.Join(tmp, "base"), exportFiles(c.baseFiles, c.dirs))
	if err != nil {
		return nil, err
	}
	head, err := exportSide(ctx, g, o.Head, c.headTree, filepath.Join(tmp, "head"), exportFiles(c.headFiles, c.dirs))
	if err != nil {
		return nil, err
	}
	contracts, err := mountContract(tmp, o.Contract)
	if err != nil {
		return nil, err
	}
	rn := renderer{contracts: contracts, bounds: o.Bounds, namespace: o.Contract.Namespace}
	return rn.report(o, base, head, c.dirs)
}

// change is what git says of the two revisions, before anything is
// exported.
type change struct {
	baseTree, headTree   string
	baseFiles, headFiles []string
	// dirs are the touched code-location folders, sorted.
	dirs []string
}

// planChange resolves both revisions and finds the touched code-locations.
func planChange(ctx context.Context, g git, baseRev, headRev string) (*change, error) {
	c := &change{}
	var err error
	if c.baseTree, err = g.resolve(ctx, baseRev); err != nil {
		return nil, err
	}
	if c.headTree, err = g.resolve(ctx, headRev); err != nil {
		return nil, err
	}
	paths, err := g.changed(ctx, c.baseTree, c.headTree)
	if err != nil {
		return nil, err
	}
	if c.baseFiles, err = g.listTree(ctx, c.baseTree); err != nil {
		return nil, err
	}
	if c.headFiles, err = g.listTree(ctx, c.headTree); err != nil {
		return nil, err
	}
	c.dirs = touched(paths, codeLocationDirs(c.baseFiles), codeLocationDirs(c.headFiles))
	if len(c.dirs) > MaxTouched {
		return nil, fmt.Errorf("the change touches %d code-locations, more than the %d one check renders: check a smaller change", len(c.dirs), MaxTouched)
	}
	return c, nil
}

// report compares the exported sides: the graph's moves, then each
// touched folder.
func (rn renderer) report(o Options, base, head *side, dirs []string) (*Report, error) {
	r := &Report{
		Contract: ContractInfo{Origin: o.Contract.Origin, ContractVersions: o.Contract.ContractVersions, SHA256: o.Contract.SHA256},
		Base:     Revision{Rev: o.Base, Tree: base.tree}, Head: Revision{Rev: o.Head, Tree: head.tree},
		CodeLocations: []Location{}, Moved: []Move{}, Problems: []problem.Problem{},
	}
	var err error
	if r.Moved, r.Problems, err = moves(base, head); err != nil {
		return nil, err
	}
	r.Problems = append(r.Problems, head.links...)
	for _, dir := range dirs {
		loc, err := rn.location(base, head, dir)
		if err != nil {
			return nil, err
		}
		r.CodeLocations = append(r.CodeLocations, *loc)
		r.Refused = r.Refused || loc.Refused
	}
	errs, _ := problem.Problems(r.Problems).Split()
	r.Refused = r.Refused || len(errs) > 0
	return r, nil
}

// exportSide exports of the tree of rev what the check reads into dir:
// the touched code-locations' folders whole, and every declaration with
// its migrations (the dependency graph's input), not the rest.
func exportSide(ctx context.Context, g git, rev, tree, dir string, pathspecs []string) (*side, error) {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	var links problem.Problems
	if pathspecs == nil || len(pathspecs) > 0 { // git archive exports all without pathspecs
		var err error
		if links, err = g.export(ctx, tree, dir, pathspecs); err != nil {
			return nil, err
		}
	}
	found, err := appofapps.CodeLocationDirs(dir)
	if err != nil {
		return nil, err
	}
	s := &side{rev: rev, tree: tree, root: dir, dirs: map[string]bool{}, links: links}
	for _, d := range found {
		rel, err := filepath.Rel(dir, d)
		if err != nil {
			return nil, err
		}
		s.dirs[filepath.ToSlash(rel)] = true
	}
	return s, nil
}

// MaxTouched bounds the code-locations one check renders (twice each).
const MaxTouched = 1000

// maxPathspecBytes bounds the pathspecs one git archive is given; past
// it the whole tree is exported.
const maxPathspecBytes = 256 << 10

// exportFiles are the pathspecs of what a side exports: the files of the
// touched folders, every declaration and every file under a migrations
// folder (the dependency graph reads declarations with their migrations),
// each literally (a name may hold glob characters). Empty when nothing is
// read; nil, the whole tree, when they would be too long a command line.
func exportFiles(files, touched []string) []string {
	specs := []string{}
	size := 0
	for _, f := range files {
		if !wanted(f, touched) {
			continue
		}
		spec := ":(literal)" + f
		if size += len(spec) + 1; size > maxPathspecBytes {
			return nil
		}
		specs = append(specs, spec)
	}
	return specs
}

// wanted says whether the file f is read: a declaration, a migration, or
// inside a touched folder.
func wanted(f string, touched []string) bool {
	if path.Base(f) == validate.ManifestFile || slices.Contains(strings.Split(path.Dir(f), "/"), validate.MigrationsDir) {
		return true
	}
	for d := path.Dir(f); ; d = path.Dir(d) {
		if _, ok := slices.BinarySearch(touched, d); ok {
			return true
		}
		if d == "." || d == "/" {
			return false
		}
	}
}

// mountContract writes the contract where plugin.Contracts reads it, as
// the sidecar's mounted ConfigMap.
func mountContract(tmp string, c *Contract) (*plugin.Contracts, error) {
	dir := filepath.Join(tmp, "contract")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	file := filepath.Join(dir, DefaultContractKey)
	if err := os.WriteFile(file, c.Bytes, 0o600); err != nil {
		return nil, err
	}
	return plugin.NewContracts(file), nil
}

// touched lists the code-location folders (at base or head) holding a
// changed path, sorted.
func touched(paths []string, base, head map[string]bool) []string {
	set := map[string]bool{}
	for _, p := range paths {
		if d, ok := folderOf(p, base, head); ok {
			set[d] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// folderOf is the nearest code-location folder holding p, at base or head.
func folderOf(p string, base, head map[string]bool) (string, bool) {
	for d := path.Dir(p); ; d = path.Dir(d) {
		if base[d] || head[d] {
			return d, true
		}
		if d == "." || d == "/" {
			return "", false
		}
	}
}

// moves compares the dependency graph of every declaration at base and
// head; the head graph's problems come back too.
func moves(base, head *side) ([]Move, []problem.Problem, error) {
	bp, _, err := appofapps.Placements(base.root)
	if err != nil {
		return nil, nil, err
	}
	hp, problems, err := appofapps.Placements(head.root)
	if err != nil {
		return nil, nil, err
	}
	names := map[string]bool{}
	for n := range bp {
		names[n] = true
	}
	for n := range hp {
		names[n] = true
	}
	out := []Move{}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		b, inB := bp[n]
		h, inH := hp[n]
		if inB && inH && b.Wave == h.Wave && slices.Equal(b.DependsOn, h.DependsOn) {
			continue
		}
		m := Move{CodeLocation: n, BaseDependsOn: orEmpty(b.DependsOn), HeadDependsOn: orEmpty(h.DependsOn), DependsChanged: !slices.Equal(b.DependsOn, h.DependsOn)}
		if inB {
			m.BaseWave = &b.Wave
		}
		if inH {
			m.HeadWave = &h.Wave
		}
		out = append(out, m)
	}
	return out, relative(problems, head.root), nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// relative shows the problems' files relative to the exported root.
func relative(ps problem.Problems, root string) []problem.Problem {
	out := make([]problem.Problem, len(ps))
	for i, p := range ps {
		if rel, err := filepath.Rel(root, p.File); err == nil && filepath.IsAbs(p.File) && !strings.HasPrefix(rel, "..") {
			p.File = filepath.ToSlash(rel)
		}
		out[i] = p
	}
	return out
}

// renderer renders one code-location folder the way the sidecar does.
type renderer struct {
	contracts *plugin.Contracts
	bounds    plugin.Bounds
	namespace string
}

// outcome is one side's render of a folder.
type outcome struct {
	decl     *validate.Declaration
	result   *render.Result
	problems problem.Problems // errors and warnings
}

// render renders dir of s through plugin.Generate, as Argo CD would ask
// for an Application whose path is dir; nil when s has no such folder.
func (rn renderer) render(s *side, dir string) (*outcome, error) {
	if !s.dirs[dir] {
		return nil, nil
	}
	abs := filepath.Join(s.root, filepath.FromSlash(dir))
	d, _ := validate.LoadDeclaration(abs)
	environ := []string{plugin.EnvAppNamespace + "=" + rn.namespace, plugin.EnvAppSourcePath + "=" + dir}
	_, res, err := plugin.Generate(plugin.Source{AppDir: abs, RepoRoot: s.root, Environ: environ, Contracts: rn.contracts, Bounds: rn.bounds})
	var problems problem.Problems
	switch {
	case errors.As(err, &problems):
		return &outcome{decl: d, problems: problems.Sorted()}, nil
	case err != nil:
		return nil, err
	}
	return &outcome{decl: d, result: res, problems: res.Warnings}, nil
}

// location compares one touched folder at base and head.
func (rn renderer) location(base, head *side, dir string) (*Location, error) {
	b, err := rn.render(base, dir)
	if err != nil {
		return nil, err
	}
	h, err := rn.render(head, dir)
	if err != nil {
		return nil, err
	}
	loc := &Location{Dir: dir, Change: Changed, Problems: []problem.Problem{}, Consumes: []Consumption{}, Fields: []FieldChange{}, Migrations: []MigrationChange{}, Objects: []ObjectChange{}}
	switch {
	case b == nil:
		loc.Change, b = Added, &outcome{}
	case h == nil:
		loc.Change, h = Removed, &outcome{}
	}
	loc.CodeLocation = nameOf(h.decl, b.decl, dir)
	loc.Problems = append(loc.Problems, h.problems...)
	errs, _ := h.problems.Split()
	loc.Refused = len(errs) > 0
	loc.Consumes = append(loc.Consumes, consumption(b.decl, h.decl)...)
	loc.Fields = append(loc.Fields, fields(b.decl, h.decl)...)
	for _, m := range migrations(b.decl, h.decl) {
		m.Findings = findings(h.problems, path.Join(dir, validate.MigrationsDir, m.Name))
		loc.Migrations = append(loc.Migrations, m)
	}
	if loc.Change != Removed && h.result == nil {
		return loc, nil // refused: no objects to compare, the problems say why
	}
	objs, err := objects(objectsOf(b), objectsOf(h))
	if err != nil {
		return nil, err
	}
	loc.Objects = append(loc.Objects, objs...)
	return loc, nil
}

func objectsOf(o *outcome) []*yaml.RNode {
	if o.result == nil {
		return nil
	}
	return o.result.Objects
}

// nameOf is the code-location's name: head's, else base's, else the folder's.
func nameOf(head, base *validate.Declaration, dir string) string {
	for _, d := range []*validate.Declaration{head, base} {
		if d != nil && d.CodeLocation != "" {
			return d.CodeLocation
		}
	}
	return path.Base(dir)
}

// findings are the problems on file.
func findings(ps problem.Problems, file string) []problem.Problem {
	out := []problem.Problem{}
	for _, p := range ps {
		if filepath.ToSlash(p.File) == file {
			out = append(out, p)
		}
	}
	return out
}
