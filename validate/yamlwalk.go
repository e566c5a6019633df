package validate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/pgtimeout"
	"github.com/codeloc/codeloc/internal/problem"
)

// MaxFileBytes bounds every YAML document codeloc reads from a repo or a
// contract: declarations are a few hundred bytes, so anything larger is
// refused before it is parsed.
const MaxFileBytes = names.MaxYAMLBytes

// walker decodes a yaml.Node tree by hand so that every field keeps its
// position and every problem is collected instead of stopping at the first.
type walker struct {
	file     string
	problems problem.Problems
	pos      map[string]problem.Pos
}

func newWalker(file string) *walker {
	return &walker{file: file, pos: map[string]problem.Pos{}}
}

func (w *walker) at(n *yaml.Node) problem.Pos {
	if n == nil {
		return problem.Pos{File: w.file}
	}
	return problem.Pos{File: w.file, Line: n.Line, Column: n.Column}
}

func (w *walker) add(n *yaml.Node, code, path, msg, hint string) {
	w.problems = append(w.problems, w.at(n).At(code, path, msg, hint))
}

var yamlLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// parseRoot parses data as exactly one YAML document whose root is a mapping.
func (w *walker) parseRoot(data []byte) *yaml.Node {
	if len(data) > MaxFileBytes {
		w.add(nil, CodeFileTooLarge, "", fmt.Sprintf("file is %d bytes, more than the %d allowed", len(data), MaxFileBytes), "keep the document small; it only declares, it does not carry data")
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			w.add(nil, CodeYAMLEmpty, "", "the document is empty", "write a YAML mapping")
			return nil
		}
		w.syntaxError(err)
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		w.add(&extra, CodeYAMLMultiDoc, "", "more than one YAML document", "keep a single document; remove the '---' separator")
		return nil
	} else if !errors.Is(err, io.EOF) {
		w.syntaxError(err)
		return nil
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		w.add(root, CodeYAMLNotMapping, "", fmt.Sprintf("the document is a %s, not a mapping", kindName(root)), "write 'key: value' fields at the top level")
		return nil
	}
	return root
}

func (w *walker) syntaxError(err error) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLineRE().FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	w.problems = append(w.problems, problem.Problem{Code: CodeYAMLSyntax, File: w.file, Line: line, Column: min(line, 1), Message: msg, Hint: "fix the YAML syntax"})
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!str":
			return "string"
		case "!!int":
			return "integer"
		case "!!bool":
			return "boolean"
		case "!!float":
			return "number"
		}
		return "scalar"
	}
	return "document"
}

// field decodes one key of a mapping.
type field struct {
	name     string
	required bool
	decode   func(n *yaml.Node, path string)
}

// mapping checks that n is a mapping and dispatches each key to its field,
// reporting unknown, duplicate and missing keys.
func (w *walker) mapping(n *yaml.Node, path string, fields []field) bool {
	if !w.kind(n, path, yaml.MappingNode) {
		return false
	}
	w.record(n, path)
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		fp := join(path, key.Value)
		if key.Kind != yaml.ScalarNode {
			w.add(key, CodeUnknownField, path, "a key is not a plain name", "use plain field names")
			continue
		}
		if seen[key.Value] {
			w.add(key, CodeDuplicateKey, fp, fmt.Sprintf("%q is set twice", key.Value), "keep one")
			continue
		}
		seen[key.Value] = true
		i := slices.IndexFunc(fields, func(f field) bool { return f.name == key.Value })
		if i < 0 {
			w.add(key, CodeUnknownField, fp, fmt.Sprintf("unknown field %q", key.Value), unknownHint(key.Value, fields))
			continue
		}
		w.record(val, fp)
		fields[i].decode(val, fp)
	}
	for _, f := range fields {
		if f.required && !seen[f.name] {
			w.add(n, CodeRequired, join(path, f.name), "required field is missing", fmt.Sprintf("add %q", f.name))
		}
	}
	return true
}

func unknownHint(name string, fields []field) string {
	best, bestD := "", 3
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
		if d := editDistance(strings.ToLower(name), strings.ToLower(f.name)); d < bestD {
			best, bestD = f.name, d
		}
	}
	if best != "" {
		return fmt.Sprintf("did you mean %q?", best)
	}
	slices.Sort(names)
	return "known fields: " + strings.Join(names, ", ")
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

func (w *walker) record(n *yaml.Node, path string) {
	if path != "" {
		w.pos[path] = w.at(n)
	}
}

var kindWord = map[yaml.Kind]string{yaml.MappingNode: "a mapping", yaml.SequenceNode: "a list", yaml.ScalarNode: "a value"}

func (w *walker) kind(n *yaml.Node, path string, want yaml.Kind) bool {
	if n.Kind == want {
		return true
	}
	hint := "write " + kindWord[want]
	if n.Kind == yaml.AliasNode {
		hint = "YAML aliases are not accepted; write the value out"
	}
	w.add(n, CodeWrongType, path, fmt.Sprintf("expected %s, got %s", kindWord[want][2:], kindName(n)), hint)
	return false
}

var tagWord = map[string]string{"!!str": "a string", "!!int": "an integer", "!!bool": "a boolean", "!!float": "a number"}

func (w *walker) scalar(n *yaml.Node, path string, tags ...string) bool {
	want := tagWord[tags[0]]
	if n.Kind != yaml.ScalarNode {
		hint := "write " + want
		if n.Kind == yaml.AliasNode {
			hint = "YAML aliases are not accepted; write the value out"
		}
		w.add(n, CodeWrongType, path, fmt.Sprintf("expected %s, got %s", want, kindName(n)), hint)
		return false
	}
	if slices.Contains(tags, n.ShortTag()) {
		return true
	}
	hint := "write " + want
	if tags[0] == "!!str" && n.ShortTag() != "!!null" {
		hint = fmt.Sprintf("quote it: \"%s\"", n.Value)
	}
	w.add(n, CodeWrongType, path, fmt.Sprintf("expected %s, got %s", want, kindName(n)), hint)
	return false
}

func (w *walker) str(dst *string) func(*yaml.Node, string) {
	return func(n *yaml.Node, path string) {
		if w.scalar(n, path, "!!str") {
			*dst = n.Value
		}
	}
}

func (w *walker) boolean(dst *bool) func(*yaml.Node, string) {
	return func(n *yaml.Node, path string) {
		if w.scalar(n, path, "!!bool") {
			*dst = n.Value == "true" || n.Value == "True" || n.Value == "TRUE"
		}
	}
}

// integer decodes an int; unlike the other decoders its function reports
// whether it succeeded, so callers can add range checks.
func (w *walker) integer(dst *int) func(*yaml.Node, string) bool {
	return func(n *yaml.Node, path string) bool {
		if !w.scalar(n, path, "!!int") {
			return false
		}
		v, err := strconv.ParseInt(n.Value, 0, 32)
		if err != nil {
			w.add(n, CodeWrongType, path, fmt.Sprintf("%q is not a 32-bit integer", n.Value), "write a small whole number")
			return false
		}
		*dst = int(v)
		return true
	}
}

// int adapts integer to a field decoder.
func (w *walker) int(dst *int) func(*yaml.Node, string) {
	return func(n *yaml.Node, path string) { w.integer(dst)(n, path) }
}

// quantity accepts a Kubernetes quantity written as a string or a number.
func (w *walker) quantity(dst *Quantity) func(*yaml.Node, string) {
	return func(n *yaml.Node, path string) {
		if !w.scalar(n, path, "!!str", "!!int", "!!float") {
			return
		}
		q, err := resource.ParseQuantity(n.Value)
		if err != nil {
			w.add(n, CodeBadQuantity, path, fmt.Sprintf("%q is not a quantity", n.Value), "write a Kubernetes quantity such as 500m, 1Gi or 20Gi")
			return
		}
		if q.Sign() <= 0 {
			w.add(n, CodeBadQuantity, path, fmt.Sprintf("%q is not positive", n.Value), "declare a positive amount, or remove the field")
			return
		}
		*dst = Quantity{Quantity: q, Set: true}
	}
}

// duration decodes a timeout PostgreSQL's lock_timeout and
// statement_timeout take: a Go duration in whole milliseconds ("5s",
// "1m30s", "250ms"), or 0 to disable it.
func (w *walker) duration(dst *time.Duration) func(*yaml.Node, string) {
	return func(n *yaml.Node, path string) {
		if !w.scalar(n, path, "!!str", "!!int") {
			return
		}
		d, err := time.ParseDuration(n.Value)
		if n.Value == "0" {
			d, err = 0, nil
		}
		hint := `write a duration such as 5s, 250ms or 10m, or 0 to disable it`
		switch {
		case err != nil:
			w.add(n, CodeContractInvalid, path, fmt.Sprintf("%q is not a duration", n.Value), hint)
		case d < 0 || d > pgtimeout.Max:
			w.add(n, CodeContractInvalid, path, fmt.Sprintf("%q is outside 0 to %s", n.Value, pgtimeout.Max), hint)
		case d%time.Millisecond != 0:
			w.add(n, CodeContractInvalid, path, fmt.Sprintf("%q is not whole milliseconds", n.Value), "PostgreSQL counts timeouts in milliseconds: "+hint)
		default:
			*dst = d
		}
	}
}

func (w *walker) strList(dst *[]string) func(*yaml.Node, string) {
	return func(n *yaml.Node, path string) {
		w.list(n, path, func(item *yaml.Node, ip string) {
			var s string
			w.str(&s)(item, ip)
			*dst = append(*dst, s)
		})
	}
}

func (w *walker) list(n *yaml.Node, path string, each func(*yaml.Node, string)) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return
	}
	if !w.kind(n, path, yaml.SequenceNode) {
		return
	}
	for i, item := range n.Content {
		ip := index(path, i)
		w.record(item, ip)
		each(item, ip)
	}
}

// Quantity is a resource.Quantity that remembers whether it was declared.
type Quantity struct {
	resource.Quantity
	Set bool
}
