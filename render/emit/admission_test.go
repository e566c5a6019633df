package emit

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/validate"
)

// TestAdmissionParams checks the params ConfigMap on its own: the hooks'
// requests raise the declared ones, names too long for a key are left
// out, images are listed once, sorted, and a code-location without
// resources.disk may mount no claim.
func TestAdmissionParams(t *testing.T) {
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	d, problems := validate.LoadDeclaration(filepath.Join("..", "..", "fixtures", "mediawatch"))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	d.Resources.CPU.Quantity = resource.MustParse("50m") // below the contract's jobs.cpu, 100m
	long := strings.Repeat("a", 240)
	atlas := yaml.MustParse(`apiVersion: apps/v1
kind: Deployment
metadata: {name: mediawatch}
spec:
  template:
    spec:
      containers:
        - {name: a, image: registry:80/mediawatch-dagster:5d2e8b4}
        - {name: b, image: registry:80/mediawatch-dagster:5d2e8b4}
      initContainers:
        - {name: c, image: registry:80/busybox:1.36}
`)
	sa := yaml.MustParse("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: mediawatch-" + long + "}\n")
	c.Policy.Tolerations = []validate.Toleration{{Key: "gpu", Effect: "NoSchedule"}, {Key: "dedicated", Value: "data"}}
	c.Policy.NodeLabels = []string{"zone", "dedicated=data"}
	objs, err := Objects(Input{Declaration: d, Contract: c, Atlas: []*yaml.RNode{atlas, sa}})
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]string
	for _, o := range objs {
		if o.GetName() == names.AdmissionName("mediawatch") {
			data = o.GetDataMap()
			if got := o.GetAnnotations()[names.AnnoHook]; got != "PreSync" {
				t.Errorf("hook %q, want PreSync", got)
			}
		}
	}
	want := map[string]string{
		"codeLocation": "mediawatch", "cpu": "100m", "memory": "512Mi",
		"images":                           "registry:80/busybox:1.36\nregistry:80/codeloc:0.1.0\nregistry:80/mediawatch-dagster:5d2e8b4",
		"secret.dagster-postgresql-secret": "", "secret.atlas-datalake": "",
		"configMap.atlas-datalake": "", "configMap.dagster-instance": "", "configMap.dagster-pipeline-env": "",
		"configMap.mediawatch-preflight": "", "configMap.kube-root-ca.crt": "",
		"serviceAccount.default": "", "serviceAccount.dagster": "", "serviceAccount.mediawatch-preflight": "",
		"tolerations": "dedicated|data|\ngpu||NoSchedule", "nodeLabels": "dedicated=data\nzone",
	}
	if diff := cmp.Diff(want, data); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
}

// TestAdmissionParamsRunLauncher: the contract's dagster.runLauncher adds
// its account, Secrets and ConfigMaps (its volumes' included) to the
// params of a code-location that declares none of them; without it,
// nothing of the platform's is allowed.
func TestAdmissionParamsRunLauncher(t *testing.T) {
	example := string(validate.ExampleContract)
	start, end := strings.Index(example, "  runLauncher:\n"), strings.Index(example, "\nobjectStorage:\n")
	if start < 0 || end < start {
		t.Fatal("the example contract has no dagster.runLauncher before objectStorage")
	}
	launcher := `  runLauncher:
    serviceAccountName: dagster
    instanceConfigMap: dagster-instance
    postgresPasswordSecret: dagster-postgresql-secret
    envSecrets: [pgvector-pg-auth]
    volumes:
      - name: env
        projected: {sources: [{configMap: {name: dagster-pipeline-env}}]}
`
	d, problems := validate.LoadDeclaration(filepath.Join("..", "..", "fixtures", "mediawatch"))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	d.DependsOn.Secrets, d.DependsOn.ConfigMaps, d.DependsOn.ServiceAccounts = nil, nil, nil
	d.DependsOn.Buckets = nil
	for _, tt := range []struct {
		name, launcher string
		want           []string
	}{
		{"with", launcher, []string{"configMap.dagster-instance", "configMap.dagster-pipeline-env", "configMap.kube-root-ca.crt", "configMap.mediawatch-preflight",
			"secret.dagster-postgresql-secret", "secret.pgvector-pg-auth", "serviceAccount.dagster", "serviceAccount.default", "serviceAccount.mediawatch-preflight"}},
		{"without", "", []string{"configMap.kube-root-ca.crt", "configMap.mediawatch-preflight", "serviceAccount.default", "serviceAccount.mediawatch-preflight"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, problems := validate.ParseContract("c.yaml", []byte(example[:start]+tt.launcher+example[end:]))
			if len(problems) > 0 {
				t.Fatal(problems)
			}
			objs, err := Objects(Input{Declaration: d, Contract: c})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range objs {
				if o.GetName() != names.AdmissionName("mediawatch") {
					continue
				}
				for k := range o.GetDataMap() {
					if strings.Contains(k, ".") {
						got = append(got, k)
					}
				}
			}
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("params' names (-want +got):\n%s", diff)
			}
		})
	}
}
