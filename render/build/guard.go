package build

import (
	"path/filepath"

	"github.com/codeloc/codeloc/internal/fsys"
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
// metadata of a resource file is checked as written.
func (g guard) ReadFile(path string) ([]byte, error) {
	data, err := g.FS.ReadFile(path)
	if err != nil {
		return data, err
	}
	path = filepath.Clean(path)
	g.b.read[path] = data
	switch {
	case isKustomizationFile(path):
		served, seen := g.b.served[path]
		if !seen { // a base listed twice is read twice, and said once
			served = g.b.inspect(path, data)
			g.b.served[path] = served
		}
		return served, nil
	case g.b.resourceFiles[path]:
		delete(g.b.resourceFiles, path) // once, though listed twice
		g.b.checkMetadata(path, data)
	}
	return data, nil
}
