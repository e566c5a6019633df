// Package appofapps generates the plain Argo CD Applications that the
// cluster/apps repo holds (ADR 0094 §2): one per atlas code-location, naming
// the codeloc plugin, ordered in sync waves by the dependsOn.codeLocations
// graph. The documents come from a sprig template whose deployment values
// (the repo URL) are injected at seed time, never versioned (ADR 0023).
package appofapps

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/validate"
)

// Defaults of the Application fields.
const (
	// DefaultRevision is the target revision when none is given.
	DefaultRevision = "HEAD"
	// DefaultProject is the Argo CD project when none is given.
	DefaultProject = "default"
	// DefaultArgoCDNamespace is where Applications live when the contract
	// does not name Argo CD's namespace.
	DefaultArgoCDNamespace = "argocd"
	// InClusterServer is the API server of the cluster Argo CD runs in.
	InClusterServer = "https://kubernetes.default.svc"
)

// Data is what the Application template sees for one code-location.
type Data struct {
	// Name is the code-location's name (codeLocation).
	Name string
	// Namespace is the Application's namespace: Argo CD's.
	Namespace string
	// RepoURL is the atlas repo URL, injected at seed time.
	RepoURL string
	// Path is the code-location's directory relative to the repo root,
	// slash-separated.
	Path string
	// Revision is the target revision (branch, tag or commit).
	Revision string
	// Project is the Argo CD project.
	Project string
	// Plugin is the Argo CD plugin name.
	Plugin string
	// DestinationServer is the cluster API server.
	DestinationServer string
	// DestinationNamespace is the contract's namespace.
	DestinationNamespace string
	// Wave is the sync wave: the depth in the dependency graph.
	Wave int
	// DependsOn are the declared dependsOn.codeLocations, as declared.
	DependsOn []string
}

// Options configures Generate.
type Options struct {
	// RepoURL is the atlas repo URL (required).
	RepoURL string
	// RepoRoot is the directory paths are relative to; "" means the git top
	// level above each directory (the nearest parent holding .git).
	RepoRoot string
	// Revision is the target revision; "" means HEAD.
	Revision string
	// Project is the Argo CD project; "" means default.
	Project string
	// Template is the template file; "" means the embedded example.
	Template string
	// Contract gives the destination and Argo CD namespaces (required).
	Contract *validate.Contract
	// Strict makes a dependency outside the directories given an error
	// instead of an already deployed code-location.
	Strict bool
}

// Application is one generated Application document.
type Application struct {
	// Name is the code-location's name.
	Name string
	// Wave is its sync wave.
	Wave int
	// YAML is the document, ending with a newline, without "---".
	YAML []byte
}

// Generate returns the Applications of the code-locations in dirs, sorted by
// wave then name. Invalid input is reported as validate.Problems and nothing
// is returned; other errors are usage errors.
func Generate(dirs []string, opts Options) ([]Application, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no code-location directory given")
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	tmpl, problems := LoadTemplate(opts.Template)
	decls, declProblems := loadDeclarations(dirs, opts.Contract)
	problems = append(problems, declProblems...)
	if len(problems) > 0 {
		return nil, problems.Sorted()
	}
	waves, problems := Waves(declsOf(decls), opts.Strict)
	if len(problems) > 0 {
		return nil, problems
	}
	data, err := applications(decls, waves, opts)
	if err != nil {
		return nil, err
	}
	return render(tmpl, data)
}

// Stream joins the documents into one YAML stream.
func Stream(apps []Application) []byte {
	docs := make([][]byte, len(apps))
	for i, a := range apps {
		docs[i] = a.YAML
	}
	return bytes.Join(docs, []byte("---\n"))
}

// WriteFiles writes each Application to dir/<name>.yaml, the layout of the
// cluster/apps repo, replacing only those files.
func WriteFiles(dir string, apps []Application) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, a := range apps {
		if err := writeFile(filepath.Join(dir, a.Name+".yaml"), a.YAML); err != nil {
			return err
		}
	}
	return nil
}

// writeFile replaces path atomically.
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".codeloc-*.yaml")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func (o Options) withDefaults() (Options, error) {
	if o.RepoURL == "" || strings.ContainsAny(o.RepoURL, " \t\r\n") {
		return o, fmt.Errorf("--repo-url %q is not a repo URL", o.RepoURL)
	}
	if o.Contract == nil {
		return o, errors.New("no cluster contract")
	}
	o.Revision = cmp.Or(o.Revision, DefaultRevision)
	o.Project = cmp.Or(o.Project, DefaultProject)
	if strings.ContainsAny(o.Revision+o.Project, " \t\r\n") {
		return o, fmt.Errorf("--revision %q and --project %q may not hold spaces", o.Revision, o.Project)
	}
	return o, nil
}

// located is a declaration with the directory it was read from.
type located struct {
	dir  string
	decl *validate.Declaration
}

// loadDeclarations reads each directory's declaration once (a directory given
// twice is read once), checks it against the contract and refuses two
// directories declaring the same name.
func loadDeclarations(dirs []string, c *validate.Contract) ([]located, validate.Problems) {
	var out []located
	var problems validate.Problems
	byDir := map[string]bool{}
	byName := map[string]string{}
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil || byDir[abs] {
			continue
		}
		byDir[abs] = true
		d, ps := validate.LoadDeclaration(dir)
		if d != nil && len(ps) == 0 {
			ps = validate.Check(d, c)
		}
		problems = append(problems, ps...)
		if d == nil || len(ps) > 0 {
			continue
		}
		if first, dup := byName[d.CodeLocation]; dup {
			problems = append(problems, d.PosOf("codeLocation").At(CodeDuplicateCodeLocation, "codeLocation",
				fmt.Sprintf("%q is also declared by %s", d.CodeLocation, filepath.Join(first, validate.ManifestFile)),
				"each code-location has one folder; give each directory once"))
			continue
		}
		byName[d.CodeLocation] = dir
		out = append(out, located{dir: dir, decl: d})
	}
	return out, problems
}

func declsOf(ls []located) []*validate.Declaration {
	out := make([]*validate.Declaration, len(ls))
	for i, l := range ls {
		out[i] = l.decl
	}
	return out
}

// applications builds the template data, sorted by wave then name.
func applications(decls []located, waves map[string]int, opts Options) ([]Data, error) {
	argocdNS := cmp.Or(opts.Contract.ArgoCDNamespace, DefaultArgoCDNamespace)
	out := make([]Data, 0, len(decls))
	for _, l := range decls {
		path, err := repoPath(l.dir, opts.RepoRoot)
		if err != nil {
			return nil, err
		}
		out = append(out, Data{
			Name:                 l.decl.CodeLocation,
			Namespace:            argocdNS,
			RepoURL:              opts.RepoURL,
			Path:                 path,
			Revision:             opts.Revision,
			Project:              opts.Project,
			Plugin:               names.PluginFullName,
			DestinationServer:    InClusterServer,
			DestinationNamespace: opts.Contract.Namespace,
			Wave:                 waves[l.decl.CodeLocation],
			DependsOn:            slices.Clone(l.decl.DependsOn.CodeLocations),
		})
	}
	slices.SortFunc(out, func(a, b Data) int {
		return cmp.Or(cmp.Compare(a.Wave, b.Wave), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}

// render executes the template for each Application.
func render(tmpl *Template, apps []Data) ([]Application, error) {
	var problems validate.Problems
	out := make([]Application, 0, len(apps))
	for _, a := range apps {
		doc, ps := tmpl.Execute(a)
		problems = append(problems, ps...)
		out = append(out, Application{Name: a.Name, Wave: a.Wave, YAML: doc})
	}
	if len(problems) > 0 {
		return nil, problems.Sorted()
	}
	return out, nil
}

// repoPath is dir relative to root (or to the git top level above dir),
// slash-separated.
func repoPath(dir, root string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if root == "" {
		if root, err = gitTopLevel(abs); err != nil {
			return "", err
		}
	} else if root, err = filepath.Abs(root); err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is not inside the repo root %s", dir, root)
	}
	return filepath.ToSlash(rel), nil
}

// gitTopLevel is the nearest directory at or above dir holding .git (a
// folder, or a file for worktrees and submodules).
func gitTopLevel(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%s is not in a git work tree: pass --repo-root", dir)
		}
	}
}
