package policy

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
)

// quantityRule refuses negative quantities in the pod specs: a container's
// (init and ephemeral ones included) resource requests and limits, an
// emptyDir's sizeLimit, the pod's overhead. The API server refuses them at
// sync time; before that, a negative request would lower the pods' total
// in codeloc's budget (requestRule) and so make room for other requests. A
// text that is not a quantity at all is wellFormedRule's (the strict
// decode says so).
type quantityRule struct{}

// Codes of quantityRule: stable, contracts, fixtures and scripts name them.
const (
	CodeQuantityNegative = "quantity-negative"
)

// Codes are the codes quantityRule emits.
func (quantityRule) Codes() []Code {
	return []Code{
		{CodeQuantityNegative, "A container's resource request or limit, an emptyDir sizeLimit or a pod's overhead is a negative quantity."},
	}
}

func (quantityRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	var ps problem.Problems
	for _, p := range in.decodedPods(objs) {
		for _, nq := range podQuantities(p.spec) {
			if nq.q.Sign() >= 0 {
				continue
			}
			msg := fmt.Sprintf("%s is negative: the API server refuses it", nq.q.String())
			if nq.budgeted {
				msg += ", and codeloc's budget would subtract it from the other containers' requests"
			}
			ps = append(ps, in.problem(p.o, CodeQuantityNegative, p.path+"."+nq.field, msg, nq.hint))
		}
	}
	return ps
}

// namedQuantity is a quantity of a pod spec and its field path in it.
type namedQuantity struct {
	field string
	q     *resource.Quantity
	hint  string
	// budgeted is true for a container's requests and limits, which
	// requestRule adds up (a limit stands for an unset request).
	budgeted bool
}

// podQuantities lists the quantities of a pod spec that may not be
// negative, in the spec's order.
func podQuantities(spec *corev1.PodSpec) []namedQuantity {
	const resourceHint = "write a positive quantity (such as 250m or 512Mi), or leave the resource out"
	var out []namedQuantity
	list := func(prefix string, l corev1.ResourceList, hint string, budgeted bool) {
		for _, name := range slices.Sorted(maps.Keys(l)) {
			q := l[name]
			out = append(out, namedQuantity{prefix + "." + string(name), &q, hint, budgeted})
		}
	}
	containers := func(field string, cs []corev1.Container) {
		for i, c := range cs {
			prefix := fmt.Sprintf("%s[%d].resources", field, i)
			list(prefix+".requests", c.Resources.Requests, resourceHint, true)
			list(prefix+".limits", c.Resources.Limits, resourceHint, true)
		}
	}
	containers("initContainers", spec.InitContainers)
	containers("containers", spec.Containers)
	for i, c := range spec.EphemeralContainers {
		prefix := fmt.Sprintf("ephemeralContainers[%d].resources", i)
		list(prefix+".requests", c.Resources.Requests, resourceHint, false)
		list(prefix+".limits", c.Resources.Limits, resourceHint, false)
	}
	for i, v := range spec.Volumes {
		if v.EmptyDir != nil && v.EmptyDir.SizeLimit != nil {
			out = append(out, namedQuantity{fmt.Sprintf("volumes[%d].emptyDir.sizeLimit", i), v.EmptyDir.SizeLimit,
				"write a positive size (such as 1Gi), or leave sizeLimit out", false})
		}
	}
	list("overhead", spec.Overhead, "leave overhead out: the RuntimeClass sets it", false)
	return out
}
