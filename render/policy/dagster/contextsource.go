package dagster

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/render/policy"
)

// The environment variables a Dagster code server reads its container
// context from: the Dagster chart sets the first for `dagster api grpc`
// (click's auto_envvar_prefix), the second for `dagster code-server
// start`; both commands also take it as --container-context.
var contextEnvNames = []string{"DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT", "DAGSTER_CONTAINER_CONTEXT"}

// contextFlag is the command-line form of the container context.
const contextFlag = "--container-context"

// contextSource is one container context a container hands to the run
// pods Dagster launches from it.
type contextSource struct {
	// name is the env var or flag, as problems name it.
	name string
	// field is where the object sets it (the env var, the arg).
	field string
	// from says where the text was read when not in field itself.
	from string
	text string
}

// shippedConfigMaps are the ConfigMaps the render ships, by name.
func shippedConfigMaps(objs []*yaml.RNode) map[string]*yaml.RNode {
	out := map[string]*yaml.RNode{}
	for _, o := range objs {
		if o.GetApiVersion() == "v1" && o.GetKind() == "ConfigMap" && !policy.HandledByPolicy(o) {
			out[o.GetName()] = o
		}
	}
	return out
}

// configMapValue is the value of key in a shipped ConfigMap.
func configMapValue(cm *yaml.RNode, key string) (string, bool) {
	n, err := cm.Pipe(yaml.Lookup("data", key))
	if err != nil || n == nil || n.YNode().Kind != yaml.ScalarNode {
		return "", false
	}
	return n.YNode().Value, true
}

// contextSources finds the container contexts a container sets, and the
// problems of those codeloc cannot read (unreadable: a secret, a platform
// ConfigMap, a field of the pod).
func contextSources(ct *corev1.Container, path string, cms map[string]*yaml.RNode) ([]contextSource, []contextSource) {
	return envSources(ct, path, cms, contextEnvNames, contextFlag)
}

// envSources finds the values a container gives a Dagster setting through
// the env vars envNames (literal, from a shipped ConfigMap, by envFrom) or
// flag, and those codeloc cannot read.
func envSources(ct *corev1.Container, path string, cms map[string]*yaml.RNode, envNames []string, flag string) ([]contextSource, []contextSource) {
	var found, unreadable []contextSource
	for i, e := range ct.Env {
		if !slices.Contains(envNames, e.Name) {
			continue
		}
		field := fmt.Sprintf("%s.env[%d]", path, i)
		switch {
		case e.ValueFrom == nil && e.Value != "":
			found = append(found, contextSource{name: e.Name, field: field + ".value", text: e.Value})
		case e.ValueFrom == nil: // empty: click takes it as unset
		case e.ValueFrom.ConfigMapKeyRef != nil && cms[e.ValueFrom.ConfigMapKeyRef.Name] != nil:
			ref := e.ValueFrom.ConfigMapKeyRef
			src := contextSource{name: e.Name, field: field + ".valueFrom.configMapKeyRef", from: fmt.Sprintf(" (ConfigMap %s, key %s)", ref.Name, ref.Key)}
			if v, ok := configMapValue(cms[ref.Name], ref.Key); ok {
				src.text = v
				found = append(found, src)
			} else if ref.Optional == nil || !*ref.Optional {
				src.text = "the ConfigMap has no such key"
				unreadable = append(unreadable, src)
			}
		default:
			unreadable = append(unreadable, contextSource{name: e.Name, field: field + ".valueFrom", text: unreadableFrom(e.ValueFrom)})
		}
	}
	for i, ef := range ct.EnvFrom {
		if ef.ConfigMapRef == nil || cms[ef.ConfigMapRef.Name] == nil {
			continue // a declared secret or platform ConfigMap: admission holds the run pods to the declaration
		}
		cm := cms[ef.ConfigMapRef.Name]
		data := cm.GetDataMap()
		for _, k := range slices.Sorted(maps.Keys(data)) {
			if name := ef.Prefix + k; slices.Contains(envNames, name) && data[k] != "" {
				found = append(found, contextSource{name: name, field: fmt.Sprintf("%s.envFrom[%d].configMapRef", path, i),
					from: fmt.Sprintf(" (ConfigMap %s, key %s)", cm.GetName(), k), text: data[k]})
			}
		}
	}
	if flag != "" {
		found = append(found, flagSources(ct, path, flag)...)
	}
	return found, unreadable
}

// flagSources are the values of flag in a container's command and args.
func flagSources(ct *corev1.Container, path, flag string) []contextSource {
	var out []contextSource
	scan := func(list []string, field string) {
		for j, a := range list {
			at := fmt.Sprintf("%s.%s[%d]", path, field, j)
			if v, ok := strings.CutPrefix(a, flag+"="); ok {
				out = append(out, contextSource{name: flag, field: at, text: v})
			} else if a == flag && j+1 < len(list) {
				out = append(out, contextSource{name: flag, field: fmt.Sprintf("%s.%s[%d]", path, field, j+1), text: list[j+1]})
			}
		}
	}
	scan(ct.Command, "command")
	scan(ct.Args, "args")
	return out
}

func unreadableFrom(v *corev1.EnvVarSource) string {
	switch {
	case v.SecretKeyRef != nil:
		return fmt.Sprintf("it comes from Secret %s, which codeloc does not read", v.SecretKeyRef.Name)
	case v.ConfigMapKeyRef != nil:
		return fmt.Sprintf("it comes from ConfigMap %s, which the render does not ship", v.ConfigMapKeyRef.Name)
	}
	return "it comes from the pod at run time"
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
