package dagster

import (
	"sync"

	"github.com/codeloc/codeloc/render/policy"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Rules hold the Dagster code server to the declaration: how the
// platform's Dagster reaches it, and the run pods it launches. A new rule
// is a file of its own and one line here.
var Rules = []policy.Rule{
	containerContextRule{},
	contextMountRule{},
	contextClaimRule{},
	contextSidecarRule{},
	dagsterRule{},
}

// CodeDocs describes each code of Rules in a sentence, derived from the
// rule list. The map is shared: read it only.
func CodeDocs() map[string]string { return codeDocs() }

// codeDocs builds CodeDocs' map at first use, not in the init every
// process runs.
var codeDocs = sync.OnceValue(func() map[string]string { return policy.DocsOf(policy.Codes(Rules)) })

// Gatherers learn the Dagster facts before any rule runs: policy.Check
// takes them beside the rules.
var Gatherers = []policy.Gatherer{Facts{}}

// Facts learns where the platform's Dagster reaches the code server (nil
// when it cannot: dagsterRule says why), the secret keys the run pods of
// the container contexts read, and the names the contexts write.
type Facts struct{}

// Gather learns the facts of objs.
func (Facts) Gather(in *policy.Context, objs []*yaml.RNode) policy.Facts {
	var f policy.Facts
	for _, k := range containerContexts(in, objs) {
		c := contextCollector(k)
		f.SecretKeys = append(f.SecretKeys, c.SecretKeys()...)
		f.ContextNames = append(f.ContextNames, c.Names()...)
	}
	f.GRPC, _ = codeServerLocation(in, objs)
	return f
}
