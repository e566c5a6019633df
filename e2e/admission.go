package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/codeloc/codeloc/appofapps"
	"github.com/codeloc/codeloc/internal/names"
)

// checkRunPodAdmission: the install bundle's policy, the bindings the root
// app synced from cluster/apps and the params citation's sync created
// judge a run pod Dagster would launch for citation (sent with
// dryRun=All: admission runs, nothing is stored). The conforming one is
// admitted; one reading a Secret citation does not declare is refused
// with the message saying so. The controller-manager type checked the
// policy without a warning.
func (h *harness) checkRunPodAdmission(ctx context.Context, t *testing.T) {
	t.Helper()
	for _, name := range appofapps.AdmissionBindingNames("citation") {
		if _, err := h.kube.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("binding %s (cluster/apps): %v", name, err)
		}
	}
	policy, err := h.kube.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, appofapps.AdmissionPolicyName, metav1.GetOptions{})
	switch {
	case err != nil:
		t.Fatalf("policy %s: %v", appofapps.AdmissionPolicyName, err)
	case policy.Status.TypeChecking != nil && len(policy.Status.TypeChecking.ExpressionWarnings) > 0:
		t.Errorf("policy %s: type checking warns: %v", policy.Name, policy.Status.TypeChecking.ExpressionWarnings)
	}
	d, err := h.kube.AppsV1().Deployments(appNS).Get(ctx, "citation", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	image := d.Spec.Template.Spec.Containers[0].Image // DAGSTER_CURRENT_IMAGE: the run pods'
	create := func(pod *corev1.Pod) error {
		_, err := h.kube.CoreV1().Pods(appNS).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	}
	if err := create(citationRunPod(image, "")); err != nil {
		t.Errorf("a conforming run pod of citation is refused: %v", err)
	}
	const want = "secret dagster-admin-token is not in dependsOn.secrets of code-location citation"
	var last error
	err = poll(ctx, 30*time.Second, func(context.Context) (bool, error) {
		last = create(citationRunPod(image, "dagster-admin-token"))
		return last != nil && strings.Contains(last.Error(), want), nil
	})
	if err != nil {
		t.Errorf("a run pod reading an undeclared secret: got %v, want refused with %q", last, want)
	}
}

// citationRunPod is a run pod as Dagster's K8sRunLauncher creates it from
// citation's container context; secret, when set, is one more Secret its
// container reads.
func citationRunPod(image, secret string) *corev1.Pod {
	c := corev1.Container{
		Name: "dagster", Image: image, Args: []string{"dagster", "api", "execute_run", "{}"},
		Env: []corev1.EnvVar{{Name: "DAGSTER_PG_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "dagster-postgresql-secret"}, Key: "postgresql-password"}}}},
		EnvFrom: []corev1.EnvFromSource{
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "dagster-pipeline-env"}}},
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "citation-run-env"}}},
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: dbSecretName}}},
		},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: "dagster-instance", MountPath: "/opt/dagster/dagster_home", ReadOnly: true}},
	}
	if secret != "" {
		c.Env = append(c.Env, corev1.EnvVar{Name: "TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: "token"}}})
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "dagster-run-e2e", Namespace: appNS,
			Labels: map[string]string{names.LabelDagsterCodeLocation: "citation", "dagster/run-id": "e2e", "app.kubernetes.io/component": "run_worker"},
		},
		Spec: corev1.PodSpec{
			ServiceAccountName: "citation",
			RestartPolicy:      corev1.RestartPolicyNever,
			SecurityContext:    &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(1000))},
			Containers:         []corev1.Container{c},
			Volumes: []corev1.Volume{{Name: "dagster-instance", VolumeSource: corev1.VolumeSource{
				ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "dagster-instance"}}}}},
		},
	}
}
