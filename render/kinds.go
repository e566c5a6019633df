package render

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/validate"
)

// checkKinds: TODO(issue 9), being written.
func (in *instance) checkKinds(objs []*yaml.RNode) validate.Problems { return nil }
