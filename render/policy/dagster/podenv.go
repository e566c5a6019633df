package dagster

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// envVar is one variable of a container's environment as the kubelet
// builds it, and where the object sets it.
type envVar struct {
	value string
	field string
	from  string // " (ConfigMap x, key y)" when read there
	// unknown says why codeloc cannot read the value ("" it can): a
	// Secret, a ConfigMap the render does not ship, a field of the pod.
	unknown string
}

// podEnv is a process's environment: the container's as the kubelet
// builds it, then what a shell line sets.
type podEnv struct {
	vars map[string]envVar
	// opaque says why any name may hold a value codeloc cannot read ("" none):
	// an envFrom of a Secret, an eval in a shell line.
	opaque string
}

// containerEnv is a container's environment as the kubelet builds it
// (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables): every envFrom in
// order, then every env entry in order, each entry's value with $(VAR)
// expanded against the variables before it; a later name replaces an
// earlier one.
func containerEnv(ct *corev1.Container, path string, cms map[string]*yaml.RNode) podEnv {
	env := podEnv{vars: map[string]envVar{}}
	for i, ef := range ct.EnvFrom {
		field := fmt.Sprintf("%s.envFrom[%d]", path, i)
		switch {
		case ef.ConfigMapRef != nil && cms[ef.ConfigMapRef.Name] != nil:
			cm := cms[ef.ConfigMapRef.Name]
			data := cm.GetDataMap()
			for _, k := range slices.Sorted(maps.Keys(data)) {
				env.vars[ef.Prefix+k] = envVar{value: data[k], field: field + ".configMapRef", from: fmt.Sprintf(" (ConfigMap %s, key %s)", cm.GetName(), k)}
			}
		case ef.ConfigMapRef != nil:
			env.opaque = fmt.Sprintf("%s: ConfigMap %s, which the render does not ship, may set any variable", field, ef.ConfigMapRef.Name)
		case ef.SecretRef != nil:
			env.opaque = fmt.Sprintf("%s: Secret %s, which codeloc does not read, may set any variable", field, ef.SecretRef.Name)
		}
	}
	for i, e := range ct.Env {
		field := fmt.Sprintf("%s.env[%d]", path, i)
		v := envVar{field: field + ".value"}
		switch {
		case e.ValueFrom == nil:
			text, unknownAt, why := env.expand(e.Value)
			v.value = text
			if unknownAt >= 0 {
				v.unknown = why
			}
		case e.ValueFrom.ConfigMapKeyRef != nil && cms[e.ValueFrom.ConfigMapKeyRef.Name] != nil:
			ref := e.ValueFrom.ConfigMapKeyRef
			v.field, v.from = field+".valueFrom.configMapKeyRef", fmt.Sprintf(" (ConfigMap %s, key %s)", ref.Name, ref.Key)
			if val, ok := configMapValue(cms[ref.Name], ref.Key); ok {
				v.value = val
			} else if ref.Optional != nil && *ref.Optional {
				continue // the kubelet leaves it unset
			} else {
				v.unknown = "the ConfigMap has no such key"
			}
		default:
			v.field, v.unknown = field+".valueFrom", unreadableFrom(e.ValueFrom)
		}
		env.vars[e.Name] = v
	}
	return env
}

// clone is a copy a shell line can change.
func (e podEnv) clone() podEnv {
	return podEnv{vars: maps.Clone(e.vars), opaque: e.opaque}
}

// lookup is a variable's value: ok false when it is not set, unknown
// when it may be set to what codeloc cannot read.
func (e podEnv) lookup(name string) (v envVar, ok bool) {
	if v, ok := e.vars[name]; ok {
		return v, true
	}
	if e.opaque != "" {
		return envVar{unknown: e.opaque}, true
	}
	return envVar{}, false
}

// expand expands $(VAR) references as the kubelet does for env values,
// command and args (third_party/forked/golang/expansion: $$ is $, a
// reference to a variable not set stays as written, an unclosed $( too).
// It returns the text, the index where the first value codeloc cannot
// read stands (-1: none; its reference is kept in the text, never a
// value) and why.
func (e podEnv) expand(in string) (string, int, string) {
	var b strings.Builder
	unknownAt, why := -1, ""
	for i := 0; i < len(in); i++ {
		if in[i] != '$' || i+1 >= len(in) {
			b.WriteByte(in[i])
			continue
		}
		switch in[i+1] {
		case '$':
			b.WriteByte('$')
			i++
			continue
		case '(':
			end := strings.IndexByte(in[i+2:], ')')
			if end < 0 {
				b.WriteString("$(")
				i++
				continue
			}
			name := in[i+2 : i+2+end]
			v, ok := e.lookup(name)
			switch {
			case !ok && serviceLinkName(name):
				if unknownAt < 0 {
					unknownAt, why = b.Len(), fmt.Sprintf("$(%s) may be a Service's address the kubelet sets", name)
				}
				b.WriteString("$(" + name + ")")
			case !ok:
				b.WriteString("$(" + name + ")")
			case v.unknown != "":
				if unknownAt < 0 {
					unknownAt, why = b.Len(), fmt.Sprintf("$(%s): %s", name, v.unknown)
				}
				b.WriteString("$(" + name + ")")
			default:
				b.WriteString(v.value)
			}
			i += 2 + end
		default:
			// As the kubelet's code does since Kubernetes 1.37: the
			// character after $ is kept, an invalid UTF-8 byte becomes
			// U+FFFD (before, each byte became the rune of its value).
			r, size := utf8.DecodeRuneInString(in[i+1:])
			b.WriteByte('$')
			b.WriteString(string(r))
			i += size
		}
	}
	return b.String(), unknownAt, why
}

// serviceLinkName reports whether the kubelet may set name from a
// Service of the namespace (enableServiceLinks): FOO_SERVICE_HOST,
// FOO_SERVICE_PORT, FOO_PORT, FOO_PORT_80_TCP...
func serviceLinkName(name string) bool {
	return strings.HasSuffix(name, "_SERVICE_HOST") || strings.Contains(name, "_SERVICE_PORT") || strings.Contains(name, "_PORT")
}
