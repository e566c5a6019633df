package check

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// TestContractParseOrder: parsing the contract first, and a ConfigMap only
// when that parse refuses the document, reads every input as unwrapping
// first always did: the same problems, or the same contract, bytes and
// origin. Only the number of parses changes. A document that is not a
// mapping is not a ConfigMap (kyaml's GetKind panicked on a list).
func TestContractParseOrder(t *testing.T) {
	contract := string(validate.ExampleContract)
	quoted := strconv.Quote(contract)
	printed := string(configMapOf(t, map[string]string{DefaultContractKey: contract}))
	inputs := map[string]string{
		"the contract":                   contract,
		"a ConfigMap as kubectl prints":  printed,
		"a ConfigMap, CRLF":              strings.ReplaceAll(printed, "\n", "\r\n"),
		"a ConfigMap in flow style":      `{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: argocd}, data: {contract.yaml: ` + quoted + `}}`,
		"a ConfigMap, kind escaped":      "apiVersion: v1\nkind: \"Con\\x66igMap\"\nmetadata: {name: c, namespace: argocd}\ndata:\n  contract.yaml: " + quoted + "\n",
		"a ConfigMap, kind indented":     "apiVersion: v1\nmetadata: {name: c, namespace: argocd}\ndata: {contract.yaml: " + quoted + "}\n  # x\n" + "kind:   ConfigMap\n",
		"a ConfigMap without the key":    string(configMapOf(t, map[string]string{"a.yaml": "x", "b.yaml": "y"})),
		"a ConfigMap of a bad contract":  string(configMapOf(t, map[string]string{DefaultContractKey: "contractVersions: [2]\nsurprise: 1\n"})),
		"apiVersion v2 kind ConfigMap":   strings.Replace(printed, "apiVersion: v1", "apiVersion: v2", 1),
		"a bad contract":                 contract + "surprise: 1\n",
		"a contract of kind ConfigMap":   strings.Replace(contract, "kind: ClusterContract", "kind: ConfigMap", 1),
		"not YAML":                       "{[",
		"empty":                          "",
		"a list":                         "- kind: ConfigMap\n",
		"two documents, a ConfigMap 2nd": contract + "---\n" + printed,
		"two documents, a ConfigMap 1st": printed + "---\n" + contract,
	}
	for name, in := range inputs {
		for _, key := range []string{"", "b.yaml"} {
			c, data, origin, problems := parseContractOrConfigMap("f.yaml", []byte(in), "file f.yaml", key)
			wc, wdata, worigin, wproblems := unwrapFirst("f.yaml", []byte(in), "file f.yaml", key)
			// With problems, ReadContract returns them alone.
			if !reflect.DeepEqual(problems.Sorted(), wproblems.Sorted()) ||
				len(problems) == 0 && (!reflect.DeepEqual(c, wc) || string(data) != string(wdata) || origin != worigin) {
				t.Errorf("%s, key %q: got (%v, %q, %v), unwrapping first gives (%v, %q, %v)", name, key, c != nil, origin, problems, wc != nil, worigin, wproblems)
			}
		}
	}
	if c, _, origin, problems := parseContractOrConfigMap("f.yaml", []byte(inputs["a ConfigMap in flow style"]), "stdin", ""); c == nil || len(problems) > 0 || !strings.HasPrefix(origin, "ConfigMap argocd/c") {
		t.Errorf("a ConfigMap in flow style: %v, origin %q; want its contract", problems, origin)
	}
}

// unwrapFirst is how ReadContract read a document before it parsed the
// contract first: a ConfigMap's key when it is one, else the document.
func unwrapFirst(file string, data []byte, origin, key string) (*validate.Contract, []byte, string, problem.Problems) {
	inner, at, _, p := fromConfigMap(data, origin, key)
	if p != nil {
		return nil, nil, "", problem.Problems{*p}
	}
	c, problems := validate.ParseContract(file, inner)
	return c, inner, at, problems
}

// FuzzContractParseOrder: whatever the document, reading it never panics
// and gives what unwrapping a ConfigMap first gives (TestContractParseOrder's
// property).
func FuzzContractParseOrder(f *testing.F) {
	f.Add(string(validate.ExampleContract), "")
	f.Add("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: argocd}\ndata: {contract.yaml: 'contractVersions: [2]'}\n", "")
	f.Add("{apiVersion: v1, kind: ConfigMap, data: {a.yaml: x, b.yaml: y}}", "b.yaml")
	f.Add("- kind: ConfigMap\n", "")
	f.Add("kind: \"Con\\x66igMap\"\napiVersion: v1\ndata: {}\n", "")
	f.Fuzz(func(t *testing.T, doc, key string) {
		if len(doc) > 64<<10 {
			t.Skip()
		}
		c, data, origin, problems := parseContractOrConfigMap("f.yaml", []byte(doc), "stdin", key)
		wc, wdata, worigin, wproblems := unwrapFirst("f.yaml", []byte(doc), "stdin", key)
		if !reflect.DeepEqual(problems.Sorted(), wproblems.Sorted()) ||
			len(problems) == 0 && (!reflect.DeepEqual(c, wc) || string(data) != string(wdata) || origin != worigin) {
			t.Errorf("got (%v, %q, %v), unwrapping first gives (%v, %q, %v)", c != nil, origin, problems, wc != nil, worigin, wproblems)
		}
	})
}
