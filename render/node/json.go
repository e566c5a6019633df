package node

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// AppendJSON appends a YAML node to buf as JSON: the JSON document Argo
// CD's stock cmp-server answers with for a rendered object (it turns the
// command's YAML into one JSON document per object), and what the render's
// checks decode into the API types. It goes straight from the node: no
// YAML emitter and no decoding into maps on the way. Scalars keep the meaning
// their tag gives them, as YAML-to-JSON conversion does: strings and
// timestamps as JSON strings, integers, floats, booleans and nulls as
// JSON values (a form that is not already JSON is decoded first); a
// mapping key is always a JSON string. Tags resolve by YAML 1.2, as
// kustomize and the render's own checks read them: a plain yes or off is
// the string it was in the kustomization, not a YAML 1.1 boolean.
func AppendJSON(buf []byte, n *yaml.Node) ([]byte, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return append(buf, "null"...), nil
		}
		return AppendJSON(buf, n.Content[0])
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, fmt.Errorf("alias *%s has no anchor", n.Value)
		}
		return AppendJSON(buf, n.Alias)
	case yaml.MappingNode:
		return encodeMapping(buf, n)
	case yaml.SequenceNode:
		return encodeSequence(buf, n)
	case yaml.ScalarNode:
		return encodeScalar(buf, n)
	}
	return nil, fmt.Errorf("YAML node of kind %d at line %d cannot be encoded", n.Kind, n.Line)
}

func encodeMapping(buf []byte, n *yaml.Node) ([]byte, error) {
	if len(n.Content)%2 != 0 {
		return nil, fmt.Errorf("mapping at line %d has a key without a value", n.Line)
	}
	buf = append(buf, '{')
	var err error
	for i := 0; i < len(n.Content); i += 2 {
		if i > 0 {
			buf = append(buf, ',')
		}
		k := n.Content[i]
		if k.Kind == yaml.AliasNode && k.Alias != nil {
			k = k.Alias
		}
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("mapping key at line %d is not a scalar", k.Line)
		}
		buf = appendString(buf, k.Value)
		buf = append(buf, ':')
		if buf, err = AppendJSON(buf, n.Content[i+1]); err != nil {
			return nil, err
		}
	}
	return append(buf, '}'), nil
}

func encodeSequence(buf []byte, n *yaml.Node) ([]byte, error) {
	buf = append(buf, '[')
	var err error
	for i, c := range n.Content {
		if i > 0 {
			buf = append(buf, ',')
		}
		if buf, err = AppendJSON(buf, c); err != nil {
			return nil, err
		}
	}
	return append(buf, ']'), nil
}

// IsJSONNumber reports whether s follows JSON's number grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?
func IsJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digitsEnd(s, i) == i:
		return false
	default:
		i = digitsEnd(s, i)
	}
	if i < len(s) && s[i] == '.' {
		if i = digitsEnd(s, i+1); s[i-1] == '.' {
			return false
		}
	}
	return exponentEnd(s, i) == len(s)
}

// digitsEnd is the index after the ASCII digits that start at s[i].
func digitsEnd(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// exponentEnd is the index after the exponent ([eE][-+]?[0-9]+) at s[i]:
// i where there is none, -1 where it has no digits.
func exponentEnd(s string, i int) int {
	if i >= len(s) || (s[i] != 'e' && s[i] != 'E') {
		return i
	}
	i++
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	if j := digitsEnd(s, i); j > i {
		return j
	}
	return -1
}

func encodeScalar(buf []byte, n *yaml.Node) ([]byte, error) {
	v := n.Value
	switch n.ShortTag() {
	case yaml.NodeTagString, "!!timestamp", "!!binary":
		return appendString(buf, v), nil
	case yaml.NodeTagNull:
		return append(buf, "null"...), nil
	case yaml.NodeTagBool:
		if v == "true" || v == "false" {
			return append(buf, v...), nil
		}
	case yaml.NodeTagInt, yaml.NodeTagFloat:
		if IsJSONNumber(v) && v != "-0" {
			return append(buf, v...), nil
		}
	}
	var decoded any
	if err := n.Decode(&decoded); err != nil {
		return nil, fmt.Errorf("line %d: %w", n.Line, err)
	}
	out, err := json.Marshal(decoded)
	if err != nil {
		return nil, fmt.Errorf("line %d: %w", n.Line, err)
	}
	return append(buf, out...), nil
}

// appendString appends s as a JSON string, as encoding/json writes it
// without HTML escaping (invalid UTF-8 becomes U+FFFD).
func appendString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			if r == utf8.RuneError {
				buf = append(buf, `\ufffd`...)
			} else {
				buf = append(buf, '\\', 'u', '2', '0', '2', hex[r&0xf])
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// JSON is n as a JSON document.
func JSON(n *yaml.Node) ([]byte, error) { return AppendJSON(nil, n) }
