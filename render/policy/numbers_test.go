package policy

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/internal/benchrepo"
	"github.com/codeloc/codeloc/internal/fsys"
	"github.com/codeloc/codeloc/render/build"
	"github.com/codeloc/codeloc/render/node"
	"github.com/codeloc/codeloc/validate"
)

// widget is a custom object whose spec.v is the plain text v.
func widget(v string) string {
	return "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: citation-w}\nspec:\n  v: " + v + "\n"
}

// dataKey is a ConfigMap whose data has the key k.
func dataKey(k string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: citation-c}\ndata:\n  " + k + ": x\n"
}

func TestNumbersValues(t *testing.T) {
	const at = "yaml-ambiguous-scalar Widget/citation-w.spec.v: "
	const written = " to codeloc (YAML 1.2), written otherwise than "
	const checks = ": codeloc's own checks read the text as written"
	tests := []struct {
		value string
		want  string // "" when allowed
	}{
		// Numbers not in plain decimal: the same number to both readers,
		// but codeloc passes the text on and its checks read it as written.
		{"0x10", at + "0x10 is the number 16 to Argo CD (YAML 1.1) and" + written + "16" + checks},
		{"0X1f", at + "0X1f is the number 31 to Argo CD (YAML 1.1) and" + written + "31" + checks},
		{"010", at + "010 is the number 8 to Argo CD (YAML 1.1) and" + written + "8" + checks},
		{"0123", at + "0123 is the number 83 to Argo CD (YAML 1.1) and" + written + "83" + checks},
		{"089", at + "089 is the number 89 to Argo CD (YAML 1.1) and" + written + "89" + checks},
		{"0o10", at + "0o10 is the number 8 to Argo CD (YAML 1.1) and" + written + "8" + checks},
		{"0b101", at + "0b101 is the number 5 to Argo CD (YAML 1.1) and" + written + "5" + checks},
		{"-0b11", at + "-0b11 is the number -3 to Argo CD (YAML 1.1) and" + written + "-3" + checks},
		{"1_000", at + "1_000 is the number 1000 to Argo CD (YAML 1.1) and" + written + "1000" + checks},
		{"1__0", at + "1__0 is the number 10 to Argo CD (YAML 1.1) and" + written + "10" + checks},
		{"0x_10", at + "0x_10 is the number 16 to Argo CD (YAML 1.1) and" + written + "16" + checks},
		{"+0x10", at + "+0x10 is the number 16 to Argo CD (YAML 1.1) and" + written + "16" + checks},
		{"+5", at + "+5 is the number 5 to Argo CD (YAML 1.1) and" + written + "5" + checks},
		{".5", at + ".5 is the number 0.5 to Argo CD (YAML 1.1) and" + written + "0.5" + checks},
		{"5.", at + "5. is the number 5 to Argo CD (YAML 1.1) and" + written + "5" + checks},
		{"-0", at + "-0 is the number 0 to Argo CD (YAML 1.1) and" + written + "0" + checks},
		{"1.5E+3", ""},
		{"1e3", ""},
		{"1.0", ""},
		{"-12", ""},
		{"0", ""},
		{"99999999999999999999", ""},
		// YAML 1.1's booleans: strings to codeloc, booleans to the cluster.
		{"yes", at + `plain yes is the boolean true to Argo CD (YAML 1.1) but the string "yes" to codeloc (YAML 1.2)`},
		{"Yes", at + `plain Yes is the boolean true to Argo CD (YAML 1.1) but the string "Yes" to codeloc (YAML 1.2)`},
		{"y", at + `plain y is the boolean true to Argo CD (YAML 1.1) but the string "y" to codeloc (YAML 1.2)`},
		{"on", at + `plain on is the boolean true to Argo CD (YAML 1.1) but the string "on" to codeloc (YAML 1.2)`},
		{"ON", at + `plain ON is the boolean true to Argo CD (YAML 1.1) but the string "ON" to codeloc (YAML 1.2)`},
		{"off", at + `plain off is the boolean false to Argo CD (YAML 1.1) but the string "off" to codeloc (YAML 1.2)`},
		{"N", at + `plain N is the boolean false to Argo CD (YAML 1.1) but the string "N" to codeloc (YAML 1.2)`},
		{"NO", at + `plain NO is the boolean false to Argo CD (YAML 1.1) but the string "NO" to codeloc (YAML 1.2)`},
		// Booleans and nulls written otherwise.
		{"True", at + "True is the boolean true to Argo CD (YAML 1.1) and" + written + "true" + checks},
		{"FALSE", at + "FALSE is the boolean false to Argo CD (YAML 1.1) and" + written + "false" + checks},
		{"~", at + "~ is null (no value) to Argo CD (YAML 1.1) and" + written + "null" + checks},
		{"Null", at + "Null is null (no value) to Argo CD (YAML 1.1) and" + written + "null" + checks},
		{"NULL", at + "NULL is null (no value) to Argo CD (YAML 1.1) and" + written + "null" + checks},
		{"true", ""},
		{"false", ""},
		{"null", ""},
		{"", ""},
		// Floats JSON cannot carry: Argo CD fails on the whole stream.
		{".inf", at + "Argo CD (YAML 1.1) cannot turn .inf into JSON: it fails on the whole render (json: unsupported value: +Inf)"},
		{"-.Inf", at + "Argo CD (YAML 1.1) cannot turn -.Inf into JSON: it fails on the whole render (json: unsupported value: -Inf)"},
		{".NaN", at + "Argo CD (YAML 1.1) cannot turn .NaN into JSON: it fails on the whole render (json: unsupported value: NaN)"},
		// Strings to both readers.
		{"5d2e8b4", ""},
		{"1.2.3", ""},
		{"0.0.0.0", ""},
		{"2024-01-02", ""},
		{"2024-01-02T10:00:00Z", ""},
		{"12:30", ""},
		{"250m", ""},
		{"-foo", ""},
		{"0b2", ""},
		{"1e", ""},
		{"yesterday", ""},
		{"onion", ""},
		{"Nope", ""},
		{"٣", ""},
		// Quoted, tagged or block scalars are strings whatever they say.
		{`"yes"`, ""},
		{`'0x10'`, ""},
		{"!!str on", ""},
		{"|\n    yes", ""},
		{">-\n    0x10", ""},
		// A plain scalar over two lines is one string.
		{"0x10\n    yes", ""},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			in := podRuleInstance(t, nil)
			got := podRuleLines(check(t, numbersRule{}, in, parseObjects(t, widget(tt.value))))
			var want []string
			if tt.want != "" {
				want = []string{tt.want}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNumbersKeys(t *testing.T) {
	const at = "yaml-ambiguous-scalar ConfigMap/citation-c.data."
	tests := []struct {
		key  string
		want string
	}{
		{"on", at + `on: key on becomes the key "true" to Argo CD (YAML 1.1), while codeloc (YAML 1.2) reads the key "on"`},
		{"yes", at + `yes: key yes becomes the key "true" to Argo CD (YAML 1.1), while codeloc (YAML 1.2) reads the key "yes"`},
		{"OFF", at + `OFF: key OFF becomes the key "false" to Argo CD (YAML 1.1), while codeloc (YAML 1.2) reads the key "OFF"`},
		{"True", at + `True: key True becomes the key "true" to Argo CD (YAML 1.1), while codeloc (YAML 1.2) reads the key "True"`},
		{"010", at + `010: key 010 becomes the key "8" to Argo CD (YAML 1.1), while codeloc (YAML 1.2) reads the key "010"`},
		{"0x10", at + `0x10: key 0x10 becomes the key "16" to Argo CD (YAML 1.1), while codeloc (YAML 1.2) reads the key "0x10"`},
		{"1.0", at + `1.0: key 1.0 becomes the key "1" to Argo CD (YAML 1.1), while codeloc (YAML 1.2) reads the key "1.0"`},
		{"1e3", at + `1e3: key 1e3 becomes the key "1000" to Argo CD (YAML 1.1), while codeloc (YAML 1.2) reads the key "1e3"`},
		{"-0", at + `-0: key -0 becomes the key "0" to Argo CD (YAML 1.1), while codeloc (YAML 1.2) reads the key "-0"`},
		{"1_0", at + `1_0: key 1_0 becomes the key "10" to Argo CD (YAML 1.1), while codeloc (YAML 1.2) reads the key "1_0"`},
		{"~", at + `~: Argo CD (YAML 1.1) cannot turn the key ~ into a JSON key: it fails on the whole render (unsupported map key of type: %!s(<nil>), key: <nil>, value: 0)`},
		{"null", at + `null: Argo CD (YAML 1.1) cannot turn the key null into a JSON key: it fails on the whole render (unsupported map key of type: %!s(<nil>), key: <nil>, value: 0)`},
		{"18446744073709551615", at + `18446744073709551615: Argo CD (YAML 1.1) cannot turn the key 18446744073709551615 into a JSON key: it fails on the whole render (unsupported map key of type: uint64, key: 0xffffffffffffffff, value: 0)`},
		{"9223372036854775808", at + `9223372036854775808: Argo CD (YAML 1.1) cannot turn the key 9223372036854775808 into a JSON key: it fails on the whole render (unsupported map key of type: uint64, key: 0x8000000000000000, value: 0)`},
		{"18446744073709551616", at + `18446744073709551616: key 18446744073709551616 becomes the key "1.8446744e+19" to Argo CD (YAML 1.1), while codeloc (YAML 1.2) reads the key "18446744073709551616"`},
		{"9223372036854775807", ""},
		{"-9223372036854775808", ""},
		{"1", ""},
		{"80", ""},
		{"-3", ""},
		{"0.1", ""},
		{"1.5", ""},
		{"true", ""},
		{"false", ""},
		{"online", ""},
		{"2024-01-02", ""},
		{"1.2.3", ""},
		{`"on"`, ""},
		{`'010'`, ""},
		{`""`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			in := podRuleInstance(t, nil)
			got := podRuleLines(check(t, numbersRule{}, in, parseObjects(t, dataKey(tt.key))))
			var want []string
			if tt.want != "" {
				want = []string{tt.want}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNumbersMergeKey: kyaml expands a merge key as it reads a file, so
// none reaches the rule from one; a node made otherwise is refused.
func TestNumbersMergeKey(t *testing.T) {
	msg, hint, bad := keyFault(&yaml.Node{Kind: yaml.ScalarNode, Value: "<<"})
	want := `key << is YAML 1.1's merge key to Argo CD: it merges its value into the mapping, or fails on the whole render, while codeloc reads the key "<<"`
	if !bad || msg != want || hint != `quote the key ("<<":), or rename it where a generator makes it` {
		t.Errorf("keyFault(<<) = %q, %q, %v", msg, hint, bad)
	}
	if _, _, bad := keyFault(&yaml.Node{Kind: yaml.ScalarNode, Value: "<<", Style: yaml.DoubleQuotedStyle}); bad {
		t.Error(`a quoted "<<" is a key`)
	}
}

// TestNumbersInObjects checks where the problems go and their hints, in
// the fields the cluster decodes: an env value Argo CD turns into a
// boolean (the API server then refuses the Deployment), replicas and
// ports in hexadecimal and octal, a label key and value.
func TestNumbersInObjects(t *testing.T) {
	objects := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: citation-dagster
  labels: {on: "x", tier: backend}
spec:
  replicas: 0x10
  template:
    spec:
      containers:
        - name: app
          image: registry:80/citation-dagster:a3f9c1d
          env:
            - {name: A, value: yes}
            - {name: B, value: "yes"}
          ports:
            - containerPort: 010
          args: [--workers, +5, "--debug", off]
---
apiVersion: v1
kind: Secret
metadata: {name: citation-s}
data: {on: eA==}
`
	in := podRuleInstance(t, nil)
	var got []string
	for _, p := range check(t, numbersRule{}, in, parseObjects(t, objects)) {
		got = append(got, p.Path+": "+p.Hint)
	}
	want := []string{
		`Deployment/citation-dagster.metadata.labels.on: quote the key ("on":), or rename it where a generator makes it`,
		`Deployment/citation-dagster.spec.replicas: write 16, or quote it ("0x10") if it is a string`,
		`Deployment/citation-dagster.spec.template.spec.containers[0].env[0].value: quote it ("yes") if it is a string, or write true`,
		`Deployment/citation-dagster.spec.template.spec.containers[0].ports[0].containerPort: write 8, or quote it ("010") if it is a string`,
		`Deployment/citation-dagster.spec.template.spec.containers[0].args[1]: write 5, or quote it ("+5") if it is a string`,
		`Deployment/citation-dagster.spec.template.spec.containers[0].args[3]: quote it ("off") if it is a string, or write false`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestNumbersHints checks the hints of nulls and of floats JSON cannot
// carry.
func TestNumbersHints(t *testing.T) {
	tests := []struct{ value, want string }{
		{"~", `write null (or leave the value empty), or quote it ("~") if it is a string`},
		{".inf", `quote it (".inf") if it is a string, or write a value JSON can carry (a finite number)`},
	}
	for _, tt := range tests {
		objs := parseObjects(t, widget(tt.value))
		ps := check(t, numbersRule{}, podRuleInstance(t, nil), objs)
		if len(ps) != 1 || ps[0].Hint != tt.want {
			t.Errorf("%s: %v, want the hint %q", tt.value, ps, tt.want)
		}
	}
}

// numbersTexts are scalar texts for the property tests, hostile ones
// included: every spelling YAML 1.1 or 1.2 gives a meaning to.
var numbersTexts = []string{
	"0", "1", "-1", "+1", "01", "010", "0o10", "0O10", "0x10", "0X10", "0xg", "0b1", "0B1", "-0b1", "+0b1", "-0x10", "-0o7", "0o8",
	"1_000", "_1", "1_", "1__0", "0x_1", "1_0.5", "1.", ".1", "-.1", "+.1", "1.e3", "1e3", "1E3", "1e+3", "1e-3", "1.5e3", "1e", "e3",
	"-0", "-0.0", "0.0", "00", "0.10", "1.0", "12:30", "1:2:3", "190:20:30", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-1-2",
	"9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616", "-9223372036854775809",
	".inf", ".Inf", ".INF", "+.inf", "-.inf", ".nan", ".NaN", ".NAN", ".Nan", "inf", "nan",
	"y", "Y", "yes", "Yes", "YES", "yEs", "n", "N", "no", "No", "NO", "nO", "on", "On", "ON", "oN", "off", "Off", "OFF",
	"true", "True", "TRUE", "tRUE", "false", "False", "FALSE", "t", "f", "null", "Null", "NULL", "nULL", "~", "",
	"=", "<<", "-", "+", ".", "..", "0.0.0.0", "5d2e8b4", "250m", "1Gi", "-1Gi", "1e3m", "0x10Mi", "١٢",
}

// sameJSON reports whether two JSON documents mean the same value
// (numbers compared as numbers: 1.0 and 1 are one value).
func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// checkAgainstArgo is the rule's contract, checked against Argo CD's
// reader itself (sigs.k8s.io/yaml over the text codeloc prints): when
// Argo CD reads a key or a value of an object otherwise than codeloc, or
// cannot read it, the rule refuses it.
func checkAgainstArgo(t *testing.T, doc string) {
	t.Helper()
	objs, err := kio.FromBytes([]byte(doc))
	if err != nil || len(objs) != 1 {
		return // not one object: kustomize refuses it first
	}
	ours, err := node.JSON(objs[0].YNode())
	if err != nil {
		return // wellFormedRule's (or kustomize's) to refuse
	}
	printed, err := objs[0].String()
	if err != nil {
		t.Fatal(err)
	}
	argo, argoErr := sigsyaml.YAMLToJSON([]byte(printed))
	if argoErr == nil && sameJSON(argo, ours) {
		return
	}
	in := podRuleInstance(t, nil)
	if ps := check(t, numbersRule{}, in, objs); len(ps) == 0 {
		t.Errorf("Argo CD reads %q otherwise (%s, error %v) than codeloc (%s), and the rule says nothing", doc, argo, argoErr, ours)
	}
}

// TestNumbersAgainstArgo checks the rule against Argo CD's reader for
// every text of numbersTexts, as a value, a key and a list item.
func TestNumbersAgainstArgo(t *testing.T) {
	for _, s := range numbersTexts {
		checkAgainstArgo(t, widget(s))
		checkAgainstArgo(t, dataKey(s))
		checkAgainstArgo(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: citation-w}\nspec: {v: ["+s+"]}\n")
	}
}

// TestNumbersCanonicalOnly checks the other half of the rule: what it
// lets through as a value is a string to both readers, or a number,
// boolean or null written canonically.
func TestNumbersCanonicalOnly(t *testing.T) {
	for _, s := range numbersTexts {
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: s}
		if _, _, bad := valueFault(n); bad {
			continue
		}
		j, err := argoValue(n)
		if err != nil {
			t.Errorf("%q: the rule lets through what Argo CD cannot read: %v", s, err)
			continue
		}
		if j[0] != '"' && s != "" && !canonicalNumber(s) && s != "true" && s != "false" && s != "null" {
			t.Errorf("%q: the rule lets through %s, not written canonically", s, j)
		}
	}
}

// FuzzNumbers checks the rule against Argo CD's reader for any text, as
// a value and as a key: go test ./render/policy -run '^$' -fuzz FuzzNumbers.
func FuzzNumbers(f *testing.F) {
	for _, s := range numbersTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "\n\r#:{}[],&*!|>'\"%@`") {
			return // not one plain scalar
		}
		checkAgainstArgo(t, widget(s))
		checkAgainstArgo(t, dataKey(s))
	})
}

// BenchmarkNumbers walks every scalar of the allpaths fixture's objects
// and of a generated code-location of 1,000 objects, as kustomize builds
// them.
func BenchmarkNumbers(b *testing.B) {
	generated := b.TempDir()
	if err := benchrepo.Write(generated, 1000, 1); err != nil {
		b.Fatal(err)
	}
	for _, root := range []string{filepath.Join("..", "..", "fixtures", "allpaths"), generated} {
		built := build.Build(fsys.Disk(), root, build.Options{})
		if built.Objects == nil {
			b.Fatal(built.Problems)
		}
		c := exampleContract(b, nil)
		in := NewContext(&validate.Declaration{CodeLocation: "citation"}, c, built.Locator)
		name := filepath.Base(root)
		if root == generated {
			name = "generated"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if ps := check(b, numbersRule{}, in, built.Objects); len(ps) > 0 {
					b.Fatal(ps)
				}
			}
			perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(perOp/float64(len(built.Objects)), "ns/object")
			b.ReportMetric(perOp/float64(countNodes(built.Objects)), "ns/node")
		})
	}
}

// countNodes is the number of YAML nodes of objs.
func countNodes(objs []*yaml.RNode) int {
	n := 0
	var count func(*yaml.Node)
	count = func(y *yaml.Node) {
		n++
		for _, c := range y.Content {
			count(c)
		}
	}
	for _, o := range objs {
		count(o.YNode())
	}
	return n
}

// TestNumbersWhereIntegersGo: a canonical float where the API type has an
// integer (replicas: 1e3, a port 80.0) passes numbersRule, and the strict
// decode refuses it, as the API server would.
func TestNumbersWhereIntegersGo(t *testing.T) {
	objects := `apiVersion: apps/v1
kind: Deployment
metadata: {name: citation-dagster}
spec:
  replicas: 1e3
  template:
    spec:
      containers:
        - {name: app, ports: [{containerPort: 80.0}]}
`
	in := podRuleInstance(t, nil)
	objs := parseObjects(t, objects)
	if ps := check(t, numbersRule{}, in, objs); len(ps) > 0 {
		t.Errorf("numbersRule: %v", ps)
	}
	var got []string
	for _, p := range check(t, wellFormedRule{}, in, objs) {
		got = append(got, p.Code+" "+p.Path+": "+p.Message)
	}
	want := []string{"object-malformed Deployment/citation-dagster.spec.replicas: spec.replicas is the number 1e3, not int32"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("wellFormedRule (-want +got):\n%s", diff)
	}
}
