package build

import "sync"

// Problem codes of the kustomize build.
const (
	CodeKustomizeRemote  = "kustomize-remote"
	CodeKustomizeHelm    = "kustomize-helm"
	CodeKustomizeVars    = "kustomize-vars"
	CodeKustomizeOpenAPI = "kustomize-openapi"
	CodeKustomizeBuild   = "kustomize-build"
	CodeKustomizeLimit   = "kustomize-limit"
	CodeKustomizeEmpty   = "kustomize-empty"
	CodeKustomizeNotes   = "kustomize-warning"
	CodeMetadata         = "object-metadata"
	CodeLinkOutside      = "link-outside"
	CodeYAMLLimit        = "yaml-limit"
	CodeObjectLimit      = "object-limit"
)

// CodeDocs describes each code in a sentence. The map is shared: read it only.
func CodeDocs() map[string]string { return codeDocs() }

// codeDocs builds CodeDocs' map at first use, not in the init every
// process runs.
var codeDocs = sync.OnceValue(func() map[string]string {
	return map[string]string{
		CodeKustomizeRemote:  "A kustomization refers to a remote base, resource or file; nothing is fetched.",
		CodeKustomizeHelm:    "A kustomization inflates Helm charts; render charts into the repo instead.",
		CodeKustomizeOpenAPI: "A kustomization sets openapi, which changes kustomize's schema for the whole process, other code-locations' builds included.",
		CodeKustomizeVars:    "A kustomization uses vars, deprecated by kustomize; replacements do the same without writing to the process's output.",
		CodeKustomizeLimit:   "The kustomization tree nests deeper, or holds more kustomizations, than a build may read.",
		CodeKustomizeBuild:   "kustomize could not build the root (missing file, bad patch, path outside the root...).",
		CodeKustomizeEmpty:   "The kustomize root yields no object: there is nothing to deploy.",
		CodeKustomizeNotes:   "A warning of kustomize's (a deprecated field); it never fails a render.",
		CodeMetadata:         "An object's metadata in its file is malformed: labels or annotations not a map of strings, no name, an invalid label key or value.",
		CodeLinkOutside:      "A kustomization, base or resource is reached through a symbolic link that leads outside the repo.",
		CodeObjectLimit:      "The code-location renders more objects than the contract's limits.objects allows (a code-location is not a monorepo).",
		CodeYAMLLimit:        "A file kustomize would read is larger, nests deeper, or expands through its YAML aliases to more nodes than a render allows (checked before anything expands it).",
	}
})
