package emit

import (
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	psaapi "k8s.io/pod-security-admission/api"
	psa "k8s.io/pod-security-admission/policy"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/render/node"
	"github.com/codeloc/codeloc/validate"
)

// TestEmittedPodsPassRestricted evaluates the pods codeloc emits
// (preflight, migrate) at the Pod Security Standards' restricted level
// with Kubernetes' own checks: they run in every namespace, hardened ones
// included.
func TestEmittedPodsPassRestricted(t *testing.T) {
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	eval, err := psa.NewEvaluator(psa.DefaultChecks())
	if err != nil {
		t.Fatal(err)
	}
	lv := psaapi.LevelVersion{Level: psaapi.LevelRestricted, Version: psaapi.LatestVersion()}
	for _, fx := range []string{"citation", "mediawatch"} {
		d, problems := validate.LoadDeclaration(filepath.Join("..", "..", "fixtures", fx))
		if len(problems) > 0 {
			t.Fatal(problems)
		}
		objs, err := Objects(Input{Declaration: d, Contract: c})
		if err != nil {
			t.Fatal(err)
		}
		pods := 0
		for _, o := range objs {
			path := map[string][]string{"Pod": {"spec"}, "Job": {"spec", "template", "spec"}}[o.GetKind()]
			if path == nil {
				continue
			}
			pods++
			spec, err := o.Pipe(yaml.Lookup(path...))
			if err != nil || spec == nil {
				t.Fatalf("%s: no pod spec", node.Ref(o))
			}
			data, err := node.JSON(spec.YNode())
			if err != nil {
				t.Fatal(err)
			}
			var pod corev1.PodSpec
			if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &pod); err != nil {
				t.Fatalf("%s: %v", node.Ref(o), err)
			}
			for _, r := range eval.EvaluatePod(lv, &metav1.ObjectMeta{}, &pod) {
				if !r.Allowed {
					t.Errorf("%s/%s: %s (%s)", fx, node.Ref(o), r.ForbiddenReason, r.ForbiddenDetail)
				}
			}
		}
		if want := 1 + min(len(d.Migrations), 1); pods != want {
			t.Errorf("%s: %d emitted pods, want %d", fx, pods, want)
		}
	}
}
