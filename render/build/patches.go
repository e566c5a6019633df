package build

import (
	"fmt"
	"path/filepath"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/fsys"
	"github.com/codeloc/codeloc/render/node"
)

// patch is one patch of a kustomization. What it targets is read only when
// a problem is placed (targets), so that a render without problems reads no
// patch file twice.
type patch struct {
	fs          fsys.FS
	file, field string // kustomization file and "patches[1]"
	dir         string
	item        *yaml.RNode
	resolved    bool
	kind, name  string // the target ("" = any), once resolved
}

// notePatches records the patches of a kustomization: patches[],
// patchesStrategicMerge[] and patchesJson6902[].
func (b *builder) notePatches(dir, file string, doc *yaml.RNode) {
	for _, f := range []string{"patches", "patchesStrategicMerge", "patchesJson6902"} {
		for i, item := range node.Sequence(doc, f) {
			b.patches = append(b.patches, &patch{fs: b.fs, file: file, field: fmt.Sprintf("%s[%d]", f, i), dir: dir, item: item})
		}
	}
}

// target resolves and returns what the patch names.
func (p *patch) target() (kind, name string) {
	if !p.resolved {
		p.kind, p.name = patchTarget(p.fs, p.dir, p.item)
		p.resolved = true
	}
	return p.kind, p.name
}

// patchTarget is what a patch entry names: its target, else the kind and
// name of the patch document (a path, or inline).
func patchTarget(fs fsys.FS, dir string, item *yaml.RNode) (string, string) {
	if t := item.Field("target"); t != nil {
		return yaml.GetValue(t.Value.Field("kind").Value), yaml.GetValue(t.Value.Field("name").Value)
	}
	var doc string
	switch {
	case item.YNode().Kind == yaml.ScalarNode: // patchesStrategicMerge: a path or inline
		doc = item.YNode().Value
		if data, err := fs.ReadFile(filepath.Join(dir, doc)); err == nil {
			doc = string(data)
		}
	case item.Field("path") != nil:
		if data, err := fs.ReadFile(filepath.Join(dir, yaml.GetValue(item.Field("path").Value))); err == nil {
			doc = string(data)
		}
	case item.Field("patch") != nil:
		doc = yaml.GetValue(item.Field("patch").Value)
	}
	n, err := yaml.Parse(doc)
	if err != nil || n.YNode().Kind != yaml.MappingNode {
		return "", ""
	}
	return n.GetKind(), n.GetName()
}
