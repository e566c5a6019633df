package kubetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// StartControllerManager runs kube-controller-manager against e with only
// the given controllers (e.g. validatingadmissionpolicy-status-controller,
// which writes a ValidatingAdmissionPolicy's status.typeChecking), as the
// admin, until t ends. It is found beside kube-apiserver
// (.ci/e2e-tools.sh builds it); when it is missing t is skipped, or fails
// under CI=true.
func (e *Env) StartControllerManager(t testing.TB, controllers ...string) {
	t.Helper()
	bins, err := FindBinaries()
	if err != nil {
		skipOrFail(t, err)
	}
	bin := filepath.Join(filepath.Dir(bins.APIServer), "kube-controller-manager")
	if fi, err := os.Stat(bin); err != nil || fi.Mode()&0o111 == 0 {
		skipOrFail(t, fmt.Errorf("%w: %s is not an executable (bash .ci/e2e-tools.sh builds it)", ErrNoBinaries, bin))
	}
	kubeconfig := WriteKubeconfig(t, e.Admin)
	args := []string{"--kubeconfig=" + kubeconfig, "--leader-elect=false", "--secure-port=0",
		"--use-service-account-credentials=false", "--controllers=" + strings.Join(controllers, ",")}
	p, err := StartProcess("kube-controller-manager", bin, filepath.Join(t.TempDir(), "kube-controller-manager.log"), nil, args...)
	if err != nil {
		t.Fatalf("kubetest: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kube-controller-manager's last lines:\n%s", p.Tail(20))
		}
		p.Stop()
	})
}
