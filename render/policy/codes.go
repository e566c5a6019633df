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
	CodeRBACWrite             = "rbac-write"
	CodeRBACUnknown           = "rbac-unknown"
	CodeImageRegistry         = "policy-image-registry"
	CodeImageUnpinned         = "policy-image-unpinned"
	CodeRequestsMissing       = "requests-missing"
	CodeRequestsOverDeclared  = "requests-over-declared"

	// What a Dagster code server hands its run pods, and how Dagster finds it.
	CodeContextInvalid    = "container-context-invalid"
	CodeContextUnreadable = "container-context-unreadable"
	CodeContextNamespace  = "container-context-namespace"
	CodeContextField      = "container-context-field"
	CodeDagsterImage      = "dagster-image"
	CodeCodeServers       = "dagster-code-servers"
	CodeGRPCPort          = "dagster-grpc-port"
	CodeGRPCHost          = "dagster-grpc-host"
	CodeGRPCService       = "dagster-grpc-service"
	CodeLocationName      = "dagster-location-name"

	// What the objects select and target stays among the code-location's own.
	CodeScopeSelector = "scope-selector"
	CodeScopeTarget   = "scope-target"
	CodeScopePodLabel = "scope-pod-label"
	CodeExternalIP    = "policy-external-ip"
	// What the objects reach beyond their own: volumes, devices, cluster
	// objects, shared controllers.
	CodeVolumeType       = "volume-type"
	CodeResourceExtended = "resource-extended"
	CodeResourceClaim    = "resource-claim"
	CodePodClusterRef    = "pod-cluster-ref"
	CodeAnnotationDenied = "policy-annotation-denied"

	// Objects well-formed before they reach the cluster.
	CodeMalformed = "object-malformed"
	CodeIdentity  = "object-identity"

	// Names codeloc keeps for the objects it emits for every code-location.
	CodeNameReserved = "policy-name-reserved"
	// Numbers, quantities and digests as the cluster reads them.
	CodeYAMLAmbiguous    = "yaml-ambiguous-scalar"
	CodeQuantityNegative = "quantity-negative"
	CodeImageDigest      = "policy-image-digest"
)

// CodeDocs describes each code in a sentence.
var CodeDocs = map[string]string{
	CodeClusterScoped:  "An object is cluster-scoped; code-locations deploy namespaced objects only.",
	CodeOtherNamespace: "An object names another namespace than the contract's.",
	CodeReservedAnno:   "An object sets an annotation the cluster owns (Argo CD hooks and sync waves).",
	CodeForbiddenKind:  "An object's kind is provided by the cluster (Secret, ObjectBucketClaim, Application...).",
	CodeImageRevision:  "An image of the code-location does not carry the declared revision as its tag.",
	CodeNameConflict:   "An object has the name of one codeloc emits.",

	CodeConsumeSecret:         "A pod, an Ingress's TLS or a ServiceAccount's secrets reference a Secret the declaration does not name: neither in dependsOn.secrets nor a declared bucket's.",
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
	CodeRBACRule:              "A shipped Role grants secrets, wildcards, escalate, bind, impersonate, serviceaccounts/token, nodes, or a pods/services subresource that enters, tunnels to, evicts or binds other pods (exec, attach, ephemeralcontainers, portforward, proxy, eviction, binding).",
	CodeRBACWrite:             "A shipped Role writes what the code-location does not ship: create or deletecollection (no name limits them), update/patch/delete without resourceNames or naming objects the render does not ship, or any write on Roles, RoleBindings and ServiceAccounts; policy.runLaunching lists the exceptions.",
	CodeRBACUnknown:           "A shipped Role lists a verb Kubernetes does not authorize with (verbs are lowercase and compared exactly) or a resource with capitals: it grants nothing codeloc can judge.",
	CodeImageRegistry:         "An image does not come from the contract's registry (or policy.registries).",
	CodeImageUnpinned:         "An image has neither a digest nor a tag other than latest.",
	CodeRequestsMissing:       "A container of a long-running workload does not set both cpu and memory requests.",
	CodeRequestsOverDeclared:  "The pods' requests add up to more than the declared resources.cpu or resources.memory.",

	CodeContextInvalid:    "A Dagster container context is not JSON, or not Dagster's K8sContainerContext schema (an unknown key, a wrong type): Dagster would refuse it too.",
	CodeContextUnreadable: "A Dagster container context comes from where codeloc cannot read it (a Secret, a ConfigMap the render does not ship, an env var at run time): what it hands the run pods would be unknown.",
	CodeContextNamespace:  "A Dagster container context launches run pods in another namespace than the contract's.",
	CodeContextField:      "A Dagster container context sets what Dagster and the cluster own on run pods: reserved labels, the Job's pod template or pod count.",
	CodeDagsterImage:      "DAGSTER_CURRENT_IMAGE (or DAGSTER_CONTAINER_IMAGE, --container-image) is not the container's own image: run pods would launch another image than the declared revision's.",
	CodeCodeServers:       "More than one container runs a Dagster code server: a code-location is one gRPC location.",
	CodeGRPCPort:          "The code server does not serve on a TCP port a Service can reach (no --port, a socket, a port from elsewhere).",
	CodeGRPCHost:          "The code server listens on localhost (Dagster's default host): set -h 0.0.0.0 so that the webserver and daemon reach it.",
	CodeGRPCService:       "No Service (or more than one) of the render reaches the code server's port: Dagster's workspace needs one host and port.",
	CodeLocationName:      "The code server's --location-name is not the code-location's name, which the workspace and the reload use.",

	CodeScopeSelector:    "A pod selector selects on the code-location label (codeloc.dev/code-location, dagster/code-location) with another code-location's value, or with NotIn, DoesNotExist or In another value: it would reach other code-locations' pods.",
	CodeScopeTarget:      "An autoscaler scales, or an Ingress or route publishes, an object the render does not ship: another code-location's or the platform's.",
	CodeExternalIP:       "A Service's spec.externalIPs holds an address outside the contract's policy.externalIPs: every node takes the traffic to it, for the whole cluster.",
	CodeVolumeType:       "A pod mounts a volume type outside the allowlist (configMap, secret, projected, downwardAPI, emptyDir, persistentVolumeClaim, ephemeral; csi with a driver of policy.csiDrivers): network file systems, disks, gitRepo, image...",
	CodeResourceExtended: "A container requests or limits a resource other than cpu, memory and ephemeral-storage: huge pages, or an extended resource (a GPU...) the contract's policy.extendedResources does not list.",
	CodeResourceClaim:    "A pod claims devices (dynamic resource allocation) other than from a ResourceClaimTemplate of the contract's policy.resourceClaimTemplates: a shared ResourceClaim, another template.",
	CodePodClusterRef:    "A pod names a PriorityClass or RuntimeClass outside the contract's policy.priorityClasses or policy.runtimeClasses, or a scheduler other than default-scheduler.",
	CodeAnnotationDenied: "An object or a template inside it sets an annotation whose key starts with a prefix of the contract's policy.deniedAnnotations (ingress-nginx snippets and secret annotations by default).",

	CodeMalformed: "An object of a kind Kubernetes ships does not decode strictly into its API type: an unknown field, or a field of the wrong type.",
	CodeIdentity:  "Two objects have the same group, kind and name once the namespace is forced: one would overwrite the other.",

	CodeNameReserved:     "An object's name, though the code-location's own, is one codeloc emits for some code-location (ending with -preflight, -migrate, -migrations-<hash>, -reload, -data or -admission), on another kind than codeloc's or for another code-location (<cl>-x-preflight is the preflight of code-location <cl>-x).",
	CodeYAMLAmbiguous:    "A plain scalar reads otherwise to Argo CD (YAML 1.1) than to codeloc (YAML 1.2), or is a number, boolean or null not written canonically (yes, on, 0x10, 010, 1_000, +5, .5, True, ~).",
	CodeQuantityNegative: "A container's resource request or limit, an emptyDir sizeLimit or a pod's overhead is a negative quantity.",
	CodeImageDigest:      "An image reference has an @ but no valid digest (sha256: and 64 lowercase hex digits, or sha512: and 128).",
}
