package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/appofapps"
)

// gitRepo is a git repository on disk, served to Argo CD as a file:// URL
// (Argo CD's own e2e default). A "push" is a commit in it.
type gitRepo struct {
	git, dir string
}

// url is the repository's clone URL.
func (r *gitRepo) url() string { return "file://" + r.dir }

func newGitRepo(git, dir string) (*gitRepo, error) {
	r := &gitRepo{git: git, dir: dir}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return r, r.run("init", "-q", "-b", "main")
}

func (r *gitRepo) run(args ...string) error {
	cmd := exec.Command(r.git, append([]string{"-c", "user.name=e2e", "-c", "user.email=e2e@codeloc.invalid"}, args...)...)
	cmd.Dir = r.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// write writes files (path relative to the repo → content); an empty
// content removes the file.
func (r *gitRepo) write(files map[string]string) error {
	for name, content := range files {
		p := filepath.Join(r.dir, name)
		if content == "" {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// commit commits every change of the work tree.
func (r *gitRepo) commit(msg string) error {
	if err := r.run("add", "-A"); err != nil {
		return err
	}
	return r.run("commit", "-q", "--allow-empty", "-m", msg)
}

// push writes files and commits them.
func (r *gitRepo) push(msg string, files map[string]string) error {
	if err := r.write(files); err != nil {
		return err
	}
	return r.commit(msg)
}

// read returns a file of the work tree.
func (r *gitRepo) read(name string) (string, error) {
	data, err := os.ReadFile(filepath.Join(r.dir, name))
	return string(data), err
}

// initRepos creates the atlas repo (fixtures mediawatch and citation) and
// the cluster/apps repo (codeloc application's output).
func (h *harness) initRepos(ctx context.Context) error {
	var err error
	if h.atlas, err = newGitRepo(h.tools.git, filepath.Join(h.dir, "repos", "atlas")); err != nil {
		return err
	}
	for _, cl := range []string{"mediawatch", "citation"} {
		if err := copyTree(filepath.Join("..", "fixtures", cl), filepath.Join(h.atlas.dir, cl)); err != nil {
			return err
		}
	}
	if err := h.atlas.commit("atlas: mediawatch and citation"); err != nil {
		return err
	}
	if h.apps, err = newGitRepo(h.tools.git, filepath.Join(h.dir, "repos", "cluster-apps")); err != nil {
		return err
	}
	if err := h.writeAppTemplate(); err != nil {
		return err
	}
	return h.pushApplications(ctx, "mediawatch", "citation")
}

// pushApplications regenerates cluster/apps from the whole atlas repo
// (codeloc application --output-dir: every code-location, the contract's
// buckets, the workspace, the bindings) with the e2e's template, and
// commits the result. want are the code-locations atlas holds: the
// Applications written must be exactly theirs.
func (h *harness) pushApplications(ctx context.Context, want ...string) error {
	code, _, stderr, err := h.codelocApplication(ctx)
	if err != nil {
		return err
	}
	if code != 0 {
		return fmt.Errorf("codeloc application: exit %d\n%s", code, stderr)
	}
	got, err := h.generatedApplications()
	if err != nil {
		return err
	}
	if want := slices.Sorted(slices.Values(want)); !slices.Equal(got, want) {
		return fmt.Errorf("cluster/apps holds the Applications %v, want %v", got, want)
	}
	return h.apps.commit("cluster/apps: " + strings.Join(want, ", "))
}

// atlasFolders are the code-location folders of the atlas work tree: in
// the e2e, each is named after its code-location.
func (h *harness) atlasFolders() ([]string, error) {
	entries, err := os.ReadDir(h.atlas.dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// codelocApplication runs codeloc application on the atlas work tree into
// the cluster/apps work tree, with args added (--check): its exit code,
// stdout and stderr. err is for a command that did not run.
func (h *harness) codelocApplication(ctx context.Context, args ...string) (code int, stdout, stderr string, err error) {
	args = append([]string{"application", "--repo-url", h.atlas.url(), "--repo-root", h.atlas.dir,
		"--contract", h.contractFile, "--template", h.appTemplate, "--output-dir", h.apps.dir}, args...)
	cmd := exec.CommandContext(ctx, filepath.Join(h.bin, "codeloc"), args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), out.String(), errOut.String(), nil
	}
	return 0, out.String(), errOut.String(), err
}

// generatedApplications are the code-locations whose Application the
// index of cluster/apps lists (<name>.yaml, a name without dot), sorted.
func (h *harness) generatedApplications() ([]string, error) {
	index, err := h.apps.read(appofapps.IndexFile)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(index, "\n") {
		name, ok := strings.CutSuffix(line, ".yaml")
		if ok && !strings.HasPrefix(line, "#") && !strings.Contains(name, ".") && name != workspaceConfigMap {
			out = append(out, name)
		}
	}
	return out, nil
}

// testRetry replaces the template's production backoff (30 s doubling to
// 10 min): the behaviour is the same, the test waits seconds.
var testRetry = map[string]any{
	"limit":   int64(20),
	"backoff": map[string]any{"duration": "5s", "factor": int64(2), "maxDuration": "20s"},
}

// writeAppTemplate writes the e2e's Application template: the embedded
// example with testRetry, so that cluster/apps is exactly codeloc
// application's output.
func (h *harness) writeAppTemplate() error {
	const prod = `    retry:
      limit: 10
      backoff:
        duration: 30s
        factor: 2
        maxDuration: 10m
`
	const fast = `    retry:
      limit: 20
      backoff:
        duration: 5s
        factor: 2
        maxDuration: 20s
`
	tmpl := string(appofapps.ExampleTemplate)
	if !strings.Contains(tmpl, prod) {
		return fmt.Errorf("the example template's retry is not %q", prod)
	}
	h.appTemplate = filepath.Join(h.dir, "application.yaml")
	return os.WriteFile(h.appTemplate, []byte(strings.Replace(tmpl, prod, fast, 1)), 0o644)
}

// rootApplication is sidecar/install's app-of-apps pointing at cluster/apps.
func (h *harness) rootApplication() (string, error) {
	data, err := os.ReadFile("../sidecar/install/app-of-apps.example.yaml")
	if err != nil {
		return "", err
	}
	var app map[string]any
	if err := yaml.Unmarshal(data, &app); err != nil {
		return "", err
	}
	spec := app["spec"].(map[string]any)
	spec["source"].(map[string]any)["repoURL"] = h.apps.url()
	spec["syncPolicy"].(map[string]any)["retry"] = testRetry
	out, err := yaml.Marshal(app)
	return string(out), err
}

// copyTree copies a folder of regular files.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info(d))
	})
}

// info keeps the executable bit of a copied file.
func info(d os.DirEntry) os.FileMode {
	if fi, err := d.Info(); err == nil && fi.Mode()&0o111 != 0 {
		return 0o755
	}
	return 0o644
}
