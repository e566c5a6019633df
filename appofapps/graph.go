package appofapps

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codeloc/codeloc/validate"
)

// Problem codes of the dependency graph and of the template. They are part of
// codeloc's interface, like validate's codes.
const (
	CodeDependencyCycle       = "dependency-cycle"
	CodeUnknownDependency     = "unknown-dependency"
	CodeDependencyNoFolder    = "dependency-without-folder"
	CodeDuplicateCodeLocation = "duplicate-code-location"
	CodeTemplate              = "template-error"
	CodeTemplateFunction      = "template-function-removed"
	CodeTemplateOutput        = "template-output"
)

// CodeDocs describes each code in a sentence.
var CodeDocs = map[string]string{
	CodeDependencyCycle:       "dependsOn.codeLocations form a cycle among the code-locations given: no deployment order exists.",
	CodeUnknownDependency:     "With --strict, a dependsOn.codeLocations entry is not among the code-locations given.",
	CodeDependencyNoFolder:    "A dependsOn.codeLocations entry has no folder under --repo-root: its Application could never be created.",
	CodeDuplicateCodeLocation: "Two directories given declare the same codeLocation name.",
	CodeTemplate:              "The Application template does not parse or fails to execute.",
	CodeTemplateFunction:      "The Application template calls a function removed because it reads the environment, the filesystem or the network, or is not deterministic.",
	CodeTemplateOutput:        "The Application template's output is not one YAML mapping of kind argoproj.io/v1alpha1 Application.",
}

// graph is the dependsOn.codeLocations graph of the declarations given.
type graph struct {
	decls  map[string]*validate.Declaration
	strict bool

	depth    map[string]int
	state    map[string]visit
	stack    []string
	problems validate.Problems
	seen     map[string]bool // reported cycles and unknown edges
}

type visit int

const (
	unvisited visit = iota
	inProgress
	done
)

// Waves returns each code-location's sync wave: 0 without dependencies among
// decls, else 1 + the largest wave of its dependencies. A dependency outside
// decls counts as already deployed, unless strict, where it is an error. A
// cycle is an error naming the chain. decls must have unique names.
func Waves(decls []*validate.Declaration, strict bool) (map[string]int, validate.Problems) {
	g := &graph{
		decls:  map[string]*validate.Declaration{},
		strict: strict,
		depth:  map[string]int{},
		state:  map[string]visit{},
		seen:   map[string]bool{},
	}
	for _, d := range decls {
		g.decls[d.CodeLocation] = d
	}
	for _, name := range g.visitOrder() {
		if g.state[name] == unvisited {
			g.visit(name)
		}
	}
	if len(g.problems) > 0 {
		return nil, g.problems.Sorted()
	}
	return g.depth, nil
}

// visitOrder lists the code-locations no other one depends on first (so
// reported chains start where a reader would), then all of them, each group
// sorted by name for deterministic reports.
func (g *graph) visitOrder() []string {
	dependedOn := map[string]bool{}
	for _, d := range g.decls {
		for _, dep := range d.DependsOn.CodeLocations {
			dependedOn[dep] = true
		}
	}
	var tops, all []string
	for name := range g.decls {
		all = append(all, name)
		if !dependedOn[name] {
			tops = append(tops, name)
		}
	}
	slices.Sort(tops)
	slices.Sort(all)
	return append(tops, all...)
}

// visit computes name's depth, depth-first, reporting cycles and (strict)
// unknown dependencies on the way.
func (g *graph) visit(name string) int {
	g.state[name] = inProgress
	g.stack = append(g.stack, name)
	depth := 0
	for i, dep := range g.decls[name].DependsOn.CodeLocations {
		_, known := g.decls[dep]
		switch {
		case !known:
			g.unknown(name, i, dep)
		case g.state[dep] == inProgress:
			g.cycle(dep)
		case g.state[dep] == unvisited:
			depth = max(depth, g.visit(dep)+1)
		default:
			depth = max(depth, g.depth[dep]+1)
		}
	}
	g.stack = g.stack[:len(g.stack)-1]
	g.state[name] = done
	g.depth[name] = depth
	return depth
}

// unknown reports, in strict mode, the dependency dep of name (its i-th entry)
// that is not among the code-locations given.
func (g *graph) unknown(name string, i int, dep string) {
	key := name + "\x00" + dep
	if !g.strict || g.seen[key] {
		return
	}
	g.seen[key] = true
	chain := strings.Join(append(slices.Clone(g.stack), dep), " -> ")
	g.report(name, i, CodeUnknownDependency,
		fmt.Sprintf("%s: %q is not among the code-locations given", chain, dep),
		"give its directory too, or fix the name; without --strict it would count as already deployed")
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
	i := slices.Index(g.decls[from].DependsOn.CodeLocations, to)
	g.report(from, i, CodeDependencyCycle,
		"dependency cycle: "+key+" -> "+from,
		"code-locations deploy in dependency order; remove one of these dependsOn.codeLocations entries")
}

// report adds a problem at the i-th dependsOn.codeLocations entry of name.
func (g *graph) report(name string, i int, code, msg, hint string) {
	path := fmt.Sprintf("dependsOn.codeLocations[%d]", i)
	g.problems = append(g.problems, g.decls[name].PosOf(path).At(code, path, msg, hint))
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
