package rules

import (
	"testing"

	"github.com/codeloc/codeloc/render/policy"
)

// TestCodesDeclaredOnce requires each code of Rules to be documented by
// exactly one rule (or the stage after them), and every code a rule
// reuses to be documented by another, across the Kubernetes and the
// Dagster rules.
func TestCodesDeclaredOnce(t *testing.T) {
	owner := map[string]string{}
	for _, c := range append(policy.Codes(Rules), policy.Code{Name: policy.CodeNameConflict, Doc: policy.KubernetesCodeDocs()[policy.CodeNameConflict]}) {
		if c.Doc == "" {
			t.Errorf("%s has no sentence", c.Name)
		}
		if o, dup := owner[c.Name]; dup {
			t.Errorf("%s is documented twice (%s)", c.Name, o)
		}
		owner[c.Name] = c.Doc
	}
	for _, r := range Rules {
		for _, c := range r.Codes() {
			if owner[c.Name] == "" {
				t.Errorf("%T reuses %s, which no rule documents", r, c.Name)
			}
		}
	}
	if len(CodeDocs()) != len(owner) {
		t.Errorf("CodeDocs() has %d codes, the rules and the stage document %d", len(CodeDocs()), len(owner))
	}
}
