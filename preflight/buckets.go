package preflight

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// buckets checks each declared bucket's ObjectBucketClaim: present, Bound,
// on the declared storage class, with a maxSize at least the declared size.
func (ck *checker) buckets(ctx context.Context) result {
	var r result
	ns := ck.con.Namespace
	for i, b := range ck.decl.DependsOn.Buckets {
		path := index("dependsOn.buckets", i)
		obc, err := ck.c.get(ctx, obcGVR, ns, b.Name)
		switch {
		case err == nil:
			ck.checkClaim(&r, path, b, obc)
		case objectNotFound(err):
			r.fail(problem.Problem{Code: CodeBucketMissing, Path: path,
				Message: fmt.Sprintf("ObjectBucketClaim %q does not exist in namespace %q", b.Name, ns),
				Hint:    "buckets are provisioned by the platform, not by the code-location: ask the platform team to create the claim, or fix the bucket's name"})
		case resourceNotServed(err):
			r.fail(problem.Problem{Code: CodeBucketMissing, Path: path,
				Message: fmt.Sprintf("bucket %q: this cluster does not serve objectbucket.io/v1alpha1 ObjectBucketClaims", b.Name),
				Hint:    "install Rook's object storage (lib-bucket-provisioner CRDs), or remove the bucket"})
		default:
			r.fail(apiProblem(path, fmt.Sprintf("get ObjectBucketClaim %q in namespace %q", b.Name, ns), err))
		}
	}
	return r
}

// checkClaim compares one claim with its declaration; every mismatch is
// reported, not just the first.
func (ck *checker) checkClaim(r *result, path string, b validate.Bucket, obc *unstructured.Unstructured) {
	before := len(r.problems)
	phase, _, _ := unstructured.NestedString(obc.Object, "status", "phase")
	if phase != "Bound" {
		state := fmt.Sprintf("is in phase %q", phase)
		if phase == "" {
			state = "has no status.phase yet"
		}
		r.fail(problem.Problem{Code: CodeBucketNotBound, Path: path,
			Message: fmt.Sprintf("ObjectBucketClaim %q %s, not Bound", b.Name, state),
			Hint:    "the bucket provisioner has not provisioned it: look at the claim's events and the provisioner's logs; the sync retries"})
	}
	class, _, _ := unstructured.NestedString(obc.Object, "spec", "storageClassName")
	if class != b.StorageClass {
		r.fail(problem.Problem{Code: CodeBucketClassMismatch, Path: path + ".storageClass",
			Message: fmt.Sprintf("ObjectBucketClaim %q is on storage class %q, not the declared %q", b.Name, class, b.StorageClass),
			Hint:    fmt.Sprintf("declare storageClass: %s, or ask the platform to move the bucket", class)})
	}
	ck.checkClaimSize(r, path, b, obc)
	if len(r.problems) == before {
		r.pass("bucket %s: Bound on %s, maxSize >= %s", b.Name, class, b.Size.String())
	}
}

func (ck *checker) checkClaimSize(r *result, path string, b validate.Bucket, obc *unstructured.Unstructured) {
	raw, found, _ := unstructured.NestedFieldNoCopy(obc.Object, "spec", "additionalConfig", "maxSize")
	if !found || raw == nil || fmt.Sprint(raw) == "" {
		r.fail(problem.Problem{Code: CodeBucketTooSmall, Path: path + ".size",
			Message: fmt.Sprintf("ObjectBucketClaim %q has no spec.additionalConfig.maxSize: its size is not provisioned", b.Name),
			Hint:    fmt.Sprintf("ask the platform to set additionalConfig.maxSize (at least %s) on the claim", b.Size.String())})
		return
	}
	max, err := resource.ParseQuantity(fmt.Sprint(raw))
	if err != nil {
		r.fail(problem.Problem{Code: CodeBucketTooSmall, Path: path + ".size",
			Message: fmt.Sprintf("ObjectBucketClaim %q has maxSize %q, which is not a quantity", b.Name, fmt.Sprint(raw)),
			Hint:    "ask the platform to write maxSize as a quantity such as 500Gi"})
		return
	}
	if b.Size.Set && max.Cmp(b.Size.Quantity) < 0 {
		r.fail(problem.Problem{Code: CodeBucketTooSmall, Path: path + ".size",
			Message: fmt.Sprintf("ObjectBucketClaim %q has maxSize %s, less than the declared %s", b.Name, max.String(), b.Size.String()),
			Hint:    "declare at most the provisioned size, or ask the platform to raise the claim's maxSize"})
	}
}
