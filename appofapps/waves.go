package appofapps

import (
	"path/filepath"
	"slices"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// Placement is where one code-location stands in the dependency graph of
// its repo root.
type Placement struct {
	// Dir is its folder relative to the repo root, slash-separated.
	Dir string `json:"dir"`
	// Wave is its sync wave: its depth in the dependsOn.codeLocations graph.
	Wave int `json:"wave"`
	// DependsOn are its dependsOn.codeLocations, sorted.
	DependsOn []string `json:"dependsOn"`
}

// Placements reads every declaration under repoRoot (declarations only:
// nothing is rendered) and returns the placement of each code-location
// whose declaration loads without problems and whose folder owns its name,
// with the graph's problems (cycles, dependencies without a folder), as
// `codeloc application` would report them for the whole repo. A
// code-location the graph cannot place (in a cycle, or reaching a
// dependency without a usable folder) is left out: it has no wave. Errors are the walk's
// (unreadable root, bounds).
func Placements(repoRoot string) (map[string]Placement, problem.Problems, error) {
	absRoot, err := filepath.Abs(repoRoot)
	if err != nil {
		return nil, nil, err
	}
	t := newTree(repoRoot, absRoot)
	if err := t.addAll(); err != nil {
		return nil, nil, err
	}
	gr := newGraph(t.resolve, "under "+repoRoot)
	var roots []*validate.Declaration
	dirs := map[string]string{}
	for _, f := range t.byAbs {
		if !f.valid() {
			continue
		}
		if owner, _ := t.owner(f.decl.CodeLocation); owner != f {
			continue
		}
		roots = append(roots, f.decl)
		rel, err := filepath.Rel(absRoot, f.abs)
		if err != nil {
			return nil, nil, err
		}
		dirs[f.decl.CodeLocation] = filepath.ToSlash(rel)
	}
	gr.walk(roots)
	byName := make(map[string]*validate.Declaration, len(roots))
	for _, d := range roots {
		byName[d.CodeLocation] = d
	}
	placeable := map[string]bool{}
	out := make(map[string]Placement, len(roots))
	for _, d := range roots {
		depth, ok := gr.depth[d.CodeLocation]
		if !ok || !placed(d.CodeLocation, byName, placeable, map[string]bool{}) {
			continue
		}
		out[d.CodeLocation] = Placement{Dir: dirs[d.CodeLocation], Wave: depth, DependsOn: slices.Sorted(slices.Values(d.DependsOn.CodeLocations))}
	}
	return out, gr.problems.Sorted(), nil
}

// placed says whether name's dependencies, all the way down, are
// declarations of byName and form no cycle; known memoizes the answers,
// visiting marks the chain being followed.
func placed(name string, byName map[string]*validate.Declaration, known, visiting map[string]bool) bool {
	if ok, done := known[name]; done {
		return ok
	}
	d := byName[name]
	if d == nil || visiting[name] {
		return false
	}
	visiting[name] = true
	ok := true
	for _, dep := range d.DependsOn.CodeLocations {
		ok = ok && placed(dep, byName, known, visiting)
	}
	delete(visiting, name)
	known[name] = ok
	return ok
}
