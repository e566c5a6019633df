package install_test

import (
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/internal/names"
)

// TestInstallNamesReserved ties the install's names to internal/names,
// which refuses a codeLocation that is one of them or owns one: every
// object the bundle adds (Argo CD's own, argocd-*, are only patched) and
// the root Application are named by names.InstallNames.
func TestInstallNamesReserved(t *testing.T) {
	var got []string
	for _, o := range build(t) {
		if !strings.HasPrefix(o.Name, "argocd") {
			got = append(got, o.Name)
		}
	}
	data, err := os.ReadFile(rootAppFile)
	if err != nil {
		t.Fatal(err)
	}
	var root struct {
		Metadata struct{ Name string }
	}
	if err := yaml.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	got = append(got, root.Metadata.Name)
	for _, name := range got {
		r, ok := names.Reserved(name)
		if !ok || r.CodeLocation != "" {
			t.Errorf("the install's %q is not among names.InstallNames (Reserved: %+v, %v)", name, r, ok)
		}
	}
}
