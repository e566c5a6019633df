package build

import (
	"fmt"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/node"
)

// Locator places problems of built objects in the files they came from.
type Locator struct {
	// file is the root kustomization: where problems of objects without a
	// known origin are reported.
	file    string
	origins map[*yaml.RNode]origin
	sources *sources
	patches []*patch
	// badMetadata holds the objects (Kind/name as written) whose metadata
	// the guard refused in their file already.
	badMetadata map[string]bool
}

func newLocator(b *builder, file string) *Locator {
	l := &Locator{file: file, origins: map[*yaml.RNode]origin{}, sources: &sources{fs: b.fs, docs: map[string][]*yaml.RNode{}},
		patches: b.patches, badMetadata: map[string]bool{}}
	for _, p := range b.problems {
		if p.Code == CodeMetadata {
			ref, _, _ := strings.Cut(p.Path, ".metadata")
			l.badMetadata[ref] = true
		}
	}
	return l
}

// RootFile is the root kustomization, where problems of the whole build go.
func (l *Locator) RootFile() string { return l.file }

// MetadataRefused reports whether the metadata of o, as written, was
// refused already (a decoding problem of it would say it again).
func (l *Locator) MetadataRefused(o *yaml.RNode) bool { return l.badMetadata[node.Ref(o)] }

// Problem is a problem of object o, at field (a dotted path inside the
// object, "" for the object itself): placed in the object's own file, at
// the field's line where the file shows it.
func (l *Locator) Problem(o *yaml.RNode, code, field, msg, hint string) problem.Problem {
	path := node.Ref(o)
	if field != "" {
		path += "." + field
	}
	p := problem.Problem{Code: code, Path: path, File: l.file, Message: msg, Hint: hint}
	l.place(&p, o, field)
	return p
}

// Where is where o is written, as "file:line" (the file alone when the
// line is not known).
func (l *Locator) Where(o *yaml.RNode) string {
	p := l.Problem(o, "", "", "", "")
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return p.File
}

// place sets p's file, line and column from o's origin.
func (l *Locator) place(p *problem.Problem, o *yaml.RNode, field string) {
	org, ok := l.origins[o]
	switch {
	case !ok:
		return
	case org.file != "":
		p.File = org.file
		if doc := findDocument(l.sources.documents(org.file), o); doc != nil {
			p.Line, p.Column = fieldPos(doc, field)
		}
		if by := l.patchedBy(o); by != "" {
			p.Message += " (the object is patched by " + by + ")"
		}
	case org.configuredIn != "":
		p.File = org.configuredIn
		p.Message += fmt.Sprintf(" (made by the %s of %s)", org.generator, filepath.Base(org.configuredIn))
		if kust := l.sources.documents(org.configuredIn); len(kust) == 1 {
			p.Line, p.Column = generatorPos(kust[0], org.generator, o.GetName())
		}
	}
}

// patchedBy names the patches that target o, for messages.
func (l *Locator) patchedBy(o *yaml.RNode) string {
	var by string
	for _, p := range l.patches {
		kind, name := p.target()
		if (kind == "" || kind == o.GetKind()) && (name == "" || strings.Contains(o.GetName(), name)) {
			if by != "" {
				by += ", "
			}
			by += p.field + " of " + p.file
		}
	}
	return by
}

// NewLocator returns a locator that places every problem at file, the
// root kustomization, for objects not built by Build (tests, tools).
func NewLocator(file string) *Locator {
	return &Locator{file: file, origins: map[*yaml.RNode]origin{}, badMetadata: map[string]bool{}}
}
