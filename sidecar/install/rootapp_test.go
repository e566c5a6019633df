package install_test

import (
	"os"
	"testing"

	"github.com/argoproj/argo-cd/v2/pkg/apis/application/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/appofapps"
	"github.com/codeloc/codeloc/validate"
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

// TestGeneratedApplications decodes what `codeloc application` prints for
// the fixtures strictly into Argo CD's Application type and checks the
// fields the platform relies on. It lives here, with the other Argo CD
// type checks, so that appofapps' tests never link Argo CD.
func TestGeneratedApplications(t *testing.T) {
	c, ps := validate.LoadContract("")
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	const repoURL = "https://git.example/atlas.git"
	apps, err := appofapps.Generate([]string{"../../fixtures/citation", "../../fixtures/mediawatch"},
		appofapps.Options{RepoURL: repoURL, RepoRoot: "../../fixtures", Contract: c})
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
			{"plugin", src.Plugin != nil && src.Plugin.Name == "codeloc-v1", true},
			{"destination", app.Spec.Destination, v1alpha1.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: "dagster"}},
			{"project", app.Spec.Project, "default"},
			{"automated", sp != nil && sp.Automated != nil && sp.Automated.Prune && sp.Automated.SelfHeal, true},
			{"retry limit", sp.Retry.Limit, int64(10)},
			{"retry factor", *sp.Retry.Backoff.Factor, int64(2)},
			{"retry maxDuration", sp.Retry.Backoff.MaxDuration, "10m"},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%s: %s = %v, want %v", a.Name, c.what, c.got, c.want)
			}
		}
	}
}
