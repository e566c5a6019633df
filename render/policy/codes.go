package policy

// Problem codes of the policy rules.
const (
	CodeClusterScoped  = "policy-cluster-scoped"
	CodeOtherNamespace = "policy-namespace"
	CodeReservedAnno   = "policy-annotation"
	CodeForbiddenKind  = "policy-kind"
	CodeImageRevision  = "policy-image-revision"
	CodeNameConflict   = "policy-name-conflict"

	// What the workloads consume must be what the declaration says.
	CodeConsumeSecret         = "consume-secret"
	CodeConsumeConfigMap      = "consume-configmap"
	CodeConsumeClaim          = "consume-volume-claim"
	CodeConsumeServiceAccount = "consume-service-account"
	CodeBlockStorage          = "block-storage-undeclared"
	CodeNameOwner             = "policy-name-owner"
	CodePodSecurity           = "pod-security"
	CodeKindNotAllowed        = "policy-kind-not-allowed"
	CodeServiceType           = "policy-service-type"
	CodeRBACRoleRef           = "rbac-role-ref"
	CodeRBACSubject           = "rbac-subject"
	CodeRBACRule              = "rbac-rule"
	CodeImageRegistry         = "policy-image-registry"
	CodeImageUnpinned         = "policy-image-unpinned"
	CodeRequestsMissing       = "requests-missing"
	CodeRequestsOverDeclared  = "requests-over-declared"

	// Objects well-formed before they reach the cluster.
	CodeMalformed = "object-malformed"
	CodeIdentity  = "object-identity"
)

// CodeDocs describes each code in a sentence.
var CodeDocs = map[string]string{
	CodeClusterScoped:  "An object is cluster-scoped; code-locations deploy namespaced objects only.",
	CodeOtherNamespace: "An object names another namespace than the contract's.",
	CodeReservedAnno:   "An object sets an annotation the cluster owns (Argo CD hooks and sync waves).",
	CodeForbiddenKind:  "An object's kind is provided by the cluster (Secret, ObjectBucketClaim, Application...).",
	CodeImageRevision:  "An image of the code-location does not carry the declared revision as its tag.",
	CodeNameConflict:   "An object has the name of one codeloc emits.",

	CodeConsumeSecret:         "A pod references a Secret the declaration does not name: neither in dependsOn.secrets nor a declared bucket's.",
	CodeConsumeConfigMap:      "A pod references a ConfigMap that neither the render ships nor a declared bucket provides.",
	CodeConsumeClaim:          "A pod mounts a PersistentVolumeClaim other than <codeLocation>-data, or that one without resources.disk.",
	CodeConsumeServiceAccount: "A pod runs as a ServiceAccount that is neither default nor shipped by the render (codeloc's own preflight accounts included).",
	CodeBlockStorage:          "The render ships block storage outside the declaration: a PersistentVolumeClaim, volumeClaimTemplates or an ephemeral volume claim.",
	CodeNameOwner:             "An object's name is not the code-location's name nor starts with it and '-': all code-locations share one namespace.",
	CodePodSecurity:           "A pod spec fails the contract's Pod Security Standards level (Kubernetes' own checks).",
	CodeKindNotAllowed:        "An object's kind is not in the contract's policy.kinds.",
	CodeServiceType:           "A Service's type is not in the contract's policy.serviceTypes (NodePort, LoadBalancer and ExternalName take cluster-wide resources).",
	CodeRBACRoleRef:           "A RoleBinding binds a ClusterRole, or a Role the render does not ship.",
	CodeRBACSubject:           "A RoleBinding binds a subject other than a ServiceAccount the render ships.",
	CodeRBACRule:              "A shipped Role grants secrets, wildcards, escalate, bind, impersonate, serviceaccounts/token or pods/exec.",
	CodeImageRegistry:         "An image does not come from the contract's registry (or policy.registries).",
	CodeImageUnpinned:         "An image has neither a digest nor a tag other than latest.",
	CodeRequestsMissing:       "A container of a long-running workload does not set both cpu and memory requests.",
	CodeRequestsOverDeclared:  "The pods' requests add up to more than the declared resources.cpu or resources.memory.",

	CodeMalformed: "An object of a kind Kubernetes ships does not decode strictly into its API type: an unknown field, or a field of the wrong type.",
	CodeIdentity:  "Two objects have the same group, kind and name once the namespace is forced: one would overwrite the other.",
}
