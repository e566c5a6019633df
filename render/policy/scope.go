package policy

import (
	"fmt"
	"maps"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
)

// Annotations the cluster sets: Argo CD's hooks and waves, and Helm's,
// which Argo CD reads as its own.
var reservedAnnotations = []string{names.AnnoHook, names.AnnoHookDelete, names.AnnoSyncWave, "helm.sh/hook", "helm.sh/hook-weight"}

// forbiddenKinds are provided by the cluster, never by a code-location.
var forbiddenKinds = map[string]string{
	"Secret":            "secrets are provided by the cluster: declare it in dependsOn.secrets",
	"ObjectBucketClaim": "buckets are provisioned by the platform: declare the bucket in dependsOn.buckets and the cluster provides its claim",
	"Application":       "the cluster creates Applications (app-of-apps): remove it",
	"ApplicationSet":    "the cluster creates Applications (app-of-apps): remove it",
	"AppProject":        "Argo CD projects belong to the platform: remove it",
	"ResourceQuota":     "quotas belong to the platform: declare resources in the manifest",
	"LimitRange":        "limit ranges belong to the platform: remove it",
}

// scopeRule keeps objects inside what a code-location may ship: no kind
// the cluster provides, nothing cluster-scoped, no other namespace, no
// annotation the cluster orchestrates with.
type scopeRule struct{}

// Codes of scopeRule: stable, contracts, fixtures and scripts name them.
const (
	CodeClusterScoped  = "policy-cluster-scoped"
	CodeOtherNamespace = "policy-namespace"
	CodeReservedAnno   = "policy-annotation"
	CodeForbiddenKind  = "policy-kind"
)

// Codes are the codes scopeRule emits.
func (scopeRule) Codes() []Code {
	return []Code{
		{CodeClusterScoped, "An object is cluster-scoped; code-locations deploy namespaced objects only."},
		{CodeOtherNamespace, "An object names another namespace than the contract's."},
		{CodeReservedAnno, "An object sets an annotation the cluster owns (Argo CD hooks and sync waves)."},
		{CodeForbiddenKind, "An object's kind is provided by the cluster (Secret, ObjectBucketClaim, Application...)."},
	}
}

func (scopeRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	var ps problem.Problems
	for _, o := range objs {
		ps = append(ps, in.scope(o)...)
	}
	return ps
}

func (in *Context) scope(o *yaml.RNode) problem.Problems {
	kind := o.GetKind()
	if hint, bad := forbiddenKinds[kind]; bad {
		return problem.Problems{in.problem(o, CodeForbiddenKind, "", fmt.Sprintf("a code-location may not ship a %s", kind), hint)}
	}
	if openapi.IsCertainlyClusterScoped(yaml.TypeMeta{APIVersion: o.GetApiVersion(), Kind: kind}) {
		return problem.Problems{in.problem(o, CodeClusterScoped, "", fmt.Sprintf("%s is cluster-scoped", kind), "code-locations deploy namespaced objects only; ask the platform for cluster-wide needs")}
	}
	var ps problem.Problems
	if ns := o.GetNamespace(); ns != "" && ns != in.c.Namespace {
		ps = append(ps, in.problem(o, CodeOtherNamespace, "metadata.namespace", fmt.Sprintf("namespace %q is not the code-location's namespace %q", ns, in.c.Namespace), "remove metadata.namespace: codeloc sets it"))
	}
	for _, a := range slices.Sorted(maps.Keys(o.GetAnnotations())) {
		if slices.Contains(reservedAnnotations, a) {
			ps = append(ps, in.problem(o, CodeReservedAnno, "metadata.annotations."+a, fmt.Sprintf("annotation %s is set by the cluster", a), "remove it: codeloc orders hooks and waves itself"))
		}
	}
	return ps
}
