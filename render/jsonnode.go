package render

import (
	"bytes"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// nodeJSON writes a YAML node as JSON, directly: kyaml's MarshalJSON goes
// through a map of interfaces and costs several times more. Scalars keep
// the type their tag resolves to (!!int, !!float, !!bool, !!null, else a
// string), as a YAML-to-JSON conversion does.
func nodeJSON(n *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	err := writeJSON(&buf, n)
	return buf.Bytes(), err
}

func writeJSON(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return fmt.Errorf("a document of %d nodes", len(n.Content))
		}
		return writeJSON(buf, n.Content[0])
	case yaml.AliasNode:
		return writeJSON(buf, n.Alias)
	case yaml.MappingNode:
		return writeMapping(buf, n)
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSON(buf, item); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	}
	return writeScalar(buf, n)
}

func writeMapping(buf *bytes.Buffer, n *yaml.Node) error {
	buf.WriteByte('{')
	for i := 0; i+1 < len(n.Content); i += 2 {
		if i > 0 {
			buf.WriteByte(',')
		}
		key, _ := json.Marshal(n.Content[i].Value)
		buf.Write(key)
		buf.WriteByte(':')
		if err := writeJSON(buf, n.Content[i+1]); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

func writeScalar(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.ShortTag() {
	case yaml.NodeTagNull:
		buf.WriteString("null")
		return nil
	case yaml.NodeTagBool, yaml.NodeTagInt, yaml.NodeTagFloat:
		var v any
		if err := n.Decode(&v); err != nil {
			return err
		}
		out, err := json.Marshal(v)
		if err != nil { // .inf, .nan: not JSON; keep the text
			out, _ = json.Marshal(n.Value)
		}
		buf.Write(out)
		return nil
	}
	out, _ := json.Marshal(n.Value)
	buf.Write(out)
	return nil
}
