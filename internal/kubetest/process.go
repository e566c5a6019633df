package kubetest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Process is a long-lived child process of a test harness, with its log
// file: this package's etcd and kube-apiserver, and the e2e harness's
// components.
type Process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

// StartProcess starts bin with args, stdout and stderr going to logFile,
// with env as its whole environment (nil: this process's). On Linux it
// gets its own process group, which Stop signals whole, and dies with the
// test binary.
func StartProcess(name, bin, logFile string, env []string, args ...string) (*Process, error) {
	f, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Process{name: name, cmd: cmd, log: logFile, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

// Pid is the process id (the leader of its process group on Linux).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// LogFile is the path of the file the process logs to.
func (p *Process) LogFile() string { return p.log }

// Done is closed once the process has ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitErr is how the process ended (nil: exit status 0); valid once Done
// is closed.
func (p *Process) ExitErr() error {
	<-p.done
	return p.err
}

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM, then SIGKILL after a grace period, and waits.
func (p *Process) Stop() {
	if p == nil || p.Exited() {
		return
	}
	signalProcess(p.cmd, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		signalProcess(p.cmd, syscall.SIGKILL)
		<-p.done
	}
}

// Tail returns the last n lines of the log, for error messages.
func (p *Process) Tail(n int) string {
	data, err := os.ReadFile(p.log)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// failure describes why the process is not usable, with its log tail.
func (p *Process) failure(what error) error {
	state := "still running"
	if p.Exited() {
		state = fmt.Sprintf("exited: %v", p.err)
	}
	return fmt.Errorf("%s: %w (%s); last lines of %s:\n%s", p.name, what, state, p.log, indent(p.Tail(25)))
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// WaitFor polls ready every 50 ms until it returns true, the process
// exits or the timeout passes; the error carries the log's tail.
func (p *Process) WaitFor(ctx context.Context, timeout time.Duration, ready func(context.Context) bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if ready(ctx) {
			return nil
		}
		select {
		case <-p.done:
			return p.failure(fmt.Errorf("exited before it was ready"))
		case <-ctx.Done():
			return p.failure(fmt.Errorf("not ready after %s", timeout))
		case <-tick.C:
		}
	}
}

// FreePorts returns n distinct TCP ports free on 127.0.0.1 right now.
func FreePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func localURL(scheme string, port int) string {
	return scheme + "://127.0.0.1:" + strconv.Itoa(port)
}

// logMentionsPortInUse reports whether a failed start was a port race.
func (p *Process) logMentionsPortInUse() bool {
	data, _ := os.ReadFile(p.log)
	return bytes.Contains(data, []byte("address already in use"))
}
