package plugin

import (
	"strings"
	"testing"
)

// FuzzFromEnviron: any environment Argo CD (or a person) could send yields
// a request or problems, never both, never a panic; every problem carries a
// code, a message and one line. Entries are separated by NUL bytes.
//
//	go test ./plugin -run '^$' -fuzz '^FuzzFromEnviron$' -fuzztime 60s
func FuzzFromEnviron(f *testing.F) {
	for _, seed := range []string{
		"ARGOCD_APP_NAME=citation\x00ARGOCD_APP_NAMESPACE=dagster\x00ARGOCD_APP_PARAMETERS=null",
		`ARGOCD_APP_PARAMETERS=[{"name":"kustomize-root","string":"deploy"},{"name":"contract","string":"prod"}]`,
		`ARGOCD_APP_PARAMETERS=[{"name":"kustomize-root","map":{"a":"b"}},{"name":"x","array":["1"]}]` + "\x00ARGOCD_ENV_X=",
		"PARAM_KUSTOMIZE_ROOT=deploy\x00PARAM_OTHER=1\x00KUBE_API_VERSIONS=v1,apps/v1,apps/v1/Deployment",
		"ARGOCD_APP_PARAMETERS={\x00=\x00novalue",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, env string) {
		req, problems := FromEnviron(strings.Split(env, "\x00"))
		if (req == nil) == (len(problems) == 0) {
			t.Fatalf("request %v and %d problems", req, len(problems))
		}
		for _, p := range problems {
			if p.Code == "" || p.Message == "" || strings.Contains(p.String(), "\n") {
				t.Fatalf("malformed problem %q", p.String())
			}
		}
	})
}
