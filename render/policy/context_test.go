package policy

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
)

// sharedKey is a key of this test's own, as a package's rules would use.
type sharedKey struct{}

// sharingRule reads a shared value twice, as two rules of a package would.
type sharingRule struct{ computed *int }

func (sharingRule) Codes() []Code { return nil }

func (r sharingRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	for range 2 {
		got := Shared(in, sharedKey{}, func() int { *r.computed++; return len(objs) })
		if got != len(objs) {
			return problem.Problems{{Code: "wrong", Message: "a value of another render"}}
		}
	}
	return nil
}

// TestSharedOncePerRender: Shared computes once per render of a context,
// and again in the next render, which may have other objects.
func TestSharedOncePerRender(t *testing.T) {
	in := kindsInstance(t, nil)
	computed := 0
	r := sharingRule{&computed}
	for i, objs := range [][]*yaml.RNode{
		parseObjects(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: citation}\n"),
		parseObjects(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: citation}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: citation-b}\n"),
	} {
		if ps := Check(in, []Rule{r, r}, nil, objs); len(ps) > 0 {
			t.Fatalf("render %d: %v", i+1, ps)
		}
		if computed != i+1 {
			t.Fatalf("render %d: computed %d times in all, want %d", i+1, computed, i+1)
		}
	}
}
