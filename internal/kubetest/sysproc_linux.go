package kubetest

import "syscall"

// sysProcAttr kills the children when the test binary dies, so that an
// interrupted `go test` leaves no apiserver behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
