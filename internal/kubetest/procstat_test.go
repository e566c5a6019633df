package kubetest

import (
	"os"
	"testing"
)

// TestProcStatus: this test binary has a resident set, and a pid that does
// not exist has none.
func TestProcStatus(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc here")
	}
	if kb, err := StatusKiB(os.Getpid(), "VmRSS"); err != nil || kb <= 0 {
		t.Errorf("StatusKiB(self, VmRSS) = %d, %v; want > 0", kb, err)
	}
	if _, err := StatusKiB(os.Getpid(), "NoSuchField"); err == nil {
		t.Error("StatusKiB(self, NoSuchField): no error")
	}
	if got := TreeRSS(os.Getpid()); got <= 0 {
		t.Errorf("TreeRSS(self) = %d, want > 0", got)
	}
	if got := TreeRSS(1 << 30); got != 0 {
		t.Errorf("TreeRSS(no such pid) = %d, want 0", got)
	}
}
