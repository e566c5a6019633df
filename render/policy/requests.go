package policy

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/node"
)

// budgetedResources are the resources the declaration budgets, as its field names.
var budgetedResources = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}

// longRunningKinds are the kinds whose pods run all the time: their requests
// add up against the declaration. A DaemonSet (only where the contract
// allows the kind) counts as one replica: how many nodes it runs on is
// the cluster's, which the render cannot know.
var longRunningKinds = map[string]bool{
	"Deployment": true, "StatefulSet": true, "ReplicaSet": true,
	"ReplicationController": true, "DaemonSet": true, "Pod": true,
}

// workloadPods are the pods of one long-running workload.
type workloadPods struct {
	o        *yaml.RNode
	specPath string
	replicas int64
	// scaler is the HorizontalPodAutoscaler whose maxReplicas replicas is.
	scaler string
	pod    corev1.ResourceList
}

// contribution is what the workload's pods request of r in all.
func (w workloadPods) contribution(r corev1.ResourceName) resource.Quantity {
	q := w.pod[r].DeepCopy()
	q.Mul(w.replicas)
	return q
}

// requestRule holds the pods' requests to the declared resources: every
// container of a long-running workload requests cpu and memory; all their
// replicas together fit resources.cpu and resources.memory; each pod of a
// Job or CronJob (they come and go, so they are not added up) fits them.
type requestRule struct{}

// Codes of requestRule: stable, contracts, fixtures and scripts name them.
const (
	CodeRequestsMissing      = "requests-missing"
	CodeRequestsOverDeclared = "requests-over-declared"
)

// Codes are the codes requestRule emits.
func (requestRule) Codes() []Code {
	return []Code{
		{CodeRequestsMissing, "A container of a long-running workload does not set both cpu and memory requests."},
		{CodeRequestsOverDeclared, "The pods' requests add up to more than the declared resources.cpu or resources.memory."},
	}
}

func (requestRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	scalers := maxReplicasByTarget(objs)
	var ps problem.Problems
	var workloads []workloadPods
	for _, o := range objs {
		if handledByPolicy(o) {
			continue
		}
		spec, specPath := podSpec(o)
		switch kind := o.GetKind(); {
		case spec == nil:
		case longRunningKinds[kind]:
			ps = append(ps, in.missingRequests(o, spec, specPath)...)
			n, scaler := workloadReplicas(o, scalers)
			workloads = append(workloads, workloadPods{o, specPath, n, scaler, podRequest(spec)})
		case kind == "Job" || kind == "CronJob":
			ps = append(ps, in.jobPodOverDeclared(o, specPath, podRequest(spec))...)
		}
	}
	return append(ps, in.totalOverDeclared(workloads)...)
}

// missingRequests refuses containers that request no cpu or no memory
// (unless the pod-level resources request it): their pods would fit the
// budget on paper only.
func (in *Context) missingRequests(o, spec *yaml.RNode, specPath string) problem.Problems {
	var ps problem.Problems
	for _, f := range []string{"initContainers", "containers"} {
		for i, c := range node.Sequence(spec, f) {
			var missing []string
			for _, r := range budgetedResources {
				if pod := withPodLevel(resource.Quantity{}, false, podLevelQuantity(spec, "requests", r), podLevelQuantity(spec, "limits", r)); !pod.IsZero() {
					continue // the pod-level request budgets it
				}
				if _, requested := containerRequest(c, r); !requested {
					missing = append(missing, "no "+string(r))
				}
			}
			if len(missing) == 0 {
				continue
			}
			name := scalarValueAt(c, "name")
			ps = append(ps, in.problem(o, CodeRequestsMissing, fmt.Sprintf("%s.%s[%d].resources.requests", specPath, f, i),
				fmt.Sprintf("container %q requests %s", name, strings.Join(missing, " and ")),
				"set resources.requests.cpu and resources.requests.memory, above 0, on every container: the declaration's resources.cpu and resources.memory are what the pods request in all"))
		}
	}
	return ps
}

// containerRequest is what a container requests of r: resources.requests,
// or the limit when only that is set (Kubernetes defaults the request to
// it). requested is false when it requests none: unset, or 0. A value that
// is not a quantity is wellFormedRule's to report; it counts as requested.
func containerRequest(c *yaml.RNode, r corev1.ResourceName) (q resource.Quantity, requested bool) {
	for _, from := range []string{"requests", "limits"} {
		n, err := c.Pipe(yaml.Lookup("resources", from, string(r)))
		if err != nil || n == nil {
			continue
		}
		if n.YNode().Kind != yaml.ScalarNode {
			return resource.Quantity{}, true
		}
		q, err := resource.ParseQuantity(n.YNode().Value)
		if err != nil {
			return resource.Quantity{}, true
		}
		return q, !q.IsZero()
	}
	return resource.Quantity{}, false
}

// podRequest is a pod's effective request, by Kubernetes' rule (KEP-753):
// the sum of the containers and of the restartable (sidecar) init
// containers, or the largest need of an init container if more; an
// ordinary init container runs beside the sidecars started before it.
// Pod-level resources (KEP-2837), when set, replace that sum.
func podRequest(spec *yaml.RNode) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, r := range budgetedResources {
		var containers []resource.Quantity
		var inits []initRequest
		set := false
		for _, c := range node.Sequence(spec, "containers") {
			q, _ := containerRequest(c, r)
			containers = append(containers, q)
			set = set || containerSets(c, r)
		}
		for _, c := range node.Sequence(spec, "initContainers") {
			q, _ := containerRequest(c, r)
			inits = append(inits, initRequest{q, scalarValueAt(c, "restartPolicy") == string(corev1.ContainerRestartPolicyAlways)})
			set = set || containerSets(c, r)
		}
		out[r] = withPodLevel(schedulerRequest(containers, inits), set, podLevelQuantity(spec, "requests", r), podLevelQuantity(spec, "limits", r))
	}
	return out
}

// containerSets reports whether c requests or limits r (0 included).
func containerSets(c *yaml.RNode, r corev1.ResourceName) bool {
	return scalarValueAt(c, "resources", "requests", string(r)) != "" || scalarValueAt(c, "resources", "limits", string(r)) != ""
}

// podLevelQuantity is spec.resources.<from>.<r>, nil when unset or not a
// quantity (wellFormedRule reports that).
func podLevelQuantity(spec *yaml.RNode, from string, r corev1.ResourceName) *resource.Quantity {
	q, err := resource.ParseQuantity(scalarValueAt(spec, "resources", from, string(r)))
	if err != nil {
		return nil
	}
	return &q
}

// withPodLevel is the scheduler's request of a pod whose containers add up
// to aggregate (containersSet: some container requests or limits the
// resource), given its pod-level request and limit (each nil when unset):
// the pod-level request; else, as the API server defaults it, the
// containers' when any sets it, else the pod-level limit
// (k8s.io/component-helpers/resource PodRequests after pkg/apis/core/v1
// defaultPodRequests).
func withPodLevel(aggregate resource.Quantity, containersSet bool, request, limit *resource.Quantity) resource.Quantity {
	switch {
	case request != nil:
		return request.DeepCopy()
	case limit != nil && !containersSet:
		return limit.DeepCopy()
	}
	return aggregate
}

// initRequest is an init container's request, and whether it is a native
// sidecar (restartPolicy Always).
type initRequest struct {
	q       resource.Quantity
	sidecar bool
}

// schedulerRequest is what the scheduler reserves for a pod
// (k8s.io/kubernetes/pkg/api/v1/resource PodRequests): the containers'
// sum, plus each native sidecar for the pod's whole life, or the largest
// init container with the sidecars started before it, whichever is more.
func schedulerRequest(containers []resource.Quantity, inits []initRequest) resource.Quantity {
	var sum, sidecars, init resource.Quantity
	for _, q := range containers {
		sum.Add(q)
	}
	for _, ic := range inits {
		q := ic.q.DeepCopy()
		if ic.sidecar {
			sum.Add(q)
			sidecars.Add(q)
			q = sidecars.DeepCopy()
		} else {
			q.Add(sidecars)
		}
		if q.Cmp(init) > 0 {
			init = q
		}
	}
	if init.Cmp(sum) > 0 {
		return init
	}
	return sum
}

// hpaScale is how far a HorizontalPodAutoscaler scales its target.
type hpaScale struct {
	max    int64
	scaler string
}

// maxReplicasByTarget maps each HorizontalPodAutoscaler's target (Kind/name)
// to its maxReplicas; of two autoscalers of one target, the larger counts.
func maxReplicasByTarget(objs []*yaml.RNode) map[string]hpaScale {
	out := map[string]hpaScale{}
	for _, o := range objs {
		if o.GetKind() != "HorizontalPodAutoscaler" {
			continue
		}
		target := scalarValueAt(o, "spec", "scaleTargetRef", "kind") + "/" + scalarValueAt(o, "spec", "scaleTargetRef", "name")
		if most := intValueAt(o, 0, "spec", "maxReplicas"); most > out[target].max {
			out[target] = hpaScale{most, node.Ref(o)}
		}
	}
	return out
}

// workloadReplicas is how many pods of a long-running workload run at most:
// its autoscaler's maxReplicas, else spec.replicas (1 when unset; a Pod or
// a DaemonSet has none).
func workloadReplicas(o *yaml.RNode, scalers map[string]hpaScale) (int64, string) {
	if s, ok := scalers[node.Ref(o)]; ok {
		return s.max, s.scaler
	}
	return intValueAt(o, 1, "spec", "replicas"), ""
}

// scalarValueAt is the scalar at path in n, "" when there is none.
func scalarValueAt(n *yaml.RNode, path ...string) string {
	v, err := n.Pipe(yaml.Lookup(path...))
	if err != nil || v == nil || v.YNode().Kind != yaml.ScalarNode {
		return ""
	}
	return v.YNode().Value
}

// intValueAt is the integer at path in n, or def when it is unset or not an
// integer (wellFormedRule reports the latter).
func intValueAt(n *yaml.RNode, def int64, path ...string) int64 {
	v, err := strconv.ParseInt(scalarValueAt(n, path...), 10, 64)
	if err != nil {
		return def
	}
	return v
}

// jobPodOverDeclared refuses a Job or CronJob whose pods running at once
// request more than the declared resources: one pod, or as many as its
// parallelism lets run together (no more than its completions).
func (in *Context) jobPodOverDeclared(o *yaml.RNode, specPath string, pod corev1.ResourceList) problem.Problems {
	jobSpec := []string{"spec"}
	if o.GetKind() == "CronJob" {
		jobSpec = []string{"spec", "jobTemplate", "spec"}
	}
	n := max(intValueAt(o, 1, append(jobSpec, "parallelism")...), 1)
	if c := intValueAt(o, 0, append(jobSpec, "completions")...); c > 0 {
		n = min(n, c)
	}
	var ps problem.Problems
	for _, r := range budgetedResources {
		declared := in.declaredAmount(r)
		q := pod[r].DeepCopy()
		switch {
		case q.Cmp(declared) > 0:
			ps = append(ps, in.problem(o, CodeRequestsOverDeclared, specPath,
				fmt.Sprintf("a pod of this %s requests %s %s, more than the declared resources.%s %s", o.GetKind(), q.String(), r, r, declared.String()),
				fmt.Sprintf("lower its containers' %s requests to %s in all%s", r, declared.String(), in.orDeclare(r, q))))
		case n > 1:
			total := q.DeepCopy()
			total.Mul(n)
			if total.Cmp(declared) > 0 {
				ps = append(ps, in.problem(o, CodeRequestsOverDeclared, strings.Join(jobSpec, ".")+".parallelism",
					fmt.Sprintf("runs %d pods at once (parallelism), %s %s together, more than the declared resources.%s %s", n, total.String(), r, r, declared.String()),
					fmt.Sprintf("lower parallelism or the pods' %s requests so that %d pods fit %s%s", r, n, declared.String(), in.orDeclare(r, total))))
			}
		}
	}
	return ps
}

// totalOverDeclared refuses long-running pods that request more than the
// declared resources in all, at the workload that requests the most.
func (in *Context) totalOverDeclared(workloads []workloadPods) problem.Problems {
	var ps problem.Problems
	for _, r := range budgetedResources {
		var total resource.Quantity
		for _, w := range workloads {
			total.Add(w.contribution(r))
		}
		declared := in.declaredAmount(r)
		if total.Cmp(declared) <= 0 {
			continue
		}
		byShare := slices.Clone(workloads)
		slices.SortStableFunc(byShare, func(a, b workloadPods) int {
			ca, cb := a.contribution(r), b.contribution(r)
			return cmp.Or(cb.Cmp(ca), strings.Compare(node.Ref(a.o), node.Ref(b.o)))
		})
		ps = append(ps, in.problem(byShare[0].o, CodeRequestsOverDeclared, byShare[0].specPath,
			fmt.Sprintf("pods request %s %s in all (%s), more than the declared resources.%s %s", total.String(), r, requestShares(byShare, r), r, declared.String()),
			fmt.Sprintf("lower the replicas or the containers' %s requests to fit %s%s", r, declared.String(), in.orDeclare(r, total))))
	}
	return ps
}

// maxRequestShares is how many workloads a total names; the others are counted.
const maxRequestShares = 5

// requestShares says what makes up a total: "Deployment/x: 3 × 2, Pod/y: 1 × 500m".
func requestShares(byShare []workloadPods, r corev1.ResourceName) string {
	var parts []string
	for _, w := range byShare {
		if c := w.contribution(r); c.IsZero() {
			break // sorted by share: the rest request none
		}
		if len(parts) == maxRequestShares {
			parts = append(parts, fmt.Sprintf("and %d more", nonZeroShares(byShare[maxRequestShares:], r)))
			break
		}
		per := w.pod[r]
		part := fmt.Sprintf("%s: %d × %s", node.Ref(w.o), w.replicas, per.String())
		if w.scaler != "" {
			part += " at " + w.scaler + "'s maxReplicas"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}

func nonZeroShares(ws []workloadPods, r corev1.ResourceName) int {
	n := 0
	for _, w := range ws {
		if c := w.contribution(r); !c.IsZero() {
			n++
		}
	}
	return n
}

// orDeclare offers to declare need of r, if the contract's budget allows
// a code-location that much; else it says the most the budget allows.
func (in *Context) orDeclare(r corev1.ResourceName, need resource.Quantity) string {
	budget := in.c.Budgets.CPU
	if r == corev1.ResourceMemory {
		budget = in.c.Budgets.Memory
	}
	if budget.Set && need.Cmp(budget.Quantity) > 0 {
		return fmt.Sprintf(": the cluster's budget allows a code-location at most %s %s", budget.String(), r)
	}
	return fmt.Sprintf(", or declare resources.%s: %s", r, need.String())
}

// declaredAmount is the declaration's amount of r.
func (in *Context) declaredAmount(r corev1.ResourceName) resource.Quantity {
	if r == corev1.ResourceCPU {
		return in.d.Resources.CPU.Quantity
	}
	return in.d.Resources.Memory.Quantity
}
