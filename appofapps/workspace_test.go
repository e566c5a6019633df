package appofapps

import (
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
	if err := workspace.Check([]byte(ws)); err != nil {
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
