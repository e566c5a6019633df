package workspace

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codeloc/codeloc/internal/pyref"
)

// TestDagsterLoadsWorkspacesAsCodeloc runs Dagster's own loader of a
// workspace.yaml (testdata/dagster_workspace.py: location_origins_from_yaml_paths,
// as the webserver and the daemon load -w workspace.yaml) on every
// workspace the tests know — TestCheck's tables, the fixtures' workspace.yaml
// files, appofapps' generated goldens and Marshal's output — and compares
// it with Check: a file Dagster refuses must be refused by Check, one
// Check refuses and Dagster loads must be an entry of workspaceStricter;
// for a file both load, the locations' names, hosts, ports, sockets and
// ssl are the same. Dagster is the virtualenv of .ci/dagster.sh
// (CODELOC_DAGSTER_VENV): the test skips without it, and fails without it
// under CI=true.
func TestDagsterLoadsWorkspacesAsCodeloc(t *testing.T) {
	python := pyref.Python(t)
	cases := workspaceCorpus(t)
	reqs := make([]pyref.Request, len(cases))
	for i, c := range cases {
		reqs[i] = pyref.Request{ID: c.id, Text: c.text}
	}
	start := time.Now()
	answers := pyref.Run[pyWorkspaceAnswer](t, python, filepath.Join("testdata", "dagster_workspace.py"), reqs,
		// The {env: NAME} sources of the corpus, as the platform would set them.
		"CITATION_HOST=citation.dagster.svc", "CITATION_PORT=4000", "CITATION_NAME=citation")
	t.Logf("Dagster loaded %d workspaces in %s", len(cases), time.Since(start).Round(time.Millisecond))

	var bothOK, bothRefused, stricter, envUnset int
	reasons := map[string]int{}
	for i, c := range cases {
		a := answers[i]
		if a.ID != c.id {
			t.Fatalf("answer %d is for %q, not %q", i, a.ID, c.id)
		}
		err := Check([]byte(c.text))
		switch {
		case !a.OK && err == nil && strings.Contains(a.Error, workspaceEnvUnset):
			// The one way Dagster refuses what Check loads, documented:
			// {env: NAME} is read from the webserver's and the daemon's
			// environment when they load the file, which Check cannot see
			// (codeloc's own workspace, Marshal's, has no such source).
			envUnset++
		case !a.OK && err == nil:
			t.Errorf("%s: Dagster refuses the workspace, Check loads it\n  Dagster: %s\n  workspace: %q", c.id, pyref.Short(a.Error), c.text)
		case !a.OK:
			bothRefused++
		case err != nil:
			why := workspaceStricterWhy(err)
			reasons[pyref.Short(why)[:70]]++
			if why == "" {
				t.Errorf("%s: Check refuses a workspace Dagster loads, not for a reason of workspaceStricter:\n  %v\n  workspace: %q", c.id, err, c.text)
				continue
			}
			stricter++
		default:
			bothOK++
			if got, want := goLocations(t, c.text), a.Locations; !slices.Equal(got, want) {
				t.Errorf("%s: locations differ\n  Dagster: %+v\n  codeloc: %+v\n  workspace: %q", c.id, want, got, c.text)
			}
		}
	}
	t.Logf("%d workspaces: %d loaded by both (locations compared), %d refused by both, %d refused by Check only (workspaceStricter), %d refused by Dagster only for an unset {env: NAME}", len(cases), bothOK, bothRefused, stricter, envUnset)
	for _, r := range slices.Sorted(maps.Keys(reasons)) {
		t.Logf("  Check stricter, %d× %s", reasons[r], r)
	}
}

// workspaceEnvUnset is Dagster's error for a source whose environment
// variable the loading process lacks.
const workspaceEnvUnset = "You have attempted to fetch the environment variable"

// workspaceStricter are the refusals of Check that Dagster does not share,
// each with why codeloc refuses: every line of Check's error on a file
// Dagster loads must match one.
var workspaceStricter = []struct{ msg, why string }{
	{`\.(python_file|python_module|python_package): Dagster accepts it`,
		"a python_file, python_module or python_package entry has the webserver and the daemon start the code themselves, in their own pods: codeloc's code-locations are code servers reached through grpc_server"},
	{`unexpected key autoload_defs_module: Dagster's schema allows one of`,
		"autoload_defs_module (Dagster 1.10+) is another such entry: the webserver would start that code; Check's schema does not list it, so it says unexpected key rather than naming the reason"},
	{`key \S+ is given twice`,
		"PyYAML keeps the last of two keys; a workspace that says two things of one location is refused rather than read by that rule"},
	{`merge keys \(<<\) are not accepted`,
		"PyYAML expands merge keys; codeloc writes the workspace itself and reads no YAML trickery in it"},
}

// workspaceStricterWhy is the reason of workspaceStricter for every line
// of err, "" when a line has none.
func workspaceStricterWhy(err error) string {
	var why string
	for line := range strings.SplitSeq(err.Error(), "\n") {
		found := ""
		for _, s := range workspaceStricter {
			if regexp.MustCompile(s.msg).MatchString(line) {
				found = s.why
				break
			}
		}
		if found == "" {
			return ""
		}
		why = found
	}
	return why
}

// pyLocation is a location as Dagster loads it.
type pyLocation struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Host   string `json:"host"`
	Port   int    `json:"port"`
	Socket string `json:"socket"`
	SSL    bool   `json:"ssl"`
}

type pyWorkspaceAnswer struct {
	ID        string       `json:"id"`
	OK        bool         `json:"ok"`
	Error     string       `json:"error"`
	Locations []pyLocation `json:"locations"`
}

// goLocations are the locations of a workspace Check loads, as load reads
// them: the name it gives each entry (locationName), its host (localhost
// by default), port or socket and ssl, with the {env: NAME} sources of
// the test's environment above.
func goLocations(t *testing.T, text string) []pyLocation {
	root, err := parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"CITATION_HOST": "citation.dagster.svc", "CITATION_PORT": "4000", "CITATION_NAME": "citation"}
	val := func(v *pyValue) string {
		if v == nil {
			return ""
		}
		if v.kind == pyMap {
			return env[v.vals[0].text]
		}
		return v.text
	}
	out := []pyLocation{}
	for _, entry := range root.get("load_from").items {
		g := entry.vals[0]
		if g.kind == pyNull {
			g = &pyValue{kind: pyMap}
		}
		l := pyLocation{Kind: "grpc_server", Host: val(g.get("host")), Socket: val(g.get("socket"))}
		if l.Host == "" {
			l.Host = "localhost"
		}
		if p := val(g.get("port")); p != "" {
			if _, err := fmt.Sscan(p, &l.Port); err != nil {
				l.Port, err = parseYAMLInt(p)
				if err != nil {
					t.Fatalf("port %q: %v", p, err)
				}
			}
		}
		l.SSL = g.get("ssl") != nil && g.get("ssl").truthy()
		l.Name = val(g.get("location_name"))
		if l.Name == "" {
			name := locationName(g, l.Socket != "")
			if strings.Contains(name, "{env: ") { // the default name of a source: its value
				name = "grpc:" + l.Host + ":" + strings.TrimPrefix(fmt.Sprint(l.Port), "0")
			}
			l.Name = name
		}
		out = append(out, l)
	}
	return out
}

// parseYAMLInt reads a YAML 1.1 integer other than decimal (0x1F, 0o17, 1:20).
func parseYAMLInt(s string) (int, error) {
	var n int
	_, err := fmt.Sscanf(strings.ReplaceAll(s, "_", ""), "%v", &n)
	return n, err
}

// workspaceCase is one workspace.yaml and where it comes from.
type workspaceCase struct{ id, text string }

func workspaceCorpus(t *testing.T) []workspaceCase {
	var out []workspaceCase
	seen := map[string]bool{}
	add := func(id, text string) {
		if !seen[text] {
			seen[text] = true
			out = append(out, workspaceCase{id, text})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(checkValid)) {
		add("valid/"+name, checkValid[name])
	}
	for _, c := range checkInvalid {
		add("invalid/"+c.name, c.doc)
	}
	for i, c := range workspaceReferenceCases {
		add(fmt.Sprintf("case[%d]", i), c)
	}
	ws, err := Marshal([]Location{{Name: "citation", Host: "citation.dagster.svc", Port: 4000}, {Name: "mediawatch", Host: "mediawatch.dagster.svc", Port: 3030}})
	if err != nil {
		t.Fatal(err)
	}
	add("Marshal", string(ws))
	root := filepath.Join("..", "..")
	goldens, _ := filepath.Glob(filepath.Join(root, "appofapps", "testdata", "workspace-*.golden"))
	files := 0
	for _, dir := range []string{"fixtures", "appofapps"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if d.Name() != "workspace.yaml" && !slices.Contains(goldens, path) {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			files++
			add(rel, goldenWorkspace(string(data)))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("workspaces: %d of TestCheck, %d cases, %d files (fixtures, appofapps goldens), Marshal's; %d distinct", len(checkValid)+len(checkInvalid), len(workspaceReferenceCases), files, len(out))
	if files < 3 {
		t.Fatalf("only %d workspace files found", files)
	}
	return out
}

// goldenWorkspace is the workspace.yaml of an appofapps golden: the file
// itself, or the data of the ConfigMap holding it.
func goldenWorkspace(s string) string {
	if _, after, ok := strings.Cut(s, "workspace.yaml: |\n"); ok {
		var b strings.Builder
		for line := range strings.SplitSeq(after, "\n") {
			rest, ok := strings.CutPrefix(line, "    ")
			if !ok && line != "" {
				break
			}
			b.WriteString(rest + "\n")
		}
		return strings.TrimRight(b.String(), "\n") + "\n"
	}
	return s
}

// workspaceReferenceCases are workspaces the tables miss.
var workspaceReferenceCases = []string{
	"load_from:\n  - autoload_defs_module: citation.defs\n",
	"load_from:\n  - grpc_server: {host: a.svc, port: 4000, location_name: \"\"}\n",
	"load_from:\n  - grpc_server: {host: \"\", port: 4000}\n",
	"load_from:\n  - grpc_server: {host: a.svc, port: -1}\n",
	"load_from:\n  - grpc_server: {host: a.svc, port: 0o17}\n",
	"load_from:\n  - grpc_server: {host: a.svc, port: 1_000}\n",
	"load_from:\n  - grpc_server: {host: a.svc, port: 4000, ssl: on}\n",
	"load_from:\n  - grpc_server: {host: a.svc, port: 4000, ssl: null}\n",
	"load_from:\n  - grpc_server: {host: a.svc, port: 4000, additional_metadata: null}\n",
	"load_from:\n  - grpc_server: {host: a.svc, port: 4000}\n    python_file: null\n",
	"load_from:\n  - grpc_server: {host: 2001-01-01, port: 4000}\n",
	"load_from:\n  - grpc_server: {host: a.svc, port: 4000, location_name: 2001-01-01}\n",
	"load_from: []\nload_from: []\n",
	"load_from: [{grpc_server: {host: a.svc, port: {env: CITATION_PORT}}}]\n",
	"load_from: [{grpc_server: {host: a.svc, port: {env: UNSET_PORT}}}]\n",
	"\ufeffload_from: []\n",
	"load_from: []\n# a comment\n",
	"load_from: [] # trailing\n---\n",
}
