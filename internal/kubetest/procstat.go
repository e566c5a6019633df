package kubetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// StatusKiB reads a kB field of /proc/<pid>/status (VmRSS, VmHWM, ...).
// It fails where there is no /proc, or once the process is gone.
func StatusKiB(pid int, field string) (int64, error) {
	v, err := statusField(pid, field)
	if err != nil {
		return 0, err
	}
	kb, err := strconv.ParseInt(strings.TrimSuffix(v, " kB"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/status: %s %q: %w", pid, field, v, err)
	}
	return kb, nil
}

// TreeRSS is the resident memory, in bytes, of pid and all its descendants
// (a server and the processes it starts), from /proc; 0 when there is no
// /proc or no such process.
func TreeRSS(pid int) int64 {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if v, err := statusField(p, "PPid"); err == nil {
			pp, _ := strconv.Atoi(v)
			children[pp] = append(children[pp], p)
		}
	}
	var total int64
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = append(queue[1:], children[p]...)
		if kb, err := StatusKiB(p, "VmRSS"); err == nil {
			total += kb << 10
		}
	}
	return total
}

// statusField is the value of one field of /proc/<pid>/status.
func statusField(pid int, field string) (string, error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("/proc/%d/status has no %s", pid, field)
}
