package dagster

import (
	"maps"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/policy"
	"github.com/codeloc/codeloc/render/policy/policytest"
)

// The Dagster rules' tests take render/policy/policytest's harness; here,
// a code-location's context and one rule run as policy.Check runs it,
// with the Dagster facts gathered first.

// consumeInstance is policytest.ConsumeDeclaration (edited by edit)
// rendered against the example contract.
func consumeInstance(t testing.TB, edit func(string) string) *policy.Context {
	t.Helper()
	return policy.NewContext(policytest.Declaration(t, edit), policytest.ExampleContract(t, nil), policytest.Locator("root"))
}

// check runs rule r over objs as policy.Check does, Gatherers first, and
// fails the test when r emits a code its Codes does not declare.
func check(t testing.TB, r policy.Rule, in *policy.Context, objs []*yaml.RNode) problem.Problems {
	t.Helper()
	ps := policy.Check(in, []policy.Rule{r}, Gatherers, objs)
	var declared []string
	for _, c := range r.Codes() {
		declared = append(declared, c.Name)
	}
	policytest.EmitsDeclared(t, r, declared, ps)
	return ps
}

// emittedDocs are the codes the Dagster rules may emit with a sentence: their
// own and those of the Kubernetes rules they reuse.
var emittedDocs = func() map[string]string {
	docs := maps.Clone(policy.KubernetesCodeDocs())
	maps.Copy(docs, CodeDocs())
	return docs
}()
