// Package render turns a validated atlas code-location into the final
// manifests Argo CD applies: it builds the kustomize root in-process, checks
// the result against policy and adds the objects the cluster orchestrates
// (PreSync preflight pod and migration Job, bucket references, block PVC, sync
// waves, the record ConfigMap).
package render

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/validate"
)

// Request says what to render.
type Request struct {
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
	// DisplayPrefix, when the unpacked tree does not mirror the repo (Argo
	// CD sent only a sub-folder), is joined in front of paths relative to
	// DisplayBase so that they read as paths in the repo.
	DisplayPrefix string
	// APIVersions, when not nil, are the group/versions (and group/version/kind)
	// the destination cluster serves; the output's needs are checked against them.
	APIVersions []string
}

// Result is a rendered code-location.
type Result struct {
	Declaration *validate.Declaration
	Objects     []*yaml.RNode
	// Warnings are kustomize's notes (deprecated fields, vars never
	// replaced): reported, never a failure, never on stdout.
	Warnings validate.Problems
}

// Render validates and builds a code-location. On any problem it returns
// validate.Problems and no objects; other errors are internal.
func Render(req Request) (*Result, error) {
	// Origin tracking costs kustomize about a tenth of the build: a
	// render that finds problems runs again with it, to place them.
	res, err := render(req, false)
	var problems validate.Problems
	if errors.As(err, &problems) {
		if _, err = render(req, true); !errors.As(err, &problems) {
			return nil, err // not expected: the same input, the same outcome
		}
		return nil, present(problems, req.DisplayBase, req.DisplayPrefix)
	}
	if res != nil {
		res.Warnings = present(res.Warnings, req.DisplayBase, req.DisplayPrefix)
	}
	return res, err
}

func render(req Request, track bool) (*Result, error) {
	d, problems := validateRequest(req)
	if len(problems) > 0 {
		return nil, problems.Sorted()
	}
	root, p := kustomizeRoot(req.Dir, req.KustomizeRoot)
	if p != nil {
		return nil, validate.Problems{*p}
	}
	objs, origins, patches, problems := build(root, track)
	if objs == nil {
		return nil, problems.Sorted()
	}
	in := newInstance(d, req.Contract, root, origins)
	in.patches = patches
	in.noteMetadataProblems(problems)
	// The rules read the objects as built; the policy then edits them.
	problems = slices.Concat(problems, in.checkRules(objs), in.applyPolicy(objs))
	errs, warnings := problems.Split()
	if len(errs) > 0 {
		return nil, problems.Sorted()
	}
	emitted, err := in.emit()
	if err != nil {
		return nil, err
	}
	if problems := in.checkConflicts(objs, emitted); len(problems) > 0 {
		return nil, append(problems, warnings...).Sorted()
	}
	all := append(objs, emitted...)
	if err := in.assignWaves(all); err != nil {
		return nil, err
	}
	sortObjects(all)
	return &Result{Declaration: d, Objects: all, Warnings: warnings.Sorted()}, nil
}

// validateRequest runs every check that does not need the kustomize build: the
// declaration, the contract, the request's namespace and API versions.
func validateRequest(req Request) (*validate.Declaration, validate.Problems) {
	d, problems := validate.LoadDeclaration(req.Dir)
	if d == nil || req.Contract == nil {
		return d, problems
	}
	problems = append(problems, validate.Check(d, req.Contract)...)
	if req.Namespace != "" && req.Namespace != req.Contract.Namespace {
		problems = append(problems, validate.Problem{
			Code: CodeNamespaceMismatch, Path: "spec.destination.namespace",
			Message: fmt.Sprintf("the Application deploys to %q but the cluster contract's namespace is %q", req.Namespace, req.Contract.Namespace),
			Hint:    "set the Application's destination namespace to " + req.Contract.Namespace,
		})
	}
	problems = append(problems, checkAPIVersions(d, req.APIVersions)...)
	return d, problems
}

// checkAPIVersions checks that the destination serves what the output needs.
func checkAPIVersions(d *validate.Declaration, served []string) validate.Problems {
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
	var ps validate.Problems
	for _, gv := range slices.Sorted(maps.Keys(need)) {
		if !has[gv] {
			ps = append(ps, d.PosOf(need[gv]).At(CodeAPIMissing, need[gv], fmt.Sprintf("the destination cluster does not serve %s", gv),
				"install the API on the cluster (for objectbucket.io: Rook's object store / lib-bucket-provisioner CRDs) or deploy elsewhere"))
		}
	}
	return ps
}

// kustomizeRoot resolves the kustomize root inside dir, refusing escapes.
func kustomizeRoot(dir, sub string) (string, *validate.Problem) {
	if sub == "" || sub == "." {
		return dir, nil
	}
	clean := filepath.Clean(sub)
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", &validate.Problem{Code: CodeKustomizeRoot, Path: "kustomize-root", Message: fmt.Sprintf("%q leaves the code-location folder", sub), Hint: "give a path inside the folder, such as overlays/prod"}
	}
	return filepath.Join(dir, clean), nil
}

// Write writes objects as one YAML stream.
func Write(objs []*yaml.RNode) ([]byte, error) {
	var buf bytes.Buffer
	for i, o := range objs {
		if i > 0 {
			buf.WriteString("---\n")
		}
		s, err := o.String()
		if err != nil {
			return nil, fmt.Errorf("encode %s/%s: %w", o.GetKind(), o.GetName(), err)
		}
		buf.WriteString(s)
	}
	return buf.Bytes(), nil
}

// present sorts problems and shows the paths in them relative to base (and
// under prefix), so that messages do not depend on where the repo was
// unpacked (the repo-server uses a random temporary folder per request).
func present(problems validate.Problems, base, prefix string) validate.Problems {
	if base == "" {
		base, _ = os.Getwd()
	}
	bases := []string{}
	if abs, err := filepath.Abs(base); err == nil && abs != "/" {
		bases = append(bases, abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			bases = append(bases, real)
		}
	}
	out := make(validate.Problems, len(problems))
	for i, p := range problems {
		for _, b := range bases {
			if rel, err := filepath.Rel(b, p.File); err == nil && filepath.IsAbs(p.File) && !strings.HasPrefix(rel, "..") {
				p.File = rel
			}
			p.Message = strings.ReplaceAll(p.Message, b+string(filepath.Separator), "")
		}
		if prefix != "" && p.File != "" && !filepath.IsAbs(p.File) {
			p.File = path.Join(prefix, filepath.ToSlash(p.File))
		}
		out[i] = p
	}
	return out.Sorted()
}
