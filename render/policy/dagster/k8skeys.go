package dagster

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// Dagster reads the Kubernetes objects of a container context (volumes,
// env, pod_spec_config...) with the keys of either the Python client
// (snake_case: host_network) or the API (camelCase: hostNetwork), and
// refuses any other key (dagster_k8s/models.py, k8s_snake_case_keys). The
// functions here do the same against the Go API types, so that codeloc
// reads exactly the object Dagster builds: a key the API type does not
// know is refused rather than dropped (host_ipc must not become an
// unknown hostIpc that the Pod Security checks never see).

// keyProblem is a key of a context object codeloc refuses, at path.
type keyProblem struct{ path, msg string }

// apiKeys normalizes v, decoded from JSON, to the API's field names of
// type t, walking nested objects, lists and maps; path names v in
// messages. Values are kept as they are.
func apiKeys(v any, t reflect.Type, path string) (any, []keyProblem) {
	t = indirect(t)
	if isLeaf(t) {
		return v, nil
	}
	switch t.Kind() {
	case reflect.Slice:
		items, ok := v.([]any)
		if !ok {
			return v, nil // a type error: the decoding reports it
		}
		var ps []keyProblem
		out := make([]any, len(items))
		for i, item := range items {
			var p []keyProblem
			out[i], p = apiKeys(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
			ps = append(ps, p...)
		}
		return out, ps
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return v, nil
		}
		var ps []keyProblem
		out := make(map[string]any, len(m))
		for k, item := range m {
			var p []keyProblem
			out[k], p = apiKeys(item, t.Elem(), path+"."+k)
			ps = append(ps, p...)
		}
		return out, ps
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return v, nil
		}
		out, ps := structKeys(m, t, path)
		return out, append(ps, missingKeys(out, t, path)...)
	}
	return v, nil
}

// rootKeys is apiKeys for the object a context field holds: the fields
// its own type requires are left out, because Dagster fills them
// (container_config's name, pod_spec_config's containers, job_spec_config's
// template); those of the objects inside are checked.
func rootKeys(v any, t reflect.Type, path string) (any, []keyProblem) {
	t = indirect(t)
	if m, ok := v.(map[string]any); ok && t.Kind() == reflect.Struct && !isLeaf(t) {
		return structKeys(m, t, path)
	}
	return apiKeys(v, t, path)
}

// missingKeys are the fields the API requires of t (no omitempty, not a
// pointer: the fields the Kubernetes Python client refuses to leave None,
// so that Dagster refuses the object when it builds the run's Job) that
// the normalized object out lacks or sets to null.
func missingKeys(out any, t reflect.Type, path string) []keyProblem {
	m, _ := out.(map[string]any)
	var ps []keyProblem
	for _, f := range fieldsOf(t).required {
		if m[f] == nil {
			ps = append(ps, keyProblem{path + "." + pythonName(f), fmt.Sprintf("%s needs %s (%s): the API requires it, and Dagster's Kubernetes client refuses the object without it", t.Name(), pythonName(f), f)})
		}
	}
	return ps
}

func structKeys(m map[string]any, t reflect.Type, path string) (any, []keyProblem) {
	fields := fieldsOf(t)
	var ps []keyProblem
	out := make(map[string]any, len(m))
	from := map[string]string{}
	for _, k := range sortedKeys(m) {
		f, ok := fields.byKey[k]
		if !ok {
			ps = append(ps, keyProblem{path + "." + k, fmt.Sprintf("%s has no field %q", t.Name(), k)})
			continue
		}
		if first, twice := from[f.json]; twice {
			ps = append(ps, keyProblem{path + "." + k, fmt.Sprintf("%q and %q are the same field of %s", first, k, t.Name())})
			continue
		}
		from[f.json] = k
		var p []keyProblem
		out[f.json], p = apiKeys(m[k], f.typ, path+"."+k)
		ps = append(ps, p...)
	}
	return out, ps
}

// structFields are the fields of an API struct by both their names.
type structFields struct {
	byKey map[string]apiField
	// required are the API's names of the fields the API requires.
	required []string
}

type apiField struct {
	json string
	typ  reflect.Type
}

var fieldCache sync.Map // reflect.Type -> structFields

func fieldsOf(t reflect.Type) structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(structFields)
	}
	f := structFields{byKey: map[string]apiField{}}
	addFields(&f, t)
	fieldCache.Store(t, f)
	return f
}

func addFields(fs *structFields, t reflect.Type) {
	for i := range t.NumField() {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" || !sf.IsExported() {
			continue
		}
		if name == "" && (sf.Anonymous || strings.Contains(opts, "inline")) {
			addFields(fs, indirect(sf.Type)) // VolumeSource inside Volume
			continue
		}
		if name == "" {
			continue
		}
		f := apiField{json: name, typ: sf.Type}
		fs.byKey[name] = f
		fs.byKey[pythonName(name)] = f
		if !strings.Contains(opts, "omitempty") && sf.Type.Kind() != reflect.Pointer && !optionalFields[t.Name()+"."+name] {
			fs.required = append(fs.required, name)
		}
	}
}

// optionalFields have no omitempty in the Go API types, yet the API (and
// the Python client) takes them as optional, or Dagster fills them in (a
// JobSpec's template: Dagster writes the run's pod template over it).
var optionalFields = map[string]bool{
	"JobSpec.template":                              true,
	"ProjectedVolumeSource.sources":                 true,
	"PodFailurePolicyOnPodConditionsPattern.status": true,
}

// pyKeywords are the JSON names the Kubernetes Python client prefixes with
// _, Python keywords (exec -> _exec).
var pyKeywords = map[string]bool{"exec": true, "from": true, "continue": true, "not": true, "async": true, "global": true}

// pythonName is the Kubernetes Python client's attribute name for a JSON
// field name: its generator's underscore() (hostIPC -> host_ipc,
// targetWWNs -> target_ww_ns, externalIPs -> external_i_ps), with a
// leading _ for Python keywords. underscore() is two substitutions,
// ([A-Z]+)([A-Z][a-z]) then ([a-z\d])([A-Z]), each into \1_\2, then "-"
// into "_" and lower case. They are written out here (a test holds them to
// the regexps): compiling and running the regexps cost a tenth of a
// millisecond of every render with a container context.
func pythonName(jsonName string) string {
	if pyKeywords[jsonName] {
		return "_" + jsonName
	}
	return strings.ToLower(strings.ReplaceAll(breakWords(breakAcronyms(jsonName)), "-", "_"))
}

// breakAcronyms puts _ before the last capital of each run of two or more
// ASCII capitals followed by an ASCII lower-case letter (HTTPGet ->
// HTTP_Get): ([A-Z]+)([A-Z][a-z]) into \1_\2.
func breakAcronyms(s string) string {
	out := make([]byte, 0, len(s)+2)
	capitals := 0 // the length of the run of capitals just before s[i]
	for i := range len(s) {
		c := s[i]
		if isLowerASCII(c) && capitals >= 2 {
			last := out[len(out)-1]
			out = append(out[:len(out)-1], '_', last)
		}
		if isUpperASCII(c) {
			capitals++
		} else {
			capitals = 0
		}
		out = append(out, c)
	}
	return string(out)
}

// breakWords puts _ between an ASCII lower-case letter or digit and the
// ASCII capital after it (hostIPC -> host_IPC): ([a-z\d])([A-Z]) into
// \1_\2 (the matches cannot overlap: each ends with a capital, which
// cannot start one).
func breakWords(s string) string {
	out := make([]byte, 0, len(s)+4)
	for i := range len(s) {
		if i > 0 && isUpperASCII(s[i]) && (isLowerASCII(s[i-1]) || '0' <= s[i-1] && s[i-1] <= '9') {
			out = append(out, '_')
		}
		out = append(out, s[i])
	}
	return string(out)
}

func isUpperASCII(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLowerASCII(c byte) bool { return 'a' <= c && c <= 'z' }

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// isLeaf reports whether t decodes itself (Quantity, IntOrString, Time) or
// is not made of fields.
func isLeaf(t reflect.Type) bool {
	if reflect.PointerTo(t).Implements(unmarshalerType) || t.Implements(unmarshalerType) {
		return true
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Map:
		return t.Elem().Kind() == reflect.Uint8 // []byte
	case reflect.Struct:
		return false
	}
	return true
}

func indirect(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
