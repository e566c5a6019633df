package build

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/node"
)

// pathFields are the kustomization fields holding lists of paths or URLs.
var pathFields = []string{"resources", "components", "bases", "crds", "configurations", "generators", "transformers", "validators", "patchesStrategicMerge"}

// refusedFields are the kustomization fields codeloc refuses whole.
var refusedFields = []struct{ field, code, msg, hint string }{
	{"helmCharts", CodeKustomizeHelm, "Helm chart inflation is disabled", helmHint},
	{"helmChartInflationGenerator", CodeKustomizeHelm, "Helm chart inflation is disabled", helmHint},
	{"helmGlobals", CodeKustomizeHelm, "Helm chart inflation is disabled", helmHint},
	{"openapi", CodeKustomizeOpenAPI, "openapi sets kustomize's schema for the whole process: in the long-lived sidecar, one code-location's schema would apply to the builds of others",
		"remove openapi: codeloc builds with kustomize's built-in Kubernetes schema; give custom resources' merge keys with crds: or patch them with JSON patches"},
	{"vars", CodeKustomizeVars, "vars is deprecated in kustomize, which prints its notes on the process's output",
		"rewrite the vars as replacements (`kustomize edit fix --vars` does it)"},
}

const helmHint = "render the chart into the repo (helm template) and list the output under resources:"

// inspect checks one kustomization as kustomize reads it and returns what
// kustomize is served: the same document without the references and
// fields refused (each one a problem at its line), deprecated fields moved
// to their replacements, no sortOptions (codeloc orders the output
// itself), and, for the root when origins are tracked, buildMetadata
// asking kustomize to record them. A document that is not a mapping is
// served as it is: kustomize reports it in its own words.
func (b *builder) inspect(file string, data []byte) []byte {
	const hint = "write the kustomization as one YAML mapping"
	doc, err := yaml.Parse(string(data))
	switch {
	case err != nil: // nothing the guard cannot read reaches kustomize
		b.problems = append(b.problems, problem.Problem{Code: CodeKustomizeBuild, File: file, Message: "the kustomization is not YAML: " + problem.OneLine(err.Error()), Hint: hint})
		return nil
	case len(node.Documents(data)) > 1:
		b.problems = append(b.problems, problem.Problem{Code: CodeKustomizeBuild, File: file, Message: "the kustomization holds more than one YAML document", Hint: hint})
		return nil
	case doc.YNode().Kind != yaml.MappingNode:
		return data // kustomize says what it is, in its own words
	}
	if !b.plainShape(file, doc.YNode()) {
		return nil // kustomize would read it otherwise than the guard does
	}
	dir := filepath.Dir(file)
	edited := b.refuseFields(file, doc)
	for _, f := range pathFields {
		edited = b.keepLocal(doc, f, func(item *yaml.RNode) bool { return b.entry(dir, file, f, item) }) || edited
	}
	edited = b.checkFileRefs(file, doc) || edited
	b.noteDeprecated(file, doc)
	b.notePatches(dir, file, doc)
	if doc.Field("sortOptions") != nil {
		edited = doc.PipeE(yaml.Clear("sortOptions")) == nil || edited
	}
	if file == b.rootFile && b.track {
		edited = addOriginAnnotations(doc) || edited
	}
	if edited {
		out, err := doc.String()
		if err != nil {
			return nil // nothing refused may reach kustomize: it fails on an empty file instead
		}
		data = []byte(out)
	}
	if hasDeprecated(doc) {
		fixed, err := fixKustomization(b.fs, dir, data)
		if err != nil {
			b.problems = append(b.problems, problem.Problem{Code: CodeKustomizeBuild, File: file, Message: err.Error(),
				Hint: "move the deprecated fields to their replacements yourself (`kustomize edit fix`), keeping each label in one of them"})
			return nil
		}
		data = fixed
	}
	return data
}

// plainShape refuses, in a document the guard reads for kustomize, what
// would make kustomize read it otherwise than the guard (indirection).
func (b *builder) plainShape(file string, n *yaml.Node) bool {
	at, msg := indirection(n)
	if at == nil {
		return true
	}
	path := ""
	if at.Kind == yaml.ScalarNode {
		path = at.Value
	}
	b.add(file, at, CodeKustomizeBuild, path, msg, "write the document plainly: each key once, no anchors, aliases or merge keys")
	return false
}

// indirection finds the first node of n that a YAML decoder reads
// otherwise than a look at the nodes: an alias (a merge key is one), which
// it expands, and a key given twice, of which the guard would read the
// first and kustomize the last. It returns nil when there is none.
func indirection(n *yaml.Node) (*yaml.Node, string) {
	switch n.Kind {
	case yaml.AliasNode:
		return n, fmt.Sprintf("alias *%s: codeloc reads kustomize's inputs without YAML aliases", n.Value)
	case yaml.MappingNode:
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if seen[k.Value] {
				return k, fmt.Sprintf("key %s is given twice", k.Value)
			}
			seen[k.Value] = true
		}
	}
	for _, c := range n.Content {
		if at, msg := indirection(c); at != nil {
			return at, msg
		}
	}
	return nil, ""
}

// refuseFields removes the fields codeloc refuses, each a problem.
func (b *builder) refuseFields(file string, doc *yaml.RNode) bool {
	edited := false
	for _, r := range refusedFields {
		if f := doc.Field(r.field); f != nil {
			b.add(file, f.Key.YNode(), r.code, r.field, r.msg, r.hint)
			edited = doc.PipeE(yaml.Clear(r.field)) == nil || edited
		}
	}
	return edited
}

// keepLocal keeps the items of the sequence field for which keep is true;
// it reports whether it removed any.
func (b *builder) keepLocal(doc *yaml.RNode, field string, keep func(*yaml.RNode) bool) bool {
	items := node.Sequence(doc, field)
	if items == nil {
		return false
	}
	kept := make([]*yaml.Node, 0, len(items))
	for _, item := range items {
		if keep(item) {
			kept = append(kept, item.YNode())
		}
	}
	if len(kept) == len(items) {
		return false
	}
	doc.Field(field).Value.YNode().Content = kept
	return true
}

// checkFileRefs refuses the remote files of patches, replacements and
// generators; it removes the entries that name one.
func (b *builder) checkFileRefs(file string, doc *yaml.RNode) bool {
	edited := false
	for _, f := range []string{"patches", "patchesJson6902", "replacements"} {
		edited = b.keepLocal(doc, f, func(item *yaml.RNode) bool {
			p := item.Field("path")
			return p == nil || b.checkRef(file, p.Value.YNode(), f+".path")
		}) || edited
	}
	for _, f := range []string{"configMapGenerator", "secretGenerator"} {
		edited = b.keepLocal(doc, f, func(gen *yaml.RNode) bool { return b.generatorLocal(file, f, gen) }) || edited
	}
	return edited
}

// generatorLocal reports whether a generator reads only local files.
func (b *builder) generatorLocal(file, field string, gen *yaml.RNode) bool {
	return b.localPaths(file, field+".", gen, []string{"files", "envs", "env"}, nil)
}

// localPaths refuses every remote file named by the fields of doc (a
// path, or a list of them; a generator's `key=path` is checked after the
// `=`, then whole) and reports whether there is none. at, when not nil, is
// where problems are placed (an inline document).
func (b *builder) localPaths(file, prefix string, doc *yaml.RNode, fields []string, at *yaml.Node) bool {
	local := true
	for _, f := range fields {
		field := doc.Field(f)
		if field == nil {
			continue
		}
		values := []*yaml.Node{field.Value.YNode()}
		if field.Value.YNode().Kind == yaml.SequenceNode {
			values = field.Value.YNode().Content
		}
		for _, v := range values {
			place := v
			if at != nil {
				place = at
			}
			ok := true
			if _, path, cut := strings.Cut(v.Value, "="); cut {
				ok = b.checkRef(file, place, prefix+f, path)
			}
			ok = ok && b.checkRef(file, place, prefix+f, v.Value)
			local = ok && local
		}
	}
	return local
}

// entry checks one resources/components/... item and reports whether
// kustomize may have it: it is local, and no link takes it out of the
// root. A resource file is noted for its metadata check, and a
// generator's or transformer's configuration (file or inline) is checked
// as kustomize will read it.
func (b *builder) entry(dir, file, field string, item *yaml.RNode) bool {
	n := item.YNode()
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "\n") && pluginFields[field] {
		before := len(b.problems)
		for _, doc := range node.Documents([]byte(n.Value)) {
			b.checkPluginConfig(file, doc, n)
		}
		return len(b.problems) == before
	}
	if n.Kind != yaml.ScalarNode || strings.Contains(n.Value, "\n") {
		return true // an inline patch
	}
	if !b.checkRef(file, n, field) {
		return false
	}
	if filepath.IsAbs(n.Value) {
		return true // kustomize refuses it under the root-only restrictor
	}
	sub := filepath.Join(dir, n.Value)
	if b.linksOutside(file, n, field, sub) {
		return false
	}
	real, err := b.fs.EvalSymlinks(sub)
	switch {
	case err != nil: // missing: kustomize says so
	case b.fs.IsDir(real):
		return !b.linksOutside(file, n, field, b.kustomizationFile(sub)) && b.enter(file, n, field, real)
	case field == "resources" || pluginFields[field]:
		b.objectFiles[real] = true
		b.resourceFiles[real] = b.resourceFiles[real] || field == "resources"
	}
	return true
}

// pluginFields are the kustomization fields listing the configurations of
// kustomize's built-in generators and transformers (files, folders or
// inline documents).
var pluginFields = map[string]bool{"generators": true, "transformers": true, "validators": true}

// pluginKinds are kustomize's built-in generators and transformers that
// load files or inflate charts.
var pluginKinds = map[string]bool{
	"ConfigMapGenerator": true, "SecretGenerator": true, "PatchTransformer": true, "PatchJson6902Transformer": true,
	"PatchStrategicMergeTransformer": true, "ReplacementTransformer": true, "HelmChartInflationGenerator": true,
}

// pluginPathFields are the fields of a built-in generator's or
// transformer's configuration that name files kustomize loads (a URL is
// fetched): ConfigMapGenerator and SecretGenerator (files, envs, env),
// PatchTransformer and PatchJson6902Transformer (path),
// PatchStrategicMergeTransformer (paths).
var pluginPathFields = []string{"files", "envs", "env", "path", "paths"}

// checkPluginConfig refuses, in one document that kustomize may read as a
// built-in generator's or transformer's configuration, Helm inflation and
// every remote file it names (replacements' paths included). at, when not
// nil, is where an inline document stands in its kustomization.
func (b *builder) checkPluginConfig(file string, doc *yaml.RNode, at *yaml.Node) {
	if !pluginKind(doc) || !b.plainShape(file, doc.YNode()) {
		return // an object, or a kind kustomize refuses with plugins off
	}
	place := doc.YNode()
	if at != nil {
		place = at
	}
	if doc.GetKind() == "HelmChartInflationGenerator" {
		b.add(file, place, CodeKustomizeHelm, "kind", "Helm chart inflation is disabled", helmHint)
	}
	b.localPaths(file, "", doc, pluginPathFields, at)
	for _, r := range node.Sequence(doc, "replacements") {
		b.localPaths(file, "replacements.", r, []string{"path"}, at)
	}
}

// pluginKind reports whether kustomize may read doc as the configuration
// of one of pluginKinds: by its kind as written or, where an alias, a
// merge key or a key given twice could hide it, as YAML decodes it (a
// document that does not decode counts as one).
func pluginKind(doc *yaml.RNode) bool {
	if pluginKinds[doc.GetKind()] {
		return true
	}
	if n, _ := indirection(doc.YNode()); n == nil {
		return false
	}
	var m map[string]any
	if err := doc.YNode().Decode(&m); err != nil {
		return true
	}
	kind, _ := m["kind"].(string)
	return pluginKinds[kind]
}

// enter counts the folder dir, listed at n of the kustomization file,
// against the tree's bounds; a folder past them is refused, so that
// kustomize never reads below it.
func (b *builder) enter(file string, n *yaml.Node, field, dir string) bool {
	depth := b.depth[filepath.Dir(file)] + 1
	b.bases++
	switch {
	case depth > MaxNesting:
		b.add(file, n, CodeKustomizeLimit, field, fmt.Sprintf("%s is the kustomization %d levels below the root, more than the %d a build reads", n.Value, depth, MaxNesting),
			"flatten the tree: list the manifests in fewer, shallower kustomizations")
		return false
	case b.bases > MaxKustomizations:
		b.add(file, n, CodeKustomizeLimit, field, fmt.Sprintf("%s is one more folder than the %d kustomizations a build reads", n.Value, MaxKustomizations),
			"list the manifests in fewer kustomizations")
		return false
	}
	if prev, seen := b.depth[dir]; !seen || depth < prev {
		b.depth[dir] = depth
	}
	return true
}

// checkRef refuses a remote reference; value defaults to the node's value.
func (b *builder) checkRef(file string, n *yaml.Node, field string, value ...string) bool {
	v := n.Value
	if len(value) > 0 {
		v = value[0]
	}
	if !isRemote(v) {
		return true
	}
	b.add(file, n, CodeKustomizeRemote, field, fmt.Sprintf("%q is remote; codeloc never fetches anything", v), "vendor the manifests into the repo and refer to them by a relative path")
	return false
}

func (b *builder) add(file string, n *yaml.Node, code, field, msg, hint string) {
	b.problems = append(b.problems, problem.Problem{Code: code, Path: field, File: file, Line: n.Line, Column: n.Column, Message: msg, Hint: hint})
}

// isRemote reports whether kustomize would fetch ref over the network: a
// URL with a scheme, a forced git:: reference, an scp-like user@host form or
// a github.com path (a superset of kustomize's own rules for git and http
// references, api/internal/git/repospec.go and loader.IsRemoteFile).
func isRemote(ref string) bool {
	r := strings.ToLower(strings.TrimSpace(ref))
	if strings.Contains(r, "://") || strings.HasPrefix(r, "git::") {
		return true
	}
	head, _, _ := strings.Cut(r, "/")
	if strings.Contains(head, "@") {
		return true
	}
	head, _, _ = strings.Cut(head, ":")
	return head == "github.com" || head == "www.github.com"
}

// hasDeprecated reports whether a kustomization uses a field kustomize
// warns about.
func hasDeprecated(doc *yaml.RNode) bool {
	return slices.ContainsFunc(deprecatedFields, func(d deprecatedField) bool { return doc.Field(d.field) != nil })
}
