package jobscmd

import (
	"strings"
	"testing"

	"github.com/codeloc/codeloc/internal/kubetest"

	"github.com/codeloc/codeloc/internal/cli"
)

// TestValidateLive wires `validate --live` to the preflight against a real
// kube-apiserver holding none of citation's dependencies: every missing one
// is reported, one line each, exit 1, nothing on stdout.
func TestValidateLive(t *testing.T) {
	env := kubetest.Start(t)
	env.InstallCRDs(t, kubetest.CRDObjectBucketClaim, kubetest.CRDApplication)
	env.ApplyYAML(t, "", "apiVersion: v1\nkind: Namespace\nmetadata: {name: dagster}\n")
	kubeconfig := kubetest.WriteKubeconfig(t, env.Admin)
	t.Setenv("PGHOST", "") // no database credentials: the database check is a note
	code, stdout, stderr := runCLI(t, "validate", "--live", "--kubeconfig", kubeconfig,
		"--contract", "../../../validate/contract.example.yaml", "../../../fixtures/citation")
	if code != cli.ExitInvalid || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"secret-missing dependsOn.secrets[0]", "bucket-missing dependsOn.buckets[0]", "dependency-missing dependsOn.codeLocations[0]"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}
