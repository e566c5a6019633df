// Package appofapps generates the plain Argo CD Applications that the
// cluster/apps repo holds (ADR 0094 §2): one per atlas code-location, naming
// the codeloc plugin, ordered in sync waves by the dependsOn.codeLocations
// graph of every declaration under the repo root, so that one Application
// generated alone gets the wave it gets among all. The documents come from a
// sprig template whose deployment values (the repo URL) are injected at seed
// time, never versioned (ADR 0023).
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
	"github.com/codeloc/codeloc/internal/problem"
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
	// RepoRoot is the directory paths are relative to and whose every
	// declaration makes the dependency graph; "" means the git top level above
	// each directory (the nearest parent holding .git).
	RepoRoot string
	// Revision is the target revision; "" means HEAD.
	Revision string
	// Project is the Argo CD project; "" means default.
	Project string
	// Template is the template file; "" means the embedded example.
	Template string
	// Contract gives the destination and Argo CD namespaces (required).
	Contract *validate.Contract
}

// Application is one generated Application document.
type Application struct {
	// Name is the code-location's name.
	Name string
	// Wave is its sync wave.
	Wave int
	// Manifest is its declaration file, as shown in problems.
	Manifest string
	// Declaration is its declaration, as loaded (PictureOf reads it).
	Declaration *validate.Declaration
	// YAML is the document, ending with a newline, without "---".
	YAML []byte
	// Admission are the code-location's ValidatingAdmissionPolicyBindings
	// (AdmissionBindingsYAML): a YAML stream ending with a newline.
	Admission []byte
}

// Generate returns the Applications of the code-locations in dirs, sorted by
// wave then name. The waves come from the dependsOn.codeLocations graph of
// every declaration under the repo root; a declaration there is checked only
// when a directory given depends on it, directly or not. Invalid input is
// reported as problem.Problems and nothing is returned; other errors are
// usage errors.
func Generate(dirs []string, opts Options) ([]Application, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no code-location directory given")
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	tmpl, problems := LoadTemplate(opts.Template)
	gs, err := loadGiven(dirs, opts.RepoRoot)
	if err != nil {
		return nil, err
	}
	problems = append(problems, checkGiven(gs, opts.Contract)...)
	problems = append(problems, assignWaves(gs)...)
	if len(problems) > 0 {
		return nil, problems.Sorted()
	}
	data, err := applications(gs, opts)
	if err != nil {
		return nil, err
	}
	apps, err := render(tmpl, data)
	if err != nil {
		return nil, err
	}
	byName := map[string]*given{}
	for _, g := range gs {
		byName[g.decl.CodeLocation] = g
	}
	for i := range apps {
		g := byName[apps[i].Name]
		apps[i].Manifest, apps[i].Declaration = g.file(), g.decl
	}
	return apps, nil
}

// Stream joins the documents into one YAML stream: each Application
// followed by its admission bindings.
func Stream(apps []Application) []byte {
	var docs [][]byte
	for _, a := range apps {
		docs = append(docs, a.YAML)
		if len(a.Admission) > 0 {
			docs = append(docs, a.Admission)
		}
	}
	return bytes.Join(docs, []byte("---\n"))
}

// AdmissionFileSuffix ends the name of the file of a code-location's
// admission bindings in cluster/apps: <name>.admission.yaml. A
// code-location's name has no dot, so it is no Application's file.
const AdmissionFileSuffix = ".admission.yaml"

// WriteFiles writes each Application to dir/<name>.yaml, and its admission
// bindings to dir/<name>.admission.yaml, the layout of the cluster/apps
// repo, replacing only those files.
func WriteFiles(dir string, apps []Application) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, a := range apps {
		if err := writeFile(filepath.Join(dir, a.Name+".yaml"), a.YAML); err != nil {
			return err
		}
		if len(a.Admission) == 0 {
			continue
		}
		if err := writeFile(filepath.Join(dir, a.Name+AdmissionFileSuffix), a.Admission); err != nil {
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

// applications builds the template data, sorted by wave then name.
func applications(gs []*given, opts Options) ([]Data, error) {
	argocdNS := cmp.Or(opts.Contract.ArgoCDNamespace, DefaultArgoCDNamespace)
	out := make([]Data, 0, len(gs))
	for _, g := range gs {
		path, err := filepath.Rel(g.tree.absRoot, g.abs)
		if err != nil {
			return nil, err
		}
		out = append(out, Data{
			Name:                 g.decl.CodeLocation,
			Namespace:            argocdNS,
			RepoURL:              opts.RepoURL,
			Path:                 filepath.ToSlash(path),
			Revision:             opts.Revision,
			Project:              opts.Project,
			Plugin:               names.PluginFullName,
			DestinationServer:    InClusterServer,
			DestinationNamespace: opts.Contract.Namespace,
			Wave:                 g.wave,
			DependsOn:            slices.Clone(g.decl.DependsOn.CodeLocations),
		})
	}
	slices.SortFunc(out, func(a, b Data) int {
		return cmp.Or(cmp.Compare(a.Wave, b.Wave), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}

// render executes the template for each Application.
func render(tmpl *Template, apps []Data) ([]Application, error) {
	var problems problem.Problems
	out := make([]Application, 0, len(apps))
	for _, a := range apps {
		doc, ps := tmpl.Execute(a)
		problems = append(problems, ps...)
		bindings, err := AdmissionBindingsYAML(a.Name, a.DestinationNamespace)
		if err != nil {
			return nil, err
		}
		out = append(out, Application{Name: a.Name, Wave: a.Wave, YAML: doc, Admission: bindings})
	}
	if len(problems) > 0 {
		return nil, problems.Sorted()
	}
	return out, nil
}
