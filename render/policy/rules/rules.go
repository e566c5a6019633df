// Package rules assembles the policy the render runs: render/policy's
// Kubernetes rules and render/policy/dagster's Dagster rules, with the
// gatherers of the facts they share, above both packages (the Dagster
// rules judge their run pods through render/policy's API).
package rules

import (
	"maps"
	"slices"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/policy"
	"github.com/codeloc/codeloc/render/policy/dagster"
)

// Rules are the rules Check runs. Their order changes nothing: they share
// the facts gathered first and only read them.
var Rules = slices.Concat(policy.KubernetesRules, dagster.Rules)

// Gatherers learn the facts beyond the pods before any rule runs.
var Gatherers = dagster.Gatherers

// CodeDocs describes each code of Rules (and of Conflicts) in a sentence,
// derived from the rule lists. The map is shared: read it only.
func CodeDocs() map[string]string { return codeDocs() }

// codeDocs builds CodeDocs' map at first use, not in the init every
// process runs.
var codeDocs = sync.OnceValue(func() map[string]string {
	docs := maps.Clone(policy.KubernetesCodeDocs())
	maps.Copy(docs, dagster.CodeDocs())
	return docs
})

// Check gathers the facts the rules share, then runs every rule over the
// objects as kustomize built them.
func Check(in *policy.Context, objs []*yaml.RNode) problem.Problems {
	return policy.Check(in, Rules, Gatherers, objs)
}

// Locate finds the code server alone, for `codeloc application`
// (dagster.Locate): its errors; the location is in.GRPCLocation().
func Locate(in *policy.Context, objs []*yaml.RNode) problem.Problems {
	return dagster.Locate(in, objs)
}
