package preflight

import (
	"sync"

	"github.com/codeloc/codeloc/validate"
)

// Stable problem codes of the live checks. Like validate's codes they are
// part of codeloc's interface: never renamed, never reused.
const (
	CodeSecretMissing          = "secret-missing"
	CodeSecretKeyMissing       = "secret-key-missing"
	CodeConfigMapMissing       = "configmap-missing"
	CodeServiceAccountMissing  = "service-account-missing"
	CodeDatabaseUnreachable    = "database-unreachable"
	CodeDatabaseAuthFailed     = "database-auth-failed"
	CodeBucketMissing          = "bucket-missing"
	CodeBucketNotBound         = "bucket-not-bound"
	CodeBucketClassMismatch    = validate.CodeBucketClassMismatch
	CodeBucketTooSmall         = "bucket-too-small"
	CodeDependencyMissing      = "dependency-missing"
	CodeDependencyNotReady     = "dependency-not-ready"
	CodeDependencyAppUnhealthy = "dependency-app-not-healthy"
	// A record is believed only as codeloc and Argo CD wrote it.
	CodeDependencyRecordUntrusted = "dependency-record-untrusted"
	CodeCapacityCPU               = "capacity-cpu"
	CodeCapacityMemory            = "capacity-memory"
	CodeCapacityDisk              = "capacity-disk"
	CodeCapacityBuckets           = "capacity-buckets"
	CodeForbidden                 = "forbidden"
	CodeAPIError                  = "api-error"
)

// CodeDocs describes each code in a sentence (README table, JSON consumers). The map is shared: read it only.
func CodeDocs() map[string]string { return codeDocs() }

// codeDocs builds CodeDocs' map at first use, not in the init every
// process runs.
var codeDocs = sync.OnceValue(func() map[string]string {
	return map[string]string{
		CodeSecretKeyMissing:          "A declared Secret lacks a key the workloads read (secretKeyRef or a projected/volume item).",
		CodeSecretMissing:             "A declared secret does not exist in the namespace.",
		CodeConfigMapMissing:          "A declared platform ConfigMap (dependsOn.configMaps, such as the Dagster instance) does not exist in the namespace.",
		CodeServiceAccountMissing:     "A declared platform ServiceAccount (dependsOn.serviceAccounts, such as Dagster's run account) does not exist in the namespace.",
		CodeDatabaseUnreachable:       "The database does not answer SELECT 1 (network, TLS, unknown database, timeout).",
		CodeDatabaseAuthFailed:        "The database refuses the credentials of the declared secret.",
		CodeBucketMissing:             "A declared bucket has no ObjectBucketClaim in the namespace, or ObjectBucketClaims are not served.",
		CodeBucketNotBound:            "A declared bucket's ObjectBucketClaim is not in phase Bound.",
		CodeBucketClassMismatch:       "A declared bucket's ObjectBucketClaim is on another storage class.",
		CodeBucketTooSmall:            "A declared bucket's ObjectBucketClaim has no maxSize, or a smaller one than declared.",
		CodeDependencyMissing:         "A required code-location has no record ConfigMap, or no Argo CD Application.",
		CodeDependencyNotReady:        "A required code-location's record says ready is not \"true\".",
		CodeDependencyAppUnhealthy:    "A required code-location's Application is not Synced and Healthy.",
		CodeDependencyRecordUntrusted: "A required code-location's record ConfigMap lacks codeloc's labels (managed-by codeloc, its code-location), or Argo CD's tracking does not say the code-location's own Application manages it (annotation argocd.argoproj.io/tracking-id, or label app.kubernetes.io/instance under label tracking).",
		CodeCapacityCPU:               "The declared cpu does not fit the free quota or node capacity with the headroom.",
		CodeCapacityMemory:            "The declared memory does not fit the free quota or node capacity with the headroom.",
		CodeCapacityDisk:              "The declared block disk does not fit Ceph's usable capacity (or the disk budget) with the headroom.",
		CodeCapacityBuckets:           "The declared buckets (plus the disk) do not fit Ceph's usable capacity (or the buckets budget) with the headroom.",
		CodeForbidden:                 "The preflight's ServiceAccount may not read something it needs (RBAC out of date).",
		CodeAPIError:                  "The Kubernetes API failed or timed out.",
	}
})
