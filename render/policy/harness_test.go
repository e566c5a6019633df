package policy

// The rules' tests take render/policy/policytest's harness (the example
// contract, the declaration, objects parsed from YAML, the problem lines);
// here, a code-location's context and one rule run as Check runs it.

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/policy/policytest"
	"github.com/codeloc/codeloc/validate"

	"k8s.io/apimachinery/pkg/api/resource"
)

// The harness's helpers under the names the cases use.
var (
	exampleContract = policytest.ExampleContract
	parseObjects    = policytest.ParseObjects
	consumePod      = policytest.ConsumePod
	codesAndPaths   = policytest.CodesAndPaths
	podRuleLines    = policytest.Lines
)

// newInstance is the render of d against c, its objects placed in dir's
// kustomization.yaml.
func newInstance(d *validate.Declaration, c *validate.Contract, dir string) *Context {
	return NewContext(d, c, policytest.Locator(dir))
}

// consumeInstance is policytest.ConsumeDeclaration (edited by edit)
// rendered against the example contract.
func consumeInstance(t testing.TB, edit func(string) string) *Context {
	t.Helper()
	return newInstance(policytest.Declaration(t, edit), exampleContract(t, nil), "root")
}

// kindsInstance is code-location citation rendered against the example
// contract, its policy changed by edit.
func kindsInstance(t testing.TB, edit func(*validate.Policy)) *Context {
	t.Helper()
	return newInstance(&validate.Declaration{CodeLocation: "citation"}, exampleContract(t, func(c *validate.Contract) {
		if edit != nil {
			edit(&c.Policy)
		}
	}), "root")
}

// podRuleInstance is code-location citation (revision a3f9c1d, 500m cpu,
// 1Gi memory, no disk) under the example contract, which tune may edit.
func podRuleInstance(t *testing.T, tune func(*validate.Contract)) *Context {
	t.Helper()
	d := &validate.Declaration{CodeLocation: "citation", Revision: "a3f9c1d", Resources: validate.Resources{
		CPU:    validate.Quantity{Quantity: resource.MustParse("500m"), Set: true},
		Memory: validate.Quantity{Quantity: resource.MustParse("1Gi"), Set: true},
	}}
	return newInstance(d, exampleContract(t, tune), t.TempDir())
}

// check runs rule r over objs as Check does, the facts gathered first, and
// fails the test when r emits a code its Codes does not declare.
func check(t testing.TB, r Rule, in *Context, objs []*yaml.RNode) problem.Problems {
	t.Helper()
	ps := Check(in, []Rule{r}, nil, objs)
	policytest.EmitsDeclared(t, r, codeNames(r), ps)
	return ps
}

// codeNames are the names of the codes r declares.
func codeNames(r Rule) []string {
	var out []string
	for _, c := range r.Codes() {
		out = append(out, c.Name)
	}
	return out
}
