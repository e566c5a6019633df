// Package plugin is codeloc's side of Argo CD's Config Management Plugin
// (CMP) contract: it turns the environment Argo CD gives a plugin into a
// render request, announces the plugin's parameters and finds the cluster
// contract to render against.
//
// Both entry points use it: `codeloc generate` (run by Argo CD's stock
// argocd-cmp-server from plugin.yaml) and the in-process codeloc-sidecar.
// It must never import Argo CD packages: the lean CLI links it.
package plugin

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/validate"
)

// Name and Version identify the plugin; Argo CD names it Name-Version
// ("codeloc-v1") and connects to the socket Name-Version.sock.
const (
	Name    = names.PluginName
	Version = names.PluginVersion
	// DiscoveryFile is the file whose presence at the Application's path
	// selects the plugin.
	DiscoveryFile = validate.ManifestFile
)

// Environment variables Argo CD's repo-server sends to a plugin (see
// reposerver/repository newEnv and getPluginEnvs in Argo CD v2.14 and v3.5;
// 3.x adds ARGOCD_APP_PROJECT_NAME, which codeloc does not read).
const (
	EnvAppName                 = "ARGOCD_APP_NAME"
	EnvAppNamespace            = "ARGOCD_APP_NAMESPACE"
	EnvAppRevision             = "ARGOCD_APP_REVISION"
	EnvAppRevisionShort        = "ARGOCD_APP_REVISION_SHORT"
	EnvAppSourcePath           = "ARGOCD_APP_SOURCE_PATH"
	EnvAppSourceRepoURL        = "ARGOCD_APP_SOURCE_REPO_URL"
	EnvAppSourceTargetRevision = "ARGOCD_APP_SOURCE_TARGET_REVISION"
	EnvKubeVersion             = "KUBE_VERSION"
	// EnvKubeAPIVersions lists the destination's served APIs, comma
	// separated: "group/version" and "group/version/Kind" entries.
	EnvKubeAPIVersions = "KUBE_API_VERSIONS"
	// EnvAppParameters is the JSON array of the Application's plugin
	// parameters: [{"name":..., "string":...|"map":{...}|"array":[...]}].
	EnvAppParameters = "ARGOCD_APP_PARAMETERS"
	// EnvUserPrefix prefixes the Application's spec.source.plugin.env
	// entries.
	EnvUserPrefix = "ARGOCD_ENV_"
	// EnvParamPrefix prefixes one variable per parameter, its name upper
	// cased with every character outside [A-Z0-9_] replaced by '_'.
	EnvParamPrefix = "PARAM_"
)

// EnvContract names the cluster contract file or folder when no --contract
// flag is given.
const EnvContract = names.EnvContract

// App describes the Application a request renders, for logs and messages.
type App struct {
	Name           string
	Namespace      string
	Revision       string
	RevisionShort  string
	SourcePath     string
	RepoURL        string
	TargetRevision string
	KubeVersion    string
}

// Request is what Argo CD asks the plugin to render.
type Request struct {
	App App
	// APIVersions are the destination's served APIs; nil when Argo CD sent
	// none (the check is then skipped).
	APIVersions []string
	// KustomizeRoot is the kustomize-root parameter (default: the folder).
	KustomizeRoot string
	// Contract is the contract parameter: which mounted contract to use
	// ("" = the only one).
	Contract string
}

// FromEnviron builds a request from "NAME=value" entries; a later entry
// overrides an earlier one, as for a process environment. Unknown
// parameters and plugin env entries, and malformed parameters, are problems.
func FromEnviron(environ []string) (*Request, problem.Problems) {
	env := envMap(environ)
	req := &Request{
		App: App{
			Name:           env[EnvAppName],
			Namespace:      env[EnvAppNamespace],
			Revision:       env[EnvAppRevision],
			RevisionShort:  env[EnvAppRevisionShort],
			SourcePath:     env[EnvAppSourcePath],
			RepoURL:        env[EnvAppSourceRepoURL],
			TargetRevision: env[EnvAppSourceTargetRevision],
			KubeVersion:    env[EnvKubeVersion],
		},
		APIVersions: splitList(env[EnvKubeAPIVersions]),
	}
	values, problems := parameters(env)
	problems = append(problems, unknownEnv(env)...)
	if len(problems) > 0 {
		return nil, problems.Sorted()
	}
	req.KustomizeRoot = values[ParamKustomizeRoot]
	req.Contract = values[ParamContract]
	return req, nil
}

// Render returns the whole render request of src's code-location for r
// against the contract c: the file system and folder, the Application's
// parameters, namespace and APIs, how paths are shown in messages (relative
// to src.RepoRoot, else to the repo root derived from the Application's
// folder and source path) and the YAML bounds.
func (r *Request) Render(src Source, c *validate.Contract) render.Request {
	base, prefix := src.RepoRoot, ""
	if base == "" {
		base, prefix = Display(src.AppDir, r.App.SourcePath)
	}
	return render.Request{
		FS:            src.FS,
		Dir:           src.AppDir,
		KustomizeRoot: r.KustomizeRoot,
		Contract:      c,
		Namespace:     r.App.Namespace,
		APIVersions:   r.APIVersions,
		DisplayBase:   base,
		DisplayPrefix: prefix,
		YAMLLimits:    src.Bounds.YAML,
	}
}

// envMap indexes environ; later entries win, entries without '=' are
// skipped.
func envMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			m[k] = v
		}
	}
	return m
}

// splitList splits a comma-separated list, dropping blanks; nil when empty.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// CleanSourcePath returns the Application's source path as a clean path
// relative to the repo root: "" for the root itself, and "" when it is not
// a plain relative path.
func CleanSourcePath(p string) string {
	p = path.Clean("/" + strings.TrimSpace(p))
	p = strings.TrimPrefix(p, "/")
	if p == "" || p == "." {
		return ""
	}
	return p
}

// SentRootPrefix returns where, relative to the repo root, the folder
// Argo CD sent lives: the source path without the app's path relative to
// that folder (both as Argo CD gives them). It is "" when the whole repo
// was sent or when the two do not line up.
func SentRootPrefix(sourcePath, appRelPath string) string {
	src := CleanSourcePath(sourcePath)
	rel := CleanSourcePath(appRelPath)
	switch {
	case rel == src:
		return ""
	case rel == "":
		return src
	case strings.HasSuffix(src, "/"+rel):
		return strings.TrimSuffix(src, "/"+rel)
	}
	return ""
}

// Display says how to show paths in messages for a code-location unpacked
// at appDir (an absolute path) whose source path in the repo is
// sourcePath: base is the folder that stands for the repo root, and prefix,
// when the unpacked tree does not mirror the repo (Argo CD sent only a
// sub-folder), is joined in front of paths relative to base.
func Display(appDir, sourcePath string) (base, prefix string) {
	src := CleanSourcePath(sourcePath)
	switch {
	case src == "":
		return appDir, ""
	case strings.HasSuffix(filepath.ToSlash(appDir), "/"+src):
		return filepath.Clean(strings.TrimSuffix(appDir, filepath.FromSlash(src))), ""
	}
	return appDir, src
}
