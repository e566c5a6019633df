package check

import "sync"

// Problem codes of `codeloc check`. Stable: never renamed or reused.
const (
	// CodeContractInAtlas: the contract file given lies inside the atlas
	// repo being checked.
	CodeContractInAtlas = "contract-in-atlas"
	// CodeContractConfigMap: a ConfigMap given as the contract holds no
	// contract key codeloc can pick.
	CodeContractConfigMap = "contract-configmap-key"
	// CodeSymlinkEscapes: a symbolic link of the revision points outside
	// the repo.
	CodeSymlinkEscapes = "symlink-outside-repo"
)

// CodeDocs describes each code in a sentence. The map is shared: read it only.
func CodeDocs() map[string]string { return codeDocs() }

// codeDocs builds CodeDocs' map at first use, not in the init every
// process runs.
var codeDocs = sync.OnceValue(func() map[string]string {
	return map[string]string{
		CodeContractInAtlas:   "The contract given to `codeloc check` is a file inside the atlas repo being checked: atlas keeps no contract copy (ADR 0094: a copied contract drifts silently); read the one the cluster serves (the cluster/apps checkout or the live ConfigMap).",
		CodeContractConfigMap: "The ConfigMap given as the contract has no `contract.yaml` key and not exactly one `*.yaml` key, or its data is not a map of strings: name the key with --contract-key.",
		CodeSymlinkEscapes:    "A symbolic link of the checked revision points outside the repo (an absolute target, or one climbing above the repo root): the check never follows it, and the render of that revision is refused.",
	}
})
