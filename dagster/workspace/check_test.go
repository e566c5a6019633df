package workspace

import (
	"fmt"
	"strings"
	"testing"
)

// checkValid are workspaces Dagster loads, by what they show; checkInvalid
// those it refuses, and what Check says (TestCheck; TestDagsterLoadsWorkspacesAsCodeloc
// runs Dagster's own loader on both).
var checkValid = map[string]string{
	"empty load_from (the chart's, without servers)": "load_from: []\n",
	"one server": `
load_from:
  - grpc_server:
      host: citation-dagster.dagster.svc
      port: 4000
      location_name: citation
`,
	"socket instead of port":    "load_from:\n  - grpc_server: {socket: /tmp/citation.sock, location_name: citation}\n",
	"host left out (localhost)": "load_from:\n  - grpc_server: {port: 4000}\n",
	"sources from the environment": `
load_from:
  - grpc_server:
      host: {env: CITATION_HOST}
      port: {env: CITATION_PORT}
      location_name: {env: CITATION_NAME}
`,
	"ssl":                            "load_from:\n  - grpc_server: {host: a.svc, port: 4000, ssl: true}\n",
	"ssl yes is a YAML 1.1 boolean":  "load_from:\n  - grpc_server: {host: a.svc, port: 4000, ssl: yes}\n",
	"hex port is a YAML 1.1 integer": "load_from:\n  - grpc_server: {host: a.svc, port: 0xFA0}\n",
	"additional_metadata":            "load_from:\n  - grpc_server: {host: a.svc, port: 4000, additional_metadata: {team: data, \"1\": any}}\n",
	"default names that differ":      "load_from:\n  - grpc_server: {port: 4000}\n  - grpc_server: {port: 4001}\n",
	"flow style":                     "{load_from: [{grpc_server: {host: a.svc, port: 4000, location_name: a}}]}",
	"aliases": `
load_from:
  - grpc_server: {host: &h shared.dagster.svc, port: &p 4000, location_name: a}
  - grpc_server: {host: *h, port: *p, location_name: b}
`,
	"quoted location_name that looks like an int": "load_from:\n  - grpc_server: {host: a.svc, port: 4000, location_name: \"0777\"}\n",
	"explicit tags":    "load_from: !!seq\n  - grpc_server: {host: !!str a.svc, port: !!int \"4000\"}\n",
	"document markers": "---\nload_from: []\n...\n",
}

var checkInvalid = []struct {
	name, doc string
	want      []string
}{
	// Shape is strict: unknown keys are errors.
	{"unknown grpc_server key", "load_from:\n  - grpc_server: {host: a.svc, prot: 4000, port: 4000}\n",
		[]string{"workspace.yaml:2:32: load_from[0].grpc_server: unexpected key prot: Dagster's schema allows only host, socket, port, location_name, ssl, additional_metadata"}},
	{"unknown top-level key", "load_from: []\nworkspace: x\n", []string{"2:1: the document: unexpected key workspace"}},
	{"misspelt load_from", "loadFrom: []\n", []string{"unexpected key loadFrom"}},
	// load.py: a port or a socket, not both, not neither.
	{"port and socket", "load_from:\n  - grpc_server: {host: a.svc, port: 4000, socket: /tmp/s}\n", []string{"load_from[0].grpc_server: give a port or a socket, not both and not neither"}},
	{"neither port nor socket", "load_from:\n  - grpc_server: {host: a.svc, location_name: a}\n", []string{"give a port or a socket"}},
	{"port 0 counts as none", "load_from:\n  - grpc_server: {host: a.svc, port: 0}\n", []string{"give a port or a socket"}},
	{"empty socket counts as none", "load_from:\n  - grpc_server: {host: a.svc, socket: \"\"}\n", []string{"give a port or a socket"}},
	{"grpc_server without value", "load_from:\n  - grpc_server:\n", []string{"give a port or a socket"}},
	// Types, as PyYAML reads the scalars.
	{"quoted port", "load_from:\n  - grpc_server: {host: a.svc, port: \"4000\"}\n", []string{`load_from[0].grpc_server.port: want an integer, got a string ("4000")`}},
	{"float port", "load_from:\n  - grpc_server: {host: a.svc, port: 4000.0}\n", []string{"want an integer, got a float (4000.0)"}},
	{"boolean port", "load_from:\n  - grpc_server: {host: a.svc, port: true}\n", []string{"want an integer, got a boolean (true)"}},
	{"sexagesimal port is an int but a host is not", "load_from:\n  - grpc_server: {host: 1:20, port: 4000}\n", []string{"host: want a string, got an integer (80)"}},
	{"quoted ssl", "load_from:\n  - grpc_server: {host: a.svc, port: 4000, ssl: \"true\"}\n", []string{`ssl: want true or false, got a string ("true")`}},
	{"numeric host", "load_from:\n  - grpc_server: {host: 123, port: 4000}\n", []string{"host: want a string, got an integer (123)"}},
	{"host yes is a boolean", "load_from:\n  - grpc_server: {host: yes, port: 4000}\n", []string{"host: want a string, got a boolean (yes)"}},
	{"location_name null", "load_from:\n  - grpc_server: {host: a.svc, port: 4000, location_name: null}\n", []string{"location_name: null is not allowed here"}},
	{"location_name list", "load_from:\n  - grpc_server: {host: a.svc, port: 4000, location_name: [a]}\n", []string{"location_name: want a mapping of one of env, got a list"}},
	{"additional_metadata with a key that is not a string", "load_from:\n  - grpc_server: {host: a.svc, port: 4000, additional_metadata: {team: data, 1: any}}\n", []string{"workspace.yaml:2:78: load_from[0].grpc_server.additional_metadata: key 1 is an integer (1), not a string"}},
	{"additional_metadata list", "load_from:\n  - grpc_server: {host: a.svc, port: 4000, additional_metadata: [a]}\n", []string{"additional_metadata: want a mapping, got a list"}},
	// Sources: {env: NAME} and nothing else.
	{"source with another key", "load_from:\n  - grpc_server: {host: a.svc, port: {value: 4000}}\n", []string{"port: unexpected key value: Dagster's schema allows one of env"}},
	{"source with two keys", "load_from:\n  - grpc_server: {host: {env: A, default: b}, port: 4000}\n", []string{"host: env and default given: one only of env"}},
	{"empty source", "load_from:\n  - grpc_server: {host: {}, port: 4000}\n", []string{"host: empty: give one of env"}},
	{"source env null", "load_from:\n  - grpc_server: {host: {env: }, port: 4000}\n", []string{"host.env: null is not allowed here"}},
	{"source env int", "load_from:\n  - grpc_server: {host: a.svc, port: {env: 4000}}\n", []string{"port.env: want a string, got an integer (4000)"}},
	// load_from and its Selector entries.
	{"empty document mapping", "{}\n", []string{"no load_from: Dagster's loader requires the list"}},
	{"load_from null", "load_from:\n", []string{"load_from: null is not allowed here"}},
	{"load_from mapping", "load_from: {grpc_server: {port: 4000}}\n", []string{"load_from: want a list, got a mapping"}},
	{"empty entry", "load_from:\n  - {}\n", []string{"load_from[0]: empty: give one of python_file, python_module, python_package, grpc_server"}},
	{"two kinds in one entry", "load_from:\n  - grpc_server: {port: 4000}\n    python_file: repo.py\n", []string{"load_from[0]: grpc_server and python_file given: one only of"}},
	{"unknown entry kind", "load_from:\n  - grpc: {port: 4000}\n", []string{"load_from[0]: unexpected key grpc: Dagster's schema allows one of python_file, python_module, python_package, grpc_server"}},
	{"scalar entry", "load_from:\n  - citation\n", []string{`load_from[0]: want a mapping of one of python_file, python_module, python_package, grpc_server, got a string ("citation")`}},
	{"python_file is codeloc's refusal", "load_from:\n  - python_file: repo.py\n", []string{"load_from[0].python_file: Dagster accepts it, but the webserver and the daemon would then start that code themselves"}},
	// Names: load.py refuses two locations of one name.
	{"duplicate location_name", "load_from:\n  - grpc_server: {host: a.svc, port: 4000, location_name: a}\n  - grpc_server: {host: b.svc, port: 4000, location_name: a}\n",
		[]string{`workspace.yaml:3:18: load_from[1].grpc_server: location name "a" is also load_from's entry at line 2`}},
	{"duplicate default name", "load_from:\n  - grpc_server: {port: 4000}\n  - grpc_server: {host: localhost, port: 0xFA0}\n", []string{`location name "grpc:localhost:4000" is also`}},
	{"duplicate through an alias", "load_from:\n  - grpc_server: &s {host: a.svc, port: 4000, location_name: a}\n  - grpc_server: *s\n", []string{`location name "a" is also`}},
	// The file itself.
	{"empty file", "", []string{"workspace.yaml is empty"}},
	{"null document", "~\n", []string{"workspace.yaml is null"}},
	{"two documents", "load_from: []\n---\nload_from: []\n", []string{"holds 2 YAML documents"}},
	{"not YAML", "load_from: [\n", []string{"workspace.yaml is not YAML"}},
	{"a list", "- grpc_server: {port: 4000}\n", []string{"the document: want a mapping, got a list"}},
	{"key given twice", "load_from:\n  - grpc_server: {host: a.svc, port: 4000, port: 4001}\n", []string{"workspace.yaml:2:44: key port is given twice"}},
	{"merge key", "load_from:\n  - grpc_server:\n      <<: {port: 4000}\n      host: a.svc\n", []string{"merge keys (<<) are not accepted"}},
	{"application tag", "load_from:\n  - grpc_server: {host: !secret a, port: 4000}\n", []string{"tag !secret is not accepted"}},
	{"bad int tag", "load_from:\n  - grpc_server: {host: a.svc, port: !!int four}\n", []string{`"four" is tagged !!int and is not a YAML 1.1 integer`}},
	// Every problem, not the first only.
	{"several", "load_from:\n  - grpc_server: {host: a.svc, prot: 1}\n  - grpc_server: {host: 1, port: x}\n",
		[]string{"load_from[0].grpc_server: unexpected key prot", "load_from[1].grpc_server.host: want a string", "load_from[1].grpc_server.port: want an integer"}},
}

// TestCheck: what Dagster loads and what it refuses, as its schema
// (config_schema.py), its config validation (dagster/_config) and its
// loader (load.py) decide, with PyYAML's YAML 1.1 scalars.
func TestCheck(t *testing.T) {
	for name, doc := range checkValid {
		t.Run("valid/"+name, func(t *testing.T) {
			if err := Check([]byte(doc)); err != nil {
				t.Fatalf("want valid, got:\n%v", err)
			}
		})
	}

	for _, tt := range checkInvalid {
		t.Run("invalid/"+tt.name, func(t *testing.T) {
			err := Check([]byte(tt.doc))
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("want %q in:\n%v", w, err)
				}
			}
		})
	}
}

// TestCheckBounds: an alias bomb and an oversized file are refused
// before anything expands them.
func TestCheckBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 6; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("load_from: []\n")
	if err := Check([]byte(b.String())); err == nil || !strings.Contains(err.Error(), "alias nodes a workspace may have") {
		t.Errorf("alias bomb: got %v", err)
	}
	big := "load_from: []\n" + strings.Repeat("#", MaxBytes)
	if err := Check([]byte(big)); err == nil || !strings.Contains(err.Error(), "more than the 1048576 a ConfigMap holds") {
		t.Errorf("oversized: got %v", err)
	}
}
