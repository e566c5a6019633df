package emit

import (
	"path/filepath"
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
	}
	if diff := cmp.Diff(want, data); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
}
