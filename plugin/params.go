package plugin

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/codeloc/codeloc/internal/problem"
)

// Parameter names.
const (
	ParamKustomizeRoot = "kustomize-root"
	ParamContract      = "contract"
)

// Parameter is a string parameter the plugin announces in plugin.yaml
// (spec.parameters.static). Argo CD does not send announced defaults: the
// plugin applies Default itself when the Application does not set it.
type Parameter struct {
	Name    string
	Title   string
	Tooltip string
	Default string
}

// Parameters are every parameter codeloc accepts, in announcement order.
var Parameters = []Parameter{
	{
		Name:    ParamKustomizeRoot,
		Title:   "Kustomize root",
		Tooltip: "Folder holding the kustomization, relative to the code-location folder (the Application's path). Empty: the code-location folder itself.",
	},
	{
		Name:    ParamContract,
		Title:   "Cluster contract",
		Tooltip: "Name of the cluster contract to render against when several are mounted (<name>.yaml in the contract folder). Empty: the only one mounted.",
	},
}

// Defaults returns each parameter's default value by name.
func Defaults() map[string]string {
	m := make(map[string]string, len(Parameters))
	for _, p := range Parameters {
		m[p.Name] = p.Default
	}
	return m
}

// parameterPath is the Application field parameter problems point at.
const parameterPath = "spec.source.plugin.parameters"

// sentParameter is one entry of ARGOCD_APP_PARAMETERS.
type sentParameter struct {
	Name   string             `json:"name"`
	String *string            `json:"string,omitempty"`
	Map    *map[string]string `json:"map,omitempty"`
	Array  *[]string          `json:"array,omitempty"`
}

// parameters returns the value of every known parameter, defaults applied.
// ARGOCD_APP_PARAMETERS is authoritative (Argo CD always sends it for a
// plugin source); PARAM_* variables are read only when it is absent, as
// when `codeloc generate` runs by hand.
func parameters(env map[string]string) (map[string]string, problem.Problems) {
	var values map[string]string
	var problems problem.Problems
	if raw, ok := env[EnvAppParameters]; ok && strings.TrimSpace(raw) != "" {
		values, problems = jsonParameters(raw)
	} else {
		values, problems = paramEnv(env)
	}
	out := Defaults()
	for name, v := range values {
		out[name] = v
	}
	return out, problems
}

// jsonParameters decodes ARGOCD_APP_PARAMETERS.
func jsonParameters(raw string) (map[string]string, problem.Problems) {
	var sent []sentParameter
	if err := json.Unmarshal([]byte(raw), &sent); err != nil {
		return nil, problem.Problems{{Code: CodeBadParameter, Path: parameterPath, Message: fmt.Sprintf("%s is not a JSON list of parameters: %v", EnvAppParameters, err), Hint: "this variable is set by Argo CD; run the plugin through Argo CD or set PARAM_<NAME> variables"}}
	}
	values := map[string]string{}
	var problems problem.Problems
	for i, p := range sent {
		at := fmt.Sprintf("%s[%d]", parameterPath, i)
		switch {
		case !known(p.Name):
			problems = append(problems, unknownParameter(at, p.Name))
		case hasValue(values, p.Name):
			problems = append(problems, problem.Problem{Code: CodeBadParameter, Path: at, Message: fmt.Sprintf("parameter %q is set twice", p.Name), Hint: "set it once"})
		case p.Map != nil || p.Array != nil:
			problems = append(problems, problem.Problem{Code: CodeBadParameter, Path: at, Message: fmt.Sprintf("parameter %q is a string, not a map or an array", p.Name), Hint: "set it with string: VALUE"})
		case p.String != nil:
			values[p.Name] = *p.String
		default:
			values[p.Name] = ""
		}
	}
	return values, problems
}

func hasValue(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// paramEnv reads PARAM_<NAME> variables.
func paramEnv(env map[string]string) (map[string]string, problem.Problems) {
	byEnv := map[string]string{}
	for _, p := range Parameters {
		byEnv[EnvParamPrefix+EnvName(p.Name)] = p.Name
	}
	values := map[string]string{}
	var problems problem.Problems
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if !strings.HasPrefix(k, EnvParamPrefix) {
			continue
		}
		name, ok := byEnv[k]
		if !ok {
			problems = append(problems, unknownParameter(parameterPath, strings.TrimPrefix(k, EnvParamPrefix)))
			continue
		}
		values[name] = env[k]
	}
	return values, problems
}

// unknownEnv refuses plugin env entries: codeloc reads none, so an entry
// is a mistake (most likely a parameter given as env) that would otherwise
// be ignored silently.
func unknownEnv(env map[string]string) problem.Problems {
	var problems problem.Problems
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if name, ok := strings.CutPrefix(k, EnvUserPrefix); ok {
			problems = append(problems, problem.Problem{
				Code: CodeUnknownEnv, Path: "spec.source.plugin.env",
				Message: fmt.Sprintf("codeloc takes no plugin env, got %q", name),
				Hint:    "remove it; choose the kustomize root and the contract with the parameters " + strings.Join(ParameterNames(), ", "),
			})
		}
	}
	return problems
}

func unknownParameter(at, name string) problem.Problem {
	return problem.Problem{
		Code: CodeUnknownParameter, Path: at,
		Message: fmt.Sprintf("unknown parameter %q", name),
		Hint:    "codeloc's parameters are " + strings.Join(ParameterNames(), ", "),
	}
}

func known(name string) bool {
	return slices.Contains(ParameterNames(), name)
}

// ParameterNames lists the parameters codeloc knows, in announcement order.
func ParameterNames() []string {
	out := make([]string, len(Parameters))
	for i, p := range Parameters {
		out[i] = p.Name
	}
	return out
}

var nonEnvChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("[^A-Z0-9_]") })

// EnvName returns the PARAM_ suffix Argo CD derives from a parameter name.
func EnvName(param string) string {
	return nonEnvChars().ReplaceAllString(strings.ToUpper(param), "_")
}
