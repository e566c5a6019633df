package build

import (
	"errors"
	"fmt"
	"path/filepath"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/codeloc/codeloc/internal/fsys"
	"github.com/codeloc/codeloc/internal/yamlbound"
	"github.com/codeloc/codeloc/render/node"
	"github.com/codeloc/codeloc/validate"
)

// guard is the file system kustomize builds from: fs, except that each
// kustomization is inspected as kustomize reads it, before kustomize acts
// on a word of it, and served without what codeloc refuses (remote
// references, Helm, vars) and with its deprecated fields moved to their
// replacements, as kustomize would do itself after printing a warning on
// the process's stderr. So nothing is ever fetched, whatever the shape or
// depth of the tree, and kustomize writes nothing to the process's output:
// each build's warnings are its own.
type guard struct {
	fsys.FS
	b *builder
}

// ReadFile reads path; a kustomization comes back as served, and the
// metadata of a resource file is checked as written. Every file is bounded
// first (size, then what its YAML aliases and nesting expand to): kustomize
// expands aliases as it loads a file.
func (g guard) ReadFile(path string) ([]byte, error) {
	if fi, err := g.Lstat(path); err == nil && fi.Mode().IsRegular() {
		if e := yamlbound.CheckSize(fi.Size(), g.b.limits); e != nil {
			return nil, g.b.yamlLimit(path, e)
		}
	}
	data, err := g.FS.ReadFile(path)
	if err != nil {
		return data, err
	}
	if e := yamlbound.Check(data, g.b.limits); e != nil {
		return nil, g.b.yamlLimit(path, e)
	}
	path = filepath.Clean(path)
	switch {
	case isKustomizationFile(path) || g.b.linkedKustomizations[path]:
		served, seen := g.b.served[path]
		if !seen { // a base listed twice is read twice, and said once
			served = g.b.inspect(path, data)
			g.b.served[path] = served
		}
		return served, nil
	case g.b.objectFiles[path]:
		delete(g.b.objectFiles, path) // once, though listed twice
		before := len(g.b.problems)
		for _, doc := range node.Documents(data) {
			g.b.checkPluginConfig(path, doc, nil)
		}
		if len(g.b.problems) > before {
			return nil, errRefused // kustomize stops here: it would fetch
		}
		g.b.checkMetadata(path, data)
	}
	return data, nil
}

// CleanedAbs resolves path as the file system does. kustomize reads every
// file at the path this returns, links resolved: a kustomization file that
// is a link is read under its target's name, which is noted here so that
// ReadFile still inspects it.
func (g guard) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	d, f, err := g.FS.CleanedAbs(path)
	if err == nil && f != "" && isKustomizationFile(path) {
		g.b.linkedKustomizations[filepath.Clean(d.Join(f))] = true
	}
	return d, f, err
}

// yamlLimit records a file past a YAML bound and stops kustomize there.
func (b *builder) yamlLimit(path string, e *yamlbound.Exceeded) error {
	col := e.Column
	if e.Line > 0 && col == 0 {
		col = 1
	}
	b.problems = append(b.problems, validate.Problem{Code: CodeYAMLLimit, File: filepath.Clean(path), Line: e.Line, Column: col,
		Message: e.Detail + fmt.Sprintf(", more than the %d %s a file may have", e.Limit, e.What),
		Hint:    "write the values out instead of through aliases, or flatten the file; a platform that needs it raises the limit with " + e.Setting})
	return errRefused
}

// errRefused stops kustomize at a file whose refusals could not be cut out
// of it; the refusals themselves are the build's problems.
var errRefused = errors.New("refused by codeloc")
