package policy

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// defaultScheduler is the scheduler of a pod that names none.
const defaultScheduler = corev1.DefaultSchedulerName

// clusterRefFaults refuses the cluster-level objects a pod spec at path
// names beyond the contract's lists: a PriorityClass ranks its pods
// against every code-location's (and lets them preempt), a RuntimeClass
// picks the node's container runtime, another scheduler places them
// outside the cluster's rules.
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
	return append(faults, schedulerFaults(spec.SchedulerName, path+".schedulerName")...)
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
