// Package policytest is the one harness of the rules' tests, in
// render/policy, render/policy/dagster and render/policy/rules: the
// example contract, the declaration the cases edit, objects parsed from
// YAML, the check that a rule emits only the codes it declares, and the
// problem lines the cases compare. It imports no render/policy, so that
// render/policy's own (internal) tests import it without a cycle; each
// package's harness_test.go builds its Context and runs a rule as
// policy.Check does over these.
package policytest

import (
	"fmt"
	"path/filepath"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/build"
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

// Locator places the objects of a render in dir's kustomization.yaml.
func Locator(dir string) *build.Locator {
	return build.NewLocator(filepath.Join(dir, "kustomization.yaml"))
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

// Declaration is ConsumeDeclaration edited by edit (nil: as is), parsed.
func Declaration(t testing.TB, edit func(string) string) *validate.Declaration {
	t.Helper()
	decl := ConsumeDeclaration
	if edit != nil {
		decl = edit(decl)
	}
	d, problems := validate.ParseDeclaration(validate.ManifestFile, []byte(decl))
	if len(problems) > 0 {
		t.Fatalf("declaration: %v", problems)
	}
	return d
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

// EmitsDeclared fails the test when rule (named in the message) emitted a
// problem of a code its Codes do not declare.
func EmitsDeclared(t testing.TB, rule any, declared []string, ps problem.Problems) {
	t.Helper()
	known := map[string]bool{}
	for _, c := range declared {
		known[c] = true
	}
	for _, p := range ps {
		if !known[p.Code] {
			t.Errorf("%T emits %s, which its Codes does not declare", rule, p.Code)
		}
	}
}

// CodesAndPaths is "code path" per problem, sorted as the render sorts.
func CodesAndPaths(ps problem.Problems) []string {
	var out []string
	for _, p := range ps.Sorted() {
		out = append(out, p.Code+" "+p.Path)
	}
	return out
}

// Lines shows problems as "code path: message", the part the rules
// decide (files and lines are the context's).
func Lines(ps problem.Problems) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%s %s: %s", p.Code, p.Path, p.Message))
	}
	return out
}

// Codes lists each problem as "code message" for the cases' assertions.
func Codes(ps problem.Problems) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Code+" "+p.Message)
	}
	return out
}
