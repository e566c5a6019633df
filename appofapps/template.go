package appofapps

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	template "github.com/DataDog/datadog-agent/pkg/template/text"
	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
)

// ExampleTemplate is the embedded default Application template.
//
//go:embed application.example.yaml
var ExampleTemplate []byte

// ExampleTemplateFile names the embedded template in messages.
const ExampleTemplateFile = "<embedded>/application.example.yaml"

// MaxTemplateBytes bounds an operator's template file.
const MaxTemplateBytes = 64 << 10

// removedFuncs are the sprig functions a template may not call, with why:
// an Application must depend only on the declarations and the flags.
var removedFuncs = map[string]string{
	"env":       "it reads the environment",
	"expandenv": "it reads the environment",

	"getHostByName": "it queries the network",

	"now":            "it reads the clock",
	"ago":            "it reads the clock",
	"durationRound":  "it reads the clock",
	"date":           "it depends on the local time zone",
	"dateInZone":     "it reads the time zone database",
	"date_in_zone":   "it reads the time zone database",
	"htmlDate":       "it depends on the local time zone",
	"htmlDateInZone": "it reads the time zone database",
	"toDate":         "it depends on the local time zone",
	"mustToDate":     "it depends on the local time zone",
	"dateModify":     "dates depend on the clock or the time zone",
	"date_modify":    "dates depend on the clock or the time zone",
	"mustDateModify": "dates depend on the clock or the time zone",
	"unixEpoch":      "dates depend on the clock or the time zone",

	"randAlphaNum": "it is random",
	"randAlpha":    "it is random",
	"randAscii":    "it is random",
	"randNumeric":  "it is random",
	"randInt":      "it is random",
	"randBytes":    "it is random",
	"shuffle":      "it is random",
	"uuidv4":       "it is random",

	"bcrypt":                   "it is salted at random",
	"htpasswd":                 "it is salted at random",
	"encryptAES":               "its IV is random",
	"genPrivateKey":            "it generates random keys",
	"genCA":                    "it generates random keys",
	"genCAWithKey":             "it reads the clock",
	"genSelfSignedCert":        "it generates random keys",
	"genSelfSignedCertWithKey": "it reads the clock",
	"genSignedCert":            "it generates random keys",
	"genSignedCertWithKey":     "it reads the clock",
}

// The templates run on a copy of text/template that never calls a value's
// methods (DataDog's pkg/template/text): text/template's method lookup by
// name makes the linker keep every exported method of every type in
// cmd/codeloc, 6 MB of a binary the stock cmp-server starts at every render.

// funcMap is sprig's text function map without the removed functions.
func funcMap() template.FuncMap {
	fm := sprig.TxtFuncMap()
	for name := range removedFuncs {
		delete(fm, name)
	}
	return fm
}

// Template is a parsed Application template.
type Template struct {
	file string
	tmpl *template.Template
}

// LoadTemplate reads and parses the template at path, or the embedded
// example when path is empty.
func LoadTemplate(path string) (*Template, problem.Problems) {
	if path == "" {
		return ParseTemplate(ExampleTemplateFile, ExampleTemplate)
	}
	data, err := readTemplate(path)
	if err != nil {
		return nil, problem.Problems{{Code: CodeTemplate, File: path, Message: err.Error(),
			Hint: "point --template at a readable file; `codeloc application` without --template uses the embedded example"}}
	}
	return ParseTemplate(path, data)
}

func readTemplate(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("is not a regular file")
	case fi.Size() > MaxTemplateBytes:
		return nil, fmt.Errorf("is %d bytes, more than the %d allowed", fi.Size(), MaxTemplateBytes)
	}
	return os.ReadFile(path)
}

// ParseTemplate parses a template named file in messages.
func ParseTemplate(file string, data []byte) (*Template, problem.Problems) {
	t, err := template.New(file).Funcs(funcMap()).Option("missingkey=error").Parse(string(data))
	if err != nil {
		return nil, problem.Problems{templateProblem(file, err)}
	}
	return &Template{file: file, tmpl: t}, nil
}

// Execute renders one Application and checks that the output is one YAML
// mapping of kind argoproj.io/v1alpha1 Application. It returns the document
// without a leading "---" and with one final newline.
func (t *Template) Execute(data Data) ([]byte, problem.Problems) {
	var buf bytes.Buffer
	if err := t.tmpl.Execute(&buf, data); err != nil {
		return nil, problem.Problems{templateProblem(t.file, err)}
	}
	out := normalize(buf.Bytes())
	if p := checkOutput(t.file, data.Name, out); p != nil {
		return nil, problem.Problems{*p}
	}
	return out, nil
}

// normalize trims blank lines around the document and a leading "---".
func normalize(b []byte) []byte {
	s := strings.TrimSpace(string(b))
	s = strings.TrimSpace(strings.TrimPrefix(s, "---"))
	return []byte(s + "\n")
}

// checkOutput checks a rendered document.
func checkOutput(file, name string, out []byte) *problem.Problem {
	bad := func(msg string) *problem.Problem {
		return &problem.Problem{Code: CodeTemplateOutput, File: file,
			Message: fmt.Sprintf("for code-location %q: %s", name, msg),
			Hint:    "the template must produce exactly one argoproj.io/v1alpha1 Application; quote values with `quote`"}
	}
	dec := yaml.NewDecoder(bytes.NewReader(out))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return bad("the output is not YAML: " + err.Error())
		}
		docs = append(docs, &n)
	}
	if len(docs) != 1 {
		return bad(fmt.Sprintf("the output holds %d YAML documents, not 1", len(docs)))
	}
	var obj struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name string `yaml:"name"`
		} `yaml:"metadata"`
	}
	if docs[0].Kind != yaml.DocumentNode || len(docs[0].Content) != 1 || docs[0].Content[0].Kind != yaml.MappingNode {
		return bad("the output is not a YAML mapping")
	}
	if err := docs[0].Decode(&obj); err != nil {
		return bad(err.Error())
	}
	switch {
	case obj.APIVersion != "argoproj.io/v1alpha1" || obj.Kind != "Application":
		return bad(fmt.Sprintf("the output is %s %s, not argoproj.io/v1alpha1 Application", orNone(obj.APIVersion, "(no apiVersion)"), orNone(obj.Kind, "(no kind)")))
	case obj.Metadata.Name == "":
		return bad("the output has no metadata.name")
	}
	return nil
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// templateErrRE splits text/template's "template: NAME:LINE[:COL]: MSG".
var templateErrRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^template: (.*?):(\d+)(?::(\d+))?: (.*)$`) })

// undefinedFuncRE finds a call to a function the map does not hold.
var undefinedFuncRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`function "([^"]+)" not defined`) })

// templateProblem turns a text/template error into a Problem at its line,
// explaining removed functions.
func templateProblem(file string, err error) problem.Problem {
	p := problem.Problem{Code: CodeTemplate, File: file, Message: err.Error(),
		Hint: "fix the template; it sees .Name, .Namespace, .RepoURL, .Path, .Revision, .Project, .Plugin, .DestinationServer, .DestinationNamespace, .Wave, .DependsOn"}
	m := templateErrRE().FindStringSubmatch(err.Error())
	if m == nil {
		return p
	}
	p.Line, _ = strconv.Atoi(m[2])
	p.Column, _ = strconv.Atoi(m[3])
	if p.Column == 0 {
		p.Column = 1
	}
	p.Message = m[4]
	if strings.Contains(m[4], "can't evaluate field") && !strings.HasSuffix(m[4], " in type appofapps.Data") {
		p.Hint = "a template reads the data's fields and calls functions, never a value's methods: use a sprig function instead (semverCompare for a version, for one)"
	}
	if f := undefinedFuncRE().FindStringSubmatch(m[4]); f != nil {
		if why, removed := removedFuncs[f[1]]; removed {
			p.Code = CodeTemplateFunction
			p.Message = fmt.Sprintf("function %q is not available: %s", f[1], why)
			p.Hint = "an Application must depend only on the declarations and the flags; pass deployment values as flags"
		}
	}
	return p
}
