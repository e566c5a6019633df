package appofapps

import (
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v2/pkg/apis/application/v1alpha1"
	"sigs.k8s.io/yaml"
)

// TestExampleIsArgoApplication decodes the embedded template's output
// strictly into Argo CD's own Application type (a test-only dependency: the
// CLI never links Argo CD) and checks the fields the platform relies on.
func TestExampleIsArgoApplication(t *testing.T) {
	apps, err := Generate(in(fixtures, "mediawatch", "citation"), Options{RepoURL: repoURL, RepoRoot: fixtures, Contract: exampleContract(t)})
	if err != nil {
		t.Fatal(err)
	}
	wantWave := map[string]string{"mediawatch": "0", "citation": "1"}
	for _, a := range apps {
		var app v1alpha1.Application
		if err := yaml.UnmarshalStrict(a.YAML, &app); err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		src := app.Spec.Source
		sp := app.Spec.SyncPolicy
		checks := []struct {
			what      string
			got, want any
		}{
			{"name", app.Name, a.Name},
			{"namespace", app.Namespace, "argocd"},
			{"sync-wave", app.Annotations["argocd.argoproj.io/sync-wave"], wantWave[a.Name]},
			{"manifest-generate-paths", app.Annotations["argocd.argoproj.io/manifest-generate-paths"], "."},
			{"repoURL", src.RepoURL, repoURL},
			{"path", src.Path, a.Name},
			{"targetRevision", src.TargetRevision, "HEAD"},
			{"plugin", src.Plugin != nil && src.Plugin.Name == PluginName, true},
			{"destination", app.Spec.Destination, v1alpha1.ApplicationDestination{Server: InClusterServer, Namespace: "dagster"}},
			{"project", app.Spec.Project, "default"},
			{"automated", sp != nil && sp.Automated != nil && sp.Automated.Prune && sp.Automated.SelfHeal, true},
			{"retry limit", sp.Retry.Limit, int64(10)},
			{"retry backoff", *sp.Retry.Backoff.Factor, int64(2)},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%s: %s = %v, want %v", a.Name, c.what, c.got, c.want)
			}
		}
		if d, err := time.ParseDuration(sp.Retry.Backoff.MaxDuration); err != nil || d != 10*time.Minute {
			t.Errorf("%s: retry maxDuration %q", a.Name, sp.Retry.Backoff.MaxDuration)
		}
	}
}
