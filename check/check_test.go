package check

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/validate"
)

// testRepo is a git repo holding copies of fixtures/mediawatch and
// fixtures/citation, committed once.
type testRepo struct {
	t   *testing.T
	dir string
}

func newTestRepo(t *testing.T) *testRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &testRepo{t: t, dir: filepath.Join(t.TempDir(), "atlas")}
	if err := os.Mkdir(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.git("init", "-q", "-b", "main")
	for _, cl := range []string{"mediawatch", "citation"} {
		if err := os.CopyFS(filepath.Join(r.dir, cl), os.DirFS(filepath.Join("..", "fixtures", cl))); err != nil {
			t.Fatal(err)
		}
	}
	r.commit("init")
	return r
}

func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (r *testRepo) write(rel, text string) {
	r.t.Helper()
	p := filepath.Join(r.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *testRepo) symlink(rel, target string) {
	r.t.Helper()
	if err := os.Symlink(target, filepath.Join(r.dir, rel)); err != nil {
		r.t.Fatal(err)
	}
}

func (r *testRepo) commit(msg string) {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
}

// exampleContract is the embedded example, as a check's contract.
func exampleContract(t *testing.T) *Contract {
	t.Helper()
	file := filepath.Join(t.TempDir(), "contract.yaml")
	if err := os.WriteFile(file, validate.ExampleContract, 0o644); err != nil {
		t.Fatal(err)
	}
	c, problems := ReadContract(ContractSource{Arg: file})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	return c
}

func (r *testRepo) run(base, head string) (*Report, error) {
	return Run(context.Background(), Options{Repo: r.dir, Base: base, Head: head, Contract: exampleContract(r.t)})
}

func touchedDirs(rep *Report) []string {
	var out []string
	for _, l := range rep.CodeLocations {
		out = append(out, l.Dir)
	}
	return out
}

// TestRevisionsThatLookLikeFlags: a revision is never an option of git's.
func TestRevisionsThatLookLikeFlags(t *testing.T) {
	r := newTestRepo(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	for _, rev := range []string{"--upload-pack=touch " + marker, "--output=" + marker, "-p", "HEAD\n--output=" + marker, ""} {
		for _, side := range []string{"base", "head"} {
			base, head := "HEAD", "HEAD"
			if side == "base" {
				base = rev
			} else {
				head = rev
			}
			_, err := r.run(base, head)
			if err == nil || !strings.Contains(err.Error(), "revision") {
				t.Errorf("%s %q: err %v, want a revision error", side, rev, err)
			}
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a revision ran as a git option")
	}
}

// TestPathsWithSpacesAndNewlines: odd paths are read as paths.
func TestPathsWithSpacesAndNewlines(t *testing.T) {
	r := newTestRepo(t)
	r.write("citation/notes/a b\nc.txt", "odd\n")
	src := filepath.Join(r.dir, "mediawatch")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(src, p)
		r.write(filepath.Join("team a\nb", "feeds", rel), strings.ReplaceAll(string(data), "mediawatch", "feeds"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	r.commit("odd paths")
	rep, err := r.run("HEAD~1", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := touchedDirs(rep), []string{"citation", "team a\nb/feeds"}; !slices.Equal(got, want) {
		t.Fatalf("touched %q, want %q", got, want)
	}
	if rep.Refused {
		t.Fatalf("refused: %+v", rep)
	}
	if rep.CodeLocations[1].Change != Added || rep.CodeLocations[1].CodeLocation != "feeds" {
		t.Errorf("feeds: %+v", rep.CodeLocations[1])
	}
}

// TestSymlinkOutsideRepo: a link leading outside the repo at head, alone
// or through another link, is not followed and refuses the head.
func TestSymlinkOutsideRepo(t *testing.T) {
	r := newTestRepo(t)
	r.symlink("citation/passwd.yaml", "../../../../../../etc/passwd")
	r.symlink("citation/up", "../mediawatch")
	r.symlink("citation/escape", "up/../../outside") // lexically inside, really outside, dangling
	r.symlink("citation/inside.yaml", "kustomization.yaml")
	r.commit("links")
	rep, err := r.run("HEAD~1", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range rep.Problems {
		got = append(got, p.Code+" "+p.File)
	}
	want := []string{CodeSymlinkEscapes + " citation/escape", CodeSymlinkEscapes + " citation/passwd.yaml"}
	slices.Sort(got)
	if !slices.Equal(got, want) || !rep.Refused {
		t.Fatalf("problems %q (refused %v), want %q", got, rep.Refused, want)
	}
}

// TestHugeChangeBounded: a change or a tree past the bounds is an error,
// not a slow or partial report.
func TestHugeChangeBounded(t *testing.T) {
	r := newTestRepo(t)
	for i := range 30 {
		r.write(fmt.Sprintf("citation/notes/%02d.txt", i), "x\n")
	}
	r.commit("many files")
	for _, tc := range []struct {
		name  string
		lower func() func()
		want  string
	}{
		{"changed files", func() func() {
			old := changedFilesLimit
			changedFilesLimit = 10
			return func() { changedFilesLimit = old }
		}, "more than 10 files"},
		{"tree bytes", func() func() { old := treeBytesLimit; treeBytesLimit = 4096; return func() { treeBytesLimit = old } }, "more than 4096 bytes"},
		{"tree entries", func() func() {
			old := treeEntriesLimit
			treeEntriesLimit = 20
			return func() { treeEntriesLimit = old }
		}, "more than 20 files and folders"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer tc.lower()()
			_, err := r.run("HEAD~1", "HEAD")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

// TestIndexHead: --head :index is the staged change, not the work tree.
func TestIndexHead(t *testing.T) {
	r := newTestRepo(t)
	r.write("mediawatch/notes.txt", "staged\n")
	r.git("add", "mediawatch/notes.txt")
	r.write("citation/notes.txt", "not staged\n")
	rep, err := r.run("HEAD", Index)
	if err != nil {
		t.Fatal(err)
	}
	if got := touchedDirs(rep); !slices.Equal(got, []string{"mediawatch"}) {
		t.Fatalf("touched %q, want [mediawatch]", got)
	}
	if rep.Head.Rev != Index || rep.Refused {
		t.Fatalf("head %+v refused %v", rep.Head, rep.Refused)
	}
	// Rendered objects do not change with a file kustomize does not read.
	if n := len(rep.CodeLocations[0].Objects); n != 0 {
		t.Errorf("%d objects changed, want 0", n)
	}
}

// configMapOf is the contract ConfigMap as `kubectl get -o yaml` prints it.
func configMapOf(t *testing.T, data map[string]string) []byte {
	t.Helper()
	n, err := yaml.Parse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: codeloc-contract\n  namespace: argocd\n  resourceVersion: \"42\"\n  managedFields: [{manager: kubectl, operation: Apply}]\n")
	if err != nil {
		t.Fatal(err)
	}
	n.SetDataMap(data)
	s, err := n.String()
	if err != nil {
		t.Fatal(err)
	}
	return []byte(s)
}

// TestContractSources: a file, stdin and the ConfigMap the cluster serves
// give one contract and one checksum; a ConfigMap without the key and a
// file inside the atlas repo are refused with their codes.
func TestContractSources(t *testing.T) {
	file := exampleContract(t)
	cm := configMapOf(t, map[string]string{DefaultContractKey: string(validate.ExampleContract), "README": "x"})
	for _, tc := range []struct {
		name, origin string
		src          ContractSource
	}{
		{"stdin", "stdin", ContractSource{Arg: Stdin, Stdin: strings.NewReader(string(validate.ExampleContract))}},
		{"configmap", "ConfigMap argocd/codeloc-contract key contract.yaml", ContractSource{Arg: Stdin, Stdin: strings.NewReader(string(cm))}},
		{"only yaml key", "ConfigMap argocd/codeloc-contract key prod.yaml", ContractSource{Arg: Stdin, Stdin: strings.NewReader(string(configMapOf(t, map[string]string{"prod.yaml": string(validate.ExampleContract)})))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, problems := ReadContract(tc.src)
			if len(problems) > 0 {
				t.Fatal(problems)
			}
			if c.SHA256 != file.SHA256 || c.Origin != tc.origin || !slices.Equal(c.ContractVersions, file.ContractVersions) {
				t.Errorf("got %s, want the file's checksum %s and origin %q", c.Summary(), file.SHA256, tc.origin)
			}
		})
	}
	two := configMapOf(t, map[string]string{"a.yaml": "x", "b.yaml": "y"})
	if _, problems := ReadContract(ContractSource{Arg: Stdin, Stdin: strings.NewReader(string(two))}); len(problems) != 1 || problems[0].Code != CodeContractConfigMap {
		t.Errorf("two keys: %v, want %s", problems, CodeContractConfigMap)
	}
	if c, problems := ReadContract(ContractSource{Arg: Stdin, Key: "b.yaml", Stdin: strings.NewReader(string(two))}); c != nil || len(problems) == 0 || problems[0].Code == CodeContractConfigMap {
		t.Errorf("--contract-key b.yaml: %v, want the contract's own problems", problems)
	}
	r := newTestRepo(t)
	r.write("platform/contract.yaml", string(validate.ExampleContract))
	for _, arg := range []string{filepath.Join(r.dir, "platform", "contract.yaml"), filepath.Join(r.dir, "platform", "..", "platform", "contract.yaml")} {
		_, problems := ReadContract(ContractSource{Arg: arg, Repo: r.dir})
		if len(problems) != 1 || problems[0].Code != CodeContractInAtlas || strings.Contains(problems[0].String(), "\n") || problems[0].Hint == "" {
			t.Errorf("%s: %v, want one %s line with a hint", arg, problems, CodeContractInAtlas)
		}
	}
	link := filepath.Join(t.TempDir(), "contract.yaml")
	if err := os.Symlink(filepath.Join(r.dir, "platform", "contract.yaml"), link); err != nil {
		t.Fatal(err)
	}
	if _, problems := ReadContract(ContractSource{Arg: link, Repo: r.dir}); len(problems) != 1 || problems[0].Code != CodeContractInAtlas {
		t.Errorf("a link to the atlas copy: %v, want %s", problems, CodeContractInAtlas)
	}
}

// TestRemovedDependency: removing a code-location another depends on
// refuses the head through the graph, and lists what it no longer renders.
func TestRemovedDependency(t *testing.T) {
	r := newTestRepo(t)
	r.git("rm", "-r", "-q", "mediawatch")
	r.commit("remove mediawatch")
	rep, err := r.run("HEAD~1", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Code != "dependency-without-folder" || rep.Problems[0].File != "citation/code-location.manifest.yaml" || !rep.Refused {
		t.Fatalf("problems %v refused %v, want citation's dependency-without-folder", rep.Problems, rep.Refused)
	}
	loc := rep.CodeLocations[0]
	if len(rep.CodeLocations) != 1 || loc.Change != Removed || loc.Refused || len(loc.Objects) == 0 {
		t.Fatalf("code-locations %+v, want mediawatch removed with its objects", rep.CodeLocations)
	}
	for _, o := range loc.Objects {
		if o.Change != Removed {
			t.Errorf("%s %s: %s, want removed", o.Kind, o.Name, o.Change)
		}
	}
	if got := rep.Moved; len(got) != 2 || got[0].CodeLocation != "citation" || got[0].HeadWave != nil || got[1].CodeLocation != "mediawatch" {
		t.Errorf("moved %+v, want citation (unplaced) and mediawatch", got)
	}
}

// TestRevisionIsACommit: a tree-ish that is not a commit (a folder of a
// commit) is refused: both sides are whole revisions of the repo.
func TestRevisionIsACommit(t *testing.T) {
	r := newTestRepo(t)
	if _, err := r.run("HEAD:citation", "HEAD"); err == nil || !strings.Contains(err.Error(), "not a commit") {
		t.Fatalf("err %v, want not a commit", err)
	}
}
