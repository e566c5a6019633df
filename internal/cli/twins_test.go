package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloc/codeloc/internal/cli"
)

// TestInvalidFixturesTwins renders the fixed twin of invalid fixtures:
// the fixture with what its hints say done. The twin renders (exit 0,
// nothing on stderr), so that the fixture is refused for its one mistake
// and the hint's fix is one that works.
func TestInvalidFixturesTwins(t *testing.T) {
	type edit struct{ file, old, new string }
	for _, tt := range []struct {
		fixture string
		edits   []edit
	}{
		// Mount the volume the context has.
		{"container-context-mount", []edit{{"deployment.yaml", `"volume_mounts": [{"name": "dagster-instance"`, `"volume_mounts": [{"name": "instance"`}}},
		// The claim kept off the context: only the code server mounts it.
		{"container-context-rwo-claim", []edit{
			{"deployment.yaml", `, {"name": "data", "mountPath": "/var/lib/mediawatch"}]`, `]`},
			{"deployment.yaml", `, {"name": "data", "persistentVolumeClaim": {"claimName": "mediawatch-data"}}]`, `]`},
		}},
		// The sidecar kept off the context, on the code server only.
		{"container-context-sidecar", []edit{{"deployment.yaml", `,
                "run_k8s_config": {"pod_spec_config": {"containers": [{"name": "proxy", "image": "registry:80/mediawatch-dagster:5d2e8b4", "args": ["proxy"], "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}}}]}}}}`, `}}`}}},
		// The names as shipped written into the context, the generator's
		// hash suffix turned off (the hints of consume-*).
		{"dagster-context-renamed", []edit{
			{"kustomization.yaml", "  - name: run-env\n", "  - name: run-env\n    options: {disableNameSuffixHash: true}\n"},
			{"deployment.yaml", `{"service_account_name": "user-code",`, `{"service_account_name": "mediawatch-user-code",`},
			{"deployment.yaml", `"dagster-pipeline-env", "run-env"]`, `"dagster-pipeline-env", "mediawatch-run-env"]`},
		}},
		// The account named <codeLocation>-… in the object and the context
		// (policy-name-owner's hint).
		{"names-context", []edit{
			{"serviceaccount.yaml", "name: user-code", "name: mediawatch-user-code"},
			{"deployment.yaml", "serviceAccountName: user-code", "serviceAccountName: mediawatch-user-code"},
			{"deployment.yaml", `"service_account_name": "user-code"`, `"service_account_name": "mediawatch-user-code"`},
		}},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			src := filepath.Join("..", "..", "fixtures", "invalid", tt.fixture)
			dir := filepath.Join(t.TempDir(), tt.fixture)
			if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			for _, e := range tt.edits {
				path := filepath.Join(dir, e.file)
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Count(string(data), e.old) != 1 {
					t.Fatalf("%s: %q is not there once", e.file, e.old)
				}
				if err := os.WriteFile(path, []byte(strings.Replace(string(data), e.old, e.new, 1)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if code, stdout, stderr := runCLI(t, "render", dir); code != cli.ExitOK || stderr != "" || stdout == "" {
				t.Errorf("the fixed twin: exit %d, stderr:\n%s", code, stderr)
			}
			if code, _, _ := runCLI(t, "render", src); code != cli.ExitInvalid {
				t.Errorf("the fixture itself: exit %d, want %d", code, cli.ExitInvalid)
			}
		})
	}
}
