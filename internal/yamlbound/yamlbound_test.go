package yamlbound

import (
	"fmt"
	"strings"
	"testing"
)

// laughs is a billion-laughs bomb: levels anchored lists, each holding refs
// aliases of the level below, under key (a ConfigMap's data when key is
// "data", a patch when it is a field of a Deployment).
func laughs(levels, refs int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\n")
	b.WriteString("l0: &l0 [\"lol\"]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [", i, i)
		for j := range refs {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// nested is a document nesting depth flow lists.
func nested(depth int) string {
	return "x: " + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + "\n"
}

func TestCheck(t *testing.T) {
	small := Limits{AliasNodes: 1000, Depth: 20, Bytes: 1 << 20}
	tests := []struct {
		name   string
		data   string
		limits Limits
		want   string // "" for nil, else what, line and column of the refusal
	}{
		{"a manifest", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n", small, ""},
		{"anchors under the limit", "env: &env [{name: A, value: b}]\nc1: {env: *env}\nc2: {env: *env}\n", small, ""},
		{"merge keys under the limit", "base: &b {a: 1, b: 2}\nx: {<<: *b, c: 3}\n", small, ""},
		{"billion laughs, 6 levels", laughs(6, 9), Limits{}, "alias nodes 10:"},
		{"billion laughs, 8 levels", laughs(8, 9), Limits{}, "alias nodes 10:"},
		{"the alias that crosses is reported", laughs(3, 9), small, "alias nodes 8:"},
		{"a bomb in a second document", "a: 1\n---\n" + laughs(6, 9), Limits{}, "alias nodes 12:"},
		{"a bomb through merge keys", "a: &a {x: 1, y: 2}\nb: &b {<<: [*a, *a]}\nc: &c {<<: [*b, *b]}\n", Limits{AliasNodes: 5}, "alias nodes 2:"},
		{"an alias inside its own anchor", "&a [*a]\n", Limits{}, "alias nodes 1:"},
		{"an alias inside its own anchor, under a key", "data: &a {k: [x, *a]}\n", Limits{}, "alias nodes 1:"},
		{"a cycle through two anchors", "a: &a [x, &b [y, *a]]\nc: *b\n", Limits{}, "alias nodes 1:"},
		{"an anchor used beside, not inside, itself", "a: &a [x]\nb: [*a, *a]\n", Limits{}, ""},
		{"nesting", nested(30), small, "levels of nesting 1:"},
		{"nesting at the limit", nested(19), small, ""},
		{"nesting through an alias", "deep: &d " + strings.Repeat("[", 15) + strings.Repeat("]", 15) + "\nx: [[[[[[*d]]]]]]\n", small, "levels of nesting 2:"},
		{"size", "a: " + strings.Repeat("x", 100) + "\n", Limits{Bytes: 64}, "bytes 0:"},
		{"not YAML: not this check's concern", "a: [\n", small, ""},
		{"a generator's text source", "KEY=value\nOTHER=1\n", small, ""},
		{"empty", "", small, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Check([]byte(tt.data), tt.limits)
			got := ""
			if e != nil {
				got = fmt.Sprintf("%s %d:", e.What, e.Line)
			}
			if !strings.HasPrefix(got, tt.want) || (tt.want == "") != (got == "") {
				t.Errorf("Check = %q (%v), want %q", got, e, tt.want)
			}
		})
	}
}

// TestExceededNamesTheSetting: a refusal says the limit and how to raise it.
func TestExceededNamesTheSetting(t *testing.T) {
	e := Check([]byte(laughs(6, 9)), Limits{})
	if e == nil {
		t.Fatal("no refusal")
	}
	msg := e.Error()
	for _, want := range []string{"100000 alias nodes", "--max-yaml-alias-nodes", "CODELOC_MAX_YAML_ALIAS_NODES", "alias *l"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv(EnvAliasNodes, "5000")
	t.Setenv(EnvDepth, "")
	l, err := FromEnv()
	if err != nil || l.AliasNodes != 5000 || l.Depth != DefaultDepth || l.Bytes != DefaultBytes {
		t.Errorf("FromEnv = %+v, %v", l, err)
	}
	t.Setenv(EnvBytes, "-1")
	if _, err := FromEnv(); err == nil || !strings.Contains(err.Error(), EnvBytes) {
		t.Errorf("FromEnv with a negative size: %v", err)
	}
}

// BenchmarkCheckBomb is the cost of refusing an 8-level bomb (9^8 = 43
// million nodes once expanded): one pass over a few hundred parsed nodes.
func BenchmarkCheckBomb(b *testing.B) {
	data := []byte(laughs(8, 9))
	for b.Loop() {
		if Check(data, Limits{}) == nil {
			b.Fatal("not refused")
		}
	}
}

// TestCycleSaysWhy: an alias inside its own anchor is refused for what it
// is, at the alias, not as a count (kyaml would recurse until the stack
// overflows and the process dies: FuzzRender found it).
func TestCycleSaysWhy(t *testing.T) {
	e := Check([]byte("x: 1\ny: &a [b, *a]\n"), Limits{})
	if e == nil {
		t.Fatal("no refusal")
	}
	if e.Line != 2 || e.Column != 11 || !strings.Contains(e.Error(), "alias *a expands without end") {
		t.Errorf("Check = %d:%d %q", e.Line, e.Column, e.Error())
	}
}

// TestParseReturnsWhatItChecked: the documents up to the first syntax
// error, with their stream line numbers; nothing past a limit.
func TestParseReturnsWhatItChecked(t *testing.T) {
	small := Limits{AliasNodes: 1000, Depth: 20, Bytes: 1 << 20}
	tests := []struct {
		name  string
		data  string
		lines []int // the line of each document's first node; nil: refused
	}{
		{"three documents", "a: 1\n---\nb: 2\n---\n- c\n", []int{1, 3, 5}},
		{"stops at a syntax error", "a: 1\n---\nb: [\n---\nc: 3\n", []int{1}},
		{"empty", "", []int{}},
		{"a bomb after a good document", "a: 1\n---\n" + laughs(9, 9), nil},
		{"too deep", "a: 1\n---\n" + nested(25), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, e := Parse([]byte(tt.data), small)
			if tt.lines == nil {
				if e == nil || docs != nil {
					t.Fatalf("Parse = %d documents, %v; want a refusal and none", len(docs), e)
				}
				return
			}
			if e != nil {
				t.Fatal(e)
			}
			got := []int{}
			for _, d := range docs {
				got = append(got, d.Content[0].Line)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.lines) {
				t.Errorf("document lines %v, want %v", got, tt.lines)
			}
		})
	}
}
