//go:build !linux

package kubetest

import (
	"os/exec"
	"syscall"
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

// signalProcess signals the child.
func signalProcess(cmd *exec.Cmd, sig syscall.Signal) { _ = cmd.Process.Signal(sig) }
