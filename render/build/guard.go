package build

import (
	"errors"
	"fmt"
	"path/filepath"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/fsys"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/internal/yamlbound"
	"github.com/codeloc/codeloc/render/node"
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
	parsed, e := yamlbound.Parse(data, g.b.limits)
	if e != nil {
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
		docs := node.Mappings(parsed) // the checks below read them; kustomize parses its own
		for _, doc := range docs {
			g.b.checkPluginConfig(path, doc, nil)
		}
		if g.b.resourceFiles[path] {
			g.b.countObjects(path, docs)
		}
		if len(g.b.problems) > before {
			return nil, errRefused // kustomize stops here: it would fetch, or read too much
		}
		g.b.checkMetadata(path, docs)
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
	b.problems = append(b.problems, problem.Problem{Code: CodeYAMLLimit, File: filepath.Clean(path), Line: e.Line, Column: col,
		Message: e.Detail + fmt.Sprintf(", more than the %d %s a file may have", e.Limit, e.What),
		Hint:    "write the values out instead of through aliases, or flatten the file; a platform that needs it raises the limit with " + e.Setting})
	return errRefused
}

// countObjects adds a resource file's objects to the build's count and
// refuses the document past the contract's limit.
func (b *builder) countObjects(path string, docs []*yaml.RNode) {
	if b.maxObjects <= 0 {
		return
	}
	for _, doc := range docs {
		// A List (any document with items) is as many objects as it has
		// items: kustomize loads each one.
		objects := []*yaml.RNode{doc}
		if items := node.Sequence(doc, "items"); items != nil {
			objects = items
		}
		for _, o := range objects {
			if b.objects++; b.objects > b.maxObjects {
				n := o.YNode()
				b.problems = append(b.problems, ObjectLimit(path, n.Line, n.Column, b.maxObjects, "the resource files hold"))
				return
			}
		}
	}
}

// ObjectLimit is the problem of a code-location past the contract's
// limits.objects; what says what went past it.
func ObjectLimit(file string, line, col, limit int, what string) problem.Problem {
	return problem.Problem{Code: CodeObjectLimit, Path: "resources", File: file, Line: line, Column: col,
		Message: fmt.Sprintf("%s more than the %d objects a code-location may render (contract limits.objects)", what, limit),
		Hint:    "a code-location is not a monorepo: split it into several code-locations, or ask the platform to raise limits.objects in the cluster contract"}
}

// errRefused stops kustomize at a file whose refusals could not be cut out
// of it; the refusals themselves are the build's problems.
var errRefused = errors.New("refused by codeloc")
