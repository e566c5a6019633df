package render

import (
	"fmt"

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
	patches []patch
	// secretKeys are the keys the pods read from each declared secret
	// (checkConsumption): the preflight checks they exist.
	secretKeys map[string][]string
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
		p.Message += fmt.Sprintf(" (made by the %s of %s)", org.generator, baseName(org.configuredIn))
		if kust := in.sources.documents(org.configuredIn); len(kust) == 1 {
			p.Line, p.Column = generatorPos(kust[0], org.generator, o.GetName())
		}
	}
}
