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

// process is a child process with its log file.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

// startProcess starts bin with args, stdout and stderr going to logFile.
func startProcess(name, bin, logFile string, args ...string) (*process, error) {
	f, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, log: logFile, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM, then SIGKILL after a grace period, and waits.
func (p *process) stop() {
	if p == nil || p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// tail returns the last n lines of the log, for error messages.
func (p *process) tail(n int) string {
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
func (p *process) failure(what error) error {
	state := "still running"
	if p.exited() {
		state = fmt.Sprintf("exited: %v", p.err)
	}
	return fmt.Errorf("%s: %w (%s); last lines of %s:\n%s", p.name, what, state, p.log, indent(p.tail(25)))
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// waitFor polls ready every interval until it returns true, the process
// exits or the timeout passes.
func (p *process) waitFor(ctx context.Context, timeout time.Duration, ready func(context.Context) bool) error {
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

// freePorts returns n distinct TCP ports free on 127.0.0.1 right now.
func freePorts(n int) ([]int, error) {
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
func (p *process) logMentionsPortInUse() bool {
	data, _ := os.ReadFile(p.log)
	return bytes.Contains(data, []byte("address already in use"))
}
