package policy

import (
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	podresource "k8s.io/component-helpers/resource"
)

// TestPodSpecRequestsAsTheScheduler holds PodSpecRequests to Kubernetes'
// own PodRequests (what the scheduler and kubelet admission count) on
// random pods: containers, init containers, native sidecars in any
// order, requests and limits, pod-level resources.
func TestPodSpecRequestsAsTheScheduler(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	always := corev1.ContainerRestartPolicyAlways
	container := func() corev1.Container {
		c := corev1.Container{Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}}
		for _, r := range budgetedResources {
			switch rng.IntN(3) {
			case 0:
				c.Resources.Requests[r] = *resource.NewMilliQuantity(rng.Int64N(4000), resource.DecimalSI)
			case 1: // only a limit: the API server defaults the request to it
				c.Resources.Limits[r] = *resource.NewMilliQuantity(rng.Int64N(4000), resource.DecimalSI)
			}
		}
		return c
	}
	for i := range 2000 {
		var spec corev1.PodSpec
		for range rng.IntN(3) {
			spec.Containers = append(spec.Containers, container())
		}
		for range rng.IntN(4) {
			c := container()
			if rng.IntN(2) == 0 {
				c.RestartPolicy = &always
			}
			spec.InitContainers = append(spec.InitContainers, c)
		}
		if rng.IntN(3) == 0 { // pod-level resources (KEP-2837)
			pl := container().Resources
			spec.Resources = &pl
		}
		defaulted := spec.DeepCopy()
		for _, list := range [][]corev1.Container{defaulted.Containers, defaulted.InitContainers} {
			for j := range list {
				for r, q := range list[j].Resources.Limits {
					if _, ok := list[j].Resources.Requests[r]; !ok {
						list[j].Resources.Requests[r] = q
					}
				}
			}
		}
		defaultPodRequests(defaulted)
		want := podresource.PodRequests(&corev1.Pod{Spec: *defaulted}, podresource.PodResourcesOptions{})
		for _, r := range budgetedResources {
			got, w := PodSpecRequests(&spec, r), want[r]
			if got.Cmp(w) != 0 {
				t.Fatalf("pod %d, %s: %s, the scheduler's %s\n%+v", i, r, got.String(), w.String(), spec)
			}
		}
	}
}

// defaultPodRequests is the API server's defaulting of pod-level requests
// (k8s.io/kubernetes pkg/apis/core/v1 defaultPodRequests, Kubernetes 1.37,
// for cpu and memory; copied: that package cannot be imported without the
// whole of Kubernetes): with pod-level limits, an unset pod-level request
// becomes the containers' when any requests the resource, else the limit.
func defaultPodRequests(spec *corev1.PodSpec) {
	if spec.Resources == nil || len(spec.Resources.Limits) == 0 {
		return
	}
	reqs := spec.Resources.Requests
	if reqs == nil {
		reqs = corev1.ResourceList{}
	}
	aggregate := podresource.AggregateContainerRequests(&corev1.Pod{Spec: *spec}, podresource.PodResourcesOptions{})
	for r, q := range aggregate {
		if _, ok := reqs[r]; !ok && podresource.IsSupportedPodLevelResource(r) {
			reqs[r] = q.DeepCopy()
		}
	}
	for r, q := range spec.Resources.Limits {
		if _, ok := reqs[r]; !ok && podresource.IsSupportedPodLevelResource(r) {
			reqs[r] = q.DeepCopy()
		}
	}
	if len(reqs) > 0 {
		spec.Resources.Requests = reqs
	}
}
