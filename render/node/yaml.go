// Package node holds the YAML node helpers the render's stages share:
// JSON encoding of a node (what Argo CD receives and what the checks decode
// into the API types), a map to node conversion that skips a text round
// trip, and the readers of sequences and multi-document files.
package node

import (
	"bytes"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Ref names an object in messages: Kind/name.
func Ref(o *yaml.RNode) string { return o.GetKind() + "/" + o.GetName() }

// Sequence is the items of n's field when it is a sequence, else nil.
func Sequence(n *yaml.RNode, field string) []*yaml.RNode {
	f := n.Field(field)
	if f == nil || f.Value.YNode().Kind != yaml.SequenceNode {
		return nil
	}
	items, _ := f.Value.Elements()
	return items
}

// Documents decodes every mapping document of a YAML stream, keeping line
// numbers relative to the stream (a split per document would restart
// them). It stops at the first syntax error: kustomize reports those.
func Documents(data []byte) []*yaml.RNode {
	var docs []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		n := &yaml.Node{}
		if err := dec.Decode(n); err != nil {
			return Mappings(docs)
		}
		docs = append(docs, n)
	}
}

// Mappings are the documents of a decoded stream (Documents' or
// yamlbound.Parse's) that hold one mapping: the objects.
func Mappings(docs []*yaml.Node) []*yaml.RNode {
	var out []*yaml.RNode
	for _, n := range docs {
		if n.Kind == yaml.DocumentNode && len(n.Content) == 1 && n.Content[0].Kind == yaml.MappingNode {
			out = append(out, yaml.NewRNode(n.Content[0]))
		}
	}
	return out
}
