package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	psaapi "k8s.io/pod-security-admission/api"
	psa "k8s.io/pod-security-admission/policy"

	"github.com/codeloc/codeloc/validate"
)

// podDeployment is a Deployment citation-dagster whose pod spec is spec
// (indented for it) and whose pod template has the annotations given.
func podDeployment(annotations, spec string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: citation-dagster
spec:
  selector:
    matchLabels: {app: citation}
  template:
    metadata:
      labels: {app: citation}
      annotations: {` + annotations + `}
    spec:
` + spec
}

// hardenedSpec passes restricted.
const hardenedSpec = `      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        seccompProfile: {type: RuntimeDefault}
      containers:
        - name: app
          image: registry:80/citation-dagster:a3f9c1d
          securityContext:
            allowPrivilegeEscalation: false
            capabilities: {drop: [ALL]}
`

func TestCheckPodSecurity(t *testing.T) {
	const spec = "Deployment/citation-dagster.spec.template.spec"
	tests := []struct {
		name, level, objects string
		want                 []string
	}{
		{name: "plain pod at baseline", level: "baseline", objects: podDeployment("", `      containers:
        - name: app
          image: registry:80/citation-dagster:a3f9c1d
`)},
		{name: "privileged", level: "baseline", objects: podDeployment("", `      containers:
        - name: app
          image: registry:80/citation-dagster:a3f9c1d
          securityContext: {privileged: true}
`), want: []string{
			`pod-security ` + spec + `: violates PodSecurity "baseline:latest": privileged (container "app" must not set securityContext.privileged=true)`,
		}},
		{name: "host network and hostPath, one problem per check", level: "baseline", objects: podDeployment("", `      hostNetwork: true
      containers:
        - name: app
          image: registry:80/citation-dagster:a3f9c1d
      volumes:
        - name: root
          hostPath: {path: /}
`), want: []string{
			`pod-security ` + spec + `: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)`,
			`pod-security ` + spec + `: violates PodSecurity "baseline:latest": hostPath volumes (volume "root")`,
		}},
		{name: "unconfined AppArmor in the template's annotations", level: "baseline", objects: podDeployment(
			`container.apparmor.security.beta.kubernetes.io/app: unconfined`, `      containers:
        - name: app
          image: registry:80/citation-dagster:a3f9c1d
`), want: []string{
			`pod-security ` + spec + `: violates PodSecurity "baseline:latest": forbidden AppArmor profile (annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/app="unconfined"")`,
		}},
		{name: "a probe that reaches another host (baseline since Kubernetes 1.34)", level: "baseline", objects: podDeployment("", `      containers:
        - name: app
          image: registry:80/citation-dagster:a3f9c1d
          readinessProbe: {tcpSocket: {host: 10.0.0.1, port: 5432}}
          lifecycle: {preStop: {httpGet: {host: metadata.internal, port: 80, path: /}}}
`), want: []string{
			`pod-security ` + spec + `: violates PodSecurity "baseline:latest": probe or lifecycle host (container "app" uses probe or lifecycle hosts "10.0.0.1", "metadata.internal")`,
		}},
		{name: "plain pod at restricted", level: "restricted", objects: podDeployment("", `      containers:
        - name: app
          image: registry:80/citation-dagster:a3f9c1d
`), want: []string{
			`pod-security ` + spec + `: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false)`,
			`pod-security ` + spec + `: violates PodSecurity "restricted:latest": unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"])`,
			`pod-security ` + spec + `: violates PodSecurity "restricted:latest": runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true)`,
			`pod-security ` + spec + `: violates PodSecurity "restricted:latest": seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`,
		}},
		{name: "hardened pod at restricted", level: "restricted", objects: podDeployment("", hardenedSpec)},
		{name: "CronJob init container, ephemeral container", level: "baseline", objects: `apiVersion: batch/v1
kind: CronJob
metadata: {name: citation-refresh}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          initContainers:
            - {name: wait, image: registry:80/busybox:1.36, securityContext: {capabilities: {add: [SYS_ADMIN]}}}
          containers:
            - {name: refresh, image: registry:80/citation-dagster:a3f9c1d}
          ephemeralContainers:
            - {name: debug, image: registry:80/busybox:1.36, ports: [{containerPort: 80, hostPort: 80}]}
`, want: []string{
			`pod-security CronJob/citation-refresh.spec.jobTemplate.spec.template.spec: violates PodSecurity "baseline:latest": non-default capabilities (container "wait" must not include "SYS_ADMIN" in securityContext.capabilities.add)`,
			`pod-security CronJob/citation-refresh.spec.jobTemplate.spec.template.spec: violates PodSecurity "baseline:latest": hostPort (container "debug" uses hostPort 80)`,
		}},
		{name: "a bare Pod; objects without pods and cluster-provided kinds are left alone", level: "baseline", objects: `apiVersion: v1
kind: Pod
metadata: {name: citation-debug}
spec:
  hostPID: true
  containers:
    - {name: sh, image: registry:80/busybox:1.36}
---
apiVersion: v1
kind: Secret
metadata: {name: citation-secret}
spec:
  hostPID: true
---
apiVersion: v1
kind: ConfigMap
metadata: {name: citation-config}
`, want: []string{
			`pod-security Pod/citation-debug.spec: violates PodSecurity "baseline:latest": host namespaces (hostPID=true)`,
		}},
		{name: "a pod spec of the wrong shape is wellFormedRule's", level: "baseline", objects: podDeployment("", `      containers: {name: app}
`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := podRuleInstance(t, func(c *validate.Contract) { c.Policy.PodSecurity = tt.level })
			got := podRuleLines(check(t, podSecurityRule{}, in, parseObjects(t, tt.objects)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodSecurityHint(t *testing.T) {
	tests := []struct {
		reason string
		disk   bool
		want   string
	}{
		{"privileged", false, "remove securityContext.privileged from the containers: pods must pass the Pod Security Standards' baseline profile"},
		{"hostPath volumes", false, "use an emptyDir or a ConfigMap instead of hostPath, or declare resources.disk and mount the claim citation-data: pods must pass the Pod Security Standards' baseline profile"},
		{"hostPath volumes", true, "use an emptyDir, a ConfigMap or the declared claim citation-data instead of hostPath: pods must pass the Pod Security Standards' baseline profile"},
		{"a check of a later release", false, "make the pod spec pass the Pod Security Standards' baseline profile"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			in := podRuleInstance(t, nil)
			in.d.Resources.Disk.Set = tt.disk
			if got := in.podSecurityHint(tt.reason); got != tt.want {
				t.Errorf("hint %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPodSecurityFixesKnowEveryCheck keeps the hints in step with the
// library: every check the evaluator runs, failed, has its own fix.
func TestPodSecurityFixesKnowEveryCheck(t *testing.T) {
	worst := worstPodSpec()
	seen := map[string]bool{}
	for _, level := range []psaapi.Level{psaapi.LevelBaseline, psaapi.LevelRestricted} {
		lv := psaapi.LevelVersion{Level: level, Version: psaapi.LatestVersion()}
		for _, r := range podSecurityEvaluator().EvaluatePod(lv, &metav1.ObjectMeta{}, worst) {
			if !r.Allowed {
				seen[r.ForbiddenReason] = true
			}
		}
	}
	if len(seen) < 15 {
		t.Fatalf("only %d checks failed, the pod spec is not the worst: %v", len(seen), seen)
	}
	for reason := range seen {
		if _, ok := podSecurityFixes[reason]; !ok && reason != "hostPath volumes" {
			t.Errorf("no fix for the check %q", reason)
		}
	}
}

func psaPtr[T any](v T) *T { return &v }

// TestLatestChecks: at "latest", the evaluator of latestChecks gives what
// the library's evaluator of every version gives, at both levels, on pods
// that fail every check one by one and all at once.
func TestLatestChecks(t *testing.T) {
	full, err := psa.NewEvaluator(psa.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	latest := podSecurityEvaluator()
	var pods []*corev1.PodSpec
	for _, f := range []func(*corev1.PodSpec){
		func(*corev1.PodSpec) {},
		func(p *corev1.PodSpec) { p.HostNetwork = true },
		func(p *corev1.PodSpec) { p.SecurityContext = &corev1.PodSecurityContext{RunAsUser: psaPtr(int64(0))} },
		func(p *corev1.PodSpec) {
			p.SecurityContext = &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined}}
		},
		func(p *corev1.PodSpec) {
			p.Containers[0].SecurityContext = &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_RAW"}}}
		},
		func(p *corev1.PodSpec) {
			p.Volumes = []corev1.Volume{{Name: "h", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}}
		},
		func(p *corev1.PodSpec) { *p = *worstPodSpec() },
	} {
		p := &corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "x"}}}
		f(p)
		pods = append(pods, p)
	}
	for _, level := range []psaapi.Level{psaapi.LevelBaseline, psaapi.LevelRestricted} {
		lv := psaapi.LevelVersion{Level: level, Version: psaapi.LatestVersion()}
		for i, p := range pods {
			want := full.EvaluatePod(lv, &metav1.ObjectMeta{}, p)
			got := latest.EvaluatePod(lv, &metav1.ObjectMeta{}, p)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s, pod %d: latestChecks' evaluator differs from the library's (-library +latest):\n%s", level, i, diff)
			}
		}
	}
}

// worstPodSpec fails every check of Pod Security, baseline and restricted.
func worstPodSpec() *corev1.PodSpec {
	return &corev1.PodSpec{
		HostNetwork: true, HostPID: true, HostIPC: true,
		SecurityContext: &corev1.PodSecurityContext{
			Sysctls:        []corev1.Sysctl{{Name: "kernel.msgmax", Value: "1"}},
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined},
			SELinuxOptions: &corev1.SELinuxOptions{User: "root"},
			WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: psaPtr(true)},
			RunAsUser:      psaPtr(int64(0)),
		},
		Volumes: []corev1.Volume{{Name: "root", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}},
		Containers: []corev1.Container{{
			Name: "app", Ports: []corev1.ContainerPort{{HostPort: 80}},
			LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Host: "169.254.169.254", Port: intstr.FromInt32(80)}}},
			SecurityContext: &corev1.SecurityContext{
				Privileged: psaPtr(true), ProcMount: psaPtr(corev1.UnmaskedProcMount),
				Capabilities:    &corev1.Capabilities{Add: []corev1.Capability{"SYS_ADMIN"}},
				AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeUnconfined},
			},
		}},
	}
}
