package preflight_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
// rendered record ConfigMap, applied as Argo CD applies it for
// mediawatch's Application (its tracking annotation, 3.x's default, or its
// instance label, 2.x's), makes citation's dependency check pass; the same
// record saying ready: false makes it fail, and applied as is (by hand, no
// Application's) it is not believed.
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
		ready, tracking string
		want            []string
	}{
		{"true", annotationTracking, nil},
		{"true", labelTracking, nil},
		{"false", annotationTracking, []string{`dependency-not-ready dependsOn.codeLocations[0]: code-location "mediawatch" is not ready`}},
		{"true", noTracking, []string{`dependency-record-untrusted dependsOn.codeLocations[0]: code-location "mediawatch": ConfigMap "codeloc-mediawatch" in namespace "{{ns}}" is not its record as codeloc publishes it through its Application: no Argo CD Application manages it`}},
	} {
		t.Run("ready="+tt.ready+",tracking="+tt.tracking, func(t *testing.T) {
			w := newWorld(t, sharedEnv(t), nil)
			s := good()
			s.records = nil
			w.apply(t, s)
			doc := strings.Replace(record, "namespace: dagster", "namespace: "+w.ns, 1)
			doc = strings.Replace(doc, "ready: \"true\"", "ready: \""+tt.ready+"\"", 1)
			w.env.ApplyYAML(t, w.ns, argoCDApplied(t, doc, "mediawatch", w.ns, tt.tracking))
			w.expect(t, w.run(t, preflight.Options{}), tt.want...)
		})
	}
}

// argoCDApplied is doc, one object, with the tracking Argo CD adds when
// the Application app of its own namespace applies it into namespace.
func argoCDApplied(t *testing.T, doc, app, namespace, tracking string) string {
	t.Helper()
	var u unstructured.Unstructured
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	switch tracking {
	case annotationTracking:
		gvk := u.GroupVersionKind()
		annotations := u.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[names.AnnoTrackingID] = names.TrackingID(app, gvk.Group, gvk.Kind, namespace, u.GetName())
		u.SetAnnotations(annotations)
	case labelTracking:
		labels := u.GetLabels()
		labels[names.LabelAppInstance] = app
		u.SetLabels(labels)
	}
	out, err := yaml.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
