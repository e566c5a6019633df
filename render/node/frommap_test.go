package node

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// fromMap must give what yaml.FromMap gives: the same printed bytes and the
// same node tree (kinds, tags, values). Styles may differ where the encoder
// picks the quoting itself (FromMap's nodes remember the quotes it printed,
// ours ask for none and get the same quotes when printed).
func checkSameAsFromMap(t *testing.T, v map[string]any) {
	t.Helper()
	want, wantErr := yaml.FromMap(v)
	got, err := FromMap(v)
	if wantErr != nil || err != nil {
		if wantErr == nil || err == nil || err.Error() != wantErr.Error() {
			t.Fatalf("FromMap(%#v): error %v, yaml.FromMap: error %v", v, err, wantErr)
		}
		return
	}
	ws, gs := want.MustString(), got.MustString()
	if ws != gs {
		t.Fatalf("FromMap(%#v) prints\n%s\nyaml.FromMap prints\n%s", v, gs, ws)
	}
	if w, g := nodeShape(want.YNode()), nodeShape(got.YNode()); w != g {
		t.Fatalf("FromMap(%#v) nodes\n%s\nyaml.FromMap nodes\n%s", v, g, w)
	}
}

func nodeShape(n *yaml.Node) string {
	var b strings.Builder
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		fmt.Fprintf(&b, "%s%d %s %q\n", strings.Repeat(" ", depth), n.Kind, n.Tag, n.Value)
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

var trickyStrings = []string{
	"", " ", "a", "PreSync", "0", "1", "-1", "007", "0x1F", "0o17", "0b101", "1e3", "1.5", ".5", ".inf", "-.Inf", ".nan",
	"true", "false", "True", "FALSE", "yes", "No", "on", "OFF", "y", "n", "null", "Null", "~",
	"1:20", "-1:20:30.5", "12:60", "190:20:30", "2001-12-14", "2001-12-14t21:59:43.10-05:00",
	"registry:80/codeloc:0.1.0", "a: b", "a:b", "- x", "-x", "? x", "#c", "a #c", "a#c", "*ref", "&anchor", "!tag", "%dir",
	"@x", "`x", "'q'", `"q"`, "{a}", "[a]", "a,b", "|", ">", " lead", "trail ", "tab\tx", "é", "日本", "\u00a0",
	"one\ntwo", "one\ntwo\n", "one\n\n", "\nlead", "trailing space \nline", "tab\n\tindent", " lead\nx", "x\r\ny", "---", "...",
	"--- x", "\ufeffbom", "\x7f", "a\x00b", "Prune=false,Delete=false", "FallbackToLogsOnError", "16Mi", "500m", "100Gi",
	"-- codeloc:no-transaction\nCREATE INDEX CONCURRENTLY x ON y (z);\n",
}

func TestFromMapTricky(t *testing.T) {
	for _, s := range trickyStrings {
		checkSameAsFromMap(t, map[string]any{"v": s, s + "k": []any{s, 3, true}})
	}
	checkSameAsFromMap(t, map[string]any{
		"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": "x", "labels": map[string]any{"a.b/c": "d"}},
		"spec": map[string]any{"backoffLimit": 1, "n": -3, "ok": false, "list": []any{map[string]any{"a": "b"}, []any{}, map[string]any{}}},
	})
	keys := map[string]any{}
	for _, k := range []string{"999-a.sql", "1000-b.sql", "001-x.sql", "010-y.sql", "10-y.sql", "a10", "a9", "a09", "a010", "b", "B", "_x", "-x", "x1y", "x10y", "x1", "x", "é", "0", "00", "", "1.5", "1_0"} {
		keys[k] = k
	}
	checkSameAsFromMap(t, keys)
	// Fallback: what fromMap does not build itself, errors included.
	checkSameAsFromMap(t, map[string]any{"float": 1.5, "strs": []string{"a", "1"}, "nil": nil, "bad": "a\xffb"})
	checkSameAsFromMap(t, map[string]any{"sql": "\tSELECT 1;\n"})
	checkSameAsFromMap(t, map[string]any{"a\tb\nc": 1})
}

// TestFromMapRandom compares fromMap with yaml.FromMap on random maps whose
// keys and values mix the characters YAML cares about.
func TestFromMapRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const chars = "ab09:#- '\"\n\n\t\t\r.,{}[]|>!&*?%@`~yYnNoOeE_é\u0085\u2028\ufeff\x00\x1b\u00a0😀"
	runes := []rune(chars)
	str := func() string {
		s := make([]rune, r.IntN(8))
		for i := range s {
			s[i] = runes[r.IntN(len(runes))]
		}
		return string(s)
	}
	var value func(depth int) any
	value = func(depth int) any {
		switch k := r.IntN(6); {
		case k == 0 && depth < 3:
			m := map[string]any{}
			for range r.IntN(5) {
				m[str()] = value(depth + 1)
			}
			return m
		case k == 1 && depth < 3:
			var l []any
			for range r.IntN(4) {
				l = append(l, value(depth+1))
			}
			return l
		case k == 2:
			return r.IntN(2000) - 1000
		case k == 3:
			return r.IntN(2) == 0
		default:
			return str()
		}
	}
	n := 5000
	if testing.Short() {
		n = 500
	}
	for range n {
		m := map[string]any{}
		for range 1 + r.IntN(6) {
			m[str()] = value(0)
		}
		checkSameAsFromMap(t, m)
	}
}
