package render

// Problem codes of the build and policy stages (see validate for the others).
const (
	CodeNamespaceMismatch = "namespace-mismatch"
	CodeAPIMissing        = "api-not-served"
	CodeKustomizeRoot     = "kustomize-root"
	CodeKustomizeRemote   = "kustomize-remote"
	CodeKustomizeHelm     = "kustomize-helm"
	CodeKustomizeBuild    = "kustomize-build"
	CodeKustomizeEmpty    = "kustomize-empty"
	CodeClusterScoped     = "policy-cluster-scoped"
	CodeOtherNamespace    = "policy-namespace"
	CodeReservedAnno      = "policy-annotation"
	CodeForbiddenKind     = "policy-kind"
	CodeImageRevision     = "policy-image-revision"
	CodeNameConflict      = "policy-name-conflict"
)

// CodeDocs describes each code in a sentence.
var CodeDocs = map[string]string{
	CodeNamespaceMismatch: "The Application's destination namespace differs from the contract's namespace.",
	CodeAPIMissing:        "The destination cluster does not serve an API the output needs (KUBE_API_VERSIONS).",
	CodeKustomizeRoot:     "The kustomize root parameter leaves the code-location folder.",
	CodeKustomizeRemote:   "A kustomization refers to a remote base, resource or file; nothing is fetched.",
	CodeKustomizeHelm:     "A kustomization inflates Helm charts; render charts into the repo instead.",
	CodeKustomizeBuild:    "kustomize could not build the root (missing file, bad patch, path outside the root...).",
	CodeKustomizeEmpty:    "The kustomize root yields no object: there is nothing to deploy.",
	CodeClusterScoped:     "An object is cluster-scoped; code-locations deploy namespaced objects only.",
	CodeOtherNamespace:    "An object names another namespace than the contract's.",
	CodeReservedAnno:      "An object sets an annotation the cluster owns (Argo CD hooks and sync waves).",
	CodeForbiddenKind:     "An object's kind is provided by the cluster (Secret, ObjectBucketClaim, Application...).",
	CodeImageRevision:     "An image of the code-location does not carry the declared revision as its tag.",
	CodeNameConflict:      "An object has the name of one codeloc emits.",
}
