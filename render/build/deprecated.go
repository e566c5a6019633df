package build

import (
	"fmt"
	"path/filepath"

	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/internal/fsys"
	"github.com/codeloc/codeloc/internal/problem"
)

// deprecatedField is a kustomization field kustomize warns about, and
// what replaces it.
type deprecatedField struct{ field, instead string }

// deprecatedFields are those `kustomize edit fix` moves to their
// replacement (vars, which have no mechanical replacement, are refused).
var deprecatedFields = []deprecatedField{
	{"bases", "resources"},
	{"commonLabels", "labels"},
	{"imageTags", "images"},
	{"patchesJson6902", "patches"},
	{"patchesStrategicMerge", "patches"},
}

// noteDeprecated records the deprecated fields of a kustomization as
// warnings at their lines.
func (b *builder) noteDeprecated(file string, doc *yaml.RNode) {
	for _, d := range deprecatedFields {
		f := doc.Field(d.field)
		if f == nil {
			continue
		}
		k := f.Key.YNode()
		b.problems = append(b.problems, problem.Problem{Code: CodeKustomizeNotes, Path: d.field, File: file, Line: k.Line, Column: k.Column,
			Message: fmt.Sprintf("%s is deprecated in kustomize", d.field), Hint: fmt.Sprintf("use %s instead; `kustomize edit fix` rewrites the file", d.instead),
			Severity: problem.SeverityWarning})
	}
}

// fixKustomization is `kustomize edit fix` on a kustomization of folder
// dir: the deprecated fields moved to their replacements by kustomize's
// own code (bases and imageTags, then patchesJson6902 and
// patchesStrategicMerge into patches, commonLabels into labels with its
// selectors). kustomize would otherwise print a warning on the process's
// stderr for each, and keep commonLabels and the patches as they are. It
// fails where kustomize's decoding fails (kustomize then stops before its
// warning) and where the fix does (a label both in commonLabels and labels).
func fixKustomization(fs fsys.FS, dir string, data []byte) ([]byte, error) {
	var k types.Kustomization
	if err := k.Unmarshal(data); err != nil {
		return data, nil
	}
	k.FixKustomization()
	if err := k.FixKustomizationPreMarshalling(inFolder{FS: fs, dir: dir}); err != nil {
		return nil, err
	}
	return sigsyaml.Marshal(&k)
}

// inFolder reads relative paths from dir: the fix tells a patch file from
// an inline patch by reading it.
type inFolder struct {
	fsys.FS
	dir string
}

func (f inFolder) ReadFile(path string) ([]byte, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(f.dir, path)
	}
	return f.FS.ReadFile(path)
}
