package render

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// patch is one patch of a kustomization. What it targets is read only when
// a problem is placed (targets), so that a render without problems reads no
// patch file twice.
type patch struct {
	file, field string // kustomization file and "patches[1]"
	dir         string
	item        *yaml.RNode
	resolved    bool
	kind, name  string // the target ("" = any), once resolved
}

// notePatches records the patches of a kustomization: patches[],
// patchesStrategicMerge[] and patchesJson6902[].
func (s *scanner) notePatches(dir, file string, node *yaml.RNode) {
	for _, f := range []string{"patches", "patchesStrategicMerge", "patchesJson6902"} {
		for i, item := range sequence(node, f) {
			s.patches = append(s.patches, &patch{file: file, field: fmt.Sprintf("%s[%d]", f, i), dir: dir, item: item})
		}
	}
}

// target resolves and returns what the patch names.
func (p *patch) target() (kind, name string) {
	if !p.resolved {
		p.kind, p.name = patchTarget(p.dir, p.item)
		p.resolved = true
	}
	return p.kind, p.name
}

// patchTarget is what a patch entry names: its target, else the kind and
// name of the patch document (a path, or inline).
func patchTarget(dir string, item *yaml.RNode) (string, string) {
	if t := item.Field("target"); t != nil {
		return yaml.GetValue(t.Value.Field("kind").Value), yaml.GetValue(t.Value.Field("name").Value)
	}
	var doc string
	switch {
	case item.YNode().Kind == yaml.ScalarNode: // patchesStrategicMerge: a path or inline
		doc = item.YNode().Value
		if data, err := os.ReadFile(filepath.Join(dir, doc)); err == nil {
			doc = string(data)
		}
	case item.Field("path") != nil:
		if data, err := os.ReadFile(filepath.Join(dir, yaml.GetValue(item.Field("path").Value))); err == nil {
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

// patchedBy names the patches that target o, for messages.
func (in *instance) patchedBy(o *yaml.RNode) string {
	var by string
	for _, p := range in.patches {
		kind, name := p.target()
		if (kind == "" || kind == o.GetKind()) && (name == "" || strings.Contains(o.GetName(), name)) {
			if by != "" {
				by += ", "
			}
			by += p.field + " of " + p.file
		}
	}
	return by
}
