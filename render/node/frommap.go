package node

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// FromMap returns what yaml.FromMap returns for the objects codeloc emits,
// without its round trip through text (marshal, then parse), which cost a
// third of Render on the fixtures: the nodes are built directly with the
// key order, tags and values of that round trip, and print to the same
// bytes (see node_test.go). Anything else goes through yaml.FromMap itself:
// values other than maps, slices of any, valid UTF-8 strings, ints, int64s
// and bools; keys that are not printable ASCII; and multi-line strings that
// start with a tab, which the round trip refuses (goyaml prints a block
// that it cannot read back) and must keep refusing.
func FromMap(v map[string]any) (*yaml.RNode, error) {
	n, ok := toNode(v)
	if !ok {
		return yaml.FromMap(v)
	}
	return yaml.NewRNode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{n}}), nil
}

func toNode(v any) (*yaml.Node, bool) {
	switch v := v.(type) {
	case map[string]any:
		keys := make(yamlKeys, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Sort(keys)
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: yaml.NodeTagMap, Content: make([]*yaml.Node, 0, 2*len(keys))}
		for _, k := range keys {
			if !plainASCII(k) {
				return nil, false // a key the round trip may refuse
			}
			kn, ok := toNode(k)
			if !ok {
				return nil, false
			}
			vn, ok := toNode(v[k])
			if !ok {
				return nil, false
			}
			n.Content = append(n.Content, kn, vn)
		}
		return n, true
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: yaml.NodeTagSeq, Content: make([]*yaml.Node, 0, len(v))}
		for _, item := range v {
			in, ok := toNode(item)
			if !ok {
				return nil, false
			}
			n.Content = append(n.Content, in)
		}
		return n, true
	case string:
		if !utf8.ValidString(v) {
			return nil, false // marshalled as !!binary
		}
		if strings.HasPrefix(v, "\t") && strings.Contains(v, "\n") {
			return nil, false // printed as a block the parser refuses: keep FromMap's error
		}
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: v}
		// The encoder quotes a string that would read back as another type;
		// marshalling also quotes YAML 1.1 booleans and sexagesimal numbers.
		if !strings.Contains(v, "\n") && (isOldBool(v) || isBase60Float(v)) {
			n.Style = yaml.DoubleQuotedStyle
		}
		return n, true
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagInt, Value: strconv.Itoa(v)}, true
	case int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagInt, Value: strconv.FormatInt(v, 10)}, true
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagBool, Value: strconv.FormatBool(v)}, true
	}
	return nil, false
}

// plainASCII reports whether s has only printable ASCII characters.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// The helpers below mirror goyaml v3's encoder (encode.go, sorter.go).

func isOldBool(s string) bool {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON",
		"n", "N", "no", "No", "NO", "off", "Off", "OFF":
		return true
	}
	return false
}

var base60float = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`)
})

func isBase60Float(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	if c != '+' && c != '-' && (c < '0' || c > '9') || strings.IndexByte(s, ':') < 0 {
		return false
	}
	return base60float().MatchString(s)
}

// yamlKeys sorts string map keys as the encoder does: letters before
// digits, runs of digits by value ("9" before "10").
type yamlKeys []string

func (l yamlKeys) Len() int      { return len(l) }
func (l yamlKeys) Swap(i, j int) { l[i], l[j] = l[j], l[i] }
func (l yamlKeys) Less(i, j int) bool {
	// Keys are short: their runes fit on the stack, where the encoder
	// allocates them at every comparison.
	var abuf, bbuf [48]rune
	return runesLess(appendRunes(abuf[:0], l[i]), appendRunes(bbuf[:0], l[j]))
}

func appendRunes(dst []rune, s string) []rune {
	for _, r := range s {
		dst = append(dst, r)
	}
	return dst
}

// runesLess is the encoder's keyList.Less on two keys' runes.
func runesLess(ar, br []rune) bool {
	digits := false
	for i := 0; i < len(ar) && i < len(br); i++ {
		if ar[i] == br[i] {
			digits = unicode.IsDigit(ar[i])
			continue
		}
		al := unicode.IsLetter(ar[i])
		bl := unicode.IsLetter(br[i])
		if al && bl {
			return ar[i] < br[i]
		}
		if al || bl {
			if digits {
				return al
			}
			return bl
		}
		var ai, bi int
		var an, bn int64
		if ar[i] == '0' || br[i] == '0' {
			for j := i - 1; j >= 0 && unicode.IsDigit(ar[j]); j-- {
				if ar[j] != '0' {
					an = 1
					bn = 1
					break
				}
			}
		}
		for ai = i; ai < len(ar) && unicode.IsDigit(ar[ai]); ai++ {
			an = an*10 + int64(ar[ai]-'0')
		}
		for bi = i; bi < len(br) && unicode.IsDigit(br[bi]); bi++ {
			bn = bn*10 + int64(br[bi]-'0')
		}
		if an != bn {
			return an < bn
		}
		if ai != bi {
			return ai < bi
		}
		return ar[i] < br[i]
	}
	return len(ar) < len(br)
}
