package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// parse reads data as PyYAML would: one document, YAML 1.1 scalars.
func parse(data []byte) (*pyValue, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("workspace.yaml is not YAML: %w", err)
		}
		docs = append(docs, &doc)
	}
	switch {
	case len(docs) > 1:
		return nil, fmt.Errorf("workspace.yaml holds %d YAML documents: Dagster reads one", len(docs))
	case len(docs) == 0 || len(docs[0].Content) == 0:
		return nil, errors.New("workspace.yaml is empty: Dagster finds no workspace config in it (load.py: \"Could not parse a workspace config\")")
	}
	var errs []error
	v := convert(docs[0].Content[0], &errs)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if v.kind == pyNull {
		return nil, errors.New("workspace.yaml is null: Dagster finds no workspace config in it (load.py: \"Could not parse a workspace config\")")
	}
	return v, nil
}

// pyKind is the Python type PyYAML gives a node.
type pyKind int

const (
	pyNull pyKind = iota
	pyBool
	pyInt
	pyFloat
	pyStr
	pyMap
	pyList
)

// pyValue is a node as the Python object PyYAML constructs.
type pyValue struct {
	kind       pyKind
	text       string // a scalar's text; an int's decimal value
	keys, vals []*pyValue
	items      []*pyValue
	line, col  int
}

// get is the value of the string key k of a mapping.
func (v *pyValue) get(k string) *pyValue {
	for i, key := range v.keys {
		if key.kind == pyStr && key.text == k {
			return v.vals[i]
		}
	}
	return nil
}

// truthy is Python's truth of a scalar or a collection.
func (v *pyValue) truthy() bool {
	switch v.kind {
	case pyNull:
		return false
	case pyBool:
		return yaml11True().MatchString(v.text)
	case pyInt:
		return v.text != "0"
	case pyMap:
		return len(v.keys) > 0
	case pyList:
		return len(v.items) > 0
	}
	return v.text != "" // str; a float is not asked
}

// canonical is a key's identity in a Python dict: None, True and False
// whatever their spelling; an int's decimal value is already its text.
func (v *pyValue) canonical() string {
	switch v.kind {
	case pyNull:
		return ""
	case pyBool:
		return fmt.Sprint(v.truthy())
	}
	return v.text
}

// describe names v in messages.
func (v *pyValue) describe() string {
	switch v.kind {
	case pyNull:
		return "null"
	case pyBool:
		return fmt.Sprintf("a boolean (%s)", v.text)
	case pyInt:
		return fmt.Sprintf("an integer (%s)", v.text)
	case pyFloat:
		return fmt.Sprintf("a float (%s)", v.text)
	case pyStr:
		return fmt.Sprintf("a string (%q)", v.text)
	case pyMap:
		return "a mapping"
	}
	return "a list"
}

// The implicit resolvers of PyYAML's SafeLoader (yaml/resolver.py), YAML
// 1.1; Dagster's loader removes only the timestamp one.
var (
	yaml11Bool = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	})
	yaml11True  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$`) })
	yaml11Float = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	})
	yaml11Int = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	})
	yaml11Null = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:~|null|Null|NULL|)$`) })
)

// convert builds the Python object of n, reporting what PyYAML or codeloc
// refuses.
func convert(n *yaml.Node, errs *[]error) *pyValue {
	v := &pyValue{line: n.Line, col: n.Column}
	bad := func(format string, args ...any) *pyValue {
		*errs = append(*errs, fmt.Errorf("workspace.yaml:%d:%d: %s", n.Line, n.Column, fmt.Sprintf(format, args...)))
		return v
	}
	tagged := n.Style&yaml.TaggedStyle != 0
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return bad("alias *%s has no anchor", n.Value)
		}
		a := convert(n.Alias, errs)
		c := *a
		c.line, c.col = n.Line, n.Column
		return &c
	case yaml.MappingNode:
		if tagged && n.Tag != "!!map" {
			return bad("tag %s is not accepted in a workspace", n.Tag)
		}
		v.kind = pyMap
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn := n.Content[i]
			if kn.Kind == yaml.ScalarNode && kn.Value == "<<" && kn.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
				*errs = append(*errs, fmt.Errorf("workspace.yaml:%d:%d: merge keys (<<) are not accepted in a workspace: write the keys out", kn.Line, kn.Column))
				continue
			}
			k := convert(kn, errs)
			if k.kind == pyMap || k.kind == pyList {
				*errs = append(*errs, fmt.Errorf("workspace.yaml:%d:%d: a key is a mapping or a list: PyYAML refuses an unhashable key", kn.Line, kn.Column))
				continue
			}
			id := fmt.Sprintf("%d:%s", k.kind, k.canonical())
			if seen[id] {
				*errs = append(*errs, fmt.Errorf("workspace.yaml:%d:%d: key %s is given twice", kn.Line, kn.Column, k.text))
				continue
			}
			seen[id] = true
			v.keys = append(v.keys, k)
			v.vals = append(v.vals, convert(n.Content[i+1], errs))
		}
		return v
	case yaml.SequenceNode:
		if tagged && n.Tag != "!!seq" {
			return bad("tag %s is not accepted in a workspace", n.Tag)
		}
		v.kind = pyList
		for _, c := range n.Content {
			v.items = append(v.items, convert(c, errs))
		}
		return v
	case yaml.ScalarNode:
		return scalar(n, v, tagged, bad)
	}
	return bad("unexpected YAML node")
}

// scalar resolves a scalar node as PyYAML does: quoted or block scalars are
// strings, an explicit standard tag decides, a plain scalar goes through
// the YAML 1.1 resolvers.
func scalar(n *yaml.Node, v *pyValue, tagged bool, bad func(string, ...any) *pyValue) *pyValue {
	v.text = n.Value
	tag := ""
	switch {
	case tagged:
		tag = n.Tag
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		tag = "!!str"
	case yaml11Bool().MatchString(n.Value):
		tag = "!!bool"
	case yaml11Float().MatchString(n.Value):
		tag = "!!float"
	case yaml11Int().MatchString(n.Value):
		tag = "!!int"
	case yaml11Null().MatchString(n.Value):
		tag = "!!null"
	default:
		tag = "!!str"
	}
	switch tag {
	case "!!str":
		v.kind = pyStr
	case "!!bool":
		if !yaml11Bool().MatchString(n.Value) {
			return bad("%q is tagged !!bool and is not a YAML 1.1 boolean", n.Value)
		}
		v.kind = pyBool
	case "!!float":
		v.kind = pyFloat
	case "!!int":
		d, ok := yaml11IntValue(n.Value)
		if !ok {
			return bad("%q is tagged !!int and is not a YAML 1.1 integer", n.Value)
		}
		v.kind, v.text = pyInt, d
	case "!!null":
		v.kind = pyNull
	default:
		return bad("tag %s is not accepted in a workspace (only !!str, !!int, !!bool, !!float, !!null, !!map, !!seq)", n.Tag)
	}
	return v
}

// yaml11IntValue is the decimal value of a YAML 1.1 integer, as PyYAML's
// construct_yaml_int reads it: underscores dropped, 0b binary, 0x hex, a
// leading 0 octal, colons base 60.
func yaml11IntValue(s string) (string, bool) {
	if !yaml11Int().MatchString(s) {
		return "", false
	}
	s = strings.ReplaceAll(s, "_", "")
	sign := ""
	if s[0] == '-' || s[0] == '+' {
		if s[0] == '-' {
			sign = "-"
		}
		s = s[1:]
	}
	v := new(big.Int)
	switch {
	case strings.Contains(s, ":"):
		for _, part := range strings.Split(s, ":") {
			d, _ := new(big.Int).SetString(part, 10)
			v.Mul(v, big.NewInt(60)).Add(v, d)
		}
	case strings.HasPrefix(s, "0b"):
		v.SetString(s[2:], 2)
	case strings.HasPrefix(s, "0x"):
		v.SetString(s[2:], 16)
	case len(s) > 1 && s[0] == '0':
		v.SetString(s[1:], 8)
	default:
		v.SetString(s, 10)
	}
	if v.Sign() == 0 {
		return "0", true
	}
	return sign + v.String(), true
}
