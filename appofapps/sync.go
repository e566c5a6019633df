package appofapps

import (
	"os"
	"path/filepath"
	"slices"

	"sigs.k8s.io/kustomize/api/konfig"

	"github.com/codeloc/codeloc/dagster/workspace"
	coderender "github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/validate"
)

// Locator finds where the platform's Dagster reaches the code server of
// the code-location in dir (nil: it runs none). Locate (render.Locate) is the one
// `codeloc application` uses.
type Locator func(dir string, c *validate.Contract) (*workspace.Location, error)

// Locate is the Locator of render.Locate: the code-location's declaration
// and its kustomize root, built in-process.
func Locate(dir string, c *validate.Contract) (*workspace.Location, error) {
	return coderender.Locate(coderender.Request{Dir: dir, Contract: c})
}

// Workspace locates the code server of each code-location folder in dirs
// (locate, nil: Locate) and returns the workspace ConfigMap of them all
// (WorkspaceConfigMap, in the contract's namespace under its
// dagster.workspaceConfigMap name). A folder without a kustomization has
// nothing to deploy yet, so no code server: it is left out.
func Workspace(dirs []string, c *validate.Contract, locate Locator) ([]byte, error) {
	if locate == nil {
		locate = Locate
	}
	var locs []workspace.Location
	for _, dir := range dirs {
		if !hasKustomization(dir) {
			continue // nothing to deploy yet, so no code server
		}
		loc, err := locate(dir, c)
		if err != nil {
			return nil, err
		}
		if loc != nil {
			locs = append(locs, *loc)
		}
	}
	return WorkspaceConfigMap(c.Namespace, c.Dagster.WorkspaceConfigMap, locs)
}

// hasKustomization reports whether dir holds a kustomize root: one of the
// file names kustomize itself recognizes.
func hasKustomization(dir string) bool {
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// StreamOf is what `codeloc application DIR...` prints: the Applications
// of the code-locations in dirs (Generate, opts.Contract set), then the
// workspace ConfigMap of their code servers (Workspace), as one YAML
// stream.
func StreamOf(dirs []string, opts Options, locate Locator) ([]byte, error) {
	apps, err := Generate(dirs, opts)
	if err != nil {
		return nil, err
	}
	ws, err := Workspace(dirs, opts.Contract, locate)
	if err != nil {
		return nil, err
	}
	return slices.Concat(Stream(apps), []byte("---\n"), ws), nil
}

// SyncOptions configure Sync.
type SyncOptions struct {
	// Options are the Applications' (Contract and RepoRoot set).
	Options
	// OutputDir is the cluster/apps checkout the files are written into.
	OutputDir string
	// HeaderFlags are the flags the generated files' header names
	// (Header): the contract and the template files, by base name.
	HeaderFlags []string
	// Check plans the changes without writing anything.
	Check bool
	// Locate locates the code servers (nil: Locate).
	Locate Locator
}

// Sync generates the files of every code-location under the repo root
// (the Applications and their admission bindings, the contract's buckets,
// the Dagster workspace, the index) and compares them with OutputDir
// (Plan): the changes, sorted by name, which it applies (Apply) unless
// Check is set. What `codeloc application --output-dir` runs; Report and
// Diff say what the changes are.
func Sync(o SyncOptions) ([]Change, error) {
	dirs, err := CodeLocationDirs(o.RepoRoot)
	if err != nil {
		return nil, err
	}
	var apps []Application
	if len(dirs) > 0 {
		if apps, err = Generate(dirs, o.Options); err != nil {
			return nil, err
		}
	}
	ws, err := Workspace(dirs, o.Contract, o.Locate)
	if err != nil {
		return nil, err
	}
	files, err := Files(apps, o.Contract, ws, Header(o.HeaderFlags...))
	if err != nil {
		return nil, err
	}
	changes, err := Plan(o.OutputDir, files)
	if err != nil || o.Check {
		return changes, err
	}
	return changes, Apply(o.OutputDir, changes)
}
