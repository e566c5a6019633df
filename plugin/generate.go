package plugin

import (
	"time"

	"github.com/codeloc/codeloc/internal/fsys"
	"github.com/codeloc/codeloc/internal/yamlbound"
	"github.com/codeloc/codeloc/render"
)

// Source is what one generate call renders.
type Source struct {
	// FS is the file system AppDir is on: nil for the local disk
	// (`codeloc generate`), an in-memory copy of the repository in the
	// sidecar.
	FS fsys.FS
	// AppDir is the Application's folder on FS (absolute).
	AppDir string
	// RepoRoot is the folder that stands for the repo root in messages,
	// when the caller knows it (the sidecar unpacked the repo there); ""
	// derives it from AppDir and ARGOCD_APP_SOURCE_PATH (the stock
	// cmp-server runs `codeloc generate` in the Application's folder).
	RepoRoot string
	// Environ is the environment Argo CD set, as "NAME=value" entries.
	Environ []string
	// Contracts are the mounted cluster contracts.
	Contracts *Contracts
	// Bounds bound the render.
	Bounds Bounds
}

// Bounds bound one render.
type Bounds struct {
	// YAML bounds each YAML file the render reads (zero fields: the
	// defaults).
	YAML yamlbound.Limits
	// Budget bounds the render's time (0: none). codeloc-sidecar leaves it
	// out and bounds the render itself, holding its concurrency slot until
	// the render really ends.
	Budget time.Duration
}

// Generate is the plugin's generate step, the one path of both
// `codeloc generate` and codeloc-sidecar: the Argo CD environment to a
// request, the contract it names, the render. The request comes back
// whenever the environment could be read, so that callers can log the
// Application; problems come back as problem.Problems.
func Generate(src Source) (*Request, *render.Result, error) {
	req, problems := FromEnviron(src.Environ)
	if len(problems) > 0 {
		return nil, nil, problems
	}
	contract, problems := src.Contracts.Load(req.Contract)
	if len(problems) > 0 {
		return req, nil, problems
	}
	where := req.App.SourcePath // the folder as the repo shows it
	if where == "" {
		where = src.AppDir
	}
	res, err := render.RenderWithin(req.Render(src, contract), src.Bounds.Budget, where)
	return req, res, err
}
