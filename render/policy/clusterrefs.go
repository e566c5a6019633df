package policy

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/codeloc/codeloc/internal/names"
)

// defaultScheduler is the scheduler of a pod that names none.
const defaultScheduler = corev1.DefaultSchedulerName

// clusterRefFaults refuses the cluster-level objects a pod spec at path
// names beyond the contract's lists: a PriorityClass ranks its pods
// against every code-location's (and lets them preempt), a RuntimeClass
// picks the node's container runtime, another scheduler places them
// outside the cluster's rules; and what hands the pods to others: a
// PodGroup of another code-location (gang scheduling with its pods),
// eviction responders (controllers that hold a node's drain).
func (in *Context) clusterRefFaults(spec *corev1.PodSpec, path string) []Fault {
	var faults []Fault
	p := in.c.Policy
	if name := spec.PriorityClassName; name != "" && !slices.Contains(p.PriorityClasses, name) {
		faults = append(faults, Fault{CodePodClusterRef, path + ".priorityClassName",
			fmt.Sprintf("PriorityClass %q is not in the contract's policy.priorityClasses: it ranks the pods against every code-location's, and may preempt theirs", name),
			listedHint("policy.priorityClasses", p.PriorityClasses, "PriorityClass")})
	}
	if rc := spec.RuntimeClassName; rc != nil && *rc != "" && !slices.Contains(p.RuntimeClasses, *rc) {
		faults = append(faults, Fault{CodePodClusterRef, path + ".runtimeClassName",
			fmt.Sprintf("RuntimeClass %q is not in the contract's policy.runtimeClasses: it picks the container runtime of the nodes", *rc),
			listedHint("policy.runtimeClasses", p.RuntimeClasses, "RuntimeClass")})
	}
	faults = append(faults, in.groupFaults(spec, path)...)
	return append(faults, schedulerFaults(spec.SchedulerName, path+".schedulerName")...)
}

// groupFaults refuses a scheduling group of another code-location and
// eviction responders (Kubernetes 1.36 and 1.37 alpha fields).
func (in *Context) groupFaults(spec *corev1.PodSpec, path string) []Fault {
	var faults []Fault
	if g := spec.SchedulingGroup; g != nil && g.PodGroupName != nil && !names.Owns(in.d.CodeLocation, *g.PodGroupName) {
		faults = append(faults, Fault{CodePodClusterRef, path + ".schedulingGroup.podGroupName",
			fmt.Sprintf("PodGroup %q is not code-location %s's: the pods would be scheduled, preempted and bound together with another's", *g.PodGroupName, in.d.CodeLocation),
			fmt.Sprintf("name a PodGroup of the code-location (%s or %s-*), or remove schedulingGroup", in.d.CodeLocation, in.d.CodeLocation)})
	}
	if len(spec.EvictionResponders) > 0 {
		faults = append(faults, Fault{CodePodClusterRef, path + ".evictionResponders",
			fmt.Sprintf("evictionResponders names %q: controllers outside the declaration would decide when the pods leave a draining node", spec.EvictionResponders[0].Name),
			"remove it: the platform's controllers evict every code-location's pods"})
	}
	return faults
}

// schedulerFaults refuses a scheduler other than the default one.
func schedulerFaults(name, field string) []Fault {
	if name == "" || name == defaultScheduler {
		return nil
	}
	return []Fault{{CodePodClusterRef, field,
		fmt.Sprintf("scheduler %q is not the cluster's %s: another scheduler places the pods outside the cluster's rules", name, defaultScheduler),
		"remove it: the default scheduler places every code-location's pods"}}
}
