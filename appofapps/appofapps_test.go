package appofapps

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/Masterminds/sprig/v3"
	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/validate"

	"github.com/codeloc/codeloc/internal/golden"
	"github.com/codeloc/codeloc/internal/problem"
)

const (
	fixtures = "../fixtures"
	graphs   = "../fixtures/appofapps"
	repoURL  = "https://git.example/atlas.git"
)

// exampleContract is the embedded example contract.
func exampleContract(t *testing.T) *validate.Contract {
	t.Helper()
	c, ps := validate.LoadContract("")
	if len(ps) > 0 {
		t.Fatalf("example contract: %v", ps)
	}
	return c
}

// generate runs Generate and renders its result as the CLI would: the stream,
// or "error:" and one problem per line.
func generate(t *testing.T, dirs []string, opts Options) string {
	t.Helper()
	if opts.RepoURL == "" {
		opts.RepoURL = repoURL
	}
	opts.Contract = exampleContract(t)
	apps, err := Generate(dirs, opts)
	if err != nil {
		return "error:\n" + err.Error() + "\n"
	}
	return string(Stream(apps))
}

// checkGolden compares got with testdata/NAME.golden (-update rewrites it).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name+".golden"), []byte(got), "go test ./appofapps -update")
}

func in(root string, names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = filepath.Join(root, n)
	}
	return out
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		dirs []string
		opts Options
	}{
		// The example: citation depends on mediawatch.
		{"fixtures", in(fixtures, "mediawatch", "citation"), Options{RepoRoot: fixtures}},
		// Given dependents first: the output is still sorted by wave.
		{"chain", in(graphs, "chain/marts", "chain/staging", "chain/raw"), Options{RepoRoot: graphs}},
		{"diamond", in(graphs, "diamond/report", "diamond/right", "diamond/left", "diamond/sources"), Options{RepoRoot: graphs}},
		// Only the tail of the chain: staging and raw are read from the tree.
		{"chain-partial", in(graphs, "chain/marts"), Options{RepoRoot: graphs, Revision: "main", Project: "atlas"}},
		// The Done-when command: mediawatch is found among the fixtures,
		// beside a folder that copies citation and many that copy mediawatch.
		{"citation-alone", in(fixtures, "citation"), Options{RepoRoot: fixtures}},
		{"cycle", in(graphs, "cycle/alpha", "cycle/beta", "cycle/gamma", "chain/raw"), Options{RepoRoot: graphs}},
		// A cycle reached from a code-location outside it.
		{"cycle-reached", in(graphs, "cycle/alpha"), Options{RepoRoot: graphs}},
		// ghost has no folder: refused, naming the chain, however reached;
		// known, unrelated, is generated alone.
		{"no-folder", in(graphs, "unknown/orphan", "unknown/known"), Options{RepoRoot: graphs}},
		{"no-folder-chain", in(graphs, "unknown/relay"), Options{RepoRoot: graphs}},
		{"unrelated-broken", in(graphs, "unknown/known"), Options{RepoRoot: graphs}},
		// A dependency's invalid declaration is reported; an unrelated one
		// (broken/invalid when known is given above) is not.
		{"invalid-dependency", in(graphs, "broken/needs-invalid"), Options{RepoRoot: graphs}},
		// Given too, its problems are reported once.
		{"invalid-given-and-dependency", in(graphs, "broken/invalid", "broken/needs-invalid"), Options{RepoRoot: graphs}},
		// Two folders named shared declare shared: neither is it.
		{"ambiguous-dependency", in(graphs, "twins/needs-shared"), Options{RepoRoot: graphs}},
		{"ambiguous-given", in(graphs, "twins/left/shared"), Options{RepoRoot: graphs}},
		// copy declares citation, which is fixtures/citation's.
		{"duplicate", append(in(fixtures, "citation", "mediawatch"), in(graphs, "duplicate/copy")...), Options{RepoRoot: ".."}},
		// Readiness is the render's and the preflight's: pending, not ready,
		// gets its Application and waiting its wave.
		{"not-ready", in(graphs, "draft/pending", "draft/waiting"), Options{RepoRoot: graphs}},
		{"not-ready-dependency", in(graphs, "draft/waiting"), Options{RepoRoot: graphs}},
		// media owns every name media-watch-*: refused given both (once, at
		// media), or either alone; media-preflight, a name codeloc keeps,
		// is validate.Check's when given, never a prefix pair.
		{"prefix-both", in(graphs, "prefix/media", "prefix/media-watch"), Options{RepoRoot: graphs}},
		{"prefix-short", in(graphs, "prefix/media"), Options{RepoRoot: graphs}},
		{"prefix-long", in(graphs, "prefix/media-watch"), Options{RepoRoot: graphs}},
		{"prefix-reserved", in(graphs, "prefix/media-preflight"), Options{RepoRoot: graphs}},
		// The same directory twice is read once.
		{"same-dir-twice", in(fixtures, "mediawatch", "mediawatch"), Options{RepoRoot: fixtures}},
		// Without --repo-root, paths are relative to the git top level, and
		// its whole tree makes the graph.
		{"git-top-level", in(fixtures, "mediawatch"), Options{}},
		{"git-top-level-graph", in(fixtures, "citation"), Options{}},
		{"invalid-declaration", in(graphs, "chain"), Options{RepoRoot: graphs}},
		{"operator-template", in(fixtures, "mediawatch", "citation"), Options{RepoRoot: fixtures, Template: "testdata/templates/operator.yaml"}},
		{"template-env", in(fixtures, "mediawatch"), Options{Template: "testdata/templates/env.yaml"}},
		{"template-readfile", in(fixtures, "mediawatch"), Options{Template: "testdata/templates/readfile.yaml"}},
		{"template-syntax", in(fixtures, "mediawatch"), Options{Template: "testdata/templates/syntax.yaml"}},
		{"template-field", in(fixtures, "mediawatch"), Options{Template: "testdata/templates/field.yaml"}},
		{"template-not-application", in(fixtures, "mediawatch"), Options{Template: "testdata/templates/not-application.yaml"}},
		{"template-two-documents", in(fixtures, "mediawatch"), Options{Template: "testdata/templates/two-documents.yaml"}},
		{"template-missing", in(fixtures, "mediawatch"), Options{Template: "testdata/templates/absent.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkGolden(t, tt.name, generate(t, tt.dirs, tt.opts))
		})
	}
}

// decl is a valid declaration of name depending on deps, in name.yaml.
func decl(name string, deps ...string) *validate.Declaration {
	return &validate.Declaration{CodeLocation: name, File: name + ".yaml", DependsOn: validate.DependsOn{CodeLocations: deps}}
}

// waves runs assignWaves, as Generate does, over one repo root "repo"
// holding decls, each in a folder named after it; the code-locations named
// in names are the directories given (all of them when names is empty). It
// returns the wave of each directory given.
func waves(decls []*validate.Declaration, names ...string) (map[string]int, problem.Problems) {
	t := newTree("repo", "/repo")
	var gs []*given
	for _, d := range decls {
		f := &folder{dir: "repo/" + d.CodeLocation, abs: "/repo/" + d.CodeLocation, decl: d}
		t.byAbs[f.abs] = f
		t.byName[d.CodeLocation] = append(t.byName[d.CodeLocation], f)
		if len(names) == 0 || slices.Contains(names, d.CodeLocation) {
			gs = append(gs, &given{folder: f, tree: t})
		}
	}
	ps := assignWaves(gs)
	out := map[string]int{}
	for _, g := range gs {
		out[g.decl.CodeLocation] = g.wave
	}
	return out, ps
}

// TestWaves checks the depths directly, independently of any template.
func TestWaves(t *testing.T) {
	chain := []*validate.Declaration{decl("d", "a", "c"), decl("c", "b"), decl("b", "a"), decl("a")}
	tests := []struct {
		name  string
		decls []*validate.Declaration
		given []string
		want  map[string]int
	}{
		{"none", nil, nil, map[string]int{}},
		{"independent", []*validate.Declaration{decl("a"), decl("b")}, nil, map[string]int{"a": 0, "b": 0}},
		{"longest path wins", chain, nil, map[string]int{"a": 0, "b": 1, "c": 2, "d": 3}},
		// The dependencies not given are read from the tree: the same waves.
		{"top alone", chain, []string{"d"}, map[string]int{"d": 3}},
		{"middle alone", chain, []string{"c"}, map[string]int{"c": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ps := waves(tt.decls, tt.given...)
			if len(ps) > 0 {
				t.Fatal(ps)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("waves (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWavesNoFolder: a dependency outside the tree, however deep, is
// refused at the entry naming it, with the chain from the top.
func TestWavesNoFolder(t *testing.T) {
	_, ps := waves([]*validate.Declaration{decl("a", "b"), decl("b", "c", "elsewhere"), decl("c")})
	want := "b.yaml:1:1: dependency-without-folder dependsOn.codeLocations[1]: a -> b -> elsewhere: " +
		`no folder under repo declares codeLocation "elsewhere" (add the code-location's folder, or fix the name)`
	if len(ps) != 1 || ps[0].String() != want {
		t.Fatalf("want\n%s\ngot:\n%v", want, ps)
	}
}

// TestCycleReportedOnce: a cycle reached from several entry points is one
// problem, starting at its smallest name.
func TestCycleReportedOnce(t *testing.T) {
	_, ps := waves([]*validate.Declaration{decl("top", "c"), decl("c", "b"), decl("b", "a"), decl("a", "c"), decl("z", "b")})
	if len(ps) != 1 || ps[0].Code != CodeDependencyCycle || !strings.Contains(ps[0].Message, "a -> c -> b -> a") {
		t.Fatalf("want one cycle a -> c -> b -> a, got:\n%v", ps)
	}
}

// TestRemovedFunctions: each removed function exists in sprig (so removing it
// means something), is absent from the map, and a template calling it is
// refused with a message naming the function, the file and the line.
func TestRemovedFunctions(t *testing.T) {
	sprigFuncs := sprig.TxtFuncMap()
	ours := funcMap()
	for name, why := range removedFuncs {
		if _, ok := sprigFuncs[name]; !ok {
			t.Errorf("%s is not a sprig function", name)
		}
		if _, ok := ours[name]; ok {
			t.Errorf("%s is still available", name)
		}
		src := fmt.Sprintf("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {{ %s }}\n", name)
		_, ps := ParseTemplate("t.yaml", []byte(src))
		want := problem.Problem{Code: CodeTemplateFunction, File: "t.yaml", Line: 4, Column: 1,
			Message: fmt.Sprintf("function %q is not available: %s", name, why)}
		if len(ps) != 1 || !cmp.Equal(want, ps[0], cmpIgnoreHint) {
			t.Errorf("%s: got %v", name, ps)
		}
	}
	for _, name := range []string{"env", "expandenv", "getHostByName", "now", "randAlphaNum", "uuidv4"} {
		if _, ok := removedFuncs[name]; !ok {
			t.Errorf("%s must be removed", name)
		}
	}
}

// TestTemplateCallsNoMethods: a template may read the data's fields and
// call functions, but a value's methods are not called (the engine is
// text/template without method calls): the problem names the line, and the
// hint says so.
func TestTemplateCallsNoMethods(t *testing.T) {
	src := "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {{ .Name }}-{{ (semver \"1.2.3\").Major }}\n"
	tmpl, ps := ParseTemplate("t.yaml", []byte(src))
	if ps != nil {
		t.Fatal(ps)
	}
	_, ps = tmpl.Execute(Data{Name: "x"})
	want := problem.Problem{Code: CodeTemplate, File: "t.yaml", Line: 4, Column: 31,
		Message: `executing "t.yaml" at <"1.2.3">: can't evaluate field Major in type *semver.Version`}
	if len(ps) != 1 || !cmp.Equal(want, ps[0], cmpIgnoreHint) {
		t.Fatalf("got %v", ps)
	}
	if !strings.Contains(ps[0].Hint, "never a value's methods") {
		t.Errorf("hint %q does not say methods are not called", ps[0].Hint)
	}
}

// TestSprigDependencies pins what a template reads from the libraries sprig
// calls (shopspring/decimal for the float arithmetic, Masterminds/semver for
// the version functions), so that bumping one of them cannot change an
// Application without a test failing.
func TestSprigDependencies(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`addf 1.5 2`, "3.5"},
		{`subf 1 0.9`, "0.1"},
		{`mulf 1.1 3`, "3.3"},
		{`divf 1 3`, "0.3333333333333333"},
		{`divf 10 4`, "2.5"},
		{`maxf 1 2.5 0.5`, "2.5"},
		{`semverCompare "^1.2" "1.4.0"`, "true"},
		{`semverCompare ">= 2.0.0" "1.9.9"`, "false"},
		{`semverCompare "~1.2.3" "1.2.9-rc.1"`, "false"},
	} {
		src := "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: x\n  annotations:\n    v: {{ quote (" + tc.expr + ") }}\n"
		tmpl, ps := ParseTemplate("t.yaml", []byte(src))
		if ps != nil {
			t.Fatalf("%s: %v", tc.expr, ps)
		}
		out, ps := tmpl.Execute(Data{Name: "x"})
		if ps != nil {
			t.Errorf("%s: %v", tc.expr, ps)
			continue
		}
		if want := fmt.Sprintf("    v: %q\n", tc.want); !strings.HasSuffix(string(out), want) {
			t.Errorf("%s: got %q, want it to end with %q", tc.expr, out, want)
		}
	}
}

var cmpIgnoreHint = cmp.Comparer(func(a, b problem.Problem) bool {
	a.Hint, b.Hint = "", ""
	return a == b
})

// TestNoGitTopLevel: without --repo-root, a directory outside any git work
// tree is a usage error, not a guess.
func TestNoGitTopLevel(t *testing.T) {
	dir := t.TempDir()
	cl := filepath.Join(dir, "mediawatch")
	if err := os.MkdirAll(cl, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(fixtures, "mediawatch", validate.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cl, validate.ManifestFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Generate([]string{cl}, Options{RepoURL: repoURL, Contract: exampleContract(t)})
	var ps problem.Problems
	if err == nil || errors.As(err, &ps) || !strings.Contains(err.Error(), "pass --repo-root") {
		t.Fatalf("want a usage error asking for --repo-root, got %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	apps, err := Generate([]string{cl}, Options{RepoURL: repoURL, Contract: exampleContract(t)})
	if err != nil || len(apps) != 1 || !strings.Contains(string(apps[0].YAML), `path: "mediawatch"`) {
		t.Fatalf("want path mediawatch under the .git folder, got %v %v", apps, err)
	}
}

func TestOutsideRepoRoot(t *testing.T) {
	_, err := Generate(in(fixtures, "mediawatch"), Options{RepoURL: repoURL, RepoRoot: graphs, Contract: exampleContract(t)})
	if err == nil || !strings.Contains(err.Error(), "is not inside the repo root") {
		t.Fatalf("got %v", err)
	}
}

func TestUsage(t *testing.T) {
	c := exampleContract(t)
	for name, tc := range map[string]struct {
		dirs []string
		opts Options
	}{
		"no dir":       {nil, Options{RepoURL: repoURL, Contract: c}},
		"no repo URL":  {in(fixtures, "mediawatch"), Options{Contract: c}},
		"spaced URL":   {in(fixtures, "mediawatch"), Options{RepoURL: "https://x y", Contract: c}},
		"no contract":  {in(fixtures, "mediawatch"), Options{RepoURL: repoURL}},
		"spaced value": {in(fixtures, "mediawatch"), Options{RepoURL: repoURL, Revision: "a b", Contract: c}},
	} {
		if _, err := Generate(tc.dirs, tc.opts); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func TestWriteFiles(t *testing.T) {
	apps, err := Generate(in(fixtures, "mediawatch", "citation"), Options{RepoURL: repoURL, RepoRoot: fixtures, Contract: exampleContract(t)})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "cluster-apps")
	if err := WriteFiles(dir, apps); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"citation.admission.yaml", "citation.yaml", "mediawatch.admission.yaml", "mediawatch.yaml"}, names); diff != "" {
		t.Fatalf("files (-want +got):\n%s", diff)
	}
	for file, want := range map[string][]byte{"citation.yaml": apps[1].YAML, "citation.admission.yaml": apps[1].Admission} {
		got, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", file, diff)
		}
	}
}
