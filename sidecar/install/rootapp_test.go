package install_test

import (
	"os"
	"testing"

	"github.com/argoproj/argo-cd/v2/pkg/apis/application/v1alpha1"
	"sigs.k8s.io/yaml"
)

// rootAppFile is the example root app-of-apps Application.
const rootAppFile = "app-of-apps.example.yaml"

// TestRootApplication decodes the example root Application strictly into
// Argo CD's own type (a test-only dependency) and checks its shape: a plain
// directory of Applications from cluster/apps, synced automatically.
func TestRootApplication(t *testing.T) {
	data, err := os.ReadFile(rootAppFile)
	if err != nil {
		t.Fatal(err)
	}
	var app v1alpha1.Application
	if err := yaml.UnmarshalStrict(data, &app); err != nil {
		t.Fatal(err)
	}
	src := app.Spec.Source
	sp := app.Spec.SyncPolicy
	checks := []struct {
		what string
		ok   bool
	}{
		{"kind Application", app.APIVersion == "argoproj.io/v1alpha1" && app.Kind == "Application"},
		{"in argocd", app.Namespace == "argocd"},
		{"cluster/apps placeholder URL", src != nil && src.RepoURL == "https://gitea.example/cluster/apps.git"},
		{"directory source", src != nil && src.Directory != nil && src.Plugin == nil && src.Helm == nil && src.Kustomize == nil},
		{"Applications land in argocd", app.Spec.Destination.Namespace == "argocd" && app.Spec.Destination.Server == "https://kubernetes.default.svc"},
		{"automated prune and self-heal", sp != nil && sp.Automated != nil && sp.Automated.Prune && sp.Automated.SelfHeal},
		{"retry", sp != nil && sp.Retry != nil && sp.Retry.Limit > 0},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: not %s", rootAppFile, c.what)
		}
	}
}
