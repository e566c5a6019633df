// Package names holds the names, rules and limits that several of
// codeloc's packages must agree on: what render emits and what the
// preflight reads back, what the CLIs and the sidecar call each other, what
// the declaration allows and what the migration Job accepts. Each lives
// here once, so that two packages cannot drift apart.
//
// It is a leaf: it imports nothing of codeloc and nothing outside the
// standard library, so that every package, the lean CLI included, can use it
// at no cost.
package names

import (
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"unicode/utf8"
)

// Plugin identity: Argo CD names a plugin <name>-<version> and connects to
// the socket <name>-<version>.sock.
const (
	PluginName    = "codeloc"
	PluginVersion = "v1"
	// PluginFullName is how Applications name the plugin.
	PluginFullName = PluginName + "-" + PluginVersion
)

// Binaries of the image.
const (
	// BinaryCLI is the lean per-render CLI (plugin.yaml's generate command).
	BinaryCLI = "codeloc"
	// BinaryJobs runs the PreSync Jobs (preflight, migrate) and
	// `validate --live`; it links client-go and pgx.
	BinaryJobs = "codeloc-jobs"
	// BinarySidecar is the long-lived CMP server.
	BinarySidecar = "codeloc-sidecar"
)

// EnvContract names the cluster contract file or folder when no --contract
// flag is given.
const EnvContract = "CODELOC_CONTRACT"

// EnvDagsterWebserverURL is the Dagster webserver `codeloc-jobs reload`
// calls when no --webserver-url flag is given.
const EnvDagsterWebserverURL = "CODELOC_DAGSTER_WEBSERVER_URL"

// Labels codeloc sets, and reads back at sync time.
const (
	// LabelCodeLocation marks every object (and pod template) of a
	// code-location; the preflight leaves its own pods out of the used
	// capacity by it.
	LabelCodeLocation = "codeloc.dev/code-location"
	// LabelRevision carries the declared revision.
	LabelRevision = "codeloc.dev/revision"
	// LabelJob tells the hooks' pods apart: "preflight", "migrate" (the
	// migration Job's pods) and "reload" (the PostSync reload pod).
	LabelJob = "codeloc.dev/job"
	// LabelManagedBy is the well-known managed-by label.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// ManagedByValue is LabelManagedBy's value.
	ManagedByValue = "codeloc"
)

// RecordName is the record ConfigMap a code-location publishes in its last
// sync wave and that its dependents' preflights read.
func RecordName(codeLocation string) string { return "codeloc-" + codeLocation }

// Record ConfigMap keys.
const (
	RecordKeyCodeLocation    = "codeLocation"
	RecordKeyReady           = "ready"
	RecordKeyRevision        = "revision"
	RecordKeyContractVersion = "contractVersion"
	RecordKeyDependsOn       = "dependsOn"
	// The gRPC location of the code server, when there is one: where the
	// platform's Dagster loads the code-location (a workspace grpc_server).
	RecordKeyGRPCHost     = "grpcHost"
	RecordKeyGRPCPort     = "grpcPort"
	RecordKeyLocationName = "locationName"
)

// SecretKeysFile is the preflight input, next to the declaration, that
// lists the keys the pods read from each declared secret: a JSON object of
// sorted key lists ({"secret": ["key", ...]}), absent when they read none.
const SecretKeysFile = "consumed-secret-keys.json"

// PreflightName names the preflight pod, its ServiceAccount, Role and
// RoleBinding.
func PreflightName(codeLocation string) string { return codeLocation + "-preflight" }

// MigrateName names the migration Job.
func MigrateName(codeLocation string) string { return codeLocation + "-migrate" }

// ReloadName names the PostSync pod that reloads the code-location in the
// platform's Dagster webserver (`codeloc-jobs reload`).
func ReloadName(codeLocation string) string { return codeLocation + "-reload" }

// AdmissionName names the ConfigMap a code-location's render emits as the
// params of its ValidatingAdmissionPolicyBindings: what its pods may use.
func AdmissionName(codeLocation string) string { return codeLocation + "-admission" }

// DataClaimName is the block PVC of a code-location (resources.disk).
func DataClaimName(codeLocation string) string { return codeLocation + "-data" }

// MigrationsName names the immutable ConfigMap of a code-location's
// migrations; hash is the first MigrationsHashLen hex digits of the sha256
// of their names and contents.
func MigrationsName(codeLocation, hash string) string {
	return codeLocation + migrationsInfix + hash
}

// MigrationsHashLen is how many hex digits of the hash MigrationsName takes.
const MigrationsHashLen = 10

const migrationsInfix = "-migrations-"

// Argo CD annotations: codeloc sets them on what it emits, and refuses
// them on what a code-location ships (the cluster orchestrates).
const (
	AnnoHook        = "argocd.argoproj.io/hook"
	AnnoHookDelete  = "argocd.argoproj.io/hook-delete-policy"
	AnnoSyncWave    = "argocd.argoproj.io/sync-wave"
	AnnoSyncOptions = "argocd.argoproj.io/sync-options"
)

// Argo CD's resource tracking: how an object names the Application that
// manages it. Annotation tracking (Argo CD 3's default) sets AnnoTrackingID
// to TrackingID; label tracking (2.x's default) sets LabelAppInstance to the
// Application's name. The preflight trusts a record only so tracked by its
// code-location's own Application.
const (
	AnnoTrackingID   = "argocd.argoproj.io/tracking-id"
	LabelAppInstance = "app.kubernetes.io/instance"
)

// TrackingID is the value Argo CD's annotation tracking gives an object of
// group and kind ("" for the core API) in namespace, managed by the
// Application app of Argo CD's own namespace:
// <app>:<group>/<kind>:<namespace>/<name> (Argo CD's
// util/argo/resource_tracking.go; an Application in another namespace is
// <its namespace>_<app>, which codeloc's Applications never are).
func TrackingID(app, group, kind, namespace, name string) string {
	return app + ":" + group + "/" + kind + ":" + namespace + "/" + name
}

// BucketEnvPrefix is the env prefix of a declared bucket's variables:
// atlas-datalake gives ATLAS_DATALAKE_ (ATLAS_DATALAKE_BUCKET_HOST, ...).
func BucketEnvPrefix(bucket string) string {
	return strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(bucket)) + "_"
}

// Limits.
const (
	// MaxYAMLBytes bounds a declaration or contract document.
	MaxYAMLBytes = 256 << 10
	// MaxMigrationBytes bounds one migration file, and MaxMigrationsTotal
	// all of them: they travel in one ConfigMap (1 MiB, metadata included).
	MaxMigrationBytes  = 900 << 10
	MaxMigrationsTotal = 900 << 10
	// MaxTerminationMessage is what Kubernetes keeps of a container's
	// termination message.
	MaxTerminationMessage = 4096
)

// IsRevision reports whether s is a git revision as the declaration gives
// it: 7 to 40 lowercase hex digits. (A loop, not a regexp: a bounded
// repetition compiles into a large program at every process start.)
func IsRevision(s string) bool {
	if len(s) < 7 || len(s) > 40 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// RevisionRule says IsRevision's rule in words, for messages.
const RevisionRule = "7 to 40 lowercase hex digits"

var migrationName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{3,}-[a-z0-9][a-z0-9._-]*\.sql$`) })

// IsMigrationName reports whether name is a plain NNN-name.sql migration
// file name (no path), the rule the declaration and the migration Job share.
func IsMigrationName(name string) bool { return migrationName().MatchString(name) }

// TruncateUTF8 cuts s to at most max bytes without splitting a character.
func TruncateUTF8(s string, max int) string {
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}

// version is set at link time:
// -ldflags "-X github.com/codeloc/codeloc/internal/names.version=v0.1.0".
var version = "dev"

// Version is codeloc's version: the link-time stamp, else the module
// version of a `go install`, else "dev".
func Version() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}
