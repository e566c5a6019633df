package render

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/validate"
)

// build runs kustomize in-process on root: load restrictor root-only, no
// plugins, no Helm, and nothing remote (checked before the build, since
// kustomize would otherwise clone or download). It returns the objects and,
// when track is set, where each came from.
func build(root string, track bool) ([]*yaml.RNode, map[*yaml.RNode]origin, []*patch, validate.Problems) {
	// Metadata problems do not stop the build: the objects' own problems
	// are reported with them; remote references and Helm do.
	scan := scanKustomizations(root)
	scanned := scan.problems
	if slices.ContainsFunc(scanned, func(p validate.Problem) bool { return p.Code != CodeMetadata && !p.IsWarning() }) {
		return nil, nil, nil, scanned
	}
	k := krusty.MakeKustomizer(&krusty.Options{
		Reorder:          krusty.ReorderOptionNone,
		LoadRestrictions: types.LoadRestrictionsRootOnly,
		PluginConfig:     types.DisabledPluginConfig(),
	})
	file := kustomizationFile(root)
	absFile, err := filepath.Abs(file)
	if err != nil {
		return nil, nil, nil, validate.Problems{{Code: CodeKustomizeBuild, File: file, Message: err.Error(), Hint: "check the folder"}}
	}
	fs := originFS{FileSystem: filesys.MakeFsOnDisk(), deprecated: scan.deprecated, read: scan.files}
	if track {
		fs.rootFile = absFile
	}
	rm, notes, err := runQuietly(scan.vars, file, func() (resmap.ResMap, error) { return k.Run(fs, root) })
	scanned = append(scanned, notes...)
	if err != nil {
		return nil, nil, nil, validate.Problems{{Code: CodeKustomizeBuild, File: file, Message: err.Error(), Hint: "run `kustomize build` on the folder to see the same error"}}
	}
	resources := rm.Resources()
	if len(resources) == 0 {
		return nil, nil, nil, validate.Problems{{Code: CodeKustomizeEmpty, File: file, Message: "the kustomize root yields no object", Hint: "list the code-location's manifests under resources:"}}
	}
	objs := make([]*yaml.RNode, len(resources))
	origins := make(map[*yaml.RNode]origin, len(resources))
	for i, r := range resources {
		o, err := takeOrigin(r, root)
		if err != nil {
			return nil, nil, nil, validate.Problems{{Code: CodeKustomizeBuild, File: file, Message: err.Error(), Hint: "check the object's annotations"}}
		}
		objs[i] = &r.RNode
		origins[objs[i]] = o
	}
	return objs, origins, scan.patches, scanned
}

// kustomizationFile returns the kustomization file of a root, for messages.
func kustomizationFile(root string) string {
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		p := filepath.Join(root, name)
		if _, err := os.Lstat(p); err == nil {
			return p
		}
	}
	return filepath.Join(root, konfig.DefaultKustomizationFileName())
}

// scanKustomizations walks the kustomization tree from root and refuses
// every reference kustomize would fetch (git clones, http files) and Helm
// inflation. Local bases are followed; kustomize itself enforces the root.
func scanKustomizations(root string) *scanner {
	s := &scanner{seen: map[string]bool{}, root: realPath(root), deprecated: map[string]bool{}, files: map[string][]byte{}}
	s.scan(root)
	return s
}

// scanner walks the kustomization tree before the build.
type scanner struct {
	seen     map[string]bool
	root     string // the kustomize root, links resolved
	problems validate.Problems
	// deprecated holds the kustomization files (absolute) that use
	// deprecated fields; vars says one uses vars (see runQuietly).
	deprecated map[string]bool
	vars       bool
	patches    []*patch
	// files holds what the scan read, by absolute path: the build reads
	// the same bytes from it instead of from the disk again (originFS).
	files map[string][]byte
}

// read reads file once for the scan and the build.
func (s *scanner) read(file string) ([]byte, error) {
	data, err := os.ReadFile(file)
	if err == nil {
		if abs, aerr := filepath.Abs(file); aerr == nil {
			s.files[abs] = data
		}
	}
	return data, err
}

// pathFields are the kustomization fields holding lists of paths or URLs.
var pathFields = []string{"resources", "components", "bases", "crds", "configurations", "generators", "transformers", "validators", "patchesStrategicMerge"}

func (s *scanner) scan(dir string) {
	if s.seen[dir] || len(s.seen) > 1000 {
		return
	}
	s.seen[dir] = true
	file := kustomizationFile(dir)
	if s.linksOutside(file, nil, "", file) {
		return
	}
	data, err := s.read(file)
	if err != nil {
		return // kustomize reports it, with its own words
	}
	node, err := yaml.Parse(string(data))
	if err != nil || node.YNode().Kind != yaml.MappingNode {
		return
	}
	s.noteDeprecated(file, node)
	s.notePatches(dir, file, node)
	for _, f := range []string{"helmCharts", "helmChartInflationGenerator", "helmGlobals"} {
		if v := node.Field(f); v != nil {
			s.add(file, v.Key.YNode(), CodeKustomizeHelm, f, "Helm chart inflation is disabled", "render the chart into the repo (helm template) and list the output under resources:")
		}
	}
	for _, f := range pathFields {
		for _, item := range sequence(node, f) {
			s.entry(dir, file, f, item)
		}
	}
	for _, f := range []string{"patches", "patchesJson6902", "replacements"} {
		for _, item := range sequence(node, f) {
			if p := item.Field("path"); p != nil {
				s.checkRef(file, p.Value.YNode(), f+".path")
			}
		}
	}
	for _, f := range []string{"configMapGenerator", "secretGenerator"} {
		for _, gen := range sequence(node, f) {
			for _, sub := range []string{"files", "envs"} {
				for _, item := range sequence(gen, sub) {
					_, path, _ := strings.Cut(item.YNode().Value, "=")
					if !strings.Contains(item.YNode().Value, "=") {
						path = item.YNode().Value
					}
					s.checkRef(file, item.YNode(), f+"."+sub, path)
				}
			}
			if e := gen.Field("env"); e != nil {
				s.checkRef(file, e.Value.YNode(), f+".env")
			}
		}
	}
	if o := node.Field("openapi"); o != nil {
		if p := o.Value.Field("path"); p != nil {
			s.checkRef(file, p.Value.YNode(), "openapi.path")
		}
	}
}

func sequence(node *yaml.RNode, field string) []*yaml.RNode {
	f := node.Field(field)
	if f == nil || f.Value.YNode().Kind != yaml.SequenceNode {
		return nil
	}
	items, _ := f.Value.Elements()
	return items
}

// entry checks one resources/components/... item and follows local folders.
func (s *scanner) entry(dir, file, field string, item *yaml.RNode) {
	n := item.YNode()
	if n.Kind != yaml.ScalarNode || strings.Contains(n.Value, "\n") {
		return // an inline patch or generator config
	}
	if !s.checkRef(file, n, field) {
		return
	}
	if filepath.IsAbs(n.Value) {
		return // kustomize refuses it under the root-only restrictor
	}
	sub := filepath.Join(dir, n.Value)
	if s.linksOutside(file, n, field, sub) {
		return
	}
	fi, err := os.Stat(sub)
	switch {
	case err != nil:
	case fi.IsDir():
		s.scan(sub)
	case field == "resources" && fi.Mode().IsRegular():
		s.checkMetadataFile(sub)
	}
}

// checkRef refuses a remote reference; value defaults to the node's value.
func (s *scanner) checkRef(file string, n *yaml.Node, field string, value ...string) bool {
	v := n.Value
	if len(value) > 0 {
		v = value[0]
	}
	if !isRemote(v) {
		return true
	}
	s.add(file, n, CodeKustomizeRemote, field, fmt.Sprintf("%q is remote; codeloc never fetches anything", v), "vendor the manifests into the repo and refer to them by a relative path")
	return false
}

func (s *scanner) add(file string, n *yaml.Node, code, field, msg, hint string) {
	s.problems = append(s.problems, validate.Problem{Code: code, Path: field, File: file, Line: n.Line, Column: n.Column, Message: msg, Hint: hint})
}

// isRemote reports whether kustomize would fetch ref over the network: a
// URL with a scheme, a forced git:: reference, an scp-like user@host form or
// a github.com path (kustomize's own rules for git and http references).
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
