package build

import (
	"strconv"
	"strings"
	"unicode"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/fsys"
	"github.com/codeloc/codeloc/render/node"
)

// sources parses the files objects came from, once per render, to find
// where a problem's field stands in them.
type sources struct {
	fs   fsys.FS
	docs map[string][]*yaml.RNode
}

// documents returns the YAML documents of file; none when it cannot be
// read or parsed (the problem then keeps the file without a line).
func (s *sources) documents(file string) []*yaml.RNode {
	if docs, ok := s.docs[file]; ok {
		return docs
	}
	var docs []*yaml.RNode
	if data, err := s.fs.ReadFile(file); err == nil && len(data) <= maxSourceBytes {
		docs = node.Documents(data)
	}
	s.docs[file] = docs
	return docs
}

// maxSourceBytes bounds a file read again to place problems.
const maxSourceBytes = 8 << 20

// findDocument picks the document o was built from: same kind, the name
// that the built name contains best (kustomize adds prefixes, suffixes and
// hashes), then the same namespace.
func findDocument(docs []*yaml.RNode, o *yaml.RNode) *yaml.RNode {
	var best *yaml.RNode
	bestScore := -1
	for _, doc := range docs {
		name := doc.GetName()
		if doc.GetKind() != o.GetKind() || !strings.Contains(o.GetName(), name) {
			continue
		}
		score := 2 * len(name)
		if doc.GetNamespace() == o.GetNamespace() {
			score++
		}
		if score > bestScore {
			best, bestScore = doc, score
		}
	}
	return best
}

// fieldPos is the line and column of field (a dotted path with [i]
// indexes; keys may hold dots, as annotation keys do) in doc: of the
// deepest part of the path the document has, or of the document itself.
func fieldPos(doc *yaml.RNode, field string) (int, int) {
	n := doc.YNode()
	line, col := firstKeyPos(n)
	for rest := field; rest != "" && n != nil; {
		var key *yaml.Node
		key, n, rest = step(n, rest)
		if key != nil {
			line, col = key.Line, key.Column
		}
	}
	return line, col
}

// firstKeyPos is where a mapping document starts: its first key.
func firstKeyPos(n *yaml.Node) (int, int) {
	if n.Kind == yaml.MappingNode && len(n.Content) > 0 {
		return n.Content[0].Line, n.Content[0].Column
	}
	return n.Line, n.Column
}

// step follows the head of path in n: a [i] index into a sequence, or the
// longest mapping key path starts with. It returns the node to report
// (the key, or the item), the node reached and the rest of the path; a nil
// node when the document does not have the path.
func step(n *yaml.Node, path string) (*yaml.Node, *yaml.Node, string) {
	if strings.HasPrefix(path, "[") {
		end := strings.IndexByte(path, ']')
		i, err := strconv.Atoi(path[1:max(end, 1)])
		if end < 0 || err != nil || n.Kind != yaml.SequenceNode || i < 0 || i >= len(n.Content) {
			return nil, nil, ""
		}
		item := n.Content[i]
		return item, item, strings.TrimPrefix(path[end+1:], ".")
	}
	if n.Kind == yaml.SequenceNode { // a path without index: the first item that has it
		for _, item := range n.Content {
			if key, value, rest := step(item, path); key != nil {
				return key, value, rest
			}
		}
	}
	if n.Kind != yaml.MappingNode {
		return nil, nil, ""
	}
	var key, value *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if (path == k || strings.HasPrefix(path, k+".") || strings.HasPrefix(path, k+"[")) && (key == nil || len(k) > len(key.Value)) {
			key, value = n.Content[i], n.Content[i+1]
		}
	}
	if key == nil {
		return nil, nil, ""
	}
	return key, value, strings.TrimPrefix(path[len(key.Value):], ".")
}

// generatorPos is the line and column of the generator entry of kust
// that made the object named name: configMapGenerator or secretGenerator,
// the entry whose name the built name contains best.
func generatorPos(kust *yaml.RNode, generator, name string) (int, int) {
	line, col := firstKeyPos(kust.YNode())
	r := []rune(generator)
	if len(r) == 0 {
		return line, col
	}
	field := string(unicode.ToLower(r[0])) + string(r[1:]) // ConfigMapGenerator -> configMapGenerator
	best := -1
	for _, item := range node.Sequence(kust, field) {
		n := item.Field("name")
		if n == nil {
			continue
		}
		v := n.Value.YNode().Value
		if strings.Contains(name, v) && len(v) > best {
			best, line, col = len(v), item.YNode().Line, item.YNode().Column
		}
	}
	return line, col
}
