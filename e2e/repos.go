package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// citationMigration replaces the fixture's 001 migration: Debian ships no
// pgvector for PostgreSQL 15, so the e2e database cannot run CREATE
// EXTENSION vector. It keeps the opt-out of the transaction and a
// CONCURRENTLY index, which is what the migration runner cares about.
const citationMigration = `-- codeloc:no-transaction
-- e2e stand-in for the fixture's pgvector migration (no pgvector here).
CREATE TABLE IF NOT EXISTS researchers (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    orcid      text UNIQUE,
    full_name  text NOT NULL
);

CREATE INDEX CONCURRENTLY IF NOT EXISTS researchers_full_name
    ON researchers (full_name);
`

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
	if err := h.atlas.write(map[string]string{"citation/migrations/001-researchers-hnsw.sql": citationMigration}); err != nil {
		return err
	}
	if err := h.atlas.commit("atlas: mediawatch and citation"); err != nil {
		return err
	}
	if h.apps, err = newGitRepo(h.tools.git, filepath.Join(h.dir, "repos", "cluster-apps")); err != nil {
		return err
	}
	return h.pushApplications(ctx, "mediawatch", "citation")
}

// pushApplications regenerates cluster/apps from the atlas folders named
// (codeloc application --output-dir), with a fast explicit retry, and
// commits the result; Applications of folders not named are removed.
func (h *harness) pushApplications(ctx context.Context, codeLocations ...string) error {
	entries, _ := filepath.Glob(filepath.Join(h.apps.dir, "*.yaml"))
	for _, e := range entries {
		if err := os.Remove(e); err != nil {
			return err
		}
	}
	args := []string{"application", "--repo-url", h.atlas.url(), "--repo-root", h.atlas.dir,
		"--contract", h.contractFile, "--output-dir", h.apps.dir}
	for _, cl := range codeLocations {
		args = append(args, filepath.Join(h.atlas.dir, cl))
	}
	cmd := exec.CommandContext(ctx, filepath.Join(h.bin, "codeloc"), args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("codeloc application: %w\n%s", err, out)
	}
	entries, _ = filepath.Glob(filepath.Join(h.apps.dir, "*.yaml"))
	for _, e := range entries {
		if filepath.Base(e) == workspaceConfigMap+".yaml" || strings.HasSuffix(e, appofapps.AdmissionFileSuffix) {
			continue // the Dagster workspace or admission bindings, not an Application
		}
		if err := setRetry(e); err != nil {
			return err
		}
	}
	return h.apps.commit("cluster/apps: " + strings.Join(codeLocations, ", "))
}

// testRetry replaces the template's production backoff (30 s doubling to
// 10 min): the behaviour is the same, the test waits seconds.
var testRetry = map[string]any{
	"limit":   int64(20),
	"backoff": map[string]any{"duration": "5s", "factor": int64(2), "maxDuration": "20s"},
}

// setRetry sets spec.syncPolicy.retry of the Application in file.
func setRetry(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var app map[string]any
	if err := yaml.Unmarshal(data, &app); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	spec, _ := app["spec"].(map[string]any)
	policy, _ := spec["syncPolicy"].(map[string]any)
	if policy == nil {
		return fmt.Errorf("%s: no spec.syncPolicy", file)
	}
	policy["retry"] = testRetry
	out, err := yaml.Marshal(app)
	if err != nil {
		return err
	}
	return os.WriteFile(file, out, 0o644)
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
