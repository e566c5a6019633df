package render

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/validate"
)

// instance is one code-location being rendered.
type instance struct {
	d *validate.Declaration
	c *validate.Contract
	// file is the root kustomization, where object problems are reported:
	// kustomize does not tell which file an object came from.
	file string
}

func objectRef(o *yaml.RNode) string { return o.GetKind() + "/" + o.GetName() }

func (in *instance) problem(o *yaml.RNode, code, field, msg, hint string) validate.Problem {
	path := objectRef(o)
	if field != "" {
		path += "." + field
	}
	return validate.Problem{Code: code, Path: path, File: in.file, Message: msg, Hint: hint}
}
