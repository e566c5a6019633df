package render_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/render/emit"
	"github.com/codeloc/codeloc/render/policy"
	policyrules "github.com/codeloc/codeloc/render/policy/rules"
	"github.com/codeloc/codeloc/validate"
)

// fixtureDirs are every fixture render reads, from the repository root:
// the good ones, then fixtures/invalid/*.
func fixtureDirs(t *testing.T) []string {
	t.Helper()
	invalid, err := filepath.Glob("fixtures/invalid/*")
	if err != nil || len(invalid) < 20 {
		t.Fatalf("want the invalid fixtures, got %d (%v)", len(invalid), err)
	}
	return append([]string{"fixtures/citation", "fixtures/mediawatch", "fixtures/allpaths"}, invalid...)
}

// renderDir renders dir as `codeloc render` does: against its
// contract.yaml when it has one, else the example contract.
func renderDir(dir string) (*render.Result, error) {
	path := ""
	if _, err := os.Stat(filepath.Join(dir, "contract.yaml")); err == nil {
		path = filepath.Join(dir, "contract.yaml")
	}
	c, ps := validate.LoadContract(path)
	if c == nil {
		return nil, ps
	}
	return render.Render(render.Request{Dir: dir, Contract: c})
}

// renderFixture renders dir and returns the output or the problem lines,
// the warnings and the gRPC location: what the shuffle must not change.
func renderFixture(t *testing.T, dir string) string {
	t.Helper()
	res, err := renderDir(dir)
	if err != nil {
		return "error: " + err.Error()
	}
	out, err := emit.Write(res.Objects)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s\nwarnings: %v\nlocation: %+v", out, res.Warnings, res.Location)
}

// withRules runs f with the rule list (policyrules.Rules) set to rules.
func withRules(t *testing.T, rules []policy.Rule, f func()) {
	t.Helper()
	saved := policyrules.Rules
	policyrules.Rules = rules
	defer func() { policyrules.Rules = saved }()
	f()
}

// TestRuleOrderChangesNothing shuffles the rule list (several seeds, and
// reversed) and renders every fixture: the rules share facts gathered
// before them and write nothing, so no output, warning or problem line
// may change.
func TestRuleOrderChangesNothing(t *testing.T) {
	t.Chdir("..")
	dirs := fixtureDirs(t)
	want := map[string]string{}
	for _, dir := range dirs {
		want[dir] = renderFixture(t, dir)
	}
	reversed := slices.Clone(policyrules.Rules)
	slices.Reverse(reversed)
	orders := map[string][]policy.Rule{"reversed": reversed}
	for seed := range uint64(3) {
		rules := slices.Clone(policyrules.Rules)
		rand.New(rand.NewPCG(seed, 29)).Shuffle(len(rules), func(i, j int) { rules[i], rules[j] = rules[j], rules[i] })
		orders[fmt.Sprintf("seed %d", seed)] = rules
	}
	for name, rules := range orders {
		withRules(t, rules, func() {
			for _, dir := range dirs {
				if got := renderFixture(t, dir); got != want[dir] {
					t.Errorf("%s: %s renders otherwise than in the list's order:\n%s\nwant:\n%s", name, dir, got, want[dir])
				}
			}
		})
	}
}

// recorder runs a rule and keeps the codes it emitted.
type recorder struct {
	policy.Rule
	emitted map[string][]string // code -> fixtures
	dir     *string
}

func (r recorder) Check(in *policy.Context, objs []*yaml.RNode) problem.Problems {
	ps := r.Rule.Check(in, objs)
	for _, p := range ps {
		r.emitted[p.Code] = append(r.emitted[p.Code], *r.dir)
	}
	return ps
}

// TestRulesEmitDeclaredCodes renders every fixture with each rule wrapped:
// every code a rule emits must be one its Codes declares, and every
// problem of every fixture a code the docs document.
func TestRulesEmitDeclaredCodes(t *testing.T) {
	t.Chdir("..")
	var dir string
	recs := make([]recorder, len(policyrules.Rules))
	rules := make([]policy.Rule, len(policyrules.Rules))
	for i, r := range policyrules.Rules {
		recs[i] = recorder{r, map[string][]string{}, &dir}
		rules[i] = recs[i]
	}
	documented := map[string]bool{}
	for _, docs := range []map[string]string{render.CodeDocs(), validate.CodeDocs()} {
		for code := range docs {
			documented[code] = true
		}
	}
	withRules(t, rules, func() {
		for _, dir = range fixtureDirs(t) {
			for _, code := range problemCodes(t, dir) {
				if !documented[code] {
					t.Errorf("%s: code %s is documented by no stage", dir, code)
				}
			}
		}
	})
	for _, rec := range recs {
		declared := map[string]bool{}
		for _, c := range rec.Codes() {
			declared[c.Name] = true
		}
		for code, dirs := range rec.emitted {
			if !declared[code] {
				t.Errorf("%T emits %s (%s) but does not declare it in Codes", rec.Rule, code, strings.Join(slices.Compact(dirs), ", "))
			}
		}
	}
}

// problemCodes are the codes of the problems a render of dir reports.
func problemCodes(t *testing.T, dir string) []string {
	t.Helper()
	res, err := renderDir(dir)
	var ps problem.Problems
	if res != nil {
		ps = res.Warnings
	}
	if !errors.As(err, &ps) && err != nil {
		t.Errorf("%s: %v", dir, err)
	}
	var out []string
	for _, p := range ps {
		out = append(out, p.Code)
	}
	return out
}
