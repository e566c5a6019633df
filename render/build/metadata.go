package build

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/node"
)

// checkMetadata checks the metadata of every object in a resource file as
// written, before kustomize reads it: kustomize turns some malformed
// shapes into valid ones (labels: [1, 2] comes out as the label 1: "2"),
// so that the mistake would otherwise never be seen.
func (b *builder) checkMetadata(file string, docs []*yaml.RNode) {
	for _, doc := range docs {
		b.problems = append(b.problems, metadataProblems(file, doc)...)
	}
}

// metadataProblems checks one object's metadata: a mapping with a name,
// labels and annotations maps of strings (or null, which the API server
// reads as absent), valid label keys and values.
func metadataProblems(file string, doc *yaml.RNode) problem.Problems {
	at := func(n *yaml.Node, path, msg, hint string) problem.Problem {
		return problem.Pos{File: file, Line: n.Line, Column: n.Column}.At(CodeMetadata, node.Ref(doc)+"."+path, msg, hint)
	}
	md := doc.Field("metadata")
	if md == nil || doc.GetKind() == "" {
		return nil // not an object (kustomize says what it is)
	}
	meta := yaml.NewRNode(resolve(md.Value.YNode()))
	if meta.YNode().Kind != yaml.MappingNode {
		return problem.Problems{at(md.Value.YNode(), "metadata", "metadata is not a map", "write metadata as a map with name, labels, annotations")}
	}
	var ps problem.Problems
	if name := meta.Field("name"); name == nil || name.Value.YNode().Kind != yaml.ScalarNode || name.Value.YNode().Value == "" {
		ps = append(ps, at(md.Key.YNode(), "metadata.name", "the object has no name", "set metadata.name"))
	}
	for _, field := range []string{"labels", "annotations"} {
		if f := meta.Field(field); f != nil && !isNull(resolve(f.Value.YNode())) {
			ps = append(ps, stringMapProblems(resolve(f.Value.YNode()), "metadata."+field, field == "labels", at)...)
		}
	}
	return ps
}

// isNull reports whether n is YAML's null (`key:`, `~`, `null`).
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == yaml.NodeTagNull
}

// resolve is what an alias stands for (kustomize expands it); n itself
// otherwise.
func resolve(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

type problemAt func(n *yaml.Node, path, msg, hint string) problem.Problem

// stringMapProblems checks a labels or annotations map.
func stringMapProblems(n *yaml.Node, path string, labels bool, at problemAt) problem.Problems {
	if n.Kind != yaml.MappingNode {
		return problem.Problems{at(n, path, path+" is not a map of strings", "write it as key: \"value\" lines")}
	}
	var ps problem.Problems
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		p := path + "." + k.Value
		if errs := validation.IsQualifiedName(k.Value); len(errs) > 0 {
			ps = append(ps, at(k, p, fmt.Sprintf("%q is not a valid key: %s", k.Value, firstClause(errs[0])), "use [prefix/]name with letters, digits, '-', '_', '.'"))
		}
		if v.Kind != yaml.ScalarNode || v.Tag != "!!str" && v.Tag != "" {
			ps = append(ps, at(v, p, fmt.Sprintf("the value of %s is not a string", k.Value), "quote it: Kubernetes keeps only strings here"))
			continue
		}
		if errs := validation.IsValidLabelValue(v.Value); labels && len(errs) > 0 {
			ps = append(ps, at(v, p, fmt.Sprintf("%q is not a valid label value: %s", v.Value, firstClause(errs[0])), "use at most 63 letters, digits, '-', '_', '.'"))
		}
	}
	return ps
}

// firstClause drops the example and regexp apimachinery appends to its
// validation messages.
func firstClause(msg string) string {
	if i := strings.Index(msg, " (e.g."); i > 0 {
		return msg[:i]
	}
	return msg
}
