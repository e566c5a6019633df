package policy

import (
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	psaapi "k8s.io/pod-security-admission/api"
	psa "k8s.io/pod-security-admission/policy"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
)

// podSecurityEvaluator runs the checks of Kubernetes' own Pod Security
// admission at "latest"; built on first use, so that a render without
// pods, and every other command, does not pay for it.
var podSecurityEvaluator = sync.OnceValue(func() psa.Evaluator {
	e, err := psa.NewEvaluator(latestChecks(psa.DefaultChecks()), nil) // nil: the newest checks this module has
	if err != nil {
		panic(err) // the library's own checks are valid by construction
	}
	return e
})

// latestChecks are checks as they stand at the newest version: each
// check's last version, from the newest minimum version of all. The
// evaluator builds its check lists for every minor version from 1.0 to the
// newest (a twentieth of a small render); the rule evaluates at "latest"
// only, where these are the lists it would pick (TestLatestChecks).
func latestChecks(checks []psa.Check) []psa.Check {
	newest := checks[0].Versions[len(checks[0].Versions)-1].MinimumVersion
	for _, c := range checks {
		if v := c.Versions[len(c.Versions)-1].MinimumVersion; newest.Older(v) {
			newest = v
		}
	}
	out := make([]psa.Check, len(checks))
	for i, c := range checks {
		last := c.Versions[len(c.Versions)-1]
		last.MinimumVersion = newest
		c.Versions = []psa.VersionedCheck{last}
		out[i] = c
	}
	return out
}

// podSecurityRule evaluates every pod spec at the contract's Pod Security
// Standards level, as the admission controller of a namespace enforcing
// that level at "latest" would: one problem per failed check.
type podSecurityRule struct{}

// Codes of podSecurityRule: stable, contracts, fixtures and scripts name them.
const (
	CodePodSecurity = "pod-security"
)

// Codes are the codes podSecurityRule emits.
func (podSecurityRule) Codes() []Code {
	return []Code{
		{CodePodSecurity, "A pod spec fails the contract's Pod Security Standards level (Kubernetes' own checks)."},
	}
}

func (podSecurityRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	lv := psaapi.LevelVersion{Level: psaapi.Level(in.c.Policy.PodSecurity), Version: psaapi.LatestVersion()}
	var ps problem.Problems
	for _, o := range objs {
		if handledByPolicy(o) {
			continue
		}
		spec, specPath := podSpec(o)
		if spec == nil {
			continue
		}
		meta, pod, ok := in.decodePod(o, spec)
		if !ok {
			continue // not a pod spec Kubernetes can read: wellFormedRule says why
		}
		for _, r := range podSecurityEvaluator().EvaluatePod(lv, meta, pod) {
			if r.Allowed {
				continue
			}
			msg := fmt.Sprintf("violates PodSecurity %q: %s", lv.String(), r.ForbiddenReason)
			if r.ForbiddenDetail != "" {
				msg += " (" + r.ForbiddenDetail + ")"
			}
			ps = append(ps, in.problem(o, CodePodSecurity, specPath, msg, in.podSecurityHint(r.ForbiddenReason)))
		}
	}
	return ps
}

// decodePod reads a workload's pod metadata and spec into the API types
// the checks take. Only the metadata's annotations matter to them (the
// AppArmor profiles of older pods).
func (in *Context) decodePod(o, spec *yaml.RNode) (*metav1.ObjectMeta, *corev1.PodSpec, bool) {
	pod, ok, err := in.podSpecOf(spec)
	if !ok || err != nil {
		return nil, nil, false
	}
	meta := &metav1.ObjectMeta{Annotations: o.GetAnnotations()}
	if o.GetKind() != "Pod" {
		tmpl, err := o.Pipe(yaml.Lookup(podTemplatePath(o.GetKind())...))
		if err != nil || tmpl == nil {
			return nil, nil, false
		}
		meta.Annotations = tmpl.GetAnnotations()
	}
	return meta, pod, true
}

// podSecurityFixes says how to pass each check, by the reason the check
// gives (k8s.io/pod-security-admission/policy's ForbiddenReason).
var podSecurityFixes = map[string]string{
	"privileged":                        "remove securityContext.privileged from the containers",
	"host namespaces":                   "remove hostNetwork, hostPID and hostIPC from the pod spec",
	"hostPort":                          "remove the containers' ports[].hostPort: a Service exposes the port",
	"non-default capabilities":          "remove securityContext.capabilities.add beyond the runtime's default set",
	"unrestricted capabilities":         "set securityContext.capabilities.drop: [ALL] on every container, adding back NET_BIND_SERVICE at most",
	"allowPrivilegeEscalation != false": "set securityContext.allowPrivilegeEscalation: false on every container",
	"runAsNonRoot != true":              "set securityContext.runAsNonRoot: true on the pod (or on every container) and run the image as a non-root user",
	"runAsUser=0":                       "set securityContext.runAsUser to a non-zero user id",
	"seccompProfile":                    "set the pod's securityContext.seccompProfile.type: RuntimeDefault, and no container Unconfined",
	"restricted volume types":           "use only configMap, secret, emptyDir, projected, downwardAPI, persistentVolumeClaim, csi and ephemeral volumes",
	"procMount":                         "remove securityContext.procMount (only Default is allowed)",
	"seLinuxOptions":                    "remove securityContext.seLinuxOptions user and role, and keep its type to container_t, container_init_t or container_kvm_t",
	"forbidden sysctls":                 "remove securityContext.sysctls other than the safe ones (kernel.shm_rmid_forced, net.ipv4.ip_local_port_range, net.ipv4.ping_group_range...)",
	"forbidden AppArmor profile":        "use the RuntimeDefault or a Localhost AppArmor profile, never Unconfined",
	"forbidden AppArmor profiles":       "use the RuntimeDefault or a Localhost AppArmor profile, never Unconfined",
	"hostProcess":                       "remove securityContext.windowsOptions.hostProcess",
	"probe or lifecycle host":           "remove host from the probes' and lifecycle handlers' httpGet and tcpSocket (they then reach the pod's own address)",
}

// podSecurityHint is the fix of a failed check, or the general advice.
func (in *Context) podSecurityHint(reason string) string {
	fix, ok := podSecurityFixes[reason]
	if reason == "hostPath volumes" {
		fix, ok = in.hostPathFix(), true
	}
	if !ok {
		return fmt.Sprintf("make the pod spec pass the Pod Security Standards' %s profile", in.c.Policy.PodSecurity)
	}
	return fmt.Sprintf("%s: pods must pass the Pod Security Standards' %s profile", fix, in.c.Policy.PodSecurity)
}

// hostPathFix points at the storage a code-location may have instead.
func (in *Context) hostPathFix() string {
	claim := names.DataClaimName(in.d.CodeLocation)
	if in.d.Resources.Disk.Set {
		return "use an emptyDir, a ConfigMap or the declared claim " + claim + " instead of hostPath"
	}
	return "use an emptyDir or a ConfigMap instead of hostPath, or declare resources.disk and mount the claim " + claim
}
