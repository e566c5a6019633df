package emit

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/codeloc/codeloc/validate"
)

// viaJSON is what value must give: encoding/json's output read back.
func viaJSON(t *testing.T, obj any) any {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestValueIsJSON checks value against encoding/json on every object
// emitted for the fixtures, and on typed values that exercise the rules
// (omitempty, zero values kept, inline, pointers, maps, Marshalers).
func TestValueIsJSON(t *testing.T) {
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	var objs []any
	for _, fx := range []string{"citation", "mediawatch", "allpaths"} {
		d, problems := validate.LoadDeclaration(filepath.Join("..", "..", "fixtures", fx))
		if len(problems) > 0 {
			t.Fatal(problems)
		}
		e := &emitter{d: d, c: c, secretKeys: map[string][]string{"s": {"a", "b"}}}
		objs = append(objs, e.preflightServiceAccount(), e.preflightRole(), e.preflightRoleBinding(), e.preflightInputs(),
			e.preflightPod(), e.migrationsConfigMap(), e.migrateJob("x"), e.dataClaim(), e.record())
	}
	objs = append(objs,
		&appsv1.Deployment{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: metav1.ObjectMeta{Name: "x", CreationTimestamp: metav1.Now(), Labels: map[string]string{}},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To(int32(0)),
				Strategy: appsv1.DeploymentStrategy{RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("25%")), MaxUnavailable: ptr.To(intstr.FromInt32(1))}},
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name: "c", Ports: []corev1.ContainerPort{{ContainerPort: 0, Protocol: corev1.ProtocolTCP}},
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0.5")}},
						Stdin:     false, TTY: true,
					}},
					NodeSelector: map[string]string{"a": ""},
					Tolerations:  []corev1.Toleration{{Key: "k", TolerationSeconds: ptr.To(int64(0))}},
				}},
			},
		},
		&corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromString("http")}}}},
		&corev1.ConfigMap{Data: map[string]string{}, Immutable: ptr.To(false)},
	)
	for _, obj := range objs {
		got, err := value(reflect.ValueOf(obj))
		if err != nil {
			t.Fatalf("%T: %v", obj, err)
		}
		if diff := cmp.Diff(numbers(viaJSON(t, obj)), got); diff != "" {
			t.Errorf("%T (-encoding/json +value):\n%s", obj, diff)
		}
	}
}
