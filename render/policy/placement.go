package policy

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
)

// placementRule refuses a pod that names its node: the kubelet of that
// node runs it as it is, past the scheduler, the node's taints and its
// capacity, so that a code-location could put its pods on a control-plane
// or another team's node. A code-location's pods go where the scheduler
// puts them.
type placementRule struct{}

// Codes of placementRule: stable, contracts, fixtures and scripts name them.
const (
	CodeNodeName = "placement-node-name"
)

// Codes are the codes placementRule emits.
func (placementRule) Codes() []Code {
	return []Code{
		{CodeNodeName, "A pod template names its node (spec.nodeName): the pod would skip the scheduler, the node's taints and its capacity."},
	}
}

func (placementRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	var ps problem.Problems
	for _, w := range in.decodedPods(objs) {
		if w.spec.NodeName == "" {
			continue
		}
		ps = append(ps, in.problem(w.o, CodeNodeName, w.path+".nodeName",
			fmt.Sprintf("binds the pod to node %q, past the scheduler, the node's taints and its capacity", w.spec.NodeName),
			"remove nodeName and let the scheduler place the pod"))
	}
	return ps
}
