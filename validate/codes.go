package validate

import (
	"slices"
	"sync"

	"github.com/codeloc/codeloc/validate/sqllint"
)

// Stable problem codes. They are part of codeloc's interface: tools and
// people grep for them, so a code is never renamed or reused.
const (
	// Files and YAML.
	CodeFileMissing    = "file-missing"
	CodeFileUnreadable = "file-unreadable"
	CodeFileNotRegular = "file-not-regular"
	CodeFileTooLarge   = "file-too-large"
	CodeYAMLSyntax     = "yaml-syntax"
	CodeYAMLEmpty      = "yaml-empty"
	CodeYAMLMultiDoc   = "yaml-multiple-documents"
	CodeYAMLNotMapping = "yaml-not-mapping"

	// Declaration schema and form.
	CodeUnknownField       = "unknown-field"
	CodeDuplicateKey       = "duplicate-key"
	CodeRequired           = "required"
	CodeWrongType          = "wrong-type"
	CodeBadQuantity        = "bad-quantity"
	CodeBadName            = "bad-name"
	CodeBadRevision        = "bad-revision"
	CodeBadContractVersion = "bad-contract-version"
	CodeDuplicate          = "duplicate"
	CodeSelfDependency     = "self-dependency"
	CodeNotReady           = "not-ready"
	CodeBadMigrationName   = "bad-migration-name"
	CodeMigrationMissing   = "migration-missing"
	CodeMigrationEmpty     = "migration-empty"
	CodeMigrationTooLarge  = "migration-too-large"

	// Declaration against the contract.
	CodeContractUnreadable    = "contract-unreadable"
	CodeContractInvalid       = "contract-invalid"
	CodeContractVersion       = "contract-version-unsupported"
	CodeUnknownDatabase       = "unknown-database"
	CodeUnknownSecret         = "unknown-secret"
	CodeUnknownConfigMap      = "unknown-configmap"
	CodeUnknownServiceAccount = "unknown-service-account"
	CodeDatabaseSecret        = "database-secret-undeclared"
	CodeMigrationsNeedDB      = "migrations-need-database"
	CodeUnknownBucket         = "unknown-bucket"
	CodeUnknownStorageClass   = "unknown-storage-class"
	CodeBucketClassMismatch   = "bucket-class-mismatch"
	CodeBucketTooLarge        = "bucket-too-large"
	CodeOverBudget            = "over-budget"
	CodeNoBlockStorage        = "no-block-storage"

	// The codeLocation's name against codeloc's and the platform's.
	CodeCodeLocationReserved = "code-location-reserved"
	CodeCodeLocationPlatform = "code-location-owns-platform"
	// Migrations as PostgreSQL and the migrations ConfigMap read them.
	CodeMigrationNotText = "migration-not-text"
)

// CodeDocs describes every code in a sentence, for `codeloc validate -o
// json` consumers and the README's table. The map is shared: read it only.
func CodeDocs() map[string]string { return codeDocs() }

// codeDocs builds CodeDocs' map at first use, not in the init every
// process runs.
var codeDocs = sync.OnceValue(func() map[string]string {
	docs := map[string]string{
		CodeFileMissing:           "A file codeloc needs is not in the repo.",
		CodeFileUnreadable:        "A file exists but cannot be read.",
		CodeFileNotRegular:        "A file is a symbolic link, a folder or a device; only regular files are read.",
		CodeFileTooLarge:          "A YAML document is larger than 256 KiB.",
		CodeYAMLSyntax:            "The YAML does not parse.",
		CodeYAMLEmpty:             "The document is empty.",
		CodeYAMLMultiDoc:          "The file holds more than one YAML document.",
		CodeYAMLNotMapping:        "The document's top level is not a mapping.",
		CodeUnknownField:          "A field is not part of the schema (a typo, or a field of another version).",
		CodeDuplicateKey:          "A mapping sets the same key twice.",
		CodeRequired:              "A required field is missing.",
		CodeWrongType:             "A value has the wrong type (a list for a string, a number for a name...).",
		CodeBadQuantity:           "A size or request is not a positive Kubernetes quantity.",
		CodeBadName:               "A name is not a DNS-1123 label (or subdomain, for secrets and classes).",
		CodeBadRevision:           "revision is not 7-40 lowercase hex digits.",
		CodeBadContractVersion:    "contractVersion is not a positive integer.",
		CodeDuplicate:             "A list names the same thing twice.",
		CodeSelfDependency:        "A code-location lists itself in dependsOn.codeLocations.",
		CodeNotReady:              "The declaration says ready: false: atlas does not attest this revision, so it is not deployed.",
		CodeBadMigrationName:      "A migration is not a plain NNN-name.sql file name.",
		CodeMigrationMissing:      "A declared migration is not under migrations/.",
		CodeMigrationEmpty:        "A declared migration file is empty, or holds no SQL statement (only comments, white space and the no-transaction line).",
		CodeMigrationTooLarge:     "Migrations exceed the size one file or the ConfigMap can carry.",
		CodeContractUnreadable:    "The cluster contract cannot be read.",
		CodeContractInvalid:       "The cluster contract itself is inconsistent.",
		CodeContractVersion:       "contractVersion is not accepted by this cluster's contract.",
		CodeUnknownDatabase:       "A declared database is not provided by the contract.",
		CodeUnknownSecret:         "A declared secret is not one the contract lets code-locations use.",
		CodeUnknownConfigMap:      "A declared ConfigMap is not one the contract offers (dependsOn.configMaps names the platform's, like the Dagster instance).",
		CodeUnknownServiceAccount: "A declared ServiceAccount is not one the contract offers (dependsOn.serviceAccounts names the platform's, like Dagster's run account).",
		CodeDatabaseSecret:        "A declared database's credentials secret is not declared in dependsOn.secrets.",
		CodeMigrationsNeedDB:      "Migrations are declared without a database to apply them to.",
		CodeUnknownBucket:         "A declared bucket is not provided by the contract.",
		CodeUnknownStorageClass:   "A declared bucket's storage class is not an object-storage class of the contract.",
		CodeBucketClassMismatch:   "A declared bucket's storage class differs from the provided bucket's.",
		CodeBucketTooLarge:        "A declared bucket size exceeds what the platform provisioned.",
		CodeOverBudget:            "Declared cpu, memory, disk or bucket total exceeds the contract's budget.",
		CodeNoBlockStorage:        "disk is declared but the contract has no block storage class.",

		CodeCodeLocationReserved: "codeLocation is a name codeloc keeps: codeloc, codeloc-<name> (the records), a name ending with -preflight, -migrate, -migrations-<hash>, -reload, -data or -admission (what codeloc emits for every code-location), or app-of-apps (the root Application).",
		CodeCodeLocationPlatform: "codeLocation equals, or followed by '-' starts, a name of the platform (a contract secret, ConfigMap, ServiceAccount, bucket, database credentials secret, the Dagster workspace ConfigMap or webserver Service, codeloc's install): the code-location would own it.",
		CodeMigrationNotText:     "A declared migration is not text: it has a NUL byte or bytes that are not UTF-8 (PostgreSQL and the migrations ConfigMap take text only).",
	}
	// The migrations' lint names its codes once, in package sqllint.
	for _, r := range slices.Concat(sqllint.Rules, sqllint.Others) {
		doc := r.Describe
		if slices.Contains(sqllint.Rules, r) {
			doc += " Default: " + string(r.Default) + " (policy.migrations)."
		}
		docs[r.Code] = doc
	}
	return docs
})
