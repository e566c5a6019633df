// Package policytest is the harness of the tests of rules outside
// render/policy (render/policy/dagster, render/policy/rules): the example
// contract, a code-location's context, objects parsed from YAML, one rule
// run as policy.Check runs it (facts first, its codes declared), and the
// problem lines the cases compare. render/policy's own tests keep the same
// harness internally (harness_test.go): importing this package from them
// would be an import cycle.
package policytest

import (
	"path/filepath"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/build"
	"github.com/codeloc/codeloc/render/policy"
	"github.com/codeloc/codeloc/validate"
)

// ExampleContract is the embedded example contract, edited by tune.
func ExampleContract(t testing.TB, tune func(*validate.Contract)) *validate.Contract {
	t.Helper()
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		t.Fatalf("example contract: %v", problems)
	}
	if tune != nil {
		tune(c)
	}
	return c
}

// NewInstance is the render of d against c, its objects placed in dir's
// kustomization.yaml.
func NewInstance(d *validate.Declaration, c *validate.Contract, dir string) *policy.Context {
	return policy.NewContext(d, c, build.NewLocator(filepath.Join(dir, "kustomization.yaml")))
}

// ConsumeDeclaration declares a secret, a bucket and a disk; the cases
// edit it.
const ConsumeDeclaration = `codeLocation: citation
ready: true
revision: a3f9c1d
contractVersion: 3
resources: {cpu: 500m, memory: 1Gi, disk: 20Gi}
dependsOn:
  database: [pgvector]
  secrets: [pgvector-pg-auth]
  buckets: [{name: atlas-datalake, size: 100Gi, storageClass: rook-ceph-datalake}]
`

// ConsumeInstance is ConsumeDeclaration (edited by edit) rendered against
// the example contract.
func ConsumeInstance(t testing.TB, edit func(string) string) *policy.Context {
	t.Helper()
	decl := ConsumeDeclaration
	if edit != nil {
		decl = edit(decl)
	}
	d, problems := validate.ParseDeclaration(validate.ManifestFile, []byte(decl))
	if len(problems) > 0 {
		t.Fatalf("declaration: %v", problems)
	}
	return NewInstance(d, ExampleContract(t, nil), "root")
}

// ConsumePod is a Pod of citation with the pod spec spec (indented YAML),
// and the document separator.
func ConsumePod(spec string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: citation-pod}\nspec:\n" + spec + "\n---\n"
}

// ParseObjects parses a YAML stream of objects.
func ParseObjects(t testing.TB, stream string) []*yaml.RNode {
	t.Helper()
	objs, err := kio.FromBytes([]byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// Check runs rule r over objs as policy.Check does, the facts of
// gatherers gathered first, and fails the test when r emits a code its
// Codes does not declare.
func Check(t testing.TB, r policy.Rule, in *policy.Context, objs []*yaml.RNode, gatherers ...policy.Gatherer) problem.Problems {
	ps := policy.Check(in, []policy.Rule{r}, gatherers, objs)
	declared := map[string]bool{}
	for _, c := range r.Codes() {
		declared[c.Name] = true
	}
	for _, p := range ps {
		if !declared[p.Code] {
			t.Errorf("%T emits %s, which its Codes does not declare", r, p.Code)
		}
	}
	return ps
}

// Codes lists each problem as "code message" for the cases' assertions.
func Codes(ps problem.Problems) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Code+" "+p.Message)
	}
	return out
}
