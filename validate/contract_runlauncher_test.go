package validate_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/validate"
)

// withRunLauncher is the example contract with its dagster.runLauncher
// replaced by body (indented under it).
func withRunLauncher(t *testing.T, body string) string {
	t.Helper()
	example := string(validate.ExampleContract)
	start := strings.Index(example, "  runLauncher:\n")
	end := strings.Index(example, "\nobjectStorage:\n")
	if start < 0 || end < start {
		t.Fatal("the example contract has no dagster.runLauncher before objectStorage")
	}
	return example[:start] + "  runLauncher:\n" + body + example[end:]
}

func TestRunLauncher(t *testing.T) {
	c := mustContract(t)
	r := c.Dagster.RunLauncher
	if r.ServiceAccountName != "dagster" || r.InstanceConfigMap != "dagster-instance" || r.PostgresPasswordSecret != "dagster-postgresql-secret" {
		t.Errorf("example run launcher: %+v", r)
	}
	if diff := cmp.Diff([]string{"dagster-instance", "dagster-pipeline-env"}, r.ConfigMaps()); diff != "" {
		t.Errorf("ConfigMaps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"dagster-postgresql-secret"}, r.Secrets()); diff != "" {
		t.Errorf("Secrets (-want +got):\n%s", diff)
	}

	full := `    serviceAccountName: dagster
    envSecrets: [pgvector-pg-auth]
    imagePullSecrets: [pgvector-pg-auth]
    volumes:
      - name: settings
        configMap: {name: dagster-pipeline-env}
      - name: both
        projected:
          sources:
            - secret: {name: dagster-postgresql-secret}
            - configMap: {name: dagster-instance}
      - name: scratch
        emptyDir: {sizeLimit: 1Gi}
    volumeMounts:
      - {name: settings, mountPath: /etc/settings, readOnly: true}
    labels: {team: data, example.com/tier: batch}
`
	c, ps := validate.ParseContract("c.yaml", []byte(withRunLauncher(t, full)))
	if len(ps) > 0 {
		t.Fatalf("full run launcher: %v", ps)
	}
	r = c.Dagster.RunLauncher
	if diff := cmp.Diff([]string{"pgvector-pg-auth", "pgvector-pg-auth", "dagster-postgresql-secret"}, r.Secrets()); diff != "" {
		t.Errorf("Secrets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"dagster-pipeline-env", "dagster-instance"}, r.ConfigMaps()); diff != "" {
		t.Errorf("ConfigMaps (-want +got):\n%s", diff)
	}
	if !r.HasVolume("scratch") || r.HasVolume("data") || len(r.VolumeMounts) != 1 || r.Labels["team"] != "data" {
		t.Errorf("run launcher: %+v", r)
	}
}

func TestRunLauncherRefused(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		want       []string // codes, paths and lines
	}{
		{"unlisted account", "    serviceAccountName: launcher\n",
			[]string{"contract-invalid dagster.runLauncher.serviceAccountName"}},
		{"unlisted instance", "    instanceConfigMap: instance\n",
			[]string{"contract-invalid dagster.runLauncher.instanceConfigMap"}},
		{"unlisted password", "    postgresPasswordSecret: pg\n",
			[]string{"contract-invalid dagster.runLauncher.postgresPasswordSecret"}},
		{"unlisted env", "    envConfigMaps: [dagster-pipeline-env, other]\n    envSecrets: [other]\n    imagePullSecrets: ['']\n",
			[]string{"contract-invalid dagster.runLauncher.envConfigMaps[1]", "contract-invalid dagster.runLauncher.envSecrets[0]", "contract-invalid dagster.runLauncher.imagePullSecrets[0]"}},
		{"volume's secret and configMap", "    volumes:\n      - {name: a, secret: {secretName: other}}\n      - name: b\n        projected: {sources: [{configMap: {name: other}}]}\n",
			[]string{"contract-invalid dagster.runLauncher.volumes[0]", "contract-invalid dagster.runLauncher.volumes[1]"}},
		{"claim volume", "    volumes:\n      - {name: data, persistentVolumeClaim: {claimName: shared}}\n",
			[]string{"contract-invalid dagster.runLauncher.volumes[0]"}},
		{"hostPath volume", "    volumes:\n      - {name: data, hostPath: {path: /var}}\n",
			[]string{"contract-invalid dagster.runLauncher.volumes[0]"}},
		{"unknown volume field", "    volumes:\n      - {name: data, emptyDri: {}}\n",
			[]string{"contract-invalid dagster.runLauncher.volumes[0]"}},
		{"volume twice, bad name", "    volumes:\n      - {name: a, emptyDir: {}}\n      - {name: a, emptyDir: {}}\n      - {name: A_b, emptyDir: {}}\n",
			[]string{"contract-invalid dagster.runLauncher.volumes[1].name", "contract-invalid dagster.runLauncher.volumes[2].name"}},
		{"mount of no volume", "    volumes:\n      - {name: a, emptyDir: {}}\n    volumeMounts:\n      - {name: b, mountPath: /b}\n      - {name: a}\n",
			[]string{"contract-invalid dagster.runLauncher.volumeMounts[0].name", "contract-invalid dagster.runLauncher.volumeMounts[1].mountPath"}},
		{"reserved and bad labels", "    labels: {dagster/code-location: x, codeloc.dev/code-location: y, 'a b': c, ok: 'no good'}\n",
			[]string{"contract-invalid dagster.runLauncher.labels.a b", "contract-invalid dagster.runLauncher.labels.codeloc.dev/code-location",
				"contract-invalid dagster.runLauncher.labels.dagster/code-location", "contract-invalid dagster.runLauncher.labels.ok"}},
		{"passEnv names, not assignments", "    passEnv: [AWS_REGION, 'A=b', '']\n",
			[]string{"contract-invalid dagster.runLauncher.passEnv[1]", "contract-invalid dagster.runLauncher.passEnv[2]"}},
		{"unknown field", "    serviceAccount: dagster\n", []string{"unknown-field dagster.runLauncher.serviceAccount"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, ps := validate.ParseContract("c.yaml", []byte(withRunLauncher(t, tt.body)))
			var got []string
			for _, p := range ps {
				got = append(got, p.Code+" "+p.Path)
				if p.Line == 0 {
					t.Errorf("%s %s: no line", p.Code, p.Path)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s\n%v", diff, ps)
			}
		})
	}
}
