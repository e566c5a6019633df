package emit

import (
	"bytes"
	"encoding/json"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/render/node"
)

// toNode converts a typed API object to a YAML node: its fields as the API
// server's JSON names them, keys sorted, apiVersion, kind and metadata
// first, as people write manifests. It goes through encoding/json, whose
// first use of a type costs a tenth of apimachinery's unstructured
// converter's (which walks every type the object's type can reach, a
// dozen milliseconds in a process that renders once).
func toNode(obj any) (*yaml.RNode, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
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
// container's resources), so that the output says only what is set, and
// turns JSON numbers into integers. No emitted object sets an empty map
// on purpose.
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
			pruneItems(v)
		case json.Number:
			m[k] = number(v)
		}
	}
	return len(m) == 0
}

func pruneItems(items []any) {
	for i, item := range items {
		switch item := item.(type) {
		case map[string]any:
			prune(item)
		case json.Number:
			items[i] = number(item)
		}
	}
}

// number is n as an int64, or a float64 when it is not whole.
func number(n json.Number) any {
	if i, err := n.Int64(); err == nil {
		return i
	}
	f, _ := n.Float64()
	return f
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
