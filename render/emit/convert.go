package emit

import (
	"fmt"
	"reflect"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/render/node"
)

// toNode converts a typed API object to a YAML node: its fields as the API
// server's JSON names them (value), keys sorted, apiVersion, kind and
// metadata first, as people write manifests.
func toNode(obj any) (*yaml.RNode, error) {
	v, err := value(reflect.ValueOf(obj))
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("emit: %T is not an object", obj)
	}
	prune(m)
	n, err := node.FromMap(m)
	if err != nil {
		return nil, err
	}
	headFirst(n)
	return n, nil
}

// prune removes the nulls and empty maps the conversion leaves for the
// struct fields JSON cannot omit (metadata.creationTimestamp, status, a
// container's resources), so that the output says only what is set. No
// emitted object sets an empty map on purpose.
func prune(m map[string]any) bool {
	for k, v := range m {
		switch v := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			if prune(v) {
				delete(m, k)
			}
		case []any:
			for _, item := range v {
				if im, ok := item.(map[string]any); ok {
					prune(im)
				}
			}
		}
	}
	return len(m) == 0
}

// headFirst puts apiVersion, kind and metadata before the other fields.
func headFirst(n *yaml.RNode) {
	content := n.YNode().Content
	var head, rest []*yaml.Node
	for _, key := range []string{"apiVersion", "kind", "metadata"} {
		for i := 0; i+1 < len(content); i += 2 {
			if content[i].Value == key {
				head = append(head, content[i], content[i+1])
			}
		}
	}
	for i := 0; i+1 < len(content); i += 2 {
		switch content[i].Value {
		case "apiVersion", "kind", "metadata":
		default:
			rest = append(rest, content[i], content[i+1])
		}
	}
	n.YNode().Content = append(head, rest...)
}
