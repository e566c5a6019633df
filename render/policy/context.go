package policy

import (
	"github.com/codeloc/codeloc/dagster/workspace"
	"github.com/codeloc/codeloc/internal/problem"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/render/apijson"
	"github.com/codeloc/codeloc/render/build"
	"github.com/codeloc/codeloc/render/node"
	"github.com/codeloc/codeloc/validate"
)

// Context is one code-location being rendered: its declaration, the
// contract, where its objects came from, and the facts about its objects
// that the rules share and the emitted objects need.
type Context struct {
	d   *validate.Declaration
	c   *validate.Contract
	loc *build.Locator
	facts
}

// facts are what the rules share, gathered from the objects before any
// rule runs (gatherFacts): the rules only read them, so that their order
// changes nothing.
type facts struct {
	// pods are the pod specs, decoded once per render (podSpecOf).
	pods map[*yaml.Node]decodedPod
	// secretKeys are the keys the pods, and the run pods of their
	// container contexts, read from each declared secret: the preflight
	// checks they exist.
	secretKeys map[string][]string
	// grpc is where Dagster reaches the code server, nil when it runs
	// none or cannot be reached (the Dagster rules say why).
	grpc *workspace.Location
	// contextNames are the names a Dagster container context writes in
	// its JSON, which kustomize never rewrites.
	contextNames map[string]bool
	// shared are what a package's rules compute once per render (Shared),
	// by keys of that package's own types.
	shared map[any]any
}

// Shared is compute's result for key, computed the first time the render
// asks for key and kept until the next render of in: what several rules
// (and a Gatherer) of a package read alike, such as the decoded Dagster
// container contexts. compute must read only the render's objects and the
// facts, so that the rules' order changes nothing, and its callers must not
// modify what it returns; key is a value of an unexported type of the
// caller's package, so that two packages never share one.
func Shared[T any](in *Context, key any, compute func() T) T {
	if v, ok := in.shared[key]; ok {
		return v.(T)
	}
	v := compute()
	if in.shared == nil {
		in.shared = map[any]any{}
	}
	in.shared[key] = v
	return v
}

// Facts are what a Gatherer learns of the objects for the render.
type Facts struct {
	// SecretKeys are keys that pods other than the objects' pod specs
	// read (the run pods a Dagster container context describes), declared
	// or not: the facts keep those of declared secrets (SecretKeys).
	SecretKeys []SecretKey
	// GRPC is where Dagster reaches the code server (GRPCLocation), nil
	// when it runs none or cannot be reached.
	GRPC *workspace.Location
	// ContextNames are the object names written inside Dagster container
	// contexts (JSON kustomize does not rewrite): the naming hints say so.
	ContextNames []string
}

// Gatherer learns facts of the objects before any rule runs (Check): the
// facts are never a rule's side effect, so that the rules' order changes
// nothing. Gather may read the decoded pods (Pods); it reports nothing:
// problems belong to rules.
type Gatherer interface {
	Gather(in *Context, objs []*yaml.RNode) Facts
}

// gatherFacts learns the facts of objs, in that order: the pods first,
// which the others read, then the gatherers' facts, then the secret keys
// the pods and the gatherers' pods read.
func (in *Context) gatherFacts(gatherers []Gatherer, objs []*yaml.RNode) {
	in.facts = facts{pods: decodePods(objs), contextNames: map[string]bool{}}
	var keys []SecretKey
	for _, g := range gatherers {
		f := g.Gather(in, objs)
		keys = append(keys, f.SecretKeys...)
		for _, n := range f.ContextNames {
			in.contextNames[n] = true
		}
		if f.GRPC != nil {
			in.grpc = f.GRPC
		}
	}
	in.secretKeys = in.readSecretKeys(objs, keys)
}

// NewContext returns the context of a render of d against c whose objects
// loc places in their files.
func NewContext(d *validate.Declaration, c *validate.Contract, loc *build.Locator) *Context {
	return &Context{d: d, c: c, loc: loc}
}

// SecretKeys are the keys the pods (and the run pods of their container
// contexts) read from each declared secret, sorted; nil when none (known
// once Check ran).
func (in *Context) SecretKeys() map[string][]string { return in.secretKeys }

// GRPCLocation is where the platform's Dagster reaches the code-location's
// code server, nil when it runs none (known once Check ran without
// problems).
func (in *Context) GRPCLocation() *workspace.Location { return in.grpc }

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

// podSpecOf is a pod spec node decoded as the API server would (field
// names case-sensitive): the one gatherFacts decoded, else decoded now. A
// field of the wrong type is left out and the rest kept, with err saying
// so (wellFormedRule reports it); ok is false when the node does not
// convert at all.
func (in *Context) podSpecOf(n *yaml.RNode) (spec *corev1.PodSpec, ok bool, err error) {
	d, seen := in.pods[n.YNode()]
	if !seen {
		d = decodePod(n)
	}
	return d.spec, d.spec != nil, d.err
}

// decodePods decodes the pod spec of every workload of objs.
func decodePods(objs []*yaml.RNode) map[*yaml.Node]decodedPod {
	pods := map[*yaml.Node]decodedPod{}
	for _, o := range objs {
		if n, _ := podSpec(o); n != nil {
			pods[n.YNode()] = decodePod(n)
		}
	}
	return pods
}

// decodePod decodes one pod spec node.
func decodePod(n *yaml.RNode) decodedPod {
	var d decodedPod
	if data, err := node.JSON(n.YNode()); err == nil {
		d.spec = &corev1.PodSpec{}
		d.err = apijson.Decode(data, d.spec)
	}
	return d
}
