// Package render turns a validated atlas code-location into the final
// manifests Argo CD applies. Render reads as the pipeline:
//
//	validate  the declaration, the contract, the request (validate)
//	build     the kustomize root, in-process, guarded (render/build)
//	policy    every rule over the built objects, then the edits (render/policy)
//	emit      the objects the cluster adds, waves, order (render/emit)
//
// Output is all-or-nothing: objects, or every problem and no object.
package render

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codeloc/codeloc/dagster/workspace"
	"github.com/codeloc/codeloc/internal/problem"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/fsys"
	"github.com/codeloc/codeloc/internal/yamlbound"
	"github.com/codeloc/codeloc/render/build"
	"github.com/codeloc/codeloc/render/emit"
	"github.com/codeloc/codeloc/render/node"
	"github.com/codeloc/codeloc/render/policy"
	"github.com/codeloc/codeloc/render/policy/rules"
	"github.com/codeloc/codeloc/validate"
)

// Request says what to render.
type Request struct {
	// FS is the file system Dir is on; nil means the local disk.
	FS fsys.FS
	// Dir holds code-location.manifest.yaml.
	Dir string
	// KustomizeRoot is the kustomize root relative to Dir; "" means Dir.
	KustomizeRoot string
	// Contract is the cluster contract to validate against.
	Contract *validate.Contract
	// Namespace, when set, is the Application's destination namespace; it
	// must equal the contract's.
	Namespace string
	// DisplayBase is the folder paths in messages are shown relative to
	// (the repo root in the sidecar); "" means the working directory.
	DisplayBase string
	// DisplayPrefix, when the tree read does not mirror the repo (Argo CD
	// sent only a sub-folder), is joined in front of paths relative to
	// DisplayBase so that they read as paths in the repo.
	DisplayPrefix string
	// APIVersions, when not nil, are the group/versions (and group/version/kind)
	// the destination cluster serves; the output's needs are checked against them.
	APIVersions []string
	// YAMLLimits bound every YAML file the render reads, before anything
	// expands it (zero fields: the defaults).
	YAMLLimits yamlbound.Limits
}

// Result is a rendered code-location.
type Result struct {
	Declaration *validate.Declaration
	Objects     []*yaml.RNode
	// Warnings are kustomize's notes (deprecated fields): reported, never a
	// failure, never on stdout.
	Warnings problem.Problems
	// Location is where the platform's Dagster reaches the code-location's
	// code server (the record publishes it); nil when it runs none.
	Location *workspace.Location
}

// WriteYAML writes the objects to w as one YAML stream, documents
// separated by "---": what `codeloc render` and `codeloc generate` print.
// The stream is encoded whole before anything is written: an object that
// does not encode writes nothing.
func (r *Result) WriteYAML(w io.Writer) error {
	out, err := emit.Write(r.Objects)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// JSONList encodes each object as one JSON document, the list Argo CD's
// cmp protocol carries (what the stock cmp-server makes of `codeloc
// generate`'s YAML), through one growing buffer.
func (r *Result) JSONList() ([]string, error) {
	manifests := make([]string, len(r.Objects))
	var buf []byte
	for i, o := range r.Objects {
		var err error
		if buf, err = node.AppendJSON(buf[:0], o.YNode()); err != nil {
			return nil, fmt.Errorf("encoding %s/%s: %w", o.GetKind(), o.GetName(), err)
		}
		manifests[i] = string(buf)
	}
	return manifests, nil
}

// noCodeServer warns that a code-location runs no Dagster code server:
// Dagster will not load it, and the workspace leaves it out.
func noCodeServer(root string) problem.Problem {
	return problem.Problem{Code: CodeNoCodeServer, File: root, Severity: problem.SeverityWarning,
		Message: "no container runs a Dagster code server (dagster api grpc, dagster code-server start): the platform's Dagster will not load this code-location",
		Hint:    "run the code server in a Deployment of the kustomize root, behind a Service named after the code-location with a port named grpc"}
}

// Render validates and builds a code-location. On any problem it returns
// problem.Problems and no objects; other errors are internal.
func Render(req Request) (*Result, error) {
	if req.FS == nil {
		req.FS = fsys.Disk()
	}
	// Origin tracking costs kustomize about a tenth of the build: a
	// render that finds problems runs again with it, to place them.
	res, err := render(req, false)
	var problems problem.Problems
	if errors.As(err, &problems) {
		if _, err = render(req, true); !errors.As(err, &problems) {
			return nil, err // not expected: the same input, the same outcome
		}
		return nil, present(req, problems)
	}
	if res != nil {
		res.Warnings = present(req, res.Warnings)
	}
	return res, err
}

func render(req Request, track bool) (*Result, error) {
	d, problems := validateRequest(req)
	// The migrations' lint may warn: a warning is reported and fails nothing.
	errs, warnings := problems.Split()
	if len(errs) > 0 {
		return nil, problems.Sorted()
	}
	root, p := kustomizeRoot(req.Dir, req.KustomizeRoot)
	if p != nil {
		return nil, problem.Problems{*p}
	}
	built := build.Build(req.FS, root, build.Options{Track: track, YAML: req.YAMLLimits, MaxObjects: req.Contract.Limits.Objects})
	if built.Objects == nil {
		return nil, append(built.Problems, warnings...).Sorted()
	}
	objs := built.Objects
	if limit := req.Contract.Limits.Objects; limit > 0 && len(objs) > limit {
		// Generators and components add objects no resource file holds.
		return nil, problem.Problems{build.ObjectLimit(built.Locator.RootFile(), 0, 0, limit, fmt.Sprintf("the kustomize root yields %d objects,", len(objs)))}
	}
	in := policy.NewContext(d, req.Contract, built.Locator)
	// The rules read the objects as built; the edits follow.
	errs, checked := slices.Concat(built.Problems, rules.Check(in, objs)).Split()
	warnings = append(warnings, checked...)
	if len(errs) > 0 {
		return nil, append(errs, warnings...).Sorted()
	}
	if errs := policy.Apply(in, objs); len(errs) > 0 {
		return nil, errs.Sorted()
	}
	loc := in.GRPCLocation()
	if loc == nil {
		warnings = append(warnings, noCodeServer(built.Locator.RootFile()))
	}
	emitted, err := emit.Objects(emit.Input{Declaration: d, Contract: req.Contract, SecretKeys: in.SecretKeys(), GRPC: loc, Atlas: objs})
	if err != nil {
		return nil, err
	}
	if problems := policy.Conflicts(in, objs, emitted); len(problems) > 0 {
		return nil, append(problems, warnings...).Sorted()
	}
	all := append(objs, emitted...)
	if err := emit.AssignWaves(d.CodeLocation, all); err != nil {
		return nil, err
	}
	emit.Sort(all)
	return &Result{Declaration: d, Objects: all, Warnings: warnings.Sorted(), Location: loc}, nil
}

// validateRequest runs every check that does not need the kustomize build: the
// declaration, the contract, the request's namespace and API versions.
func validateRequest(req Request) (*validate.Declaration, problem.Problems) {
	d, problems := validate.LoadDeclarationFS(req.FS, req.Dir)
	if d == nil || req.Contract == nil {
		return d, problems
	}
	problems = append(problems, validate.Check(d, req.Contract)...)
	problems = append(problems, validate.LintMigrations(d, req.Contract)...)
	if req.Namespace != "" && req.Namespace != req.Contract.Namespace {
		problems = append(problems, problem.Problem{
			Code: CodeNamespaceMismatch, Path: "spec.destination.namespace",
			Message: fmt.Sprintf("the Application deploys to %q but the cluster contract's namespace is %q", req.Namespace, req.Contract.Namespace),
			Hint:    "set the Application's destination namespace to " + req.Contract.Namespace,
		})
	}
	problems = append(problems, checkAPIVersions(d, req.APIVersions)...)
	return d, problems
}

// checkAPIVersions checks that the destination serves what the output needs.
func checkAPIVersions(d *validate.Declaration, served []string) problem.Problems {
	if served == nil {
		return nil
	}
	has := map[string]bool{}
	for _, v := range served {
		has[v] = true
	}
	need := map[string]string{"batch/v1": "", "rbac.authorization.k8s.io/v1": "", "v1": ""}
	if len(d.DependsOn.Buckets) > 0 {
		need["objectbucket.io/v1alpha1"] = "dependsOn.buckets"
	}
	var ps problem.Problems
	for _, gv := range slices.Sorted(maps.Keys(need)) {
		if !has[gv] {
			ps = append(ps, d.PosOf(need[gv]).At(CodeAPIMissing, need[gv], fmt.Sprintf("the destination cluster does not serve %s", gv),
				"install the API on the cluster (for objectbucket.io: Rook's object store / lib-bucket-provisioner CRDs) or deploy elsewhere"))
		}
	}
	return ps
}

// kustomizeRoot resolves the kustomize root inside dir, refusing escapes.
func kustomizeRoot(dir, sub string) (string, *problem.Problem) {
	if sub == "" || sub == "." {
		return dir, nil
	}
	clean := filepath.Clean(sub)
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", &problem.Problem{Code: CodeKustomizeRoot, Path: "kustomize-root", Message: fmt.Sprintf("%q leaves the code-location folder", sub), Hint: "give a path inside the folder, such as overlays/prod"}
	}
	return filepath.Join(dir, clean), nil
}

// present sorts problems and shows the paths in them relative to the
// request's display base (and under its prefix), so that messages do not
// depend on where the repo was unpacked (the repo-server uses a random
// temporary folder per request).
func present(req Request, problems problem.Problems) problem.Problems {
	base := req.DisplayBase
	if base == "" {
		base = "."
	}
	var bases []string
	if abs, err := filepath.Abs(base); err == nil && abs != "/" {
		bases = append(bases, abs)
		if real, err := req.FS.EvalSymlinks(abs); err == nil && real != abs {
			bases = append(bases, real)
		}
	}
	out := make(problem.Problems, len(problems))
	for i, p := range problems {
		for _, b := range bases {
			if rel, err := filepath.Rel(b, p.File); err == nil && filepath.IsAbs(p.File) && !strings.HasPrefix(rel, "..") {
				p.File = rel
			}
			p.Message = strings.ReplaceAll(p.Message, b+string(filepath.Separator), "")
		}
		if req.DisplayPrefix != "" && p.File != "" && !filepath.IsAbs(p.File) {
			p.File = path.Join(req.DisplayPrefix, filepath.ToSlash(p.File))
		}
		out[i] = p
	}
	return out.Sorted()
}
