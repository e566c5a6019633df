package install_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/codeloc/codeloc/appofapps"
	"github.com/codeloc/codeloc/internal/argocdref"
	"github.com/codeloc/codeloc/validate"
)

// rootAppFile is the example root app-of-apps Application.
const rootAppFile = "app-of-apps.example.yaml"

// application is the part of Argo CD's Application these tests check, read
// from what Argo CD's own type decoded (argocdref application: strict, so
// a field Argo CD does not know fails the test).
type application struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		Project     string      `json:"project"`
		Source      *appSource  `json:"source"`
		Destination destination `json:"destination"`
		SyncPolicy  *syncPolicy `json:"syncPolicy"`
	} `json:"spec"`
}

type appSource struct {
	RepoURL        string          `json:"repoURL"`
	Path           string          `json:"path"`
	TargetRevision string          `json:"targetRevision"`
	Directory      json.RawMessage `json:"directory"`
	Helm           json.RawMessage `json:"helm"`
	Kustomize      json.RawMessage `json:"kustomize"`
	Plugin         *struct {
		Name string `json:"name"`
	} `json:"plugin"`
}

type destination struct {
	Server    string `json:"server"`
	Namespace string `json:"namespace"`
}

type syncPolicy struct {
	Automated *struct {
		Prune    bool `json:"prune"`
		SelfHeal bool `json:"selfHeal"`
	} `json:"automated"`
	Retry *struct {
		Limit   int64 `json:"limit"`
		Backoff *struct {
			Factor      *int64 `json:"factor"`
			MaxDuration string `json:"maxDuration"`
		} `json:"backoff"`
	} `json:"retry"`
}

// decodeApplications decodes a YAML stream of Applications with Argo CD's
// own type (strict) and returns the fields checked.
func decodeApplications(t *testing.T, data []byte) []application {
	t.Helper()
	raws, err := argocdref.Applications(t, data)
	if err != nil {
		t.Fatal(err)
	}
	apps := make([]application, len(raws))
	for i, r := range raws {
		if err := json.Unmarshal(r, &apps[i]); err != nil {
			t.Fatal(err)
		}
	}
	return apps
}

// TestRootApplication decodes the example root Application strictly into
// Argo CD's own type (in argocdref's process) and checks its shape: a plain
// directory of Applications from cluster/apps, synced automatically.
func TestRootApplication(t *testing.T) {
	data, err := os.ReadFile(rootAppFile)
	if err != nil {
		t.Fatal(err)
	}
	apps := decodeApplications(t, data)
	if len(apps) != 1 {
		t.Fatalf("%s: %d documents, want 1", rootAppFile, len(apps))
	}
	app := apps[0]
	src := app.Spec.Source
	sp := app.Spec.SyncPolicy
	checks := []struct {
		what string
		ok   bool
	}{
		{"kind Application", app.APIVersion == "argoproj.io/v1alpha1" && app.Kind == "Application"},
		{"in argocd", app.Metadata.Namespace == "argocd"},
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
		decoded := decodeApplications(t, a.YAML)
		if len(decoded) != 1 {
			t.Fatalf("%s: %d documents, want 1", a.Name, len(decoded))
		}
		app := decoded[0]
		src := app.Spec.Source
		sp := app.Spec.SyncPolicy
		checks := []struct {
			what      string
			got, want any
		}{
			{"name", app.Metadata.Name, a.Name},
			{"namespace", app.Metadata.Namespace, "argocd"},
			{"sync-wave", app.Metadata.Annotations["argocd.argoproj.io/sync-wave"], wantWave[a.Name]},
			{"manifest-generate-paths", app.Metadata.Annotations["argocd.argoproj.io/manifest-generate-paths"], "."},
			{"repoURL", src.RepoURL, repoURL},
			{"path", src.Path, a.Name},
			{"targetRevision", src.TargetRevision, "HEAD"},
			{"plugin", src.Plugin != nil && src.Plugin.Name == "codeloc-v1", true},
			{"destination", app.Spec.Destination, destination{Server: "https://kubernetes.default.svc", Namespace: "dagster"}},
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
