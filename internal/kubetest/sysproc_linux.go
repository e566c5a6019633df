package kubetest

import (
	"os/exec"
	"syscall"
)

// sysProcAttr puts the child in its own process group and kills it when
// the test binary dies, so that an interrupted `go test` leaves nothing
// behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// signalProcess signals the child's whole process group.
func signalProcess(cmd *exec.Cmd, sig syscall.Signal) { _ = syscall.Kill(-cmd.Process.Pid, sig) }
