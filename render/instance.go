package render

import (
	"fmt"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	sigsjson "sigs.k8s.io/json"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/validate"
)

// instance is one code-location being rendered.
type instance struct {
	d *validate.Declaration
	c *validate.Contract
	// file is the root kustomization: where problems of objects without a
	// known origin are reported.
	file string
	// origins says where each built object came from; sources reads those
	// files to place problems at a line.
	origins map[*yaml.RNode]origin
	sources *sources
	// badMetadata holds the objects (Kind/name as written) whose metadata
	// the scan of their files refused already.
	badMetadata map[string]bool
	// patches are the kustomizations' patches, to say which changed an
	// object.
	patches []*patch
	// secretKeys are the keys the pods read from each declared secret
	// (checkConsumption): the preflight checks they exist.
	secretKeys map[string][]string
	// pods caches the decoded pod specs (podSpecOf).
	pods map[*yaml.Node]decodedPod
}

func newInstance(d *validate.Declaration, c *validate.Contract, root string, origins map[*yaml.RNode]origin) *instance {
	return &instance{d: d, c: c, file: kustomizationFile(root), origins: origins, sources: newSources()}
}

func objectRef(o *yaml.RNode) string { return o.GetKind() + "/" + o.GetName() }

// problem is a problem of object o, at field (a dotted path inside the
// object, "" for the object itself): placed in the object's own file, at
// the field's line where the file shows it.
func (in *instance) problem(o *yaml.RNode, code, field, msg, hint string) validate.Problem {
	path := objectRef(o)
	if field != "" {
		path += "." + field
	}
	p := validate.Problem{Code: code, Path: path, File: in.file, Message: msg, Hint: hint}
	in.place(&p, o, field)
	return p
}

// place sets p's file, line and column from o's origin.
func (in *instance) place(p *validate.Problem, o *yaml.RNode, field string) {
	org, ok := in.origins[o]
	switch {
	case !ok:
		return
	case org.file != "":
		p.File = org.file
		if doc := findDocument(in.sources.documents(org.file), o); doc != nil {
			p.Line, p.Column = fieldPos(doc, field)
		}
		if by := in.patchedBy(o); by != "" {
			p.Message += " (the object is patched by " + by + ")"
		}
	case org.configuredIn != "":
		p.File = org.configuredIn
		p.Message += fmt.Sprintf(" (made by the %s of %s)", org.generator, filepath.Base(org.configuredIn))
		if kust := in.sources.documents(org.configuredIn); len(kust) == 1 {
			p.Line, p.Column = generatorPos(kust[0], org.generator, o.GetName())
		}
	}
}

// decodedPod is a pod spec decoded once per render for the rules that
// read it as the API type.
type decodedPod struct {
	spec *corev1.PodSpec
	err  error
}

// podSpecOf decodes a pod spec node as the API server would (field names
// case-sensitive), once per render. A field of the wrong type is left out
// and the rest kept, with err saying so (checkWellFormed reports it); ok is
// false when the node does not convert at all.
func (in *instance) podSpecOf(n *yaml.RNode) (spec *corev1.PodSpec, ok bool, err error) {
	if d, seen := in.pods[n.YNode()]; seen {
		return d.spec, d.spec != nil, d.err
	}
	var d decodedPod
	if data, jerr := nodeJSON(n.YNode()); jerr == nil {
		d.spec = &corev1.PodSpec{}
		d.err = sigsjson.UnmarshalCaseSensitivePreserveInts(data, d.spec)
	}
	if in.pods == nil {
		in.pods = map[*yaml.Node]decodedPod{}
	}
	in.pods[n.YNode()] = d
	return d.spec, d.spec != nil, d.err
}
