package render

import (
	"slices"

	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/validate"
)

// checkRules runs the rules that make the declaration the whole truth over
// the objects as kustomize built them: what the objects may be, what they
// may be named, what their pods may consume, request and run as. Every
// problem of every rule is returned, so that one render says all.
func (in *instance) checkRules(objs []*yaml.RNode) validate.Problems {
	return slices.Concat(
		in.checkWellFormed(objs),
		in.checkIdentities(objs),
		in.checkKinds(objs),
		in.checkOwnership(objs),
		in.checkConsumption(objs),
		in.checkRBAC(objs),
		in.checkPodSecurity(objs),
		in.checkImages(objs),
		in.checkRequests(objs),
	)
}

// handledByPolicy reports whether policy() refuses o by its kind or scope
// already (a kind the cluster provides, or a cluster-scoped kind): the
// rules leave such objects alone, so that one object gets one problem.
func handledByPolicy(o *yaml.RNode) bool {
	if _, forbidden := forbiddenKinds[o.GetKind()]; forbidden {
		return true
	}
	return openapi.IsCertainlyClusterScoped(yaml.TypeMeta{APIVersion: o.GetApiVersion(), Kind: o.GetKind()})
}
