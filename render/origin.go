package render

import (
	"path/filepath"
	"slices"

	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
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

// originFS is the filesystem kustomize builds from: the disk, except that
// the root kustomization asks kustomize to record each object's origin
// (buildMetadata: [originAnnotations]), which the build strips again.
type originFS struct {
	filesys.FileSystem
	rootFile string // the root kustomization, absolute; "" = no origins
	// deprecated kustomizations are served fixed (see noteDeprecated).
	deprecated map[string]bool
	// read holds the files the scan read already, by absolute path.
	read map[string][]byte
}

// ReadFile reads path; the root kustomization comes back with its
// buildMetadata extended.
func (f originFS) ReadFile(path string) ([]byte, error) {
	abs, _ := filepath.Abs(path)
	data, ok := f.read[abs]
	if !ok {
		var err error
		if data, err = f.FileSystem.ReadFile(path); err != nil {
			return data, err
		}
	}
	if f.deprecated[abs] {
		if fixed, ok := fixKustomization(data); ok {
			data = fixed
		}
	}
	if abs != f.rootFile {
		return data, nil
	}
	if withOrigins, ok := addOriginAnnotations(data); ok {
		return withOrigins, nil
	}
	return data, nil
}

// addOriginAnnotations adds originAnnotations to a kustomization's
// buildMetadata; ok is false when the document is not a mapping (kustomize
// then reports it in its own words).
func addOriginAnnotations(data []byte) ([]byte, bool) {
	node, err := yaml.Parse(string(data))
	if err != nil || node.YNode().Kind != yaml.MappingNode {
		return nil, false
	}
	list, err := node.Pipe(yaml.LookupCreate(yaml.SequenceNode, "buildMetadata"))
	if err != nil || list.YNode().Kind != yaml.SequenceNode {
		return nil, false
	}
	if !slices.ContainsFunc(list.YNode().Content, func(n *yaml.Node) bool { return n.Value == types.OriginAnnotations }) {
		list.YNode().Content = append(list.YNode().Content, yaml.NewStringRNode(types.OriginAnnotations).YNode())
	}
	out, err := node.String()
	if err != nil {
		return nil, false
	}
	return []byte(out), true
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
