package plugin

import "sync"

// Problem codes of the plugin contract (see validate and render for the
// others). Stable: never renamed or reused.
const (
	CodeUnknownParameter      = "plugin-unknown-parameter"
	CodeBadParameter          = "plugin-bad-parameter"
	CodeUnknownEnv            = "plugin-unknown-env"
	CodeContractNotConfigured = "contract-not-configured"
	CodeContractNotFound      = "contract-not-found"
	CodeContractAmbiguous     = "contract-ambiguous"
)

// CodeDocs describes each code in a sentence. The map is shared: read it only.
func CodeDocs() map[string]string { return codeDocs() }

// codeDocs builds CodeDocs' map at first use, not in the init every
// process runs.
var codeDocs = sync.OnceValue(func() map[string]string {
	return map[string]string{
		CodeUnknownParameter:      "The Application sets a plugin parameter codeloc does not know.",
		CodeBadParameter:          "A plugin parameter is malformed (set twice, a map or array for a string...).",
		CodeUnknownEnv:            "The Application sets plugin env entries; codeloc reads none (use the parameters).",
		CodeContractNotConfigured: "No cluster contract is configured (--contract or CODELOC_CONTRACT); the plugin never falls back to the example.",
		CodeContractNotFound:      "The configured contract file or folder, or the contract named by the parameter, is not mounted.",
		CodeContractAmbiguous:     "Several contracts are mounted and the Application does not name one with the contract parameter.",
	}
})
