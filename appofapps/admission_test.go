package appofapps

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/internal/golden"
	"github.com/codeloc/codeloc/internal/kubetest"
	"github.com/codeloc/codeloc/internal/names"
	codelocrender "github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/validate"
)

// TestAdmissionPolicyFile pins the install bundle's policy file to its
// generator.
func TestAdmissionPolicyFile(t *testing.T) {
	out, err := AdmissionPolicyYAML()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("..", AdmissionPolicyFile), out, "go test ./appofapps -run TestAdmissionPolicyFile -update")
}

func TestAdmissionBindingsGolden(t *testing.T) {
	out, err := AdmissionBindingsYAML("citation", "dagster")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "admission-bindings", string(out))
}

func TestAdmissionBindingsRefuse(t *testing.T) {
	for _, tt := range []struct{ cl, ns, want string }{
		{"Citation", "dagster", `code-location name "Citation" is not a DNS-1123 label`},
		{"citation", "dag.ster", `namespace "dag.ster" is not a namespace name`},
	} {
		if _, err := AdmissionBindings(tt.cl, tt.ns); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("AdmissionBindings(%q, %q) = %v, want an error with %q", tt.cl, tt.ns, err, tt.want)
		}
	}
}

// The example contract's namespace and the fixtures' images.
const (
	admissionNS     = "dagster"
	citationImage   = "registry:80/citation-dagster:a3f9c1d"
	mediawatchImage = "registry:80/mediawatch-dagster:5d2e8b4"
)

// admissionCluster is a real kube-apiserver (and the controller that type
// checks policies) holding the bundle's policy, the params the renders of
// citation and mediawatch emit, and their bindings.
type admissionCluster struct {
	env     *kubetest.Env
	kube    kubernetes.Interface
	renders map[string]*codelocrender.Result
}

// TestAdmission proves the policy on kube-apiserver v1.34: what a
// code-location's render runs is admitted, and a run pod Dagster would
// create is admitted when it uses what the code-location declares and
// refused, with a message saying what to declare, for each thing it does
// not.
func TestAdmission(t *testing.T) {
	a := startAdmission(t)
	t.Run("type checking", a.typeChecking)
	t.Run("rendered pods", a.renderedPods)
	t.Run("run pods", a.runPods)
	t.Run("the run launcher's pods", a.launcherPods)
	t.Run("other pods", a.otherPods)
	t.Run("updates", a.updates)
	t.Run("missing params", a.missingParams) // last: it deletes citation's params
}

func startAdmission(t *testing.T) *admissionCluster {
	t.Helper()
	env := kubetest.Start(t)
	env.StartControllerManager(t, "validatingadmissionpolicy-status-controller")
	kube, err := kubernetes.NewForConfig(env.Admin)
	if err != nil {
		t.Fatal(err)
	}
	a := &admissionCluster{env: env, kube: kube, renders: map[string]*codelocrender.Result{}}
	env.ApplyYAML(t, "", "apiVersion: v1\nkind: Namespace\nmetadata: {name: "+admissionNS+"}\n")
	bundle, err := os.ReadFile(filepath.Join("..", AdmissionPolicyFile))
	if err != nil {
		t.Fatal(err)
	}
	env.ApplyYAML(t, "", string(bundle))
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	for _, cl := range []string{"citation", "mediawatch", "allpaths"} {
		res, err := codelocrender.Render(codelocrender.Request{Dir: filepath.Join("..", "fixtures", cl), Contract: c})
		if err != nil {
			t.Fatal(err)
		}
		a.renders[cl] = res
		env.ApplyYAML(t, admissionNS, paramsOf(t, res))
		bindings, err := AdmissionBindingsYAML(cl, admissionNS)
		if err != nil {
			t.Fatal(err)
		}
		env.ApplyYAML(t, "", string(bindings))
	}
	// The admission plugin learns of policies, bindings and params
	// through informers: wait until citation's refuse a foreign image.
	a.eventually(t, runPod("citation", func(p *corev1.Pod) { p.Spec.Containers[0].Image = mediawatchImage }), "image "+mediawatchImage)
	return a
}

// paramsOf is the params ConfigMap of a render, as YAML.
func paramsOf(t *testing.T, res *codelocrender.Result) string {
	t.Helper()
	for _, o := range res.Objects {
		if o.GetKind() == "ConfigMap" && o.GetName() == names.AdmissionName(res.Declaration.CodeLocation) {
			return o.MustString()
		}
	}
	t.Fatalf("the render of %s emits no %s", res.Declaration.CodeLocation, names.AdmissionName(res.Declaration.CodeLocation))
	return ""
}

// create sends pod with dryRun=All: admission runs, nothing is stored.
func (a *admissionCluster) create(pod *corev1.Pod) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := a.kube.CoreV1().Pods(admissionNS).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}

// eventually retries pod until its creation fails with want (informers
// catching up).
func (a *admissionCluster) eventually(t *testing.T, pod *corev1.Pod, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := a.create(pod)
		if err != nil && strings.Contains(err.Error(), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod %s: want an error with %q, got %v", pod.Name, want, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkAdmission says whether err is what want says: nil when want is "",
// else a refusal by the policy whose message holds want.
func checkAdmission(t *testing.T, what string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: refused: %v", what, err)
	case want != "" && err == nil:
		t.Errorf("%s: admitted, want refused with %q", what, want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Errorf("%s: refused with %v, want %q", what, err, want)
	case want != "" && !strings.Contains(err.Error(), "ValidatingAdmissionPolicy '"+AdmissionPolicyName+"'") &&
		!strings.Contains(err.Error(), "ValidatingAdmissionPolicy '"+ImagesPolicyName+"'"):
		t.Errorf("%s: refused by something else than the policy: %v", what, err)
	}
}

// typeChecking waits for the controller's type check of the policy, and
// of a twin whose validations are its variables, which the type check
// does not read by themselves: no warning.
func (a *admissionCluster) typeChecking(t *testing.T) {
	twin := AdmissionPolicy()
	twin.Name = "codeloc-typecheck-variables"
	twin.Spec.Validations = nil
	for _, v := range twin.Spec.Variables {
		twin.Spec.Validations = append(twin.Spec.Validations, admissionv1.Validation{Expression: "size([" + v.Expression + "]) == 1"})
	}
	data, err := json.Marshal(twin)
	if err != nil {
		t.Fatal(err)
	}
	a.env.ApplyYAML(t, "", string(data))
	for _, name := range []string{AdmissionPolicyName, ImagesPolicyName, twin.Name} {
		var status *admissionv1.ValidatingAdmissionPolicyStatus
		deadline := time.Now().Add(time.Minute)
		for status == nil || status.TypeChecking == nil {
			if time.Now().After(deadline) {
				t.Fatalf("policy %s: no status.typeChecking after a minute", name)
			}
			time.Sleep(200 * time.Millisecond)
			p, err := a.kube.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			status = &p.Status
		}
		if w := status.TypeChecking.ExpressionWarnings; len(w) > 0 {
			t.Errorf("policy %s: type checking warns:\n%v", name, w)
		}
	}
	if err := a.kube.AdmissionregistrationV1().ValidatingAdmissionPolicies().Delete(context.Background(), twin.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// renderedPods admits every pod the renders of citation, mediawatch and
// allpaths (every path the render policy allows) run: codeloc's hooks and
// the atlas workloads, as their controllers would create them.
func (a *admissionCluster) renderedPods(t *testing.T) {
	for cl, res := range a.renders {
		n := 0
		for _, o := range res.Objects {
			pod := podOf(t, o)
			if pod == nil {
				continue
			}
			n++
			if pod.Labels[names.LabelCodeLocation] != cl {
				t.Errorf("%s %s: pod labels %v lack %s=%s", o.GetKind(), o.GetName(), pod.Labels, names.LabelCodeLocation, cl)
			}
			checkAdmission(t, cl+" "+o.GetKind()+" "+o.GetName(), a.create(pod), "")
		}
		if n < 3 { // preflight, reload, the code server, (migrate)
			t.Errorf("%s: %d pods rendered", cl, n)
		}
	}
}

// podOf is the pod a rendered object runs, nil for an object that runs none.
func podOf(t *testing.T, o *yaml.RNode) *corev1.Pod {
	t.Helper()
	template := []string{"spec", "template"}
	path := map[string][]string{"Pod": nil, "Job": template, "Deployment": template, "StatefulSet": template,
		"DaemonSet": template, "ReplicaSet": template, "CronJob": {"spec", "jobTemplate", "spec", "template"}}
	p, ok := path[o.GetKind()]
	if !ok {
		return nil
	}
	n := o
	if p != nil {
		var err error
		if n, err = o.Pipe(yaml.Lookup(p...)); err != nil || n == nil {
			t.Fatalf("%s %s: no pod template", o.GetKind(), o.GetName())
		}
	}
	var pod corev1.Pod
	if err := sigsyaml.Unmarshal([]byte(n.MustString()), &pod); err != nil {
		t.Fatal(err)
	}
	pod.APIVersion, pod.Kind = "v1", "Pod"
	pod.Name, pod.Namespace = strings.ToLower(o.GetKind())+"-"+o.GetName(), admissionNS
	pod.Annotations = nil
	return &pod
}

// runPod is a run pod Dagster's K8sRunLauncher would create for
// code-location cl, with the container context of its fixture, changed by
// edits.
func runPod(cl string, edits ...func(*corev1.Pod)) *corev1.Pod {
	image, sa, envFrom := citationImage, "citation", []string{"dagster-pipeline-env", "citation-run-env"}
	cpu, memory := "500m", "1Gi"
	if cl == "mediawatch" {
		image, sa, envFrom = mediawatchImage, "dagster", []string{"dagster-pipeline-env"}
		cpu, memory = "250m", "512Mi"
	}
	c := corev1.Container{
		Name: "dagster", Image: image, Args: []string{"dagster", "api", "execute_run", "{}"},
		Env: []corev1.EnvVar{
			{Name: "DAGSTER_HOME", Value: "/opt/dagster/dagster_home"},
			{Name: "DAGSTER_PG_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "dagster-postgresql-secret"}, Key: "postgresql-password"}}},
		},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(memory)},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: "dagster-instance", MountPath: "/opt/dagster/dagster_home", ReadOnly: true}},
	}
	for _, cm := range envFrom {
		c.EnvFrom = append(c.EnvFrom, corev1.EnvFromSource{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}}})
	}
	for _, s := range map[string][]string{"citation": {"pgvector-pg-auth", "atlas-datalake"}, "mediawatch": {"atlas-datalake"}}[cl] {
		c.EnvFrom = append(c.EnvFrom, corev1.EnvFromSource{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: s}}})
	}
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "dagster-run-" + cl, Namespace: admissionNS,
			Labels: map[string]string{
				names.LabelDagsterCodeLocation: cl, "dagster/job": "marts", "dagster/run-id": "0c5f2d4e",
				"app.kubernetes.io/component": "run_worker", "app.kubernetes.io/part-of": "dagster",
			},
		},
		Spec: corev1.PodSpec{
			ServiceAccountName: sa,
			RestartPolicy:      corev1.RestartPolicyNever,
			SecurityContext:    &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(1000))},
			Containers:         []corev1.Container{c},
			Volumes: []corev1.Volume{{Name: "dagster-instance", VolumeSource: corev1.VolumeSource{
				ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "dagster-instance"}}}}},
		},
	}
	for _, edit := range edits {
		edit(pod)
	}
	return pod
}

func secretEnv(name string) corev1.EnvVar {
	return corev1.EnvVar{Name: "TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: "token"}}}
}

func addVolume(p *corev1.Pod, v corev1.VolumeSource) {
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: fmt.Sprintf("extra-%d", len(p.Spec.Volumes)), VolumeSource: v})
}

func requests(cpu, memory string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		r := &p.Spec.Containers[0].Resources
		r.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
		r.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(memory)}
	}
}

// runPods admits citation's run pod and refuses each thing it may not use.
func (a *admissionCluster) runPods(t *testing.T) {
	const foreign = "mediawatch-token"
	tests := []struct {
		name string
		edit func(*corev1.Pod)
		want string
	}{
		{"conforming", func(*corev1.Pod) {}, ""},
		{"conforming, both labels", func(p *corev1.Pod) { p.Labels[names.LabelCodeLocation] = "citation" }, ""},
		// What the ServiceAccount admission plugin adds (off in kubetest).
		{"with a ServiceAccount token volume", func(p *corev1.Pod) {
			addVolume(p, corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To(int64(3607))}},
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
				{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
			}}})
		}, ""},
		{"secret in env", func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = append(p.Spec.Containers[0].Env, secretEnv(foreign))
		}, "secret mediawatch-token is not in dependsOn.secrets of code-location citation"},
		{"secret in envFrom", func(p *corev1.Pod) {
			p.Spec.Containers[0].EnvFrom = append(p.Spec.Containers[0].EnvFrom, corev1.EnvFromSource{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: foreign}}})
		}, "secret mediawatch-token is not in dependsOn.secrets of code-location citation"},
		{"secret in an init container", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: citationImage, Env: []corev1.EnvVar{secretEnv(foreign)}}}
		}, "secret mediawatch-token is not in dependsOn.secrets of code-location citation"},
		{"secret volume", func(p *corev1.Pod) {
			addVolume(p, corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: foreign}})
		}, "secret mediawatch-token is not in dependsOn.secrets of code-location citation"},
		{"projected secret", func(p *corev1.Pod) {
			addVolume(p, corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "citation-run-env"}}},
				{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: foreign}}},
			}}})
		}, "secret mediawatch-token is not in dependsOn.secrets of code-location citation"},
		{"CSI volume's secret", func(p *corev1.Pod) {
			addVolume(p, corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "secrets-store.csi.k8s.io", NodePublishSecretRef: &corev1.LocalObjectReference{Name: foreign}}})
		}, "secret mediawatch-token is not in dependsOn.secrets of code-location citation"},
		{"image pull secret", func(p *corev1.Pod) {
			p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "registry-credentials"}}
		}, "secret registry-credentials is not in dependsOn.secrets of code-location citation"},
		{"configMap in env", func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = append(p.Spec.Containers[0].Env, corev1.EnvVar{Name: "X", ValueFrom: &corev1.EnvVarSource{
				ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "mediawatch-settings"}, Key: "x"}}})
		}, "configMap mediawatch-settings is neither shipped by code-location citation nor in its dependsOn.configMaps"},
		{"configMap in envFrom: another code-location's record", func(p *corev1.Pod) {
			p.Spec.Containers[0].EnvFrom = append(p.Spec.Containers[0].EnvFrom, corev1.EnvFromSource{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "codeloc-mediawatch"}}})
		}, "configMap codeloc-mediawatch is neither shipped by code-location citation nor in its dependsOn.configMaps"},
		{"configMap volume", func(p *corev1.Pod) {
			addVolume(p, corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "mediawatch-admission"}}})
		}, "configMap mediawatch-admission is neither shipped by code-location citation nor in its dependsOn.configMaps"},
		// The contract's dagster.runLauncher: what the run launcher adds.
		{"the run launcher's account", func(p *corev1.Pod) { p.Spec.ServiceAccountName = "dagster" }, ""},
		{"another code-location's preflight account", func(p *corev1.Pod) { p.Spec.ServiceAccountName = "mediawatch-preflight" },
			"serviceAccount mediawatch-preflight is neither shipped by code-location citation nor in its dependsOn.serviceAccounts"},
		{"another code-location's image", func(p *corev1.Pod) { p.Spec.Containers[0].Image = mediawatchImage },
			"image " + mediawatchImage + " is not an image of code-location citation"},
		{"another revision's image", func(p *corev1.Pod) { p.Spec.Containers[0].Image = "registry:80/citation-dagster:latest" },
			"image registry:80/citation-dagster:latest is not an image of code-location citation"},
		{"a sidecar's image", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "proxy", Image: "docker.io/library/busybox", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}
		}, "image docker.io/library/busybox is not an image of code-location citation"},
		{"another code-location's claim", func(p *corev1.Pod) {
			addVolume(p, corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "mediawatch-data"}})
		}, "persistentVolumeClaim mediawatch-data is not citation-data, the claim of resources.disk of code-location citation"},
		{"its own claim", func(p *corev1.Pod) {
			addVolume(p, corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "citation-data"}})
		}, ""},
		{"hostNetwork", func(p *corev1.Pod) { p.Spec.HostNetwork = true },
			"hostNetwork is true: a pod of code-location citation may not share the node's namespaces"},
		{"hostPID", func(p *corev1.Pod) { p.Spec.HostPID = true },
			"hostPID is true: a pod of code-location citation may not share the node's namespaces"},
		{"hostIPC", func(p *corev1.Pod) { p.Spec.HostIPC = true },
			"hostIPC is true: a pod of code-location citation may not share the node's namespaces"},
		{"cpu above resources.cpu", requests("501m", "1Gi"),
			"container dagster requests cpu 501m, more than resources.cpu 500m of code-location citation"},
		{"memory above resources.memory", requests("500m", "1025Mi"),
			"container dagster requests memory 1025Mi, more than resources.memory 1Gi of code-location citation"},
		{"requests in other units, within", requests("0.5", "1024Mi"), ""},
		{"a pod-level cpu request above resources.cpu", func(p *corev1.Pod) {
			p.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}
		}, "the pod requests cpu 2, more than resources.cpu 500m of code-location citation"},
		{"a pod-level memory limit above resources.memory (the request defaults to it)", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
			p.Spec.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi")}}
		}, "the pod requests memory 4Gi, more than resources.memory 1Gi of code-location citation"},
		{"pod-level requests within", func(p *corev1.Pod) {
			p.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")}}
		}, ""},
		{"no requests", func(p *corev1.Pod) { p.Spec.Containers[0].Resources = corev1.ResourceRequirements{} }, ""},
		// Placement (issue 32): the example contract lists no taint and no node label.
		{"a named node", func(p *corev1.Pod) { p.Spec.NodeName = "control-plane-1" },
			"nodeName is set: a pod of code-location citation goes where the scheduler puts it"},
		{"the control plane's taint", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
		}, "the pod tolerates taint node-role.kubernetes.io/control-plane, which the contract's policy.tolerations does not list for code-location citation"},
		{"every taint", func(p *corev1.Pod) { p.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}} },
			"the pod tolerates every taint"},
		{"Kubernetes' own not-ready toleration", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(int64(300))}}
		}, ""},
		{"what the DaemonSet controller adds to its pods", func(p *corev1.Pod) {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "citation-agent", UID: "u", Controller: ptr.To(true)}}
			p.Spec.Tolerations = []corev1.Toleration{{Key: "node.kubernetes.io/memory-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
				{Key: "node.kubernetes.io/unschedulable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
		}, ""},
		{"the same on a pod no DaemonSet owns", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "node.kubernetes.io/unschedulable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
		}, "the pod tolerates taint node.kubernetes.io/unschedulable"},
		{"a nodeSelector", func(p *corev1.Pod) {
			p.Spec.NodeSelector = map[string]string{"node-role.kubernetes.io/control-plane": ""}
		},
			"nodeSelector node-role.kubernetes.io/control-plane selects nodes by a label the contract's policy.nodeLabels does not list"},
		{"a required node affinity by name", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"cp-1"}}}}}}}}
		}, ": a required node affinity selects nodes by a label the contract's policy.nodeLabels does not list, or by name"},
		{"an anti-affinity on another code-location's pods", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey: "topology.kubernetes.io/zone", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{names.LabelCodeLocation: "mediawatch"}}}}}}
		}, ": a required pod anti-affinity counts pods other than those of code-location citation"},
		{"an anti-affinity on its own pods", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey: "kubernetes.io/hostname", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{names.LabelCodeLocation: "citation", "app": "x"}}}}}}
		}, ""},
		{"a DoNotSchedule spread over every pod", func(p *corev1.Pod) {
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{}}}
		}, ": a DoNotSchedule topology spread counts pods other than those of code-location citation"},
		{"labels naming two code-locations", func(p *corev1.Pod) { p.Labels[names.LabelCodeLocation] = "mediawatch" },
			"labels dagster/code-location=citation and codeloc.dev/code-location=mediawatch name different code-locations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkAdmission(t, tt.name, a.create(runPod("citation", tt.edit)), tt.want)
		})
	}
}

// allpathsImage is the image of fixtures/allpaths' code server.
const allpathsImage = "registry:80/allpaths-app:0a1b2c3"

// launcherRunPod is a run pod of code-location allpaths, which declares
// none of the platform's Dagster objects, as the contract's run launcher
// creates it without a container context: the launcher's account, its
// PostgreSQL password secret and its env ConfigMap, nothing else.
func launcherRunPod(edits ...func(*corev1.Pod)) *corev1.Pod {
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "dagster-run-allpaths", Namespace: admissionNS,
			Labels: map[string]string{names.LabelDagsterCodeLocation: "allpaths", "dagster/job": "all", "dagster/run-id": "5e1a9c0b",
				"app.kubernetes.io/component": "run_worker", "app.kubernetes.io/part-of": "dagster"},
		},
		Spec: corev1.PodSpec{
			ServiceAccountName: "dagster",
			RestartPolicy:      corev1.RestartPolicyNever,
			Containers: []corev1.Container{{
				Name: "dagster", Image: allpathsImage, Args: []string{"dagster", "api", "execute_run", "{}"},
				Env: []corev1.EnvVar{{Name: "DAGSTER_PG_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
					LocalObjectReference: corev1.LocalObjectReference{Name: "dagster-postgresql-secret"}, Key: "postgresql-password"}}}},
				EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "dagster-pipeline-env"}}}},
			}},
		},
	}
	for _, edit := range edits {
		edit(pod)
	}
	return pod
}

// launcherPods: a run pod carrying exactly what the contract's
// dagster.runLauncher adds, plus what its code-location declares, is
// admitted though the code-location declares none of the launcher's
// objects; a hostile run pod is not.
func (a *admissionCluster) launcherPods(t *testing.T) {
	for _, tt := range []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{"the launcher's additions", launcherRunPod(), ""},
		{"the launcher's additions and the declared secret", launcherRunPod(func(p *corev1.Pod) {
			p.Spec.Containers[0].EnvFrom = append(p.Spec.Containers[0].EnvFrom, corev1.EnvFromSource{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "pgvector-pg-auth"}}})
		}), ""},
		{"the launcher's instance ConfigMap as a volume", launcherRunPod(func(p *corev1.Pod) {
			addVolume(p, corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "dagster-instance"}}})
		}), ""},
		{"hostile: an undeclared secret", launcherRunPod(func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = append(p.Spec.Containers[0].Env, secretEnv("mediawatch-token"))
		}), "secret mediawatch-token is not in dependsOn.secrets of code-location allpaths"},
		{"hostile: another code-location's ServiceAccount", launcherRunPod(func(p *corev1.Pod) { p.Spec.ServiceAccountName = "citation" }),
			"serviceAccount citation is neither shipped by code-location allpaths nor in its dependsOn.serviceAccounts"},
		{"hostile: hostNetwork", launcherRunPod(func(p *corev1.Pod) { p.Spec.HostNetwork = true }),
			"hostNetwork is true: a pod of code-location allpaths may not share the node's namespaces"},
		{"hostile: all three", launcherRunPod(func(p *corev1.Pod) {
			p.Spec.ServiceAccountName = "citation"
			p.Spec.HostNetwork = true
			p.Spec.Containers[0].Env = append(p.Spec.Containers[0].Env, secretEnv("mediawatch-token"))
		}), "secret mediawatch-token is not in dependsOn.secrets of code-location allpaths"},
	} {
		checkAdmission(t, tt.name, a.create(tt.pod), tt.want)
	}
}

// otherPods: a binding judges its code-location's pods only.
func (a *admissionCluster) otherPods(t *testing.T) {
	for _, tt := range []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		// mediawatch declares the platform's run account, citation does not.
		{"mediawatch's run pod", runPod("mediawatch"), ""},
		{"mediawatch's run pod reading citation's env", runPod("mediawatch", func(p *corev1.Pod) {
			p.Spec.Containers[0].EnvFrom = append(p.Spec.Containers[0].EnvFrom, corev1.EnvFromSource{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "citation-run-env"}}})
		}), "configMap citation-run-env is neither shipped by code-location mediawatch nor in its dependsOn.configMaps"},
		// Not covered: a pod that names a code-location without bindings, or none.
		{"a code-location without bindings", runPod("citation", func(p *corev1.Pod) {
			p.Labels[names.LabelDagsterCodeLocation] = "unknown"
			p.Spec.ServiceAccountName = "dagster"
		}), ""},
		{"no label", runPod("citation", func(p *corev1.Pod) { delete(p.Labels, names.LabelDagsterCodeLocation) }), ""},
	} {
		checkAdmission(t, tt.name, a.create(tt.pod), tt.want)
	}
}

// updates: an update is judged on what it brings. A pod admitted once may
// be updated (a Job's controller removes its finalizer) after its
// code-location's params changed; an ephemeral container, a new image or
// a larger request is judged like a new pod's.
func (a *admissionCluster) updates(t *testing.T) {
	ctx := context.Background()
	pods := a.kube.CoreV1().Pods(admissionNS)
	pod, err := pods.Create(ctx, runPod("citation", func(p *corev1.Pod) { p.Name = "dagster-run-updates" }), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pods.Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))}) })
	dryRun := metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}}
	debug := func(image string, env ...corev1.EnvVar) *corev1.Pod {
		p := pod.DeepCopy()
		p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
			Name: "debug", Image: image, Env: env, TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent}})
		return p
	}
	patch := func(subresource, data string) error {
		_, err := pods.Patch(ctx, pod.Name, types.StrategicMergePatchType, []byte(data), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}, subresources(subresource)...)
		return err
	}
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"a label", patch("", `{"metadata":{"labels":{"dagster/run-state":"started"}}}`), ""},
		{"a finalizer", patch("", `{"metadata":{"finalizers":["batch.kubernetes.io/job-tracking"]}}`), ""},
		{"its image, foreign", patch("", `{"spec":{"containers":[{"name":"dagster","image":"`+mediawatchImage+`"}]}}`),
			"the images of a code-location's pod stay those it was admitted with"},
		{"its image, its own", patch("", `{"spec":{"containers":[{"name":"dagster","image":"`+citationImage+`"}]}}`), ""},
		{"an ephemeral container", errOf(pods.UpdateEphemeralContainers(ctx, pod.Name, debug(citationImage), dryRun)), ""},
		{"an ephemeral container, foreign image", errOf(pods.UpdateEphemeralContainers(ctx, pod.Name, debug("docker.io/library/busybox"), dryRun)),
			"image docker.io/library/busybox is not an image of code-location citation"},
		{"an ephemeral container, undeclared secret", errOf(pods.UpdateEphemeralContainers(ctx, pod.Name, debug(citationImage, secretEnv("mediawatch-token")), dryRun)),
			"secret mediawatch-token is not in dependsOn.secrets of code-location citation"},
		{"a larger cpu request", patch("resize", `{"spec":{"containers":[{"name":"dagster","resources":{"requests":{"cpu":"2"}}}]}}`),
			"container dagster requests cpu 2, more than resources.cpu 500m of code-location citation"},
		{"a request within", patch("resize", `{"spec":{"containers":[{"name":"dagster","resources":{"requests":{"cpu":"400m"}}}]}}`), ""},
	} {
		checkAdmission(t, tt.name, tt.err, tt.want)
	}

	// Params that no longer allow what the pod runs (a new revision's)
	// leave its metadata updates alone.
	a.env.ApplyYAML(t, admissionNS, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: citation-admission}\ndata: {codeLocation: citation, images: other}\n")
	t.Cleanup(func() { a.env.ApplyYAML(t, admissionNS, paramsOf(t, a.renders["citation"])) })
	a.eventually(t, runPod("citation"), "image "+citationImage+" is not an image")
	checkAdmission(t, "a finalizer, after the params changed", patch("", `{"metadata":{"finalizers":["batch.kubernetes.io/job-tracking"]}}`), "")
}

func subresources(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func errOf(_ any, err error) error { return err }

// missingParams: with citation's params gone its pods are refused; the
// others are not touched.
func (a *admissionCluster) missingParams(t *testing.T) {
	ctx := context.Background()
	pods := a.kube.CoreV1().Pods(admissionNS)
	// A pod being deleted with its Application: the params go first, and
	// the garbage collector still removes the pod's finalizer by an update.
	held, err := pods.Create(ctx, runPod("citation", func(p *corev1.Pod) {
		p.Name, p.Finalizers = "dagster-run-held", []string{"e2e.codeloc.dev/held"}
	}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = a.kube.CoreV1().ConfigMaps(admissionNS).Delete(ctx, names.AdmissionName("citation"), metav1.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a.eventually(t, runPod("citation"), "no params found")
	if err := pods.Delete(ctx, held.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = pods.Patch(ctx, held.Name, types.JSONPatchType, []byte(`[{"op":"remove","path":"/metadata/finalizers"}]`), metav1.PatchOptions{})
	checkAdmission(t, "a finalizer removed from a pod being deleted, params gone", err, "")
	for _, tt := range []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{"citation's hook", runPod("citation", func(p *corev1.Pod) {
			delete(p.Labels, names.LabelDagsterCodeLocation)
			p.Labels[names.LabelCodeLocation] = "citation"
		}), "no params found"},
		{"mediawatch's run pod", runPod("mediawatch"), ""},
		{"no label", runPod("citation", func(p *corev1.Pod) { delete(p.Labels, names.LabelDagsterCodeLocation) }), ""},
	} {
		err := a.create(tt.pod)
		if tt.want != "" && err != nil && !strings.Contains(err.Error(), "codeloc-citation") {
			t.Errorf("%s: refused by another binding than citation's: %v", tt.name, err)
		}
		checkAdmission(t, tt.name, err, tt.want)
	}
}

// TestAdmissionParams pins the params of citation's render: every name its
// pods use, each a key, and the images in one.
func TestAdmissionParams(t *testing.T) {
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	res, err := codelocrender.Render(codelocrender.Request{Dir: filepath.Join("..", "fixtures", "citation"), Contract: c})
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := sigsyaml.Unmarshal([]byte(paramsOf(t, res)), &cm); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"codeLocation": "citation", "cpu": "500m", "memory": "1Gi", "tolerations": "", "nodeLabels": "",
		"images": "registry:80/citation-dagster:a3f9c1d\nregistry:80/codeloc:0.1.0",
		// Declared, the buckets', the hooks' own, the cluster CA, the run
		// launcher's (its secret and ConfigMaps citation declares too).
		"secret.dagster-postgresql-secret": "", "secret.pgvector-pg-auth": "", "secret.atlas-datalake": "",
		"configMap.dagster-instance": "", "configMap.dagster-pipeline-env": "", "configMap.atlas-datalake": "",
		"configMap.citation-run-env": "", "configMap.citation-preflight": "", "configMap.citation-migrations-cf650bd7f8": "",
		"configMap.kube-root-ca.crt": "",
		"serviceAccount.default":     "", "serviceAccount.citation": "", "serviceAccount.citation-preflight": "",
		"serviceAccount.dagster":              "", // the contract's dagster.runLauncher
		"persistentVolumeClaim.citation-data": "",
	}
	if diff := cmp.Diff(want, cm.Data); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	if got := cm.Annotations[names.AnnoHook]; got != "PreSync" {
		t.Errorf("hook %q, want PreSync: the preflight pod is admitted against it", got)
	}
}
