package dagster

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/policy"
)

// contextAt is a container context codeloc reads and decodes, and where
// the render sets it: the rules that judge the run pods Dagster builds
// from it (contextmount.go, contextclaim.go, contextsidecar.go) place
// their problems as containerContextRule does.
type contextAt struct {
	o   *yaml.RNode
	src contextSource
	k   *k8sContext
}

// decodedContexts are the container contexts of the render's pods that
// decode; containerContextRule reports those that do not. Four rules and
// the Gatherer read them: they are decoded once per render.
func decodedContexts(in *policy.Context, objs []*yaml.RNode) []contextAt {
	return policy.Shared(in, contextsKey{}, func() []contextAt { return decodeContexts(in, objs) })
}

type contextsKey struct{}

func decodeContexts(in *policy.Context, objs []*yaml.RNode) []contextAt {
	cms := shippedConfigMaps(objs)
	var out []contextAt
	for _, w := range in.Pods(objs) {
		for _, ct := range podContainers(w.Spec, w.Path) {
			found, _ := contextSources(ct.c, ct.path, cms)
			for _, src := range found {
				if k := decodeContextText(src.text); k != nil {
					out = append(out, contextAt{w.Object, src, k})
				}
			}
		}
	}
	return out
}

// problem is a problem of the context at its path inside the context.
func (c contextAt) problem(in *policy.Context, code, path, msg, hint string) problem.Problem {
	return in.Problem(c.o, code, c.src.field, c.src.name+c.src.from+": "+path+": "+msg, hint)
}
