package emit

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/codeloc/codeloc/internal/names"
)

// postSyncHook is hook's PostSync variant: Argo CD runs the object once the
// sync succeeded and every app object is healthy, and deletes the previous
// one before creating it again. It has no wave: it is the only PostSync
// hook.
func postSyncHook() map[string]string {
	return map[string]string{names.AnnoHook: "PostSync", names.AnnoHookDelete: "BeforeHookCreation"}
}

// reloadPod is the PostSync hook that asks the platform's Dagster webserver
// (the contract's dagster.webserverURL) to reload the Dagster location
// named location (the code-location's name: the policy holds the code
// server to it), so that Dagster serves the definitions of the code server
// just synced: `codeloc-jobs reload`. Like the preflight it is a bare Pod,
// so that Argo CD shows its one-line result (the termination message) when
// it fails. It needs no Kubernetes API access, no input and no writable
// disk: it only sends one HTTP request at a time.
func (e *emitter) reloadPod(location string) *corev1.Pod {
	name := names.ReloadName(e.d.CodeLocation)
	deadline := e.c.Jobs.ActiveDeadlineSeconds
	args := []string{"reload", "--webserver-url", e.c.Dagster.WebserverURL, "--location", location,
		"--timeout", strconv.Itoa(reloadTimeoutSeconds(deadline)) + "s"}
	md := e.meta(name, postSyncHook())
	md.Labels[names.LabelJob] = "reload"
	return &corev1.Pod{
		TypeMeta:   typeMeta("v1", "Pod"),
		ObjectMeta: md,
		Spec: corev1.PodSpec{
			RestartPolicy:                corev1.RestartPolicyNever,
			ActiveDeadlineSeconds:        ptr.To(int64(deadline)),
			AutomountServiceAccountToken: ptr.To(false),
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(999)), RunAsGroup: ptr.To(int64(999)),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{{
				Name: "reload", Image: e.c.Jobs.Image, Command: []string{names.BinaryJobs}, Args: args,
				Resources: e.jobResources(),
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true), RunAsNonRoot: ptr.To(true),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
				TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
			}},
		},
	}
}

// reloadTimeoutSeconds bounds the reload's whole run a tenth below the
// pod's activeDeadlineSeconds (at least one second below it), so that the
// command gives up and writes its termination message before the kubelet
// kills the pod.
func reloadTimeoutSeconds(activeDeadlineSeconds int) int {
	return activeDeadlineSeconds - max(activeDeadlineSeconds/10, 1)
}
