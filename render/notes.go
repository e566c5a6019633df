package render

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/validate"
)

// deprecatedFields are the kustomization fields kustomize warns about, and
// what replaces each.
var deprecatedFields = []struct{ field, instead string }{
	{"bases", "resources"},
	{"commonLabels", "labels"},
	{"imageTags", "images"},
	{"patchesJson6902", "patches"},
	{"patchesStrategicMerge", "patches"},
	{"vars", "replacements"},
}

// noteDeprecated records the deprecated fields of a kustomization as
// warnings at their lines. kustomize would print its own warning on the
// process's stderr; the build reads the fixed form instead (originFS).
func (s *scanner) noteDeprecated(file string, node *yaml.RNode) {
	for _, d := range deprecatedFields {
		f := node.Field(d.field)
		if f == nil {
			continue
		}
		p := validate.Problem{Code: CodeKustomizeNotes, Path: d.field, File: file, Line: f.Key.YNode().Line, Column: f.Key.YNode().Column,
			Message: fmt.Sprintf("%s is deprecated in kustomize", d.field), Hint: fmt.Sprintf("use %s instead; `kustomize edit fix` rewrites the file", d.instead),
			Severity: validate.SeverityWarning}
		s.problems = append(s.problems, p)
		if d.field == "vars" {
			s.vars = true
		} else if abs, err := filepath.Abs(file); err == nil {
			s.deprecated[abs] = true
		}
	}
}

// fixKustomization is what kustomize does itself after its warning: the
// deprecated fields moved to their replacements (vars stay: they have no
// mechanical replacement).
func fixKustomization(data []byte) ([]byte, bool) {
	var k types.Kustomization
	if err := k.Unmarshal(data); err != nil {
		return nil, false
	}
	k.FixKustomization()
	out, err := sigsyaml.Marshal(&k)
	return out, err == nil
}

// quiet serializes the builds that make kustomize write to the process's
// stderr and log (vars): the only way to take those lines is to redirect
// both, which no two builds may do at once.
var quiet sync.Mutex

// runQuietly runs build; when vars is set, with kustomize's stderr and log
// output captured and turned into warnings. Builds without vars, the
// usual case, run concurrently and untouched.
func runQuietly(vars bool, file string, build func() (resmap.ResMap, error)) (resmap.ResMap, validate.Problems, error) {
	if !vars {
		rm, err := build()
		return rm, nil, err
	}
	quiet.Lock()
	defer quiet.Unlock()
	var buf bytes.Buffer
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, nil, err
	}
	defer devNull.Close()
	stderr, logOut, flags := os.Stderr, log.Writer(), log.Flags()
	os.Stderr = devNull
	log.SetOutput(&buf)
	log.SetFlags(0)
	defer func() { os.Stderr = stderr; log.SetOutput(logOut); log.SetFlags(flags) }()
	rm, err := build()
	return rm, logNotes(file, buf.String()), err
}

// logNotes turns kustomize's log lines into warnings of the root
// kustomization file.
func logNotes(file, out string) validate.Problems {
	var ps validate.Problems
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			ps = append(ps, validate.Problem{Code: CodeKustomizeNotes, File: file, Message: "kustomize: " + line,
				Hint: "check the vars and their references", Severity: validate.SeverityWarning})
		}
	}
	return ps
}
