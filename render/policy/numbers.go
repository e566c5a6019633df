package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/node"
)

// numbersRule refuses the plain scalars of the built objects that the
// cluster reads otherwise than codeloc. codeloc reads the objects as YAML
// 1.2 (kustomize's kyaml, goyaml v3) and prints every scalar as it was
// written; Argo CD reads that output with sigs.k8s.io/yaml (goyaml v2,
// YAML 1.1: kube.SplitYAMLToString in its config management plugin
// server) and the API server decodes the JSON it makes. So a plain yes is
// the string "yes" to codeloc's checks and the boolean true to the
// cluster, a key on becomes the key "true", and replicas: 0x10 is 16 to
// the cluster while codeloc's checks read the text as written. The rule
// refuses every plain scalar, key or value, that YAML 1.1 and codeloc read
// differently, and every number, boolean or null that either reads but
// that is not written canonically (-?[1-9][0-9]* or 0, a JSON number,
// true, false, null).
//
// It is fast: each scalar costs a look at its first bytes, and only the
// few that may be such a number, boolean or null are printed and read back
// with Argo CD's reader.
type numbersRule struct{}

// Codes of numbersRule: stable, contracts, fixtures and scripts name them.
const (
	CodeYAMLAmbiguous = "yaml-ambiguous-scalar"
)

// Codes are the codes numbersRule emits.
func (numbersRule) Codes() []Code {
	return []Code{
		{CodeYAMLAmbiguous, "A plain scalar reads otherwise to Argo CD (YAML 1.1) than to codeloc (YAML 1.2), or is a number, boolean or null not written canonically (yes, on, 0x10, 010, 1_000, +5, .5, True, ~)."},
	}
}

func (numbersRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	var ps problem.Problems
	var w scalarWalk // one walk, its path reused, for every object
	for _, o := range objs {
		if handledByPolicy(o) {
			continue
		}
		w.faults = w.faults[:0]
		w.walk(o.YNode())
		for _, f := range w.faults {
			ps = append(ps, in.problem(o, CodeYAMLAmbiguous, f.path, f.msg, f.hint))
		}
	}
	return ps
}

// scalarFault is one scalar the cluster reads otherwise than codeloc.
type scalarFault struct{ path, msg, hint string }

// pathStep is one step of a field path: a mapping key, or a sequence index
// when key is "" and index >= 0.
type pathStep struct {
	key   string
	index int
}

// scalarWalk walks an object's nodes, keeping the path to the node it is
// at, and collects the faults of its scalars.
type scalarWalk struct {
	path   []pathStep
	faults []scalarFault
}

func (w *scalarWalk) walk(n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			w.path = append(w.path, pathStep{key: k.Value, index: -1})
			if k.Kind == yaml.ScalarNode {
				if msg, hint, bad := keyFault(k); bad {
					w.add(msg, hint)
				}
			}
			w.walk(v)
			w.path = w.path[:len(w.path)-1]
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			w.path = append(w.path, pathStep{index: i})
			w.walk(c)
			w.path = w.path[:len(w.path)-1]
		}
	case yaml.ScalarNode:
		if msg, hint, bad := valueFault(n); bad {
			w.add(msg, hint)
		}
	}
}

// add records a fault at the current path.
func (w *scalarWalk) add(msg, hint string) {
	var b strings.Builder
	for _, s := range w.path {
		if s.index >= 0 && s.key == "" {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	f := scalarFault{b.String(), msg, hint}
	if len(w.faults) > 0 && w.faults[len(w.faults)-1] == f {
		return // kyaml reads a null key into two entries
	}
	w.faults = append(w.faults, f)
}

// yaml11Words are the plain words YAML 1.1 (goyaml v2) reads as a
// boolean or null, except the canonical true, false and null: YAML 1.2
// reads y, yes, on, n, no, off as strings, and True, FALSE, ~, Null as
// the boolean or null written otherwise.
var yaml11Words = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"n": true, "N": true, "no": true, "No": true, "NO": true,
	"on": true, "On": true, "ON": true, "off": true, "Off": true, "OFF": true,
	"True": true, "TRUE": true, "False": true, "FALSE": true,
	"~": true, "Null": true, "NULL": true,
}

// valueCandidate reports whether a scalar's text may be a number, boolean
// or null to YAML 1.1 or 1.2 that is not written canonically; every other
// text is a string to both, or a canonical number, true, false or null.
// It looks at the first byte, and further only when that starts a number
// or one of yaml11Words.
func valueCandidate(s string) bool {
	if s == "" {
		return false // null to both: an empty value
	}
	switch c := s[0]; {
	case c >= '0' && c <= '9', c == '-', c == '+', c == '.':
		return numberLike(s) && !canonicalNumber(s)
	case c == 'y', c == 'Y', c == 'n', c == 'N', c == 'o', c == 'O', c == 't', c == 'T', c == 'f', c == 'F', c == '~':
		return yaml11Words[s]
	}
	return false
}

// keyCandidate is valueCandidate for a mapping key, which JSON turns into
// a string: a canonical integer, true or false stays the same key, null
// has no key, and << is YAML 1.1's merge key.
func keyCandidate(s string) bool {
	if s == "" || s == "null" || s == "<<" {
		return true
	}
	switch c := s[0]; {
	case c >= '0' && c <= '9', c == '-', c == '+', c == '.':
		return numberLike(s) && (!canonicalInteger(s) || len(s) > 18) // past 18 digits, YAML 1.1 may read a uint64 or a float
	}
	return valueCandidate(s)
}

// numberLike reports whether YAML 1.1 or 1.2 may read s as a number: it
// has only the characters of Go's integer syntax with a base prefix
// (which both resolvers use, after dropping underscores) and of YAML's
// floats, or it is an infinity or NaN. 250m, 1Gi or a timestamp are not.
func numberLike(s string) bool {
	switch strings.TrimLeft(s, "+-") {
	case ".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN":
		return true
	}
	for i := 0; i < len(s); i++ {
		if !numberBytes[s[i]] {
			return false
		}
	}
	return true
}

// numberBytes are the bytes of numberLike's texts.
var numberBytes = func() (t [256]bool) {
	for _, c := range []byte("0123456789abcdefABCDEFxXoO_+-.") {
		t[c] = true
	}
	return t
}()

// canonicalInteger reports whether s is 0 or -?[1-9][0-9]*.
func canonicalInteger(s string) bool {
	digits := strings.TrimPrefix(s, "-")
	if digits == "0" {
		return s == "0"
	}
	if digits == "" || digits[0] == '0' {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

// canonicalNumber reports whether s follows JSON's number grammar,
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?, without -0: YAML 1.1
// and 1.2 both read such a text as the number JSON reads.
func canonicalNumber(s string) bool { return s != "-0" && node.IsJSONNumber(s) }

// valueFault says how the cluster reads the scalar value n otherwise than
// codeloc, or that it is a number, boolean or null not written
// canonically.
func valueFault(n *yaml.Node) (msg, hint string, bad bool) {
	if !printedPlain(n) || !valueCandidate(n.Value) {
		return "", "", false
	}
	argo, err := argoValue(n)
	if err != nil {
		return fmt.Sprintf("Argo CD (YAML 1.1) cannot turn %s into JSON: it fails on the whole render (%s)", n.Value, problem.OneLine(err.Error())),
			fmt.Sprintf("quote it (%s) if it is a string, or write a value JSON can carry (a finite number)", strconv.Quote(n.Value)), true
	}
	ours, err := node.JSON(n)
	if err != nil {
		ours = []byte(strconv.Quote(n.Value))
	}
	quoteIt := fmt.Sprintf("quote it (%s) if it is a string", strconv.Quote(n.Value))
	switch {
	case bytes.Equal(argo, ours) && argo[0] == '"':
		return "", "", false // a string to both
	case !bytes.Equal(argo, ours):
		return fmt.Sprintf("plain %s is %s to Argo CD (YAML 1.1) but %s to codeloc (YAML 1.2)", n.Value, reading(argo), reading(ours)),
			fmt.Sprintf("%s, or write %s", quoteIt, argo), true
	}
	canonical := string(argo)
	if canonical == "null" {
		canonical = "null (or leave the value empty)"
	}
	return fmt.Sprintf("%s is %s to Argo CD (YAML 1.1) and to codeloc (YAML 1.2), written otherwise than %s: codeloc's own checks read the text as written", n.Value, reading(argo), argo),
		fmt.Sprintf("write %s, or %s", canonical, quoteIt), true
}

// keyFault says how the cluster reads the mapping key k otherwise than
// codeloc, which reads every key as its text.
func keyFault(k *yaml.Node) (msg, hint string, bad bool) {
	if !printedPlain(k) || !keyCandidate(k.Value) {
		return "", "", false
	}
	argo, err := argoKey(k)
	if err == nil && argo == k.Value {
		return "", "", false
	}
	hint = fmt.Sprintf("quote the key (%s:), or rename it where a generator makes it", strconv.Quote(k.Value))
	switch {
	case k.Value == "<<" && err != nil:
		return "key << is YAML 1.1's merge key to Argo CD: it merges its value into the mapping, or fails on the whole render, while codeloc reads the key \"<<\"", hint, true
	case err != nil:
		return fmt.Sprintf("Argo CD (YAML 1.1) cannot turn the key %s into a JSON key: it fails on the whole render (%s)", k.Value, problem.OneLine(err.Error())), hint, true
	}
	return fmt.Sprintf("key %s becomes the key %q to Argo CD (YAML 1.1), while codeloc (YAML 1.2) reads the key %q", k.Value, argo, k.Value), hint, true
}

// printedPlain reports whether codeloc may print n as a plain scalar,
// which YAML 1.1 resolves by its text: a quoted or block scalar stays a
// string, and so does a scalar tagged !!str; one tagged otherwise is
// resolved by its tag and text, whatever its quotes.
func printedPlain(n *yaml.Node) bool {
	if n.Style&yaml.TaggedStyle != 0 {
		return n.ShortTag() != yaml.NodeTagString
	}
	return n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0
}

// reading says what a JSON value is, for messages.
func reading(j []byte) string {
	switch s := string(j); {
	case s == "true" || s == "false":
		return "the boolean " + s
	case s == "null":
		return "null (no value)"
	case j[0] == '"':
		return "the string " + s
	default:
		return "the number " + s
	}
}

// argoValue is the JSON Argo CD makes of the scalar n as codeloc prints it:
// sigs.k8s.io/yaml's YAMLToJSON (goyaml v2), which Argo CD's config
// management plugin server runs over the plugin's output
// (gitops-engine's kube.SplitYAMLToString).
func argoValue(n *yaml.Node) (json.RawMessage, error) {
	m, err := argoMapping(&yaml.Node{Kind: yaml.ScalarNode, Value: "v"}, n)
	if err != nil {
		return nil, err
	}
	v, ok := m["v"]
	if !ok || len(v) == 0 {
		return nil, fmt.Errorf("the value was read as no field")
	}
	return v, nil
}

// argoKey is the JSON key Argo CD makes of the mapping key k as codeloc
// prints it.
func argoKey(k *yaml.Node) (string, error) {
	m, err := argoMapping(k, &yaml.Node{Kind: yaml.ScalarNode, Value: "0"})
	if err != nil {
		return "", err
	}
	if len(m) != 1 {
		return "", fmt.Errorf("the key was read as %d fields", len(m))
	}
	for key := range m {
		return key, nil
	}
	return "", nil
}

// argoMapping prints the one-entry mapping k: v as codeloc prints objects
// (kyaml's encoder, which keeps a scalar's style) and reads it back as
// Argo CD does.
func argoMapping(k, v *yaml.Node) (map[string]json.RawMessage, error) {
	scalar := func(n *yaml.Node) *yaml.Node {
		return &yaml.Node{Kind: n.Kind, Tag: n.Tag, Value: n.Value, Style: n.Style}
	}
	text, err := yaml.String(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar(k), scalar(v)}})
	if err != nil {
		return nil, err
	}
	j, err := sigsyaml.YAMLToJSON([]byte(text))
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	return m, nil
}
