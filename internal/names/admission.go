package names

// The admission of a code-location's pods, those codeloc never renders
// included (the run and step pods Dagster creates): a
// ValidatingAdmissionPolicy of the install bundle, one binding per
// code-location label written by `codeloc application`, and the params
// ConfigMap AdmissionName the render emits.

// LabelDagsterCodeLocation is the label dagster-k8s sets on the run and
// step pods (K8sRunLauncher, k8s_job_executor, execute_k8s_job) to the
// Dagster location name, which codeloc holds to the code-location's name.
// dagster-k8s passes the value through sanitize_k8s_label (the first 63
// characters, characters outside [a-zA-Z0-9-_.] turned into '-', leading
// and trailing '-', '_' and '.' removed): a code-location name, a DNS-1123
// label, comes out unchanged.
const LabelDagsterCodeLocation = "dagster/code-location"

// Keys of the admission params ConfigMap. Each name a pod may use is a
// key of its own, the kind's prefix and the name, with an empty value, so
// that the policy checks a name with one map lookup; the images are one
// key, sorted, one a line.
const (
	AdmissionKeyCodeLocation = "codeLocation"
	AdmissionKeyImages       = "images"
	// AdmissionKeyCPU and AdmissionKeyMemory bound each container's
	// request: resources.cpu and resources.memory.
	AdmissionKeyCPU    = "cpu"
	AdmissionKeyMemory = "memory"
	// AdmissionKeyTolerations holds the taints the contract's
	// policy.tolerations lets pods tolerate, one "key|value|effect" a
	// line ("" value or effect: any); AdmissionKeyNodeLabels the node
	// labels of policy.nodeLabels, one "key" or "key=value" a line.
	AdmissionKeyTolerations = "tolerations"
	AdmissionKeyNodeLabels  = "nodeLabels"

	AdmissionPrefixSecret         = "secret."
	AdmissionPrefixConfigMap      = "configMap."
	AdmissionPrefixServiceAccount = "serviceAccount."
	AdmissionPrefixClaim          = "persistentVolumeClaim."
)
