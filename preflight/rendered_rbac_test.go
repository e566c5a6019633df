package preflight_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/internal/kubetest"
	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/preflight"
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

// TestRenderedRecordSatisfiesDependents ties the record a code-location's
// render publishes to what its dependents' preflights read: mediawatch's
// rendered record ConfigMap, applied as is, makes citation's dependency
// check pass; the same record saying ready: false makes it fail.
func TestRenderedRecordSatisfiesDependents(t *testing.T) {
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	res, err := render.Render(render.Request{Dir: "../fixtures/mediawatch", Contract: c})
	if err != nil {
		t.Fatal(err)
	}
	var record string
	for _, o := range res.Objects {
		if o.GetKind() == "ConfigMap" && o.GetName() == names.RecordName("mediawatch") {
			record, err = o.String()
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if record == "" {
		t.Fatalf("mediawatch's render has no ConfigMap %s", names.RecordName("mediawatch"))
	}
	for _, tt := range []struct {
		ready string
		want  []string
	}{
		{"true", nil},
		{"false", []string{`dependency-not-ready dependsOn.codeLocations[0]: code-location "mediawatch" is not ready`}},
	} {
		t.Run("ready="+tt.ready, func(t *testing.T) {
			w := newWorld(t, sharedEnv(t), nil)
			s := good()
			s.records = nil
			w.apply(t, s)
			doc := strings.Replace(record, "namespace: dagster", "namespace: "+w.ns, 1)
			doc = strings.Replace(doc, "ready: \"true\"", "ready: \""+tt.ready+"\"", 1)
			w.env.ApplyYAML(t, w.ns, doc)
			w.expect(t, w.run(t, preflight.Options{}), tt.want...)
		})
	}
}
