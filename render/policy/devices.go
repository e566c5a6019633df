package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// standardResources are what any container may request or limit: the
// declaration budgets cpu and memory, and ephemeral-storage is the node's
// scratch disk the kubelet evicts on. hugepages-<size> are not among them:
// node memory reserved apart from the declared memory.
var standardResources = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage}

// deviceFaults checks the resources each container requests and the
// resource claims (dynamic resource allocation) of a pod spec at path.
func (in *Context) deviceFaults(spec *corev1.PodSpec, path string) []Fault {
	var faults []Fault
	claims := map[string]bool{}
	for i, c := range spec.ResourceClaims {
		claims[c.Name] = true
		faults = append(faults, in.podClaimFaults(c, fmt.Sprintf("%s.resourceClaims[%d]", path, i))...)
	}
	each := func(field string, i int, c *corev1.Container) {
		at := fmt.Sprintf("%s.%s[%d].resources", path, field, i)
		who := fmt.Sprintf("container %q", c.Name)
		faults = append(faults, in.resourceFaults(who, c.Resources, at)...)
		faults = append(faults, containerClaimFaults(who, c.Resources.Claims, claims, at)...)
	}
	if spec.Resources != nil { // pod-level resources: cpu, memory, huge pages
		faults = append(faults, in.resourceFaults("the pod", *spec.Resources, path+".resources")...)
	}
	for i := range spec.InitContainers {
		each("initContainers", i, &spec.InitContainers[i])
	}
	for i := range spec.Containers {
		each("containers", i, &spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		c := corev1.Container(spec.EphemeralContainers[i].EphemeralContainerCommon)
		each("ephemeralContainers", i, &c)
	}
	return faults
}

// resourceFaults refuses the resources who requests or limits in r (at
// path) beyond the standard ones and the contract's extendedResources.
func (in *Context) resourceFaults(who string, r corev1.ResourceRequirements, path string) []Fault {
	var faults []Fault
	listed := in.c.Policy.ExtendedResources
	for _, from := range []struct {
		name string
		list corev1.ResourceList
	}{{"requests", r.Requests}, {"limits", r.Limits}} {
		for _, name := range slices.Sorted(maps.Keys(from.list)) {
			if slices.Contains(standardResources, name) || slices.Contains(listed, string(name)) {
				continue
			}
			field := fmt.Sprintf("%s.%s.%s", path, from.name, name)
			if strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
				faults = append(faults, Fault{CodeResourceExtended, field,
					fmt.Sprintf("%s %s %s: huge pages are node memory reserved apart from the declared resources.memory", who, from.name, name),
					"remove it and request memory: a code-location's memory is what its declaration budgets"})
				continue
			}
			faults = append(faults, Fault{CodeResourceExtended, field,
				fmt.Sprintf("%s %s %s, which the contract's policy.extendedResources does not list: a device of the nodes, outside the declaration", who, from.name, name),
				listedHint("policy.extendedResources", listed, "extended resource such as a GPU")})
		}
	}
	return faults
}

// podClaimFaults refuses a pod's resource claim unless it comes from a
// ResourceClaimTemplate the contract lists: a ResourceClaim by name is a
// device allocation shared beyond the pod, another code-location's
// included.
func (in *Context) podClaimFaults(c corev1.PodResourceClaim, path string) []Fault {
	listed := in.c.Policy.ResourceClaimTemplates
	switch {
	case c.ResourceClaimName != nil:
		return []Fault{{CodeResourceClaim, path + ".resourceClaimName",
			fmt.Sprintf("claim %q uses the ResourceClaim %q: devices allocated to whoever shares it, outside the declaration", c.Name, *c.ResourceClaimName),
			"set resourceClaimTemplateName to a ResourceClaimTemplate the platform lists in policy.resourceClaimTemplates: each pod then gets its own claim"}}
	case c.ResourceClaimTemplateName != nil && !slices.Contains(listed, *c.ResourceClaimTemplateName):
		return []Fault{{CodeResourceClaim, path + ".resourceClaimTemplateName",
			fmt.Sprintf("claim %q comes from the ResourceClaimTemplate %q, which the contract's policy.resourceClaimTemplates does not list", c.Name, *c.ResourceClaimTemplateName),
			listedHint("policy.resourceClaimTemplates", listed, "ResourceClaimTemplate")}}
	case c.ResourceClaimTemplateName == nil:
		return []Fault{{CodeResourceClaim, path,
			fmt.Sprintf("claim %q names no ResourceClaimTemplate", c.Name),
			"set resourceClaimTemplateName to a template the platform lists in policy.resourceClaimTemplates"}}
	}
	return nil
}

// containerClaimFaults refuses a container's resources.claims that name
// no claim of the pod (the API server refuses them too).
func containerClaimFaults(who string, claims []corev1.ResourceClaim, pod map[string]bool, path string) []Fault {
	var faults []Fault
	for j, c := range claims {
		if pod[c.Name] {
			continue // the pod's claim is checked itself
		}
		faults = append(faults, Fault{CodeResourceClaim, fmt.Sprintf("%s.claims[%d].name", path, j),
			fmt.Sprintf("%s uses claim %q, which is not among the pod's resourceClaims", who, c.Name),
			"name a claim of the pod's spec.resourceClaims, made from a ResourceClaimTemplate the platform lists in policy.resourceClaimTemplates"})
	}
	return faults
}
