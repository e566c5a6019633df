package build

import (
	"path/filepath"
	"slices"

	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// origin says where kustomize took an object from: the file that holds it,
// or the kustomization and generator that made it. Paths are absolute.
type origin struct {
	file string // the object's own file; "" for a generated object
	// configuredIn and generator name the kustomization file and the
	// generator kind (ConfigMapGenerator...) of a generated object.
	configuredIn, generator string
}

// addOriginAnnotations adds originAnnotations to a kustomization's
// buildMetadata; false when buildMetadata is not a list (kustomize then
// reports it in its own words).
func addOriginAnnotations(doc *yaml.RNode) bool {
	list, err := doc.Pipe(yaml.LookupCreate(yaml.SequenceNode, "buildMetadata"))
	if err != nil || list.YNode().Kind != yaml.SequenceNode {
		return false
	}
	if !slices.ContainsFunc(list.YNode().Content, func(n *yaml.Node) bool { return n.Value == types.OriginAnnotations }) {
		list.YNode().Content = append(list.YNode().Content, yaml.NewStringRNode(types.OriginAnnotations).YNode())
	}
	return true
}

// takeOrigin reads the origin kustomize recorded on r (paths relative to
// the root folder) and removes the annotation, as a build without
// buildMetadata would.
func takeOrigin(r *resource.Resource, root string) (origin, error) {
	o, err := r.GetOrigin()
	if err != nil || o == nil {
		return origin{}, err
	}
	if err := r.SetOrigin(nil); err != nil {
		return origin{}, err
	}
	var out origin
	if o.Path != "" && o.Repo == "" {
		out.file = filepath.Join(root, filepath.FromSlash(o.Path))
	}
	if o.ConfiguredIn != "" {
		out.configuredIn = filepath.Join(root, filepath.FromSlash(o.ConfiguredIn))
		out.generator = o.ConfiguredBy.Kind
	}
	return out, nil
}
