package render

import (
	"github.com/codeloc/codeloc/dagster/workspace"
	"github.com/codeloc/codeloc/internal/fsys"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/build"
	"github.com/codeloc/codeloc/render/policy"
	"github.com/codeloc/codeloc/render/policy/rules"
	"github.com/codeloc/codeloc/validate"
)

// Locate finds where the platform's Dagster reaches a code-location's code
// server from its declaration's name and its kustomize root alone: what
// `codeloc application` writes into the Dagster workspace. Readiness and
// the other rules are the render's, in Argo CD: the workspace keeps a
// code-location whose new revision is refused, as Argo CD keeps its
// objects. A code-location without a code server has no location (nil).
func Locate(req Request) (*workspace.Location, error) {
	if req.FS == nil {
		req.FS = fsys.Disk()
	}
	d, problems := validate.LoadDeclarationFS(req.FS, req.Dir)
	if d == nil || d.CodeLocation == "" {
		return nil, present(req, problems)
	}
	root, p := kustomizeRoot(req.Dir, req.KustomizeRoot)
	if p != nil {
		return nil, present(req, problem.Problems{*p})
	}
	built := build.Build(req.FS, root, build.Options{Track: true, YAML: req.YAMLLimits, MaxObjects: req.Contract.Limits.Objects})
	if errs, _ := built.Problems.Split(); built.Objects == nil || len(errs) > 0 {
		return nil, present(req, errs)
	}
	in := policy.NewContext(d, req.Contract, built.Locator)
	if ps := rules.Locate(in, built.Objects); len(ps) > 0 {
		return nil, present(req, ps)
	}
	return in.GRPCLocation(), nil
}
