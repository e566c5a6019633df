package dagster

import (
	"maps"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/policy"
	"github.com/codeloc/codeloc/render/policy/policytest"
)

// The Dagster rules' tests take render/policy/policytest's harness; check
// runs a rule with the Dagster facts gathered first, as the render does.

// check runs rule r over objs as policy.Check does, Gatherers first, and
// fails the test when r emits a code its Codes does not declare.
func check(t testing.TB, r policy.Rule, in *policy.Context, objs []*yaml.RNode) problem.Problems {
	t.Helper()
	return policytest.Check(t, r, in, objs, Gatherers...)
}

// codeDocs are the codes the Dagster rules may emit with a sentence: their
// own and those of the Kubernetes rules they reuse.
var codeDocs = func() map[string]string {
	docs := maps.Clone(policy.KubernetesCodeDocs)
	maps.Copy(docs, CodeDocs)
	return docs
}()
