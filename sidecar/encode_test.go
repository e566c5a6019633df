package sidecar

import (
	"encoding/json"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/argocdref"
	"github.com/codeloc/codeloc/render/node"
)

// TestEncodeJSON checks that node.AppendJSON gives what Argo CD's repo-server
// read from the sidecar before: the object's YAML (kyaml's String), split
// and converted to JSON by gitops-engine's SplitYAMLToString, as the stock
// cmp-server does with a command's output.
func TestEncodeJSON(t *testing.T) {
	tests := []struct {
		name, doc string
	}{
		{"strings that look like other things", `
kind: ConfigMap
data: {a: "yes", b: "on", c: "1.0", d: "0755", e: "null", f: "true", g: "", h: "~", i: "2024-01-01", j: "0x1F"}
`},
		{"escapes and unicode", "kind: ConfigMap\ndata:\n  q: \"say \\\"hi\\\" \\\\ back\"\n  tab: \"a\\tb\\r\\n\"\n  ctl: \"\\x01\\x1f\\x7f\"\n  uni: \"é ☃ 𝄞 \\u2028 \\u2029\"\n  html: \"<a href='x'>&amp;</a>\"\n" +
			"  block: |\n    line one\n    line two\n  folded: >\n    folded\n    text\n"},
		{"integers", `
kind: X
spec: {a: 1, b: -5, c: 0, d: 0x1F, e: 1000000, f: 9223372036854775807, g: +3, h: -0, i: 1_000, j: 0b101}
`},
		{"floats", `
kind: X
spec: {a: 1.5, b: 1e3, c: -0.25, d: 2.5E-3, e: 1.0}
`},
		{"booleans and nulls", `
kind: X
spec: {a: true, b: false, c: True, d: FALSE, e: null, f: ~}
g:
`},
		{"timestamps stay strings", `
kind: X
metadata: {annotations: {a: 2024-01-01, b: 2001-12-14t21:59:43.10-05:00}}
`},
		{"keys of other types", `
kind: X
data: {1: one, true: "yes", 2.5: x}
`},
		{"anchors and aliases", `
kind: X
base: &b {cpu: 100m, memory: 1Gi}
one: *b
list: [*b, {x: 1}]
`},
		{"nesting and empties", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: a, labels: {}}
spec:
  template:
    spec:
      containers:
      - name: c
        args: []
        env: [{name: A, value: "1"}, {name: B}]
        resources: {limits: {cpu: "1", memory: 512Mi}}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rn, err := yaml.Parse(tt.doc)
			if err != nil {
				t.Fatal(err)
			}
			got, err := node.AppendJSON(nil, rn.YNode())
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(got) {
				t.Fatalf("not JSON: %s", got)
			}
			s, err := rn.String()
			if err != nil {
				t.Fatal(err)
			}
			old, err := argocdref.SplitYAMLToString(t, []byte(s))
			if err != nil || len(old) != 1 {
				t.Fatalf("SplitYAMLToString: %v %v", old, err)
			}
			var want, have any
			must(t, json.Unmarshal([]byte(old[0]), &want))
			must(t, json.Unmarshal(got, &have))
			if diff := gocmp.Diff(want, have); diff != "" {
				t.Errorf("AppendJSON differs from YAML through SplitYAMLToString (-old +new):\n%s\nnew: %s", diff, got)
			}
		})
	}
}

// TestEncodeJSONYAML12 pins where node.AppendJSON reads a scalar as YAML 1.2
// (as kustomize and the render's own checks read it), where converting the
// YAML output with YAML 1.1 rules did not: yes/no/on/off/y/n are strings,
// an empty value is null.
func TestEncodeJSONYAML12(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"a: yes", `{"a":"yes"}`},
		{"a: No", `{"a":"No"}`},
		{"a: on", `{"a":"on"}`},
		{"a: OFF", `{"a":"OFF"}`},
		{"a: y", `{"a":"y"}`},
		{"m: {a: }", `{"m":{"a":null}}`},
		{"a: -0", `{"a":0}`},
	}
	for _, tt := range tests {
		rn, err := yaml.Parse(tt.doc)
		must(t, err)
		got, err := node.AppendJSON(nil, rn.YNode())
		if err != nil || string(got) != tt.want {
			t.Errorf("%q: %s (%v), want %s", tt.doc, got, err, tt.want)
		}
	}
}
