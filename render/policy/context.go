package policy

import (
	"github.com/codeloc/codeloc/dagster/workspace"
	"github.com/codeloc/codeloc/internal/problem"
	corev1 "k8s.io/api/core/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/render/build"
	"github.com/codeloc/codeloc/render/node"
	"github.com/codeloc/codeloc/validate"
)

// Context is one code-location being rendered: its declaration, the
// contract, where its objects came from, and what the rules learned that
// the emitted objects need (the secret keys the pods read).
type Context struct {
	d   *validate.Declaration
	c   *validate.Contract
	loc *build.Locator
	// secretKeys are the keys the pods read from each declared secret
	// (consumptionRule): the preflight checks they exist.
	secretKeys map[string][]string
	// grpc is where Dagster reaches the code server (dagsterRule).
	grpc *workspace.Location
	// pods caches the decoded pod specs (podSpecOf).
	pods map[*yaml.Node]decodedPod
}

// NewContext returns the context of a render of d against c whose objects
// loc places in their files.
func NewContext(d *validate.Declaration, c *validate.Contract, loc *build.Locator) *Context {
	return &Context{d: d, c: c, loc: loc}
}

// SecretKeys are the keys the pods read from each declared secret, sorted;
// nil when none (known once Check ran).
func (in *Context) SecretKeys() map[string][]string { return in.secretKeys }

// problem is a problem of object o at field, placed in o's own file.
func (in *Context) problem(o *yaml.RNode, code, field, msg, hint string) problem.Problem {
	return in.loc.Problem(o, code, field, msg, hint)
}

// decodedPod is a pod spec decoded once per render for the rules that
// read it as the API type.
type decodedPod struct {
	spec *corev1.PodSpec
	err  error
}

// podSpecOf decodes a pod spec node as the API server would (field names
// case-sensitive), once per render. A field of the wrong type is left out
// and the rest kept, with err saying so (wellFormedRule reports it); ok is
// false when the node does not convert at all.
func (in *Context) podSpecOf(n *yaml.RNode) (spec *corev1.PodSpec, ok bool, err error) {
	if d, seen := in.pods[n.YNode()]; seen {
		return d.spec, d.spec != nil, d.err
	}
	var d decodedPod
	if data, jerr := node.JSON(n.YNode()); jerr == nil {
		d.spec = &corev1.PodSpec{}
		d.err = sigsjson.UnmarshalCaseSensitivePreserveInts(data, d.spec)
	}
	if in.pods == nil {
		in.pods = map[*yaml.Node]decodedPod{}
	}
	in.pods[n.YNode()] = d
	return d.spec, d.spec != nil, d.err
}
