package preflight_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/internal/kubetest"
	"github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/validate"
)

// TestRenderedRoleIsTheProvenOne ties the least-privilege proof to what ships:
// the Role `codeloc render` emits for the citation fixture has exactly the
// rules of testdata/role.yaml, which TestLeastPrivilege applies.
func TestRenderedRoleIsTheProvenOne(t *testing.T) {
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	res, err := render.Render(render.Request{Dir: "../fixtures/citation", Contract: c})
	if err != nil {
		t.Fatal(err)
	}
	var rendered any
	for _, o := range res.Objects {
		if o.GetKind() == "Role" && o.GetName() == "citation-preflight" {
			s, err := o.String()
			if err != nil {
				t.Fatal(err)
			}
			var role map[string]any
			if err := yaml.Unmarshal([]byte(s), &role); err != nil {
				t.Fatal(err)
			}
			rendered = role["rules"]
		}
	}
	var proven any
	for _, o := range kubetest.MustParseYAML(t, readTestdata(t, "role.yaml")) {
		if o.GetKind() == "Role" {
			proven = o.Object["rules"]
		}
	}
	if rendered == nil || proven == nil {
		t.Fatalf("missing Role: rendered %v, proven %v", rendered, proven)
	}
	if diff := cmp.Diff(proven, rendered); diff != "" {
		t.Errorf("rendered Role differs from testdata/role.yaml (-proven +rendered):\n%s", diff)
	}
}
