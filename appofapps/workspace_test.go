package appofapps

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codeloc/codeloc/dagster/workspace"
	"github.com/google/go-cmp/cmp"
)

// atlasLocations are two code-locations given out of name order.
var atlasLocations = []workspace.Location{
	{Name: "mediawatch", Host: "mediawatch.dagster.svc", Port: 3030},
	{Name: "citation", Host: "citation.dagster.svc", Port: 3030},
}

func TestWorkspaceGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		locs []workspace.Location
	}{
		{"workspace-two", atlasLocations},
		// No code-location yet: load_from: [], as the chart writes it.
		{"workspace-empty", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := WorkspaceConfigMap("dagster", "dagster-workspace", tt.locs)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.name, string(out))
		})
	}
}

// TestWorkspaceConfigMap: the same bytes in any order, one ConfigMap, and
// a workspace.yaml that Dagster's schema accepts, sorted by name.
func TestWorkspaceConfigMap(t *testing.T) {
	locs := append(slices.Clone(atlasLocations), workspace.Location{Name: "alpha", Host: "alpha.dagster.svc", Port: 4100})
	want, err := WorkspaceConfigMap("dagster", "dagster-workspace", locs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range locs {
		rotated := append(append([]workspace.Location{}, locs[i:]...), locs[:i]...)
		got, err := WorkspaceConfigMap("dagster", "dagster-workspace", rotated)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Fatalf("order %d changes the bytes (-want +got):\n%s", i, diff)
		}
	}
	cm, err := decodeConfigMap(want)
	if err != nil {
		t.Fatal(err)
	}
	if cm.Namespace != "dagster" || cm.Name != "dagster-workspace" || cm.Labels["app.kubernetes.io/managed-by"] != "codeloc" {
		t.Errorf("metadata: %+v", cm.ObjectMeta)
	}
	ws := cm.Data[WorkspaceKey]
	if err := CheckWorkspace([]byte(ws)); err != nil {
		t.Fatal(err)
	}
	if a, c, m := strings.Index(ws, "location_name: alpha"), strings.Index(ws, "location_name: citation"), strings.Index(ws, "location_name: mediawatch"); a < 0 || a > c || c > m {
		t.Errorf("not sorted by name:\n%s", ws)
	}
	if strings.Contains(string(want), "creationTimestamp") {
		t.Errorf("creationTimestamp left in:\n%s", want)
	}
}

func TestWorkspaceConfigMapErrors(t *testing.T) {
	ok := workspace.Location{Name: "citation", Host: "citation.dagster.svc", Port: 4000}
	with := func(f func(*workspace.Location)) []workspace.Location {
		l := ok
		f(&l)
		return []workspace.Location{l}
	}
	for name, tc := range map[string]struct {
		namespace, configMap string
		locs                 []workspace.Location
		want                 string
	}{
		"duplicate name": {locs: []workspace.Location{ok, {Name: "citation", Host: "other.dagster.svc", Port: 4001}}, want: `"citation" is given twice`},
		"empty name":     {locs: with(func(l *workspace.Location) { l.Name = "" }), want: "is not a DNS-1123 label"},
		"upper name":     {locs: with(func(l *workspace.Location) { l.Name = "Citation" }), want: "is not a DNS-1123 label"},
		"empty host":     {locs: with(func(l *workspace.Location) { l.Host = "" }), want: `host "" is not a Service's host name`},
		"host with port": {locs: with(func(l *workspace.Location) { l.Host = "citation.dagster.svc:4000" }), want: "is not a Service's host name"},
		"URL host":       {locs: with(func(l *workspace.Location) { l.Host = "http://citation.dagster.svc" }), want: "is not a Service's host name"},
		"upper host":     {locs: with(func(l *workspace.Location) { l.Host = "Citation.dagster.svc" }), want: "is not a Service's host name"},
		"port 0":         {locs: with(func(l *workspace.Location) { l.Port = 0 }), want: "port 0 is not a TCP port"},
		"port too big":   {locs: with(func(l *workspace.Location) { l.Port = 65536 }), want: "port 65536 is not a TCP port"},
		"negative port":  {locs: with(func(l *workspace.Location) { l.Port = -1 }), want: "port -1 is not a TCP port"},
		"bad namespace":  {namespace: "Dagster", locs: []workspace.Location{ok}, want: "is not a namespace name"},
		"bad ConfigMap":  {configMap: "dagster/workspace", locs: []workspace.Location{ok}, want: "is not a ConfigMap name"},
		// Every problem at once, not the first only.
		"several": {locs: []workspace.Location{{Name: "a", Host: "a.svc", Port: 0}, {Name: "b", Host: "", Port: 1}}, want: "port 0 is not a TCP port (1-65535)\ncode-location \"b\": host \"\""},
	} {
		t.Run(name, func(t *testing.T) {
			ns, cmName := cmpOr(tc.namespace, "dagster"), cmpOr(tc.configMap, "dagster-workspace")
			out, err := WorkspaceConfigMap(ns, cmName, tc.locs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error containing %q, got %v\n%s", tc.want, err, out)
			}
		})
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// TestCheckWorkspace: what Dagster loads and what it refuses, as its schema
// (config_schema.py), its config validation (dagster/_config) and its
// loader (load.py) decide, with PyYAML's YAML 1.1 scalars.
func TestCheckWorkspace(t *testing.T) {
	valid := map[string]string{
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
		"additional_metadata":            "load_from:\n  - grpc_server: {host: a.svc, port: 4000, additional_metadata: {team: data, 1: any}}\n",
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
	for name, doc := range valid {
		t.Run("valid/"+name, func(t *testing.T) {
			if err := CheckWorkspace([]byte(doc)); err != nil {
				t.Fatalf("want valid, got:\n%v", err)
			}
		})
	}

	invalid := []struct {
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
	for _, tt := range invalid {
		t.Run("invalid/"+tt.name, func(t *testing.T) {
			err := CheckWorkspace([]byte(tt.doc))
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

// TestCheckWorkspaceBounds: an alias bomb and an oversized file are refused
// before anything expands them.
func TestCheckWorkspaceBounds(t *testing.T) {
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
	if err := CheckWorkspace([]byte(b.String())); err == nil || !strings.Contains(err.Error(), "alias nodes a workspace may have") {
		t.Errorf("alias bomb: got %v", err)
	}
	big := "load_from: []\n" + strings.Repeat("#", MaxWorkspaceBytes)
	if err := CheckWorkspace([]byte(big)); err == nil || !strings.Contains(err.Error(), "more than the 1048576 a ConfigMap holds") {
		t.Errorf("oversized: got %v", err)
	}
}

// TestPyYAMLInts: YAML 1.1 integers as PyYAML's construct_yaml_int reads them.
func TestPyYAMLInts(t *testing.T) {
	for in, want := range map[string]string{
		"4000": "4000", "+4000": "4000", "-4000": "-4000", "4_000": "4000", "0": "0", "-0": "0",
		"0xFA0": "4000", "0b111110100000": "4000", "07640": "4000", "1:06:40": "4000", "00": "0",
	} {
		got, ok := yaml11IntValue(in)
		if !ok || got != want {
			t.Errorf("%s: got %s %v, want %s", in, got, ok, want)
		}
	}
	for _, in := range []string{"4000.0", "1e3", "08", "0o17", "four", ""} {
		if _, ok := yaml11IntValue(in); ok {
			t.Errorf("%s: want not an int", in)
		}
	}
}

func TestWriteWorkspaceFile(t *testing.T) {
	data, err := WorkspaceConfigMap("dagster", "dagster-workspace", atlasLocations)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "cluster-apps")
	if err := WriteWorkspaceFile(dir, "dagster-workspace", data); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "dagster-workspace.yaml")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(data), string(got)); diff != "" {
		t.Fatalf("file (-want +got):\n%s", diff)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode: %v %v", fi.Mode(), err)
	}

	// The next generation replaces it.
	fewer, err := WorkspaceConfigMap("dagster", "dagster-workspace", atlasLocations[:1])
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteWorkspaceFile(dir, "dagster-workspace", fewer); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(fewer) {
		t.Errorf("not replaced:\n%s", got)
	}

	// An Application of the ConfigMap's name is left alone.
	apps, err := Generate(in(fixtures, "citation"), Options{RepoURL: repoURL, RepoRoot: fixtures, Contract: exampleContract(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFiles(dir, apps); err != nil {
		t.Fatal(err)
	}
	clash, err := WorkspaceConfigMap("dagster", "citation", atlasLocations)
	if err != nil {
		t.Fatal(err)
	}
	err = WriteWorkspaceFile(dir, "citation", clash)
	if err == nil || !strings.Contains(err.Error(), `is not ConfigMap "citation" (an Application of that name?)`) {
		t.Fatalf("want a refusal to overwrite the Application, got %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "citation.yaml")); string(got) != string(apps[0].YAML) {
		t.Errorf("the Application was touched:\n%s", got)
	}

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	if diff := cmp.Diff([]string{"citation.admission.yaml", "citation.yaml", "dagster-workspace.yaml"}, files); diff != "" {
		t.Errorf("files, no temporary left (-want +got):\n%s", diff)
	}
}

func TestWriteWorkspaceFileRefuses(t *testing.T) {
	data, err := WorkspaceConfigMap("dagster", "dagster-workspace", atlasLocations)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(data), "port: 3030", "port: \"3030\"", 1)
	for name, tc := range map[string]struct {
		name, data, want string
	}{
		"name with a slash":   {"../dagster-workspace", string(data), "is not a ConfigMap name"},
		"other name":          {"workspace", string(data), `is ConfigMap "dagster-workspace", not "workspace"`},
		"not a ConfigMap":     {"dagster-workspace", "apiVersion: v1\nkind: Secret\nmetadata: {name: dagster-workspace}\n", "is v1 Secret, not a v1 ConfigMap"},
		"two documents":       {"dagster-workspace", string(data) + "---\n" + string(data), "holds 2 YAML documents"},
		"unknown field":       {"dagster-workspace", string(data) + "spec: {}\n", "unknown field"},
		"no workspace.yaml":   {"dagster-workspace", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dagster-workspace}\ndata: {other: x}\n", "has no key workspace.yaml"},
		"workspace refused":   {"dagster-workspace", broken, `port: want an integer, got a string ("3030")`},
		"not YAML":            {"dagster-workspace", "a: [", "is not YAML"},
		"empty":               {"dagster-workspace", "", "holds 0 YAML documents"},
		"workspace not valid": {"dagster-workspace", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dagster-workspace}\ndata: {workspace.yaml: \"load_from: []\\nx: 1\\n\"}\n", "unexpected key x"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			err := WriteWorkspaceFile(dir, tc.name, []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error containing %q, got %v", tc.want, err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("wrote %v", entries)
			}
		})
	}
}
