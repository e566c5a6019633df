package appofapps

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// Problem codes of the dependency graph and of the template. They are part of
// codeloc's interface, like validate's codes.
const (
	CodeDependencyCycle       = "dependency-cycle"
	CodeDependencyNoFolder    = "dependency-without-folder"
	CodeDuplicateCodeLocation = "duplicate-code-location"
	CodeCodeLocationPrefix    = "code-location-prefix"
	CodeTemplate              = "template-error"
	CodeTemplateFunction      = "template-function-removed"
	CodeTemplateOutput        = "template-output"
)

// CodeDocs describes each code in a sentence. The map is shared: read it only.
func CodeDocs() map[string]string { return codeDocs() }

// codeDocs builds CodeDocs' map at first use, not in the init every
// process runs.
var codeDocs = sync.OnceValue(func() map[string]string {
	return map[string]string{
		CodeDependencyCycle:       "dependsOn.codeLocations form a cycle among the code-locations given and their dependencies: no deployment order exists.",
		CodeDependencyNoFolder:    "A dependsOn.codeLocations entry, directly or through other code-locations, has no folder under the repo root: its Application could never be created.",
		CodeDuplicateCodeLocation: "Several folders declare the same codeLocation and the one given, or the one a dependency needs, is not the only one of them named after it.",
		CodeCodeLocationPrefix:    "One code-location's name followed by '-' starts another's (media and media-watch): all code-locations share one namespace, and the shorter owns every object of the longer.",
		CodeTemplate:              "The Application template does not parse or fails to execute.",
		CodeTemplateFunction:      "The Application template calls a function removed because it reads the environment, the filesystem or the network, or is not deterministic.",
		CodeTemplateOutput:        "The Application template's output is not one YAML mapping of kind argoproj.io/v1alpha1 Application.",
		CodeGeneratedNameTaken:    "A file of the --output-dir that codeloc does not own (not listed in " + IndexFile + ", no generated header) has the name of a file it would write: nothing is written.",
		CodeGeneratedNameClash:    "Two files --output-dir would write have one name (the contract's workspace ConfigMap named like a bucket's file).",
		CodeGeneratedIndex:        "The --output-dir's " + IndexFile + " lists something that is not the name of a file of that folder.",
	}
})

// resolution is what a dependency's name leads to.
type resolution struct {
	// decl is the declaration to follow; nil when there is none usable.
	decl *validate.Declaration
	// invalid are the problems of the dependency's own declaration.
	invalid problem.Problems
	// ambiguous lists the declaration files of a name several folders
	// declare, none of them alone named after it.
	ambiguous string
}

// graph is the dependsOn.codeLocations graph reached from the code-locations
// given, resolved name by name.
type graph struct {
	resolve func(name string) resolution
	where   string // where folders are looked for, in messages

	resolved map[string]resolution
	depth    map[string]int
	state    map[string]visit
	stack    []string
	problems problem.Problems
	seen     map[string]bool // reported cycles, edges and invalid dependencies
}

type visit int

const (
	unvisited visit = iota
	inProgress
	done
)

func newGraph(resolve func(string) resolution, where string) *graph {
	return &graph{
		resolve: resolve, where: where,
		resolved: map[string]resolution{}, depth: map[string]int{}, state: map[string]visit{}, seen: map[string]bool{},
	}
}

// walk computes the depth of each of roots and of everything they reach.
func (g *graph) walk(roots []*validate.Declaration) {
	for _, d := range visitOrder(roots) {
		g.resolved[d.CodeLocation] = resolution{decl: d}
	}
	for _, d := range visitOrder(roots) {
		if g.state[d.CodeLocation] == unvisited {
			g.visit(d)
		}
	}
}

// visitOrder lists the roots no other root depends on first (so reported
// chains start where a reader would), then all of them, each group sorted by
// name for deterministic reports.
func visitOrder(roots []*validate.Declaration) []*validate.Declaration {
	dependedOn := map[string]bool{}
	for _, d := range roots {
		for _, dep := range d.DependsOn.CodeLocations {
			dependedOn[dep] = true
		}
	}
	byName := func(a, b *validate.Declaration) int { return strings.Compare(a.CodeLocation, b.CodeLocation) }
	all := slices.SortedFunc(slices.Values(roots), byName)
	tops := slices.DeleteFunc(slices.Clone(all), func(d *validate.Declaration) bool { return dependedOn[d.CodeLocation] })
	return append(tops, all...)
}

// visit computes d's depth, depth-first, reporting cycles and dependencies
// that lead nowhere on the way.
func (g *graph) visit(d *validate.Declaration) int {
	name := d.CodeLocation
	g.state[name] = inProgress
	g.stack = append(g.stack, name)
	depth := 0
	for i, dep := range d.DependsOn.CodeLocations {
		switch g.state[dep] {
		case inProgress:
			g.cycle(dep)
		case done:
			depth = max(depth, g.depth[dep]+1)
		default:
			if r := g.lookup(dep); r.decl != nil {
				depth = max(depth, g.visit(r.decl)+1)
			} else {
				g.unresolved(d, i, dep, r)
			}
		}
	}
	g.stack = g.stack[:len(g.stack)-1]
	g.state[name] = done
	g.depth[name] = depth
	return depth
}

func (g *graph) lookup(name string) resolution {
	r, ok := g.resolved[name]
	if !ok {
		r = g.resolve(name)
		g.resolved[name] = r
	}
	return r
}

// unresolved reports the i-th dependency dep of d that leads to no usable
// declaration: once per entry, and an invalid declaration's problems once.
func (g *graph) unresolved(d *validate.Declaration, i int, dep string, r resolution) {
	chain := strings.Join(append(slices.Clone(g.stack), dep), " -> ")
	if len(r.invalid) > 0 {
		if !g.seen[invalidKey(dep)] {
			g.seen[invalidKey(dep)] = true
			g.invalid(chain, r.invalid)
		}
		return
	}
	key := d.CodeLocation + "\x00" + dep
	if g.seen[key] {
		return
	}
	g.seen[key] = true
	if r.ambiguous != "" {
		g.report(d, i, CodeDuplicateCodeLocation, fmt.Sprintf("%s: %q is declared by several folders, none of them alone named after it: %s", chain, dep, r.ambiguous),
			"each code-location has one folder, named after it; fix the codeLocation of the others or remove them")
		return
	}
	g.report(d, i, CodeDependencyNoFolder, fmt.Sprintf("%s: no folder %s declares codeLocation %q", chain, g.where, dep),
		"add the code-location's folder, or fix the name")
}

// invalidKey marks in graph.seen a dependency whose invalid declaration is
// reported.
func invalidKey(name string) string { return "invalid\x00" + name }

// invalid reports the problems of a dependency's own declaration, each
// message led by the chain that needs it: the reader asked for another
// code-location.
func (g *graph) invalid(chain string, problems problem.Problems) {
	for _, p := range problems {
		p.Message = chain + ": " + p.Message
		g.problems = append(g.problems, p)
	}
}

// cycle reports the cycle closed by an edge back to dep, which is on the stack.
func (g *graph) cycle(dep string) {
	at := slices.Index(g.stack, dep)
	loop := rotateToMin(g.stack[at:])
	key := strings.Join(loop, " -> ")
	if g.seen[key] {
		return
	}
	g.seen[key] = true
	from, to := loop[0], loop[1%len(loop)]
	d := g.resolved[from].decl
	g.report(d, slices.Index(d.DependsOn.CodeLocations, to), CodeDependencyCycle,
		"dependency cycle: "+key+" -> "+from,
		"code-locations deploy in dependency order; remove one of these dependsOn.codeLocations entries")
}

// report adds a problem at the i-th dependsOn.codeLocations entry of d.
func (g *graph) report(d *validate.Declaration, i int, code, msg, hint string) {
	path := fmt.Sprintf("dependsOn.codeLocations[%d]", i)
	g.problems = append(g.problems, d.PosOf(path).At(code, path, msg, hint))
}

// rotateToMin returns the cycle starting at its smallest name, so that the same
// cycle found from different entry points is reported once, the same way.
func rotateToMin(loop []string) []string {
	m := 0
	for i, s := range loop {
		if s < loop[m] {
			m = i
		}
	}
	return append(slices.Clone(loop[m:]), loop[:m]...)
}
