package plugin

import (
	"testing"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/internal/yamlbound"

	"github.com/google/go-cmp/cmp"
)

func TestFromEnviron(t *testing.T) {
	base := []string{
		"ARGOCD_APP_NAME=citation",
		"ARGOCD_APP_NAMESPACE=dagster",
		"ARGOCD_APP_REVISION=0123456789abcdef0123456789abcdef01234567",
		"ARGOCD_APP_REVISION_SHORT=0123456",
		"ARGOCD_APP_REVISION_SHORT_8=01234567",
		"ARGOCD_APP_SOURCE_REPO_URL=https://git.example.com/atlas.git",
		"ARGOCD_APP_SOURCE_PATH=citation",
		"ARGOCD_APP_SOURCE_TARGET_REVISION=main",
		"KUBE_VERSION=1.31.4",
		"KUBE_API_VERSIONS=apps/v1,apps/v1/Deployment,batch/v1,v1",
		"HOME=/tmp",
	}
	app := App{
		Name: "citation", Namespace: "dagster", Revision: "0123456789abcdef0123456789abcdef01234567", RevisionShort: "0123456",
		SourcePath: "citation", RepoURL: "https://git.example.com/atlas.git", TargetRevision: "main", KubeVersion: "1.31.4",
	}
	apis := []string{"apps/v1", "apps/v1/Deployment", "batch/v1", "v1"}
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	tests := []struct {
		name     string
		environ  []string
		want     *Request
		problems problem.Problems
	}{
		{
			name:    "Argo CD environment, no parameters",
			environ: with(`ARGOCD_APP_PARAMETERS=null`),
			want:    &Request{App: app, APIVersions: apis},
		},
		{
			name:    "parameters from ARGOCD_APP_PARAMETERS",
			environ: with(`ARGOCD_APP_PARAMETERS=[{"name":"kustomize-root","string":"overlays/prod"},{"name":"contract","string":"staging"}]`, "PARAM_KUSTOMIZE_ROOT=overlays/prod", "PARAM_CONTRACT=staging"),
			want:    &Request{App: app, APIVersions: apis, KustomizeRoot: "overlays/prod", Contract: "staging"},
		},
		{
			name:    "ARGOCD_APP_PARAMETERS wins over PARAM_ variables",
			environ: with(`ARGOCD_APP_PARAMETERS=[]`, "PARAM_KUSTOMIZE_ROOT=ignored", "PARAM_OTHER=ignored"),
			want:    &Request{App: app, APIVersions: apis},
		},
		{
			name:    "PARAM_ variables when run by hand",
			environ: []string{"PARAM_KUSTOMIZE_ROOT=deploy", "PARAM_CONTRACT=prod"},
			want:    &Request{KustomizeRoot: "deploy", Contract: "prod"},
		},
		{
			name:    "no API versions sent",
			environ: []string{"KUBE_API_VERSIONS="},
			want:    &Request{},
		},
		{
			name:    "later entries win",
			environ: []string{"ARGOCD_APP_NAMESPACE=from-sidecar-env", "ARGOCD_APP_NAMESPACE=dagster", "malformed"},
			want:    &Request{App: App{Namespace: "dagster"}},
		},
		{
			name:    "empty string parameter keeps the default",
			environ: []string{`ARGOCD_APP_PARAMETERS=[{"name":"kustomize-root","string":""},{"name":"contract"}]`},
			want:    &Request{},
		},
		{
			// Argo CD 3 passes a plugin env entry whose value is empty
			// (2.x dropped it): set is set, and codeloc takes no env.
			name:    "empty plugin env entry",
			environ: with(`ARGOCD_APP_PARAMETERS=null`, "ARGOCD_ENV_DEBUG="),
			problems: problem.Problems{{Code: CodeUnknownEnv, Path: "spec.source.plugin.env", Message: `codeloc takes no plugin env, got "DEBUG"`,
				Hint: "remove it; choose the kustomize root and the contract with the parameters kustomize-root, contract"}},
		},
		{
			name:    "empty string parameter as Argo CD sends it, JSON and variable",
			environ: with(`ARGOCD_APP_PARAMETERS=[{"name":"kustomize-root","string":""}]`, "PARAM_KUSTOMIZE_ROOT="),
			want:    &Request{App: app, APIVersions: apis},
		},
		{
			name:    "unknown parameter variable",
			environ: []string{"PARAM_OVERLAY=prod"},
			problems: problem.Problems{{Code: CodeUnknownParameter, Path: "spec.source.plugin.parameters",
				Message: `unknown parameter "OVERLAY"`, Hint: "codeloc's parameters are kustomize-root, contract"}},
		},
		{
			name: "malformed parameters, all reported",
			environ: []string{`ARGOCD_APP_PARAMETERS=[{"name":"overlay","string":"prod"},{"name":"contract","map":{}},` +
				`{"name":"kustomize-root","string":"a"},{"name":"kustomize-root","string":"b"}]`, "ARGOCD_ENV_KUSTOMIZE_ROOT=x"},
			problems: problem.Problems{
				{Code: CodeBadParameter, Path: "spec.source.plugin.parameters[1]", Message: `parameter "contract" is a string, not a map or an array`, Hint: "set it with string: VALUE"},
				{Code: CodeBadParameter, Path: "spec.source.plugin.parameters[3]", Message: `parameter "kustomize-root" is set twice`, Hint: "set it once"},
				{Code: CodeUnknownEnv, Path: "spec.source.plugin.env", Message: `codeloc takes no plugin env, got "KUSTOMIZE_ROOT"`,
					Hint: "remove it; choose the kustomize root and the contract with the parameters kustomize-root, contract"},
				{Code: CodeUnknownParameter, Path: "spec.source.plugin.parameters[0]", Message: `unknown parameter "overlay"`, Hint: "codeloc's parameters are kustomize-root, contract"},
			},
		},
		{
			name:    "not JSON",
			environ: []string{`ARGOCD_APP_PARAMETERS={`},
			problems: problem.Problems{{Code: CodeBadParameter, Path: "spec.source.plugin.parameters",
				Message: "ARGOCD_APP_PARAMETERS is not a JSON list of parameters: unexpected end of JSON input",
				Hint:    "this variable is set by Argo CD; run the plugin through Argo CD or set PARAM_<NAME> variables"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := FromEnviron(tt.environ)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.problems, problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRender(t *testing.T) {
	r := &Request{App: App{Namespace: "dagster"}, APIVersions: []string{"v1"}, KustomizeRoot: "deploy"}
	got := r.Render(Source{AppDir: "/w/repo/app", RepoRoot: "/w/repo", Bounds: Bounds{YAML: yamlbound.Limits{Depth: 7}}}, nil)
	if got.Dir != "/w/repo/app" || got.DisplayBase != "/w/repo" || got.DisplayPrefix != "" || got.Namespace != "dagster" ||
		got.KustomizeRoot != "deploy" || len(got.APIVersions) != 1 || got.YAMLLimits.Depth != 7 {
		t.Errorf("Render: %+v", got)
	}
}

func TestEnvName(t *testing.T) {
	for in, want := range map[string]string{"kustomize-root": "KUSTOMIZE_ROOT", "contract": "CONTRACT", "a.b/c": "A_B_C"} {
		if got := EnvName(in); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSentRootPrefix(t *testing.T) {
	tests := []struct{ source, appRel, want string }{
		{"fixtures/citation", "fixtures/citation", ""},     // the whole repo was sent
		{"fixtures/citation", ".", "fixtures/citation"},    // only the app folder
		{"./fixtures/citation/", ".", "fixtures/citation"}, // as users write paths
		{"fixtures/citation", "citation", "fixtures"},      // the parent folder
		{"fixtures/citation", "other", ""},                 // does not line up
		{"", ".", ""},                                      // app at the repo root
		{"../../etc", ".", "etc"},                          // cannot climb
	}
	for _, tt := range tests {
		if got := SentRootPrefix(tt.source, tt.appRel); got != tt.want {
			t.Errorf("SentRootPrefix(%q, %q) = %q, want %q", tt.source, tt.appRel, got, tt.want)
		}
	}
}

func TestDisplay(t *testing.T) {
	tests := []struct{ appDir, source, base, prefix string }{
		{"/tmp/cmp/uuid/fixtures/citation", "fixtures/citation", "/tmp/cmp/uuid", ""},
		{"/tmp/cmp/uuid", "fixtures/citation", "/tmp/cmp/uuid", "fixtures/citation"},
		{"/tmp/cmp/uuid", "", "/tmp/cmp/uuid", ""},
		{"/tmp/cmp/uuid/xfixtures/citation", "fixtures/citation", "/tmp/cmp/uuid/xfixtures/citation", "fixtures/citation"},
	}
	for _, tt := range tests {
		base, prefix := Display(tt.appDir, tt.source)
		if base != tt.base || prefix != tt.prefix {
			t.Errorf("Display(%q, %q) = %q, %q; want %q, %q", tt.appDir, tt.source, base, prefix, tt.base, tt.prefix)
		}
	}
}
