package preflight

import (
	"context"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/codeloc/codeloc/validate"
)

// storageCapacity checks the block disk, then the disk plus the buckets,
// against Ceph's usable capacity; without a readable CephCluster, each
// against its budget in the contract.
func (ck *checker) storageCapacity(ctx context.Context, r *result) {
	disk := amount(ck.decl.Resources.Disk, false)
	var buckets int64
	for _, b := range ck.decl.DependsOn.Buckets {
		buckets += amount(b.Size, false)
	}
	if disk == 0 && buckets == 0 {
		return
	}
	path := "dependsOn.buckets"
	if disk > 0 {
		path = "resources.disk"
	}
	ceph, ok := ck.cephPool(ctx, r, path)
	if !ok {
		return
	}
	h := ck.con.Budgets.HeadroomPercent
	if ceph != nil {
		if disk > 0 {
			fit(r, CodeCapacityDisk, "resources.disk", "disk", disk, *ceph, h, formatBytes)
		}
		if buckets > 0 {
			what := "buckets"
			if disk > 0 {
				what = fmt.Sprintf("buckets %s + disk %s =", formatBytes(buckets), formatBytes(disk))
			}
			fit(r, CodeCapacityBuckets, "dependsOn.buckets", what, buckets+disk, *ceph, h, formatBytes)
		}
		return
	}
	ck.budgetFit(r, CodeCapacityDisk, "resources.disk", "disk", disk, ck.con.Budgets.Disk, "budgets.disk")
	ck.budgetFit(r, CodeCapacityBuckets, "dependsOn.buckets", "buckets", buckets, ck.con.Budgets.Buckets, "budgets.buckets")
}

// budgetFit checks need against a contract budget taken as the capacity.
func (ck *checker) budgetFit(r *result, code, path, what string, need int64, budget validate.Quantity, field string) {
	if need == 0 {
		return
	}
	if !budget.Set {
		r.note("capacity %s: not checked (no Ceph capacity readable and no %s in the contract)", what, field)
		return
	}
	b := budget.Value()
	p := pool{source: "the contract's " + field, detail: "no Ceph capacity readable", total: b, free: b}
	fit(r, code, path, what, need, p, ck.con.Budgets.HeadroomPercent, formatBytes)
}

// cephPool reads the usable capacity of the CephCluster in the contract's
// ceph namespace: bytesAvailable divided by the replica size. It returns
// nil (with a note) when Rook's CRD is not served or no cluster reports a
// capacity; ok is false when a problem was reported.
func (ck *checker) cephPool(ctx context.Context, r *result, path string) (p *pool, ok bool) {
	ns := ck.con.Ceph.Namespace
	if ns == "" {
		r.note("capacity storage: contract budgets used (the contract names no ceph.namespace)")
		return nil, true
	}
	clusters, err := ck.c.list(ctx, cephClustersGVR, ns, metav1.ListOptions{})
	switch {
	case resourceNotServed(err):
		r.note("capacity storage: contract budgets used (ceph.rook.io/v1 CephCluster is not served)")
		return nil, true
	case err != nil:
		r.fail(apiProblem(path, fmt.Sprintf("list CephClusters in namespace %q", ns), err))
		return nil, false
	}
	replicas := int64(max(ck.con.Ceph.ReplicaSize, 1))
	for i := range clusters {
		avail, okA := nestedInt(&clusters[i], "status", "ceph", "capacity", "bytesAvailable")
		if !okA {
			continue
		}
		total, okT := nestedInt(&clusters[i], "status", "ceph", "capacity", "bytesTotal")
		if !okT || total < avail {
			total = avail
		}
		return &pool{
			source: fmt.Sprintf("CephCluster %s/%s", ns, clusters[i].GetName()),
			detail: fmt.Sprintf("%s raw available / %d replicas", formatBytes(avail), replicas),
			total:  total / replicas, free: avail / replicas,
		}, true
	}
	r.note("capacity storage: contract budgets used (no CephCluster in namespace %s reports status.ceph.capacity)", ns)
	return nil, true
}

// nestedInt reads an integer field that JSON may carry as a number or a
// string.
func nestedInt(o *unstructured.Unstructured, fields ...string) (int64, bool) {
	v, found, _ := unstructured.NestedFieldNoCopy(o.Object, fields...)
	if !found {
		return 0, false
	}
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		return int64(x), true
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		return n, err == nil
	}
	return 0, false
}
