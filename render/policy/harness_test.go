package policy

// The one harness of the rules' tests: the example contract, a
// code-location's context, objects parsed from YAML, one rule run as Check
// runs it (facts first, its codes declared), and the problem lines the
// cases compare.

import (
	"fmt"
	"path/filepath"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/build"
	"github.com/codeloc/codeloc/validate"

	"k8s.io/apimachinery/pkg/api/resource"
)

// exampleContract is the embedded example contract, edited by tune.
func exampleContract(t testing.TB, tune func(*validate.Contract)) *validate.Contract {
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

// newInstance is the render of d against c, its objects placed in dir's
// kustomization.yaml.
func newInstance(d *validate.Declaration, c *validate.Contract, dir string) *Context {
	return NewContext(d, c, build.NewLocator(filepath.Join(dir, "kustomization.yaml")))
}

// consumeDeclaration declares a secret, a bucket and a disk; the cases
// edit it.
const consumeDeclaration = `codeLocation: citation
ready: true
revision: a3f9c1d
contractVersion: 3
resources: {cpu: 500m, memory: 1Gi, disk: 20Gi}
dependsOn:
  database: [pgvector]
  secrets: [pgvector-pg-auth]
  buckets: [{name: atlas-datalake, size: 100Gi, storageClass: rook-ceph-datalake}]
`

// consumeInstance is consumeDeclaration (edited by edit) rendered against
// the example contract.
func consumeInstance(t testing.TB, edit func(string) string) *Context {
	t.Helper()
	decl := consumeDeclaration
	if edit != nil {
		decl = edit(decl)
	}
	d, problems := validate.ParseDeclaration(validate.ManifestFile, []byte(decl))
	if len(problems) > 0 {
		t.Fatalf("declaration: %v", problems)
	}
	return newInstance(d, exampleContract(t, nil), "root")
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

// parseObjects parses a YAML stream of objects.
func parseObjects(t testing.TB, stream string) []*yaml.RNode {
	t.Helper()
	objs, err := kio.FromBytes([]byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// check runs rule r over objs as Check does, the facts gathered first, and
// fails the test when r emits a code its Codes does not declare.
func check(t testing.TB, r Rule, in *Context, objs []*yaml.RNode) problem.Problems {
	in.gatherFacts(nil, objs)
	ps := r.Check(in, objs)
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

// codesAndPaths is "code path" per problem, sorted as the render sorts.
func codesAndPaths(ps problem.Problems) []string {
	var out []string
	for _, p := range ps.Sorted() {
		out = append(out, p.Code+" "+p.Path)
	}
	return out
}

// podRuleLines shows problems as "code path: message", the part the rules
// decide (files and lines are the context's).
func podRuleLines(ps problem.Problems) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%s %s: %s", p.Code, p.Path, p.Message))
	}
	return out
}
