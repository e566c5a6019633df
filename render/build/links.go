package build

import (
	"fmt"
	"io/fs"
	"path/filepath"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
)

// realPath is path, absolute, with every symbolic link resolved (path
// itself, absolute, when it cannot be resolved).
func (b *builder) realPath(path string) string {
	if real, err := b.fs.EvalSymlinks(path); err == nil {
		return real
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// linksOutside reports, as a problem at the kustomization file's entry n
// (nil: the file itself), a path that reaches outside the kustomize root
// through a symbolic link; kustomize would refuse it too, without a word
// of the link.
func (b *builder) linksOutside(file string, n *yaml.Node, field, path string) bool {
	real, err := b.fs.EvalSymlinks(path)
	if err != nil || inside(real, b.real) {
		return false // missing: kustomize says so
	}
	link := b.firstLink(path)
	if link == "" {
		return false // plainly outside (../x): kustomize's own message says it
	}
	// The link's own text is not shown: Argo CD's unpacking rewrites it,
	// so only where it resolves to reads the same everywhere.
	msg := fmt.Sprintf("%s is a symbolic link that resolves to %s, outside the kustomize root %s", link, real, b.real)
	hint := "copy the file into the code-location's folder instead of linking to it: only the folder is deployed"
	if n == nil {
		b.problems = append(b.problems, problem.Problem{Code: CodeLinkOutside, File: file, Message: msg, Hint: hint})
		return true
	}
	b.add(file, n, CodeLinkOutside, field, msg, hint)
	return true
}

// firstLink is the first symbolic link on path's way (path itself or a
// folder above it), absolute; "" when there is none.
func (b *builder) firstLink(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	var chain []string
	for p := abs; ; p = filepath.Dir(p) {
		chain = append([]string{p}, chain...)
		if filepath.Dir(p) == p {
			break
		}
	}
	for _, p := range chain {
		if fi, err := b.fs.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return p
		}
	}
	return ""
}

// inside reports whether p is root or below it.
func inside(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != "../")
}
