package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/check"
	"github.com/codeloc/codeloc/internal/cli"
	"github.com/codeloc/codeloc/internal/golden"
	"github.com/codeloc/codeloc/validate"
)

// atlasRepo is a real git repo built like the e2e's atlas repo (e2e/repos.go:
// fixtures/mediawatch and fixtures/citation, one commit), with fixed
// authors and dates so that its ids, and the reports, are stable.
type atlasRepo struct {
	t   *testing.T
	dir string
}

// newAtlasRepo builds the repo in a temporary folder.
func newAtlasRepo(t *testing.T) *atlasRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	a := &atlasRepo{t: t, dir: filepath.Join(t.TempDir(), "atlas")}
	a.git("init", "-q", "-b", "main", a.dir)
	for _, cl := range []string{"mediawatch", "citation"} {
		if err := os.CopyFS(filepath.Join(a.dir, cl), os.DirFS(filepath.Join("../../fixtures", cl))); err != nil {
			t.Fatal(err)
		}
	}
	a.commit("atlas: mediawatch and citation")
	return a
}

// git runs git in the repo and returns its stdout.
func (a *atlasRepo) git(args ...string) string {
	a.t.Helper()
	cmd := exec.Command("git", args...)
	if args[0] != "init" {
		cmd.Dir = a.dir
	}
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=atlas", "GIT_AUTHOR_EMAIL=atlas@example.com",
		"GIT_COMMITTER_NAME=atlas", "GIT_COMMITTER_EMAIL=atlas@example.com",
		"GIT_AUTHOR_DATE=2026-12-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-12-01T00:00:00Z",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		a.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// write writes the file rel of the work tree.
func (a *atlasRepo) write(rel, text string) {
	a.t.Helper()
	p := filepath.Join(a.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		a.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		a.t.Fatal(err)
	}
}

// edit replaces old by new, once, in the file rel.
func (a *atlasRepo) edit(rel, old, new string) {
	a.t.Helper()
	data, err := os.ReadFile(filepath.Join(a.dir, rel))
	if err != nil {
		a.t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		a.t.Fatalf("%s does not hold %q", rel, old)
	}
	a.write(rel, strings.Replace(string(data), old, new, 1))
}

// clone copies the code-location from into to, renamed (e2e's
// cloneCodeLocation).
func (a *atlasRepo) clone(from, to string) {
	a.t.Helper()
	src := filepath.Join(a.dir, from)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		a.write(filepath.Join(to, rel), strings.ReplaceAll(string(data), from, to))
		return nil
	})
	if err != nil {
		a.t.Fatal(err)
	}
}

// commit stages everything and commits it.
func (a *atlasRepo) commit(msg string) {
	a.t.Helper()
	a.git("add", "-A")
	a.git("commit", "-q", "-m", msg)
}

// check runs `codeloc check` in-process on the repo.
func (a *atlasRepo) check(args ...string) (int, string, string) {
	a.t.Helper()
	return runCLI(a.t, append([]string{"check", "--repo", a.dir}, args...)...)
}

// The three changes of issue 33, each compared with its golden reports.
var checkScenarios = []struct {
	name   string
	change func(a *atlasRepo)
	exit   int
}{{
	// A pod reads a secret its declaration does not name: refused, with
	// the file and line of the reference.
	name: "undeclared-secret",
	change: func(a *atlasRepo) {
		a.edit("citation/deployment.yaml", "            - name: DAGSTER_PG_PASSWORD\n", `            - name: API_TOKEN
              valueFrom:
                secretKeyRef:
                  name: citation-api-token
                  key: token
            - name: DAGSTER_PG_PASSWORD
`)
	},
	exit: cli.ExitInvalid,
}, {
	// A migration added: its lint findings are listed (a blocking index
	// build is refused).
	name: "migration-added",
	change: func(a *atlasRepo) {
		a.write("citation/migrations/002-researchers-name.sql", "CREATE INDEX researchers_name ON researchers (full_name);\n")
		a.edit("citation/code-location.manifest.yaml", "migrations: [001-researchers-hnsw.sql]", "migrations: [001-researchers-hnsw.sql, 002-researchers-name.sql]")
	},
	exit: cli.ExitInvalid,
}, {
	// A dependency added (a new code-location mediawatch now reads): the
	// waves of mediawatch and of citation, which depends on it, move.
	name: "dependency-added",
	change: func(a *atlasRepo) {
		a.clone("mediawatch", "feeds")
		a.edit("mediawatch/code-location.manifest.yaml", "dependsOn:\n", "dependsOn:\n  codeLocations: [feeds]\n")
	},
	exit: cli.ExitOK,
}}

// TestCheckScenarios makes each change on the e2e's atlas repo and
// compares the Markdown and JSON reports with their goldens.
func TestCheckScenarios(t *testing.T) {
	contract := exampleContractFile(t)
	for _, sc := range checkScenarios {
		t.Run(sc.name, func(t *testing.T) {
			a := newAtlasRepo(t)
			sc.change(a)
			a.commit(sc.name)
			for _, format := range []string{"markdown", "json"} {
				code, stdout, stderr := a.check("--base", "HEAD~1", "--head", "HEAD", "--contract", contract, "--format", format)
				if code != sc.exit {
					t.Fatalf("%s: exit %d, want %d; stderr:\n%s", format, code, sc.exit, stderr)
				}
				if stderr != "" {
					t.Errorf("%s: stderr is not empty:\n%s", format, stderr)
				}
				ext := map[string]string{"markdown": ".md", "json": ".json"}[format]
				stdout = strings.ReplaceAll(stdout, contract, "CONTRACT")
				golden.Check(t, filepath.Join("testdata", "check", sc.name+ext), []byte(stdout), "go test ./internal/cli -run TestCheckScenarios -update")
			}
		})
	}
}

// TestCheckSameRefusalsAsGenerate: for the same contract and folder, the
// check's problems are exactly those of the sidecar's render path
// (`codeloc generate`, plugin.Generate), codes, files and lines included.
func TestCheckSameRefusalsAsGenerate(t *testing.T) {
	contract := exampleContractFile(t)
	for _, sc := range checkScenarios {
		t.Run(sc.name, func(t *testing.T) {
			a := newAtlasRepo(t)
			sc.change(a)
			a.commit(sc.name)
			_, stdout, _ := a.check("--base", "HEAD~1", "--contract", contract, "--format", "json")
			var r check.Report
			if err := json.Unmarshal([]byte(stdout), &r); err != nil {
				t.Fatal(err)
			}
			for _, loc := range r.CodeLocations {
				var got []string
				for _, p := range loc.Problems {
					got = append(got, p.String())
				}
				code, gout, gerr := generateIn(t, a.dir, loc.Dir, contract)
				want := nonEmptyLines(gerr)
				if (code == cli.ExitOK) != !loc.Refused || (code == cli.ExitOK) != (gout != "") {
					t.Errorf("%s: generate exit %d, check refused=%v", loc.Dir, code, loc.Refused)
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s: check's problems differ from generate's\ncheck:\n%s\ngenerate:\n%s", loc.Dir, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
		})
	}
}

// generateIn runs `codeloc generate` as the stock cmp-server does in the
// folder dir of the work tree repo.
func generateIn(t *testing.T, repo, dir, contract string) (int, string, string) {
	t.Helper()
	t.Chdir(filepath.Join(repo, dir))
	t.Setenv("ARGOCD_APP_NAMESPACE", "dagster")
	t.Setenv("ARGOCD_APP_SOURCE_PATH", dir)
	return runCLI(t, "generate", "--contract", contract)
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// contractConfigMap is the sidecar's contract ConfigMap holding the
// example contract, as `kubectl get configmap -o yaml` prints it.
func contractConfigMap() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: codeloc-contract\n  namespace: argocd\n  resourceVersion: \"7\"\ndata:\n  contract.yaml: |\n")
	for _, l := range strings.SplitAfter(string(validate.ExampleContract), "\n") {
		if l != "" && l != "\n" {
			b.WriteString("    " + l)
		} else {
			b.WriteString(l)
		}
	}
	return b.String()
}

// TestRenderContractServed: render and validate read the contract the
// cluster serves, from stdin or a file, as its ConfigMap: the same output
// as from the contract file.
func TestRenderContractServed(t *testing.T) {
	t.Chdir("../..")
	file := exampleContractFile(t)
	code, want, stderr := runCLI(t, "render", "fixtures/citation", "--contract", file)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	root := cli.Codeloc()
	root.SetIn(strings.NewReader(contractConfigMap()))
	var stdout, errOut strings.Builder
	if code := cli.Run(root, []string{"render", "fixtures/citation", "--contract", "-"}, &stdout, &errOut); code != cli.ExitOK || stdout.String() != want {
		t.Fatalf("--contract - (ConfigMap): exit %d, same stdout %v; stderr:\n%s", code, stdout.String() == want, errOut.String())
	}
	sum := strings.Fields(stderr)[len(strings.Fields(stderr))-1]
	if !strings.HasSuffix(strings.TrimSpace(errOut.String()), sum) {
		t.Errorf("the ConfigMap's contract has another checksum: %q, want %s", errOut.String(), sum)
	}
	cm := filepath.Join(t.TempDir(), "cm.yaml")
	if err := os.WriteFile(cm, []byte(contractConfigMap()), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := runCLI(t, "validate", "fixtures/citation", "--contract", cm); code != cli.ExitOK || !strings.Contains(out, "citation: valid") {
		t.Errorf("validate --contract ConfigMap file: exit %d, %q, %s", code, out, stderr)
	}
}

// TestRenderContractNotAMapping: a contract that is a list or a string,
// from stdin or a file, is one problem line, never a panic.
func TestRenderContractNotAMapping(t *testing.T) {
	t.Chdir("../..")
	for _, tc := range []struct{ doc, code string }{
		{"- kind: ConfigMap\n", validate.CodeYAMLNotMapping},
		{"[a, b]\n", validate.CodeYAMLNotMapping},
		{"just a string\n", validate.CodeYAMLNotMapping},
		{"- 1\n---\nkind: ConfigMap\n", validate.CodeYAMLMultiDoc},
	} {
		root := cli.Codeloc()
		root.SetIn(strings.NewReader(tc.doc))
		var stdout, errOut strings.Builder
		code := cli.Run(root, []string{"render", "fixtures/citation", "--contract", "-"}, &stdout, &errOut)
		if code != cli.ExitInvalid || stdout.Len() != 0 || !strings.Contains(errOut.String(), tc.code) || strings.Count(strings.TrimSpace(errOut.String()), "\n") != 0 {
			t.Errorf("%q: exit %d, stdout %d bytes, stderr %q; want one %s line", tc.doc, code, stdout.Len(), errOut.String(), tc.code)
		}
	}
}

// TestCheckUsage: usage errors exit 2 with nothing on stdout; a contract
// inside the atlas repo is refused with its code, on one line.
func TestCheckUsage(t *testing.T) {
	a := newAtlasRepo(t)
	contract := exampleContractFile(t)
	a.write("platform/contract.yaml", string(validate.ExampleContract))
	for _, tc := range []struct {
		args []string
		exit int
		want string
	}{
		{[]string{"--contract", contract}, cli.ExitUsage, "--base is required"},
		{[]string{"--base", "HEAD", "--contract", contract, "--format", "html"}, cli.ExitUsage, "--format"},
		{[]string{"--base", "--upload-pack=touch x", "--contract", contract}, cli.ExitUsage, "not a revision name"},
		{[]string{"--base", "nope", "--contract", contract}, cli.ExitUsage, "not a commit"},
		{[]string{"--base", "HEAD", "--contract", filepath.Join(a.dir, "platform", "contract.yaml")}, cli.ExitInvalid, check.CodeContractInAtlas},
	} {
		code, stdout, stderr := a.check(tc.args...)
		if code != tc.exit || stdout != "" || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d (want %d), stdout %q, stderr %q (want one line with %q)", tc.args, code, tc.exit, stdout, stderr, tc.want)
		}
	}
}

// reachesOut are the invalid fixtures that name files outside their
// folder (fixtures/mediawatch, fixtures/citation). The check exports the
// touched folders alone, as Argo CD sends the plugin the Application's
// folder alone under manifest-generate-paths: it refuses them too, with
// kustomize's message on the missing file rather than render's on the
// file outside.
var reachesOut = map[string]bool{"kustomize-escape": true, "link-kustomization": true, "symlink-escape": true}

// TestCheckInvalidFixtures: every invalid fixture with a declaration, added
// to an atlas repo in one change, is refused by the check with exactly the
// lines `codeloc render` and `codeloc generate` print for it
// (fixtures/invalid/*/expected.txt, which TestGenerateFixtures pins for
// the sidecar's render path).
func TestCheckInvalidFixtures(t *testing.T) {
	a := newAtlasRepo(t)
	root := repoRoot(t)
	dirs, err := filepath.Glob(filepath.Join(root, "fixtures", "invalid", "*", "expected.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	for _, e := range dirs {
		dir := filepath.Dir(e)
		name := filepath.Base(dir)
		if fileExists(filepath.Join(dir, "contract.yaml")) {
			continue // its own contract: TestGenerateFixtures
		}
		if _, err := os.Lstat(filepath.Join(dir, validate.ManifestFile)); err != nil {
			continue // not a code-location folder: nothing the check renders
		}
		if err := os.CopyFS(filepath.Join(a.dir, "fixtures", "invalid", name), os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		want["fixtures/invalid/"+name] = nonEmptyLines(string(data))
	}
	if len(want) < 100 {
		t.Fatalf("%d invalid fixtures, want at least 100", len(want))
	}
	a.commit("invalid fixtures")
	code, stdout, stderr := a.check("--base", "HEAD~1", "--contract", exampleContractFile(t), "--format", "json")
	if code != cli.ExitInvalid {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	var r check.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, loc := range r.CodeLocations {
		lines, ok := want[loc.Dir]
		if !ok {
			continue
		}
		seen++
		var got []string
		for _, p := range loc.Problems {
			got = append(got, p.String())
		}
		if reachesOut[path.Base(loc.Dir)] {
			if !loc.Refused || len(got) == 0 {
				t.Errorf("%s: not refused", loc.Dir)
			}
			continue
		}
		if diff := cmp.Diff(lines, got); diff != "" {
			t.Errorf("%s (-render +check):\n%s", loc.Dir, diff)
		}
	}
	if seen != len(want) {
		t.Errorf("the check reported %d of the %d fixtures", seen, len(want))
	}
}
