package policy

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
)

// reachRule holds what the pod specs reach beyond the code-location's own
// objects to the contract's policy: the volume types they mount
// (volumes.go), the devices they request (devices.go) and the
// cluster-level objects they name (PriorityClass, RuntimeClass,
// scheduler: clusterrefs.go). The same checks run on the run pods a
// Dagster container context describes (PodReach and the like, which
// render/policy/dagster calls).
type reachRule struct{}

// Codes of reachRule: stable, contracts, fixtures and scripts name them.
const (
	CodeVolumeType       = "volume-type"
	CodeResourceExtended = "resource-extended"
	CodeResourceClaim    = "resource-claim"
	CodePodClusterRef    = "pod-cluster-ref"
)

// Codes are the codes reachRule emits.
func (reachRule) Codes() []Code {
	return []Code{
		{CodeVolumeType, "A pod mounts a volume type outside the allowlist (configMap, secret, projected, downwardAPI, emptyDir, persistentVolumeClaim, ephemeral; csi with a driver of policy.csiDrivers): network file systems, disks, gitRepo, image..."},
		{CodeResourceExtended, "A container requests or limits a resource other than cpu, memory and ephemeral-storage: huge pages, or an extended resource (a GPU...) the contract's policy.extendedResources does not list."},
		{CodeResourceClaim, "A pod claims devices (dynamic resource allocation) other than from a ResourceClaimTemplate of the contract's policy.resourceClaimTemplates: a shared ResourceClaim, another template."},
		{CodePodClusterRef, "A pod names a PriorityClass or RuntimeClass outside the contract's policy.priorityClasses or policy.runtimeClasses, a scheduler other than default-scheduler, a PodGroup (schedulingGroup) another code-location owns, or eviction responders."},
	}
}

func (reachRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	var ps problem.Problems
	for _, w := range in.decodedPods(objs) {
		for _, f := range in.podReach(w.spec, w.path) {
			ps = append(ps, in.problem(w.o, f.Code, f.Path, f.Msg, f.Hint))
		}
	}
	return ps
}

// podReach returns the faults of one pod spec at path: volumes, devices
// and cluster-level references.
func (in *Context) podReach(spec *corev1.PodSpec, path string) []Fault {
	faults := in.volumeFaults(spec.Volumes, path+".volumes")
	faults = append(faults, in.deviceFaults(spec, path)...)
	return append(faults, in.clusterRefFaults(spec, path)...)
}

// listedHint is the fix of a name a contract list does not hold: one of
// the listed names, or asking the platform when it lists none.
func listedHint(list string, listed []string, what string) string {
	if len(listed) == 0 {
		return fmt.Sprintf("remove it: the platform offers code-locations no %s; ask it to list one in %s", what, list)
	}
	return fmt.Sprintf("use one the platform lists in %s (%s), or remove it", list, strings.Join(slices.Sorted(slices.Values(listed)), ", "))
}
