package node

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// checkAppendYAML holds AppendYAML to kyaml's String on n: the same bytes
// where it writes, buf untouched where it does not. It reports whether it
// wrote.
func checkAppendYAML(t *testing.T, n *yaml.Node) bool {
	t.Helper()
	const prefix = "prefix\n"
	got, ok := AppendYAML([]byte(prefix), n)
	if !ok {
		if string(got) != prefix {
			t.Fatalf("AppendYAML reported false but changed buf to %q", got)
		}
		return false
	}
	want, err := yaml.String(n)
	if err != nil {
		t.Fatalf("AppendYAML wrote %q where kyaml fails: %v", got, err)
	}
	if string(got[len(prefix):]) != want {
		t.Fatalf("AppendYAML wrote\n%s\nkyaml writes\n%s\n(%q vs %q)", got[len(prefix):], want, got[len(prefix):], want)
	}
	return true
}

// TestAppendYAMLFiles: every object of the repository's fixtures, goldens
// and install files, as parsed (the parser's styles and tags) and as the
// render's output.
func TestAppendYAMLFiles(t *testing.T) {
	objects, written := 0, 0
	for _, dir := range []string{"fixtures", "render/testdata", "sidecar/install", "e2e/testdata", "docs"} {
		_ = filepath.WalkDir(filepath.Join("..", "..", dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml") {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil || len(data) > 1<<20 {
				return nil
			}
			for _, o := range Documents(data) {
				objects++
				if checkAppendYAML(t, o.YNode()) {
					written++
				}
			}
			return nil
		})
	}
	t.Logf("%d objects, %d written by AppendYAML", objects, written)
	if objects < 500 || written < objects/2 { // the others hold comments or flow styles
		t.Errorf("AppendYAML wrote %d of %d objects: the files should take its path", written, objects)
	}
}

var (
	scalarTags   = []string{"", "!!str", "!!int", "!!bool", "!!null", "!!float", "tag:yaml.org,2002:str", "!custom"}
	scalarStyles = []yaml.Style{0, 0, 0, yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle, yaml.LiteralStyle, yaml.FoldedStyle, yaml.TaggedStyle, yaml.FlowStyle}
)

// TestAppendYAMLTricky: each tricky string as a key, a value and an item,
// under every tag and style.
func TestAppendYAMLTricky(t *testing.T) {
	extra := []string{"-1", "+1", "1_000", "0x_1F", "-0b101", "-0o17", "0o", "0b2", "1.", "+.5", "1e", "1e+", ".", "-", "+",
		"<<", "123456789012345678901234567890", "-9223372036854775809", "18446744073709551615", "0777", "08", "1__2", "_1",
		"a\u2028b", "a\u2029", "\u0085x", "x\n ", "x \n", "x\n\n", "\n", "\n\n", " \n", "é\n", "😀", "a😀b\n", "\x1f", "#", ":",
		"a:", "a: ", "?", "? ", "-\t", "a #", "a\t#", "x\x00#y", strings.Repeat("k", 128), strings.Repeat("k", 129),
		"2001-12-14", "2001-1x", "1234-", "12345-6"}
	written := 0
	for _, s := range append(append([]string{}, trickyStrings...), extra...) {
		for _, tag := range scalarTags {
			for _, style := range scalarStyles {
				scalar := func() *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Style: style, Value: s} }
				plain := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
				for _, n := range []*yaml.Node{
					{Kind: yaml.MappingNode, Content: []*yaml.Node{plain("k"), scalar()}},
					{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar(), plain("v")}},
					{Kind: yaml.MappingNode, Content: []*yaml.Node{plain("k"), {Kind: yaml.SequenceNode, Content: []*yaml.Node{scalar(), scalar()}}}},
					{Kind: yaml.MappingNode, Content: []*yaml.Node{plain("k"), {Kind: yaml.SequenceNode, Content: []*yaml.Node{
						{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar(), scalar(), plain("b"), scalar()}}}}}},
				} {
					if checkAppendYAML(t, n) {
						written++
					}
				}
			}
		}
	}
	if written == 0 {
		t.Error("AppendYAML wrote none of the tricky trees")
	}
}

// TestAppendYAMLRandom: random trees of mappings, sequences and scalars
// whose values mix the characters YAML cares about, with random tags and
// styles.
func TestAppendYAMLRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const chars = "ab09:#- '\"\n\n\n\t\r.,{}[]|>!&*?%@`~yYnNoOeE+_é\u0085\u2028\ufeff\x00\x1b\u00a0😀"
	runes := []rune(chars)
	str := func() string {
		s := make([]rune, r.IntN(9))
		for i := range s {
			s[i] = runes[r.IntN(len(runes))]
		}
		return string(s)
	}
	pick := func(weights ...int) int {
		total := 0
		for _, w := range weights {
			total += w
		}
		k := r.IntN(total)
		for i, w := range weights {
			if k < w {
				return i
			}
			k -= w
		}
		return 0
	}
	// Mostly what the render emits, now and then what AppendYAML leaves
	// to kyaml (which fails the whole tree).
	scalar := func() *yaml.Node {
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: str(), Tag: "!!str"}
		switch pick(60, 8, 6, 6, 6, 6, 1, 1) {
		case 1:
			n.Tag = scalarTags[r.IntN(len(scalarTags))]
		case 2:
			n.Tag = ""
		case 3:
			n.Style = yaml.DoubleQuotedStyle
		case 4:
			n.Style = yaml.SingleQuotedStyle
		case 5:
			n.Style = yaml.LiteralStyle
		case 6:
			n.Style = scalarStyles[r.IntN(len(scalarStyles))]
		case 7:
			n.Value = strings.Repeat("0123456789", 13)
		}
		return n
	}
	comment := func() string {
		return []string{"# c", "c", "# a\n# b", "#x\n\n# y", "# é ' \" : #", "# a\u2028b"}[r.IntN(6)]
	}
	// key is a scalar of one line, now and then of more (a complex key),
	// now and then with a comment above it.
	key := func() *yaml.Node {
		n := scalar()
		if r.IntN(20) > 0 {
			n.Value = strings.ReplaceAll(n.Value, "\n", "x")
		}
		if r.IntN(8) == 0 {
			n.HeadComment = comment()
		}
		return n
	}
	// value is a scalar now and then with a comment on its line.
	value := func() *yaml.Node {
		n := scalar()
		switch pick(40, 5, 1) {
		case 1:
			n.LineComment = comment()
		case 2:
			n.FootComment = comment()
		}
		return n
	}
	flowStyle := func() yaml.Style { return []yaml.Style{0, 0, 0, yaml.FlowStyle}[r.IntN(4)] }
	var tree func(depth int) *yaml.Node
	tree = func(depth int) *yaml.Node {
		switch pick(2, 1, 3) {
		case 0:
			if depth < 4 {
				n := &yaml.Node{Kind: yaml.MappingNode, Tag: []string{"", "!!map"}[r.IntN(2)], Style: flowStyle()}
				for range r.IntN(4) {
					n.Content = append(n.Content, key(), tree(depth+1))
				}
				return n
			}
		case 1:
			if depth < 4 {
				n := &yaml.Node{Kind: yaml.SequenceNode, Tag: []string{"", "!!seq"}[r.IntN(2)], Style: flowStyle()}
				for range r.IntN(4) {
					item := tree(depth + 1)
					if r.IntN(8) == 0 {
						item.HeadComment = comment()
					}
					n.Content = append(n.Content, item)
				}
				return n
			}
		}
		return value()
	}
	n := 20000
	if testing.Short() {
		n = 2000
	}
	written := 0
	for range n {
		root := &yaml.Node{Kind: yaml.MappingNode}
		for range 1 + r.IntN(4) {
			root.Content = append(root.Content, key(), tree(0))
		}
		if checkAppendYAML(t, root) {
			written++
		}
	}
	t.Logf("%d random trees, %d written by AppendYAML", n, written)
	if written < n/5 {
		t.Errorf("AppendYAML wrote %d of %d random trees: too few to hold it to kyaml", written, n)
	}
}

// TestAppendYAMLRefuses: what it leaves to kyaml.
func TestAppendYAMLRefuses(t *testing.T) {
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	tests := map[string]*yaml.Node{
		"a document":     {Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}},
		"a foot comment": {Kind: yaml.MappingNode, Content: []*yaml.Node{str("k"), {Kind: yaml.ScalarNode, Tag: "!!str", Value: "v", FootComment: "# c"}}},
		"a comment in a flow sequence": {Kind: yaml.MappingNode, Content: []*yaml.Node{str("k"), {Kind: yaml.SequenceNode, Style: yaml.FlowStyle,
			Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: "v", LineComment: "# c"}}}}},
		"a mapping's comment": {Kind: yaml.MappingNode, Content: []*yaml.Node{str("k"), {Kind: yaml.MappingNode, HeadComment: "# c", Content: []*yaml.Node{str("a"), str("b")}}}},
		"an anchor":           {Kind: yaml.MappingNode, Content: []*yaml.Node{str("k"), {Kind: yaml.ScalarNode, Tag: "!!str", Value: "v", Anchor: "a"}}},
		"an alias":            {Kind: yaml.MappingNode, Content: []*yaml.Node{str("k"), {Kind: yaml.AliasNode, Value: "a"}}},
		"a key's comment not UTF-8": {Kind: yaml.MappingNode, Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: "k", HeadComment: "# a\xbf\xe2"}, str("v")}},
		"an item's comment not UTF-8": {Kind: yaml.MappingNode, Content: []*yaml.Node{str("k"), {Kind: yaml.SequenceNode,
			Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: "v", HeadComment: "# \xc2"}}}}},
		"a line comment not UTF-8": {Kind: yaml.MappingNode, Content: []*yaml.Node{str("k"), {Kind: yaml.ScalarNode, Tag: "!!str", Value: "v", LineComment: "# \xe2\x80"}}},
		"a complex key":            {Kind: yaml.MappingNode, Content: []*yaml.Node{str("a\nb"), str("v")}},
		"a timestamp":              {Kind: yaml.MappingNode, Content: []*yaml.Node{str("k"), str("2001-12-14")}},
		"a kept tag":               {Kind: yaml.MappingNode, Content: []*yaml.Node{str("k"), {Kind: yaml.ScalarNode, Tag: "!!int", Value: "x"}}},
		"invalid UTF-8":            {Kind: yaml.MappingNode, Content: []*yaml.Node{str("k"), str("a\xffb")}},
	}
	for name, n := range tests {
		if _, ok := AppendYAML(nil, n); ok {
			t.Errorf("%s: AppendYAML wrote it", name)
		}
	}
}

// FuzzAppendYAML: any YAML document kyaml parses is written as kyaml
// writes it, or left to kyaml.
func FuzzAppendYAML(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add("k: " + s + "\n")
	}
	f.Add("a:\n- b: |\n    x\n  c: [1, 2]\n- {}\n- []\nd: \"\\u2028\"\n")
	f.Fuzz(func(t *testing.T, data string) {
		if len(data) > 4096 {
			return
		}
		for _, o := range Documents([]byte(data)) {
			checkAppendYAML(t, o.YNode())
		}
	})
}

// TestNumberGrammars holds yamlStyleFloat and IsJSONNumber to the regexps
// they write out, on number-like strings and random ones.
func TestNumberGrammars(t *testing.T) {
	yamlFloat := regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	jsonNumber := regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)
	r := rand.New(rand.NewPCG(5, 6))
	inputs := []string{"", "0", "-0", "+0", "1.", ".5", "-.5", "+.", ".", "1e5", "1E+5", "1e", "1e-", "01", "1.5e3", "0.0", "-", "+", "e5", "1.e5", ".e5", "0x1"}
	for range 50000 {
		b := make([]byte, r.IntN(7))
		for i := range b {
			b[i] = "0123456789.eE+-x"[r.IntN(16)]
		}
		inputs = append(inputs, string(b))
	}
	for _, s := range inputs {
		if got, want := yamlStyleFloat(s), yamlFloat.MatchString(s); got != want {
			t.Errorf("yamlStyleFloat(%q) = %v, the regexp says %v", s, got, want)
		}
		if got, want := IsJSONNumber(s), jsonNumber.MatchString(s); got != want {
			t.Errorf("IsJSONNumber(%q) = %v, the regexp says %v", s, got, want)
		}
	}
}
