// Package build runs kustomize in-process over a file system: load
// restrictor root-only, no plugins, no Helm, nothing remote. Every
// kustomization kustomize reads passes through a guard (guard.go) that
// refuses what would fetch, inflate or print, records the deprecated
// fields as warnings at their lines and notes the patches; the objects come
// back with where each was read from, so that later stages can place their
// problems at a line (Locator).
package build

import (
	"path/filepath"
	"slices"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/fsys"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/internal/yamlbound"
)

// Output is what a build yields.
type Output struct {
	// Objects are the built objects, in kustomize's order; nil when the
	// build failed or was refused.
	Objects []*yaml.RNode
	// Problems are, with Objects, the objects' metadata problems and the
	// warnings; without, why there is no object.
	Problems problem.Problems
	// Locator places problems of the objects in their files.
	Locator *Locator
}

// Options tune a build.
type Options struct {
	// Track makes kustomize record where each object came from (a tenth of
	// the build's time), so that the Locator places problems at a line;
	// without, at the root kustomization.
	Track bool
	// YAML bounds every file kustomize reads, checked before kustomize
	// parses it (zero fields: the defaults).
	YAML yamlbound.Limits
	// MaxObjects, when positive, bounds the objects the resource files
	// hold: past it the build stops reading them (the contract's
	// limits.objects; kustomize's cost grows faster than the objects).
	MaxObjects int
}

// Build builds the kustomize root at root on fs.
func Build(fs fsys.FS, root string, opts Options) *Output {
	b := newBuilder(fs, root, opts.Track)
	b.limits = opts.YAML.WithDefaults()
	b.maxObjects = opts.MaxObjects
	file := b.kustomizationFile(root)
	if b.linksOutside(file, nil, "", file) {
		return &Output{Problems: b.problems}
	}
	k := krusty.MakeKustomizer(&krusty.Options{
		Reorder:          krusty.ReorderOptionNone,
		LoadRestrictions: types.LoadRestrictionsRootOnly,
		PluginConfig:     types.DisabledPluginConfig(),
	})
	rm, err := k.Run(guard{FS: fs, b: b}, root)
	if b.refused() {
		// The guard served kustomize nothing it refused, so the build ran on
		// the rest: every refusal of the tree is known, whatever kustomize
		// then made of what was left.
		return &Output{Problems: b.problems}
	}
	if err != nil && slices.ContainsFunc(b.problems, func(p problem.Problem) bool { return p.Code == CodeMetadata }) {
		return &Output{Problems: b.problems} // what kustomize choked on, at its line
	}
	if err != nil {
		return &Output{Problems: problem.Problems{{Code: CodeKustomizeBuild, File: file, Message: err.Error(), Hint: "run `kustomize build` on the folder to see the same error"}}}
	}
	resources := rm.Resources()
	if len(resources) == 0 {
		return &Output{Problems: problem.Problems{{Code: CodeKustomizeEmpty, File: file, Message: "the kustomize root yields no object", Hint: "list the code-location's manifests under resources:"}}}
	}
	loc := newLocator(b, file)
	objs := make([]*yaml.RNode, len(resources))
	for i, r := range resources {
		o, err := takeOrigin(r, root)
		if err != nil {
			return &Output{Problems: problem.Problems{{Code: CodeKustomizeBuild, File: file, Message: err.Error(), Hint: "check the object's annotations"}}}
		}
		objs[i] = &r.RNode
		loc.origins[objs[i]] = o
	}
	return &Output{Objects: objs, Problems: b.problems, Locator: loc}
}

// builder is one build's state: what the guard saw and refused.
type builder struct {
	fs    fsys.FS
	real  string // the kustomize root, links resolved
	track bool
	// rootFile is the root kustomization as kustomize reads it (links
	// resolved): origins are asked of it alone.
	rootFile string
	problems problem.Problems
	patches  []*patch
	// objectFiles are the files listed under resources, generators,
	// transformers or validators (links resolved): their objects'
	// metadata is checked as written, and what they would make kustomize
	// load.
	objectFiles map[string]bool
	// linkedKustomizations are the targets of kustomization files that are
	// links (see guard.CleanedAbs).
	linkedKustomizations map[string]bool
	// served holds each kustomization as served to kustomize.
	served map[string][]byte
	// depth is how deep each kustomization folder (links resolved) is
	// nested below the root; bases counts the folders entered.
	depth map[string]int
	bases int
	// limits bound each file read.
	limits yamlbound.Limits
	// resourceFiles are the objectFiles listed under resources: their
	// documents are objects, counted in objects up to maxObjects.
	resourceFiles       map[string]bool
	objects, maxObjects int
}

// Bounds of the kustomization tree a build reads: on the disk a build's
// cost grows faster than the square of the nesting (every load resolves
// the whole path again, and each resolution walks it), and real trees
// nest a few levels (overlay, base, components).
const (
	MaxNesting        = 64
	MaxKustomizations = 1000
)

func newBuilder(fs fsys.FS, root string, track bool) *builder {
	b := &builder{fs: fs, track: track, served: map[string][]byte{}, linkedKustomizations: map[string]bool{}, depth: map[string]int{}, objectFiles: map[string]bool{}, resourceFiles: map[string]bool{}}
	b.real = b.realPath(root)
	b.rootFile = filepath.Join(b.real, filepath.Base(b.kustomizationFile(root)))
	return b
}

// refused reports whether the guard refused anything: a problem other than
// a warning or an object's metadata.
func (b *builder) refused() bool {
	return slices.ContainsFunc(b.problems, func(p problem.Problem) bool { return p.Code != CodeMetadata && !p.IsWarning() })
}

// kustomizationFile returns the kustomization file of a folder, for
// messages: the first of the names kustomize recognizes that exists.
func (b *builder) kustomizationFile(dir string) string {
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		p := filepath.Join(dir, name)
		if _, err := b.fs.Lstat(p); err == nil {
			return p
		}
	}
	return filepath.Join(dir, konfig.DefaultKustomizationFileName())
}

// isKustomizationFile reports whether kustomize reads path as a
// kustomization.
func isKustomizationFile(path string) bool {
	return slices.Contains(konfig.RecognizedKustomizationFileNames(), filepath.Base(path))
}
