package policy

import "testing"

// TestCodesDeclaredOnce requires each code to be documented by exactly one
// rule (or the stage), and every code a rule reuses to be documented by
// another.
func TestCodesDeclaredOnce(t *testing.T) {
	owner := map[string]string{}
	for _, c := range append(Codes(KubernetesRules), conflictCodes...) {
		if c.Doc == "" {
			t.Errorf("%s has no sentence", c.Name)
		}
		if o, dup := owner[c.Name]; dup {
			t.Errorf("%s is documented twice (%s)", c.Name, o)
		}
		owner[c.Name] = c.Doc
	}
	for _, r := range KubernetesRules {
		for _, c := range r.Codes() {
			if owner[c.Name] == "" {
				t.Errorf("%T reuses %s, which no rule documents", r, c.Name)
			}
		}
	}
}
