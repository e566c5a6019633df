package policy

import (
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
)

// annotationRule refuses the annotations whose key starts with one of the
// contract's policy.deniedAnnotations prefixes, on every object and every
// object metadata inside it (pod templates, a CronJob's Job template...):
// they configure controllers all code-locations share (ingress-nginx's
// snippets), or make them read a Secret the declaration does not name.
// The annotation's value is never printed: a snippet may carry secrets.
type annotationRule struct{}

// Codes of annotationRule: stable, contracts, fixtures and scripts name them.
const (
	CodeAnnotationDenied = "policy-annotation-denied"
)

// Codes are the codes annotationRule emits.
func (annotationRule) Codes() []Code {
	return []Code{
		{CodeAnnotationDenied, "An object or a template inside it sets an annotation whose key starts with a prefix of the contract's policy.deniedAnnotations (ingress-nginx snippets and secret annotations by default)."},
	}
}

func (annotationRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	var ps problem.Problems
	for _, o := range objs {
		if handledByPolicy(o) {
			continue
		}
		eachAnnotation(o.YNode(), "", func(key, field string) {
			if f := in.deniedAnnotation(key, field); f != nil {
				ps = append(ps, in.problem(o, f.Code, f.Path, f.Msg, f.Hint))
			}
		})
	}
	return ps
}

// deniedAnnotation is the fault of annotation key at field, nil when the
// contract does not deny it. Keys and prefixes are compared in lower
// case: the API server takes an annotation's name part in any case.
func (in *Context) deniedAnnotation(key, field string) *Fault {
	i := slices.IndexFunc(in.c.Policy.DeniedAnnotations, func(p string) bool {
		return strings.HasPrefix(strings.ToLower(key), strings.ToLower(p))
	})
	if i < 0 {
		return nil
	}
	prefix := in.c.Policy.DeniedAnnotations[i]
	why := fmt.Sprintf("the contract's policy.deniedAnnotations denies the prefix %s", prefix)
	if strings.EqualFold(key, prefix) {
		why = "the contract's policy.deniedAnnotations lists it"
	}
	return &Fault{CodeAnnotationDenied, field,
		fmt.Sprintf("annotation %s configures a controller every code-location shares: %s", key, why),
		"remove it: what it sets reaches the other code-locations' traffic or Secrets; ask the platform for the setting"}
}

// eachAnnotation calls visit with the key and field path of every
// annotation of an object metadata in n (at path): the object's own and
// those of the templates it holds, at any depth.
func eachAnnotation(n *yaml.Node, path string, visit func(key, field string)) {
	n = deref(n)
	switch n.Kind {
	case yaml.SequenceNode:
		for i, item := range n.Content {
			eachAnnotation(item, fmt.Sprintf("%s[%d]", path, i), visit)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := deref(n.Content[i]).Value, n.Content[i+1]
			at := key
			if path != "" {
				at = path + "." + key
			}
			if key == "metadata" {
				metadataAnnotations(value, at, visit)
				continue
			}
			eachAnnotation(value, at, visit)
		}
	}
}

// metadataAnnotations visits the annotations of one object metadata.
func metadataAnnotations(meta *yaml.Node, path string, visit func(key, field string)) {
	meta = deref(meta)
	if meta.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(meta.Content); i += 2 {
		a := deref(meta.Content[i+1])
		if deref(meta.Content[i]).Value != "annotations" || a.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(a.Content); j += 2 {
			key := deref(a.Content[j]).Value
			visit(key, path+".annotations."+key)
		}
	}
}

// deref is the node an alias stands for (as the API server reads it; the
// build bounds how much aliases expand), else n.
func deref(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}
