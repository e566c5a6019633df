package layers

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// rule is one line of the layering: the packages it holds (Packages but
// not Except) and what they may link.
type rule struct {
	// Name says what the rule keeps, in the messages.
	Name string
	// Packages are the codeloc packages the rule holds, less Except.
	Packages, Except []string
	// OnlyImport, when set, is all the codeloc packages they may import
	// directly; other modules' and the standard library's are not limited.
	OnlyImport []string
	// Forbid is what they may not link, directly or through any other
	// package: codeloc patterns or other modules' (github.com/...).
	Forbid []string
}

// graph is the packages linked by the module's packages and their imports.
type graph struct {
	module  string
	imports map[string][]string // import path → its imports
	ours    []string            // the module's packages, module-relative, sorted
}

// parseGraph reads go list -deps -f '{{.ImportPath}}{{range .Imports}}
// {{.}}{{end}}': one package a line, its path then its imports.
func parseGraph(module, list string) *graph {
	g := &graph{module: module, imports: map[string][]string{}}
	for _, line := range strings.Split(list, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		g.imports[f[0]] = f[1:]
		if rel, ok := g.rel(f[0]); ok {
			g.ours = append(g.ours, rel)
		}
	}
	sort.Strings(g.ours)
	return g
}

// rel is a codeloc package's module-relative path.
func (g *graph) rel(path string) (string, bool) {
	if path == g.module {
		return ".", true
	}
	rel, ok := strings.CutPrefix(path, g.module+"/")
	return rel, ok
}

// name is how messages name a package: module-relative when codeloc's.
func (g *graph) name(path string) string {
	if rel, ok := g.rel(path); ok {
		return rel
	}
	return path
}

// matches reports whether any pattern names the package at path: a
// codeloc pattern ("render/...", "validate", "...") a codeloc package, a
// pattern starting with a domain another module's package.
func (g *graph) matches(patterns []string, path string) bool {
	rel, ours := g.rel(path)
	for _, p := range patterns {
		first, _, _ := strings.Cut(p, "/")
		target := rel
		if strings.Contains(first, ".") {
			target = path
		} else if !ours {
			continue
		}
		if p == "..." || p == target {
			return true
		}
		if dir, ok := strings.CutSuffix(p, "/..."); ok && (target == dir || strings.HasPrefix(target, dir+"/")) {
			return true
		}
	}
	return false
}

// check returns one message per broken rule and package: which import
// broke which rule, and through which packages.
func check(g *graph, rules []rule) []string {
	var out []string
	for _, r := range rules {
		for _, p := range r.Packages {
			if !strings.Contains(p, "...") && !slices.Contains(g.ours, p) {
				out = append(out, fmt.Sprintf("rule %q names package %s, which the module does not have: fix the table", r.Name, p))
			}
		}
		for _, rel := range g.ours {
			path := g.module + "/" + rel
			if !g.matches(r.Packages, path) || g.matches(r.Except, path) {
				continue
			}
			if r.OnlyImport != nil {
				for _, imp := range g.imports[path] {
					if _, ours := g.rel(imp); ours && !g.matches(r.OnlyImport, imp) {
						out = append(out, fmt.Sprintf("%s imports %s, which rule %q forbids (it may import only %s)", rel, g.name(imp), r.Name, strings.Join(r.OnlyImport, ", ")))
					}
				}
			}
			if r.Forbid != nil {
				for _, chain := range g.reach(path, func(q string) bool { return g.matches(r.Forbid, q) }) {
					names := make([]string, len(chain))
					for i, q := range chain {
						names[i] = g.name(q)
					}
					verb, via := "imports", ""
					if len(chain) > 2 {
						verb, via = "links", " through "+strings.Join(names[1:len(names)-1], " → ")
					}
					out = append(out, fmt.Sprintf("%s %s %s%s, which rule %q forbids", rel, verb, names[len(names)-1], via, r.Name))
				}
			}
		}
	}
	return out
}

// reach returns the shortest import chain from path to each package bad
// names that path links, not going on past one: the first forbidden
// package on each way.
func (g *graph) reach(path string, bad func(string) bool) [][]string {
	from := map[string]string{path: ""}
	queue := []string{path}
	var hits [][]string
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range g.imports[p] {
			if _, seen := from[imp]; seen {
				continue
			}
			from[imp] = p
			if bad(imp) {
				var chain []string
				for q := imp; q != ""; q = from[q] {
					chain = append([]string{q}, chain...)
				}
				hits = append(hits, chain)
				continue
			}
			queue = append(queue, imp)
		}
	}
	return hits
}

// TestCheck: the checker on a fabricated module breaking each kind of rule
// names the import and the rule; the same module without them passes.
func TestCheck(t *testing.T) {
	const m = "example.com/m"
	list := func(lines ...string) string {
		return strings.NewReplacer("~", m+"/").Replace(strings.Join(lines, "\n"))
	}
	good := []string{
		"~internal/names fmt",
		"~internal/problem ~internal/names",
		"~validate ~internal/problem github.com/wasilibs/go-pgquery",
		"~render/build ~internal/problem",
		"~render ~render/build ~validate",
		"~internal/cli ~render k8s.io/api/core/v1",
		"~cmd/codeloc ~internal/cli",
		"fmt", "github.com/wasilibs/go-pgquery", "k8s.io/api/core/v1",
	}
	rules := []rule{
		{Name: "leaves", Packages: []string{"internal/names", "internal/problem"}, OnlyImport: []string{"internal/names", "internal/problem"}},
		{Name: "validate below render", Packages: []string{"validate/..."}, Forbid: []string{"render/...", "internal/cli/...", "cmd/..."}},
		{Name: "render/build without validate", Packages: []string{"render/build/..."}, Forbid: []string{"validate/..."}},
		{Name: "no main imported", Packages: []string{"..."}, Forbid: []string{"cmd/..."}},
		{Name: "cli for mains", Packages: []string{"..."}, Except: []string{"cmd/...", "internal/cli/..."}, Forbid: []string{"internal/cli/..."}},
		{Name: "lean CLI", Packages: []string{"cmd/codeloc"}, Forbid: []string{"k8s.io/client-go/...", "github.com/argoproj/..."}},
	}
	if got := check(parseGraph(m, list(good...)), rules); len(got) != 0 {
		t.Fatalf("the good module fails:\n%s", strings.Join(got, "\n"))
	}

	bad := list(
		"~internal/names fmt ~validate", // a leaf importing a non-leaf
		"~internal/problem ~internal/names",
		"~validate ~internal/problem ~render/build",
		"~render/build ~internal/problem ~render/helper", // links validate through a helper
		"~render/helper ~validate",
		"~render ~render/build ~validate ~cmd/codeloc",
		"~internal/cli ~render k8s.io/client-go/kubernetes",
		"~cmd/codeloc ~internal/cli",
		"~plugin ~internal/cli",
		"fmt", "k8s.io/client-go/kubernetes k8s.io/client-go/rest", "k8s.io/client-go/rest",
	)
	got := check(parseGraph(m, bad), rules)
	want := []string{
		`internal/names imports validate, which rule "leaves" forbids (it may import only internal/names, internal/problem)`,
		`validate imports render/build, which rule "validate below render" forbids`,
		`render/build links validate through render/helper, which rule "render/build without validate" forbids`,
		`render imports cmd/codeloc, which rule "no main imported" forbids`,
		`plugin imports internal/cli, which rule "cli for mains" forbids`,
		`cmd/codeloc links k8s.io/client-go/kubernetes through internal/cli, which rule "lean CLI" forbids`,
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing:\n  %s\nin:\n  %s", w, strings.Join(got, "\n  "))
		}
	}

	// A rule naming a package the module lacks is a mistake of the table.
	got = check(parseGraph(m, list(good...)), []rule{{Name: "typo", Packages: []string{"internal/nmaes"}, OnlyImport: []string{"internal/names"}}})
	if len(got) != 1 || !strings.Contains(got[0], `rule "typo" names package internal/nmaes, which the module does not have`) {
		t.Errorf("typo: %q", got)
	}
}
