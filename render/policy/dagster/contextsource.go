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

// contextEnvNames are the env vars a Dagster code server reads its
// container context from (the option's own, DAGSTER_CONTAINER_CONTEXT,
// then click's auto names of each command); both commands also take it
// as --container-context.
var contextEnvNames = settingEnvNames(paramContext)

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
	return settingSources(ct, path, cms, paramContext, nil)
}

// settingSources finds every value a container hands Dagster's param
// (container_context, container_image): each occurrence on the command
// line of each code server it starts, as click reads it, and each env var
// either command reads it from (and extraEnv), in the environment the
// kubelet builds, with what a shell line sets before the command. Every
// one is returned, not only the one click keeps: each must pass.
func settingSources(ct *corev1.Container, path string, cms map[string]*yaml.RNode, param string, extraEnv []string) (found, unreadable []contextSource) {
	add := func(name, field, from, text, unknown string) {
		if unknown != "" {
			unreadable = append(unreadable, contextSource{name: name, field: field, from: from, text: unknown})
		} else if text != "" { // click takes an empty value as unset
			found = append(found, contextSource{name: name, field: field, from: from, text: text})
		}
	}
	names := append(settingEnvNames(param), extraEnv...)
	env := containerEnv(ct, path, cms)
	for _, n := range names {
		if v, ok := env.vars[n]; ok {
			add(n, v.field, v.from, v.value, v.unknown)
		}
	}
	for _, inv := range invocations(ct, path, cms) {
		for _, g := range inv.parse.given[param] {
			unknown := ""
			if g.unknown {
				unknown = "it holds a value codeloc cannot read"
			}
			add(g.source, g.field, "", g.value, unknown)
		}
		for _, n := range names {
			if v, ok := inv.env.vars[n]; ok && v != env.vars[n] {
				add(n, v.field, " (set by the shell line)", v.value, v.unknown)
			}
		}
	}
	// A container whose command is its image's entrypoint (which may be
	// dagster) hands its args to it: every spelling of the option's long
	// name in any word counts.
	for _, g := range literalFlag(argvWords(ct, path, env), cliCommands[0].option(param).opts[0]) {
		if g.unknown {
			if !slices.ContainsFunc(unreadable, func(u contextSource) bool { return u.field == g.field }) {
				add(g.source, g.field, "", "", "it holds a value codeloc cannot read")
			}
		} else if !slices.ContainsFunc(found, func(f contextSource) bool { return f.field == g.field && f.text == g.value }) {
			add(g.source, g.field, "", g.value, "")
		}
	}
	return found, unreadable
}

// literalFlag finds flag's values in words: --flag VALUE, --flag=VALUE.
func literalFlag(words []word, flag string) []setting {
	var out []setting
	for j, w := range words {
		if v, ok := strings.CutPrefix(w.text, flag+"="); ok && (w.unknownAt < 0 || w.unknownAt >= len(flag)+1) {
			out = append(out, setting{value: v, field: w.field, unknown: w.unknownAt >= 0, source: flag})
		} else if w.text == flag && w.unknownAt < 0 && j+1 < len(words) {
			out = append(out, setting{value: words[j+1].text, field: words[j+1].field, unknown: words[j+1].unknownAt >= 0, source: flag})
		}
	}
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
