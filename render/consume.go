package render

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/validate"
)

// checkConsumption: TODO(issue 9), being written.
func (in *instance) checkConsumption(objs []*yaml.RNode) validate.Problems { return nil }
