// Package policy holds the rules that make the declaration the whole truth
// over the objects kustomize built: what the objects may be (scope, kinds,
// well-formed), what they may be named (ownership, identities), what their
// pods may consume, request and run as (consumption, requests, images, pod
// security) and what their RBAC may grant (KubernetesRules). Each rule
// family is one small type behind Rule, in a file of its own, declaring
// the codes it emits and their sentences beside its Check (the codes'
// docs derive from the rule list). Check first gathers the facts the rules
// share (the decoded pods, the secret keys they read, and what Gatherers
// learn: the Dagster code server's location), then runs every rule, which
// only reads them, so that one render says every problem in any order.
// The Dagster rules live in render/policy/dagster, which judges the run
// pods it finds through this package's API (runpod.go);
// render/policy/rules assembles both lists. Apply then edits the objects
// as the cluster deploys them (namespace, labels, bucket references).
package policy

import (
	"slices"

	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
)

// Rule is one family of checks over the built objects.
type Rule interface {
	// Codes are the codes Check may emit, each with its sentence (Reuse
	// for those another rule documents).
	Codes() []Code
	// Check returns every problem of objs the rule finds.
	Check(in *Context, objs []*yaml.RNode) problem.Problems
}

// KubernetesRules hold the objects to Kubernetes' and the contract's rules.
// A new rule is a file of its own and one line here.
var KubernetesRules = []Rule{
	scopeRule{},
	wellFormedRule{},
	identityRule{},
	kindRule{},
	ownershipRule{},
	reservedNameRule{},
	consumptionRule{},
	rbacRule{},
	scopingRule{},
	podSecurityRule{},
	imageRule{},
	requestRule{},
	reachRule{},
	annotationRule{},
	numbersRule{},
	quantityRule{},
	placementRule{},
	ingressHostRule{},
}

// Check gathers the facts the rules share (the pods, then what each of
// gatherers learns), then runs every rule over the objects as kustomize
// built them. The rules' order changes nothing: they only read the facts.
func Check(in *Context, rules []Rule, gatherers []Gatherer, objs []*yaml.RNode) problem.Problems {
	in.gatherFacts(gatherers, objs)
	var ps problem.Problems
	for _, r := range rules {
		ps = slices.Concat(ps, r.Check(in, objs))
	}
	return ps
}

// handledByPolicy reports whether scopeRule refuses o by its kind or scope
// already (a kind the cluster provides, or a cluster-scoped kind): the
// other rules leave such objects alone, so that one object gets one
// problem.
func handledByPolicy(o *yaml.RNode) bool {
	if _, forbidden := forbiddenKinds[o.GetKind()]; forbidden {
		return true
	}
	return openapi.IsCertainlyClusterScoped(yaml.TypeMeta{APIVersion: o.GetApiVersion(), Kind: o.GetKind()})
}
