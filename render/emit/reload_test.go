package emit

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	psaapi "k8s.io/pod-security-admission/api"
	psa "k8s.io/pod-security-admission/policy"
	"k8s.io/utils/ptr"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/dagster/workspace"
	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/render/node"
	"github.com/codeloc/codeloc/validate"
)

// citationLocation is the gRPC location the render finds for citation.
var citationLocation = &workspace.Location{Name: "citation", Host: "citation.dagster.svc", Port: 4000}

// reloadInputs loads the example contract (which sets
// dagster.webserverURL) and the citation fixture.
func reloadInputs(t *testing.T) (*validate.Declaration, *validate.Contract) {
	t.Helper()
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if c.Dagster.WebserverURL == "" {
		t.Fatal("the example contract sets no dagster.webserverURL")
	}
	d, problems := validate.LoadDeclaration(filepath.Join("..", "..", "fixtures", "citation"))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	return d, c
}

// reloadPods returns the emitted objects named <cl>-reload, as Pods.
func reloadPods(t *testing.T, in Input) []*corev1.Pod {
	t.Helper()
	objs, err := Objects(in)
	if err != nil {
		t.Fatal(err)
	}
	var pods []*corev1.Pod
	for _, o := range objs {
		if o.GetName() != names.ReloadName(in.Declaration.CodeLocation) {
			continue
		}
		if o.GetKind() != "Pod" {
			t.Fatalf("%s: not a Pod", node.Ref(o))
		}
		data, err := node.JSON(o.YNode())
		if err != nil {
			t.Fatal(err)
		}
		var pod corev1.Pod
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &pod); err != nil {
			t.Fatalf("%s: %v", node.Ref(o), err)
		}
		pods = append(pods, &pod)
	}
	return pods
}

// TestReloadPod: with a webserver in the contract and a code server in the
// render, a PostSync hook Pod runs `codeloc-jobs reload` with the
// contract's image, deadline and resources, hardened like the preflight.
func TestReloadPod(t *testing.T) {
	d, c := reloadInputs(t)
	pods := reloadPods(t, Input{Declaration: d, Contract: c, GRPC: citationLocation})
	if len(pods) != 1 {
		t.Fatalf("%d reload pods, want 1", len(pods))
	}
	got := pods[0]
	deadline := int64(c.Jobs.ActiveDeadlineSeconds)
	want := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "citation-reload", Namespace: c.Namespace,
			Labels: map[string]string{
				names.LabelCodeLocation: "citation", names.LabelRevision: d.Revision,
				names.LabelManagedBy: names.ManagedByValue, names.LabelJob: "reload",
			},
			Annotations: map[string]string{names.AnnoHook: "PostSync", names.AnnoHookDelete: "BeforeHookCreation"},
		},
		Spec: corev1.PodSpec{
			RestartPolicy:                corev1.RestartPolicyNever,
			ActiveDeadlineSeconds:        &deadline,
			AutomountServiceAccountToken: ptr.To(false),
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(999)), RunAsGroup: ptr.To(int64(999)),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{{
				Name: "reload", Image: c.Jobs.Image, Command: []string{"codeloc-jobs"},
				Args: []string{"reload", "--webserver-url", "http://dagster-dagster-webserver.dagster.svc:80", "--location", "citation", "--timeout", "540s"},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")},
				},
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true), RunAsNonRoot: ptr.To(true),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
				TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
			}},
		},
	}
	if c.Jobs.ActiveDeadlineSeconds != 600 || c.Dagster.WebserverURL != "http://dagster-dagster-webserver.dagster.svc:80" ||
		c.Jobs.CPU.String() != "100m" || c.Jobs.Memory.String() != "128Mi" {
		t.Fatalf("the example contract's jobs or dagster changed; update this test")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reload pod (-want +got):\n%s", diff)
	}
}

// TestReloadPodOnlyWhenThereIsSomethingToReload: no webserver in the
// contract, or no code server in the render: no reload pod.
func TestReloadPodOnlyWhenThereIsSomethingToReload(t *testing.T) {
	d, c := reloadInputs(t)
	noWebserver := *c
	noWebserver.Dagster.WebserverURL = ""
	for name, in := range map[string]Input{
		"no webserver":   {Declaration: d, Contract: &noWebserver, GRPC: citationLocation},
		"no code server": {Declaration: d, Contract: c},
	} {
		if pods := reloadPods(t, in); len(pods) != 0 {
			t.Errorf("%s: %d reload pods, want none", name, len(pods))
		}
	}
}

// TestReloadPodPassesRestricted evaluates the reload pod at the Pod
// Security Standards' restricted level with Kubernetes' own checks, as
// TestEmittedPodsPassRestricted does for the PreSync pods.
func TestReloadPodPassesRestricted(t *testing.T) {
	d, c := reloadInputs(t)
	eval, err := psa.NewEvaluator(psa.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	lv := psaapi.LevelVersion{Level: psaapi.LevelRestricted, Version: psaapi.LatestVersion()}
	pods := reloadPods(t, Input{Declaration: d, Contract: c, GRPC: citationLocation})
	if len(pods) != 1 {
		t.Fatalf("%d reload pods, want 1", len(pods))
	}
	for _, r := range eval.EvaluatePod(lv, &pods[0].ObjectMeta, &pods[0].Spec) {
		if !r.Allowed {
			t.Errorf("citation-reload: %s (%s)", r.ForbiddenReason, r.ForbiddenDetail)
		}
	}
}

// TestReloadPodInTheStream: the hook is in the stream once, after the
// record, with its hook annotations untouched by AssignWaves.
func TestReloadPodInTheStream(t *testing.T) {
	d, c := reloadInputs(t)
	objs, err := Objects(Input{Declaration: d, Contract: c, GRPC: citationLocation})
	if err != nil {
		t.Fatal(err)
	}
	if err := AssignWaves(d.CodeLocation, objs); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(objs, func(o *yaml.RNode) bool { return o.GetName() == "citation-reload" })
	if i < 0 {
		t.Fatal("no citation-reload")
	}
	a := objs[i].GetAnnotations()
	if keys := slices.Sorted(maps.Keys(a)); !slices.Equal(keys, []string{names.AnnoHook, names.AnnoHookDelete}) {
		t.Errorf("annotations %v, want only the hook's", a)
	}
}

func TestReloadTimeoutSeconds(t *testing.T) {
	for _, tt := range []struct{ deadline, want int }{
		{600, 540}, {10, 9}, {15, 14}, {86400, 77760},
	} {
		if got := reloadTimeoutSeconds(tt.deadline); got != tt.want || got >= tt.deadline || got < 1 {
			t.Errorf("reloadTimeoutSeconds(%d) = %d, want %d", tt.deadline, got, tt.want)
		}
	}
}
