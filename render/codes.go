package render

import (
	"maps"
	"sync"

	"github.com/codeloc/codeloc/render/build"
	"github.com/codeloc/codeloc/render/policy/rules"
)

// Problem codes of the request, before the build.
const (
	CodeNamespaceMismatch = "namespace-mismatch"
	CodeAPIMissing        = "api-not-served"
	CodeKustomizeRoot     = "kustomize-root"
	CodeRenderBudget      = "render-budget"
	CodeNoCodeServer      = "dagster-no-code-server"
)

// RequestCodeDocs describes each code of the render's own in a sentence:
// the request's, before the build, and the render's budget and warning.
// The map is shared: read it only.
func RequestCodeDocs() map[string]string { return requestCodeDocs() }

var requestCodeDocs = sync.OnceValue(func() map[string]string {
	return map[string]string{
		CodeNamespaceMismatch: "The Application's destination namespace differs from the contract's namespace.",
		CodeAPIMissing:        "The destination cluster does not serve an API the output needs (KUBE_API_VERSIONS).",
		CodeKustomizeRoot:     "The kustomize root parameter leaves the code-location folder.",
		CodeNoCodeServer:      "Warning: no container runs a Dagster code server, so the platform's Dagster will not load the code-location and the workspace leaves it out.",
		CodeRenderBudget:      "The render took longer than its budget (--max-render-seconds), well before Argo CD's own timeouts.",
	}
})

// CodeDocs describes each code of the render's stages in a sentence: its
// own, the build's and the policy's (see validate for the declaration's
// and the contract's). The map is shared: read it only.
func CodeDocs() map[string]string { return codeDocs() }

// codeDocs builds CodeDocs' map at first use, not in the init every
// process runs.
var codeDocs = sync.OnceValue(func() map[string]string {
	docs := maps.Clone(RequestCodeDocs())
	maps.Copy(docs, build.CodeDocs())
	maps.Copy(docs, rules.CodeDocs())
	return docs
})
