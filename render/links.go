package render

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/validate"
)

// realPath is path, absolute, with every symbolic link resolved (path
// itself when it cannot be resolved).
func realPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// linksOutside reports, as a problem at the kustomization file's entry n
// (nil: the file itself), a path that reaches outside the kustomize root
// through a symbolic link; kustomize would refuse it too, without a word
// of the link.
func (s *scanner) linksOutside(file string, n *yaml.Node, field, path string) bool {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false // missing: kustomize says so
	}
	real = realPath(real)
	if inside(real, s.root) {
		return false
	}
	link := firstLink(path)
	if link == "" {
		return false // plainly outside (../x): kustomize's own message says it
	}
	// The link's own text is not shown: Argo CD's unpacking rewrites it,
	// so only where it resolves to reads the same everywhere.
	msg := fmt.Sprintf("%s is a symbolic link that resolves to %s, outside the kustomize root %s", displayAbs(link), real, s.root)
	hint := "copy the file into the code-location's folder instead of linking to it: only the folder is deployed"
	if n == nil {
		s.problems = append(s.problems, problemAtFile(file, CodeLinkOutside, msg, hint))
		return true
	}
	s.add(file, n, CodeLinkOutside, field, msg, hint)
	return true
}

// firstLink is the first symbolic link on path's way (path itself or a
// folder above it), "" when there is none.
func firstLink(path string) string {
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
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return p
		}
	}
	return ""
}

func inside(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != "../")
}

func displayAbs(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

func problemAtFile(file, code, msg, hint string) validate.Problem {
	return validate.Problem{Code: code, File: file, Message: msg, Hint: hint}
}
