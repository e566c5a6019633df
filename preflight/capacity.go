package preflight

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// pool is a capacity one need is checked against. Amounts are millicores
// for cpu and bytes for the rest. total sizes the headroom, free is what is
// left before this code-location.
type pool struct {
	source string // where the numbers come from: `ResourceQuota "compute"`
	detail string // how free was computed: "hard 4, used 3500m"
	total  int64
	free   int64
}

// unit formats amounts of one resource.
type unit func(int64) string

// fit checks need against p with headroomPercent of p.total kept free.
func fit(r *result, code, path, what string, need int64, p pool, headroomPercent int, u unit) {
	reserve := p.total * int64(headroomPercent) / 100
	room := p.free - reserve
	if need <= room {
		r.pass("capacity %s: %s fits %s (%s free, %d%% headroom kept)", what, u(need), p.source, u(p.free), headroomPercent)
		return
	}
	r.fail(problem.Problem{Code: code, Path: path,
		Message: fmt.Sprintf("%s %s does not fit %s: %s free (%s), and the %d%% headroom (%s) must stay free, leaving %s",
			what, u(need), p.source, u(max(p.free, 0)), p.detail, headroomPercent, u(reserve), u(max(room, 0))),
		Hint: capacityHint(code)})
}

func capacityHint(code string) string {
	switch code {
	case CodeCapacityCPU, CodeCapacityMemory:
		return "declare less, free requests in the namespace or cluster, or ask the platform to raise the quota or add nodes"
	case CodeCapacityDisk:
		return "declare a smaller disk, or ask the platform to add Ceph capacity (or raise budgets.disk)"
	default:
		return "declare smaller buckets, or ask the platform to add Ceph capacity (or raise budgets.buckets)"
	}
}

// capacity checks the declared requests and sizes against the live
// capacity: cpu/memory against the namespace quota (else the nodes), disk
// and buckets against Ceph (else the contract's budgets).
func (ck *checker) capacity(ctx context.Context) result {
	var r result
	ck.computeCapacity(ctx, &r)
	ck.storageCapacity(ctx, &r)
	return r
}

// amount returns a declared quantity in millicores (milli) or bytes; 0
// when not declared.
func amount(q validate.Quantity, milli bool) int64 {
	switch {
	case !q.Set:
		return 0
	case milli:
		return q.MilliValue()
	default:
		return q.Value()
	}
}

func (ck *checker) computeCapacity(ctx context.Context, r *result) {
	cpu := amount(ck.decl.Resources.CPU, true)
	mem := amount(ck.decl.Resources.Memory, false)
	if cpu == 0 && mem == 0 {
		return
	}
	cpuPool, memPool, ok := ck.quotaPools(ctx, r)
	if !ok {
		return
	}
	if (cpu > 0 && cpuPool == nil) || (mem > 0 && memPool == nil) {
		nodeCPU, nodeMem, ok := ck.nodePools(ctx, r)
		if !ok {
			return
		}
		cpuPool, memPool = orElse(cpuPool, nodeCPU), orElse(memPool, nodeMem)
	}
	h := ck.con.Budgets.HeadroomPercent
	if cpu > 0 {
		fit(r, CodeCapacityCPU, "resources.cpu", "cpu", cpu, *cpuPool, h, formatCPU)
	}
	if mem > 0 {
		fit(r, CodeCapacityMemory, "resources.memory", "memory", mem, *memPool, h, formatBytes)
	}
}

func orElse(a, b *pool) *pool {
	if a != nil {
		return a
	}
	return b
}

// quotaPools reads the namespace's ResourceQuotas and returns the tightest
// cpu and memory request pools (nil when no quota constrains them), giving
// back what this code-location's own pods use. ok is false when a problem
// was reported.
func (ck *checker) quotaPools(ctx context.Context, r *result) (cpu, mem *pool, ok bool) {
	ns := ck.con.Namespace
	quotas, err := ck.c.list(ctx, resourceQuotasGVR, ns, metav1.ListOptions{})
	if err != nil {
		r.fail(apiProblem("resources", fmt.Sprintf("list ResourceQuotas in namespace %q", ns), err))
		return nil, nil, false
	}
	for i := range quotas {
		cpu = tighter(cpu, quotaPool(&quotas[i], true))
		mem = tighter(mem, quotaPool(&quotas[i], false))
	}
	if cpu == nil && mem == nil {
		return nil, nil, true
	}
	ownCPU, ownMem, n, err := ck.ownRequests(ctx)
	if err != nil {
		r.fail(apiProblem("resources", fmt.Sprintf("list the pods of %s in namespace %q", ck.decl.CodeLocation, ns), err))
		return nil, nil, false
	}
	giveBack(cpu, ownCPU, n, formatCPU)
	giveBack(mem, ownMem, n, formatBytes)
	return cpu, mem, true
}

// giveBack adds this code-location's own usage back to a quota pool: a
// sync replaces those pods.
func giveBack(p *pool, own int64, pods int, u unit) {
	if p == nil || own == 0 {
		return
	}
	p.free = min(p.free+own, p.total)
	p.detail += fmt.Sprintf(", of which %s by this code-location's %d pod(s), given back", u(own), pods)
}

// tighter returns the pool with less free capacity.
func tighter(a, b *pool) *pool {
	if a == nil || (b != nil && b.free < a.free) {
		return b
	}
	return a
}

// quotaPool returns the quota's cpu (or memory) request pool, nil when the
// quota does not constrain it. status.hard is what the quota controller
// enforces; spec.hard stands in before its first sync.
func quotaPool(q *unstructured.Unstructured, cpu bool) *pool {
	hard, _, _ := unstructured.NestedStringMap(q.Object, "status", "hard")
	if len(hard) == 0 {
		hard, _, _ = unstructured.NestedStringMap(q.Object, "spec", "hard")
	}
	used, _, _ := unstructured.NestedStringMap(q.Object, "status", "used")
	keys := []string{"requests.memory", "memory"}
	u := formatBytes
	if cpu {
		keys, u = []string{"requests.cpu", "cpu"}, formatCPU
	}
	var best *pool
	for _, k := range keys {
		h, ok := hard[k]
		if !ok {
			continue
		}
		total, usedAmount := parseAmount(h, cpu), parseAmount(used[k], cpu)
		p := &pool{source: fmt.Sprintf("ResourceQuota %q", q.GetName()), total: total, free: total - usedAmount,
			detail: fmt.Sprintf("%s hard %s, used %s", k, u(total), u(usedAmount))}
		best = tighter(best, p)
	}
	return best
}

// ownRequests sums the requests of this code-location's live pods in the
// namespace.
func (ck *checker) ownRequests(ctx context.Context) (cpu, mem int64, n int, err error) {
	pods, err := ck.c.list(ctx, podsGVR, ck.con.Namespace, metav1.ListOptions{
		LabelSelector: names.LabelCodeLocation + "=" + ck.decl.CodeLocation,
		FieldSelector: nonTerminalPods,
	})
	if err != nil {
		return 0, 0, 0, err
	}
	for i := range pods {
		c, m := podRequests(&pods[i])
		cpu, mem = cpu+c, mem+m
	}
	return cpu, mem, len(pods), nil
}

// nonTerminalPods selects pods that hold their requests.
const nonTerminalPods = "status.phase!=Succeeded,status.phase!=Failed"

// nodePools sums the allocatable cpu and memory of the schedulable nodes
// minus the requests of the non-terminal pods bound to them, leaving out
// this code-location's own pods (a sync replaces them).
func (ck *checker) nodePools(ctx context.Context, r *result) (cpu, mem *pool, ok bool) {
	nodes, err := ck.c.list(ctx, nodesGVR, "", metav1.ListOptions{})
	if err != nil {
		r.fail(apiProblem("resources", "list nodes", err))
		return nil, nil, false
	}
	counted := map[string]bool{}
	var allocCPU, allocMem int64
	for i := range nodes {
		if !schedulable(&nodes[i]) {
			continue
		}
		counted[nodes[i].GetName()] = true
		alloc, _, _ := unstructured.NestedStringMap(nodes[i].Object, "status", "allocatable")
		allocCPU += parseAmount(alloc["cpu"], true)
		allocMem += parseAmount(alloc["memory"], false)
	}
	pods, err := ck.c.list(ctx, podsGVR, "", metav1.ListOptions{
		LabelSelector: names.LabelCodeLocation + "!=" + ck.decl.CodeLocation,
		FieldSelector: nonTerminalPods,
	})
	if err != nil {
		r.fail(apiProblem("resources", "list pods in all namespaces", err))
		return nil, nil, false
	}
	var reqCPU, reqMem int64
	bound := 0
	for i := range pods {
		node, _, _ := unstructured.NestedString(pods[i].Object, "spec", "nodeName")
		if !counted[node] {
			continue
		}
		c, m := podRequests(&pods[i])
		reqCPU, reqMem, bound = reqCPU+c, reqMem+m, bound+1
	}
	source := fmt.Sprintf("the %d schedulable node(s)", len(counted))
	cpu = &pool{source: source, total: allocCPU, free: allocCPU - reqCPU,
		detail: fmt.Sprintf("allocatable %s, requested %s by %d pod(s)", formatCPU(allocCPU), formatCPU(reqCPU), bound)}
	mem = &pool{source: source, total: allocMem, free: allocMem - reqMem,
		detail: fmt.Sprintf("allocatable %s, requested %s by %d pod(s)", formatBytes(allocMem), formatBytes(reqMem), bound)}
	return cpu, mem, true
}

// schedulable reports whether a node takes new pods: not cordoned, and
// Ready when it reports readiness.
func schedulable(node *unstructured.Unstructured) bool {
	if u, _, _ := unstructured.NestedBool(node.Object, "spec", "unschedulable"); u {
		return false
	}
	conds, _, _ := unstructured.NestedSlice(node.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Ready" {
			return m["status"] == "True"
		}
	}
	return true
}
