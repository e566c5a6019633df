package build

import (
	"fmt"

	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/validate"
)

// deprecatedField is a kustomization field kustomize warns about, and
// what replaces it.
type deprecatedField struct{ field, instead string }

// deprecatedFields are those kustomize moves to their replacement itself
// (vars, which have no mechanical replacement, are refused).
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
		b.problems = append(b.problems, validate.Problem{Code: CodeKustomizeNotes, Path: d.field, File: file, Line: k.Line, Column: k.Column,
			Message: fmt.Sprintf("%s is deprecated in kustomize", d.field), Hint: fmt.Sprintf("use %s instead; `kustomize edit fix` rewrites the file", d.instead),
			Severity: validate.SeverityWarning})
	}
}

// fixKustomization is what kustomize does itself after its warning: the
// deprecated fields moved to their replacements. It fails where
// kustomize's own decoding fails, which then stops before its warning.
func fixKustomization(data []byte) ([]byte, bool) {
	var k types.Kustomization
	if err := k.Unmarshal(data); err != nil {
		return nil, false
	}
	k.FixKustomization()
	out, err := sigsyaml.Marshal(&k)
	return out, err == nil
}
