package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// placementRule holds where a code-location's pods may run to the
// contract: never a named node (the kubelet of that node runs it as it
// is, past the scheduler, the node's taints and its capacity), only the
// taints policy.tolerations lists (a control-plane's, another team's
// dedicated nodes), only the node labels policy.nodeLabels lists, and a
// required anti-affinity or spread only over its own pods: the scheduler
// applies a required anti-affinity both ways, so one naming another
// code-location's pods would keep those out of whole zones. The same
// checks run on the run pods of a Dagster container context
// (PlacementFaults).
type placementRule struct{}

// Codes of placementRule: stable, contracts, fixtures and scripts name them.
const (
	CodeNodeName     = "placement-node-name"
	CodeToleration   = "placement-toleration"
	CodeNodeSelector = "placement-node-selector"
	CodePodSpread    = "placement-pod-spread"
)

// Codes are the codes placementRule emits.
func (placementRule) Codes() []Code {
	return []Code{
		{CodeNodeName, "A pod template names its node (spec.nodeName, or a required node affinity on metadata.name): the pod would skip the scheduler, the node's taints and its capacity."},
		{CodeToleration, "A pod tolerates a taint the contract's policy.tolerations does not list (a control-plane's, another team's dedicated nodes), or every taint."},
		{CodeNodeSelector, "A pod selects nodes by a label the contract's policy.nodeLabels does not list (nodeSelector, a required node affinity)."},
		{CodePodSpread, "A required pod anti-affinity or a DoNotSchedule topology spread counts pods other than the code-location's own: the scheduler would keep another code-location's pods out of whole zones or nodes."},
	}
}

func (placementRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	var ps problem.Problems
	for _, w := range in.decodedPods(objs) {
		for _, f := range in.PlacementFaults(w.spec, w.path) {
			ps = append(ps, in.problem(w.o, f.Code, f.Path, f.Msg, f.Hint))
		}
	}
	return ps
}

// PlacementFaults are the placement faults of one pod spec at path.
func (in *Context) PlacementFaults(spec *corev1.PodSpec, path string) []Fault {
	var out []Fault
	if spec.NodeName != "" {
		out = append(out, Fault{Code: CodeNodeName, Path: path + ".nodeName",
			Msg:  fmt.Sprintf("binds the pod to node %q, past the scheduler, the node's taints and its capacity", spec.NodeName),
			Hint: "remove nodeName and let the scheduler place the pod"})
	}
	out = append(out, in.tolerationFaults(spec.Tolerations, path+".tolerations")...)
	for _, k := range slices.Sorted(maps.Keys(spec.NodeSelector)) {
		if !in.nodeLabelAllowed(k, spec.NodeSelector[k]) {
			out = append(out, in.nodeLabelFault(path+".nodeSelector."+k, k+"="+spec.NodeSelector[k]))
		}
	}
	if a := spec.Affinity; a != nil {
		out = append(out, in.nodeAffinityFaults(a.NodeAffinity, path+".affinity.nodeAffinity")...)
		if a.PodAntiAffinity != nil {
			for i, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				at := fmt.Sprintf("%s.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[%d]", path, i)
				if why := in.notOwnPods(t.LabelSelector, t.Namespaces, t.NamespaceSelector); why != "" {
					out = append(out, in.spreadFault(at, "a required anti-affinity", why))
				}
			}
		}
	}
	for i, c := range spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable != corev1.DoNotSchedule {
			continue
		}
		if why := in.notOwnPods(c.LabelSelector, nil, nil); why != "" {
			out = append(out, in.spreadFault(fmt.Sprintf("%s.topologySpreadConstraints[%d]", path, i), "a DoNotSchedule topology spread", why))
		}
	}
	return out
}

// defaultTaints are the taints Kubernetes' DefaultTolerationSeconds
// admission tolerates on every pod (NoExecute, for a while).
var defaultTaints = []string{"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}

func (in *Context) tolerationFaults(ts []corev1.Toleration, path string) []Fault {
	var out []Fault
	allowed := in.c.Policy.Tolerations
	for i, t := range ts {
		if t.Effect == corev1.TaintEffectNoExecute && slices.Contains(defaultTaints, t.Key) {
			continue
		}
		if slices.ContainsFunc(allowed, func(a validate.Toleration) bool { return tolerationAllowed(a, t) }) {
			continue
		}
		what := fmt.Sprintf("taint %s", t.Key)
		if t.Key == "" {
			what = "every taint"
		}
		out = append(out, Fault{Code: CodeToleration, Path: fmt.Sprintf("%s[%d]", path, i),
			Msg:  fmt.Sprintf("tolerates %s, which the contract's policy.tolerations does not list: the pod could run on nodes kept for others", what),
			Hint: listedHint("policy.tolerations", tolerationNames(allowed), "tolerated taint")})
	}
	return out
}

// tolerationAllowed reports whether allowed entry a covers toleration t:
// the same key, a's value (Equal to it, or a allows any), a's effect (t's
// own, or a allows any; a toleration without effect tolerates them all).
func tolerationAllowed(a validate.Toleration, t corev1.Toleration) bool {
	if t.Key != a.Key {
		return false
	}
	if a.Value != "" && (t.Operator == corev1.TolerationOpExists || t.Value != a.Value) {
		return false
	}
	return a.Effect == "" || string(t.Effect) == a.Effect
}

func tolerationNames(ts []validate.Toleration) []string {
	var out []string
	for _, t := range ts {
		s := t.Key
		if t.Value != "" {
			s += "=" + t.Value
		}
		if t.Effect != "" {
			s += ":" + t.Effect
		}
		out = append(out, s)
	}
	return out
}

// nodeLabelAllowed reports whether policy.nodeLabels lets a pod select
// nodes by key=value ("key" lists every value).
func (in *Context) nodeLabelAllowed(key, value string) bool {
	return slices.Contains(in.c.Policy.NodeLabels, key) || slices.Contains(in.c.Policy.NodeLabels, key+"="+value)
}

func (in *Context) nodeLabelFault(path, selects string) Fault {
	return Fault{Code: CodeNodeSelector, Path: path,
		Msg:  fmt.Sprintf("selects nodes by %s, which the contract's policy.nodeLabels does not list: the pod would take capacity kept for others", selects),
		Hint: listedHint("policy.nodeLabels", in.c.Policy.NodeLabels, "node label")}
}

// nodeAffinityFaults judges a required node affinity's terms: a label it
// selects by (In, Exists, Gt, Lt) must be listed; NotIn and DoesNotExist
// only narrow where the pod goes. A field (metadata.name) names nodes.
func (in *Context) nodeAffinityFaults(a *corev1.NodeAffinity, path string) []Fault {
	if a == nil || a.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	var out []Fault
	for i, term := range a.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		at := fmt.Sprintf("%s.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[%d]", path, i)
		for j, e := range term.MatchExpressions {
			ep := fmt.Sprintf("%s.matchExpressions[%d]", at, j)
			switch e.Operator {
			case corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpDoesNotExist:
			case corev1.NodeSelectorOpIn:
				for _, v := range e.Values {
					if !in.nodeLabelAllowed(e.Key, v) {
						out = append(out, in.nodeLabelFault(ep, e.Key+"="+v))
						break
					}
				}
			default:
				if !slices.Contains(in.c.Policy.NodeLabels, e.Key) {
					out = append(out, in.nodeLabelFault(ep, fmt.Sprintf("%s (%s)", e.Key, e.Operator)))
				}
			}
		}
		for j, f := range term.MatchFields {
			if f.Operator == corev1.NodeSelectorOpIn {
				out = append(out, Fault{Code: CodeNodeName, Path: fmt.Sprintf("%s.matchFields[%d]", at, j),
					Msg:  fmt.Sprintf("binds the pod to nodes %s by %s, past the nodes the scheduler would choose", strings.Join(f.Values, ", "), f.Key),
					Hint: "remove the node's name and let the scheduler place the pod"})
			}
		}
	}
	return out
}

// notOwnPods says why a pod selector may count pods other than the
// code-location's own ("" it cannot): it must require the code-location's
// label to be its name, in the contract's namespace only.
func (in *Context) notOwnPods(sel *metav1.LabelSelector, namespaces []string, nsSel *metav1.LabelSelector) string {
	own := in.d.CodeLocation
	switch {
	case nsSel != nil:
		return "its namespaceSelector counts pods of other namespaces"
	case slices.ContainsFunc(namespaces, func(n string) bool { return n != in.c.Namespace }):
		return "it counts pods of other namespaces"
	case sel == nil:
		return "it has no labelSelector"
	case sel.MatchLabels[names.LabelCodeLocation] == own:
		return ""
	}
	for _, e := range sel.MatchExpressions {
		if e.Key == names.LabelCodeLocation && e.Operator == metav1.LabelSelectorOpIn && len(e.Values) > 0 &&
			!slices.ContainsFunc(e.Values, func(v string) bool { return v != own }) {
			return ""
		}
	}
	return fmt.Sprintf("its labelSelector does not require %s: %s", names.LabelCodeLocation, own)
}

func (in *Context) spreadFault(path, what, why string) Fault {
	return Fault{Code: CodePodSpread, Path: path,
		Msg: fmt.Sprintf("%s may count another code-location's pods (%s): the scheduler would keep them out of the nodes or zones this pod's are in", what, why),
		Hint: fmt.Sprintf("add %s: %s to its labelSelector's matchLabels (codeloc sets that label on every pod of the code-location), or make it preferred / ScheduleAnyway",
			names.LabelCodeLocation, in.d.CodeLocation)}
}
