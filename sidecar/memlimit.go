package sidecar

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
)

// MemoryLimitShare is the part of the container's memory limit the Go
// runtime is told to stay under: near it the collector runs harder, so a
// heavy render slows the sidecar down instead of the kernel killing it,
// with room left for what the runtime does not count (stacks of cgo-free
// goroutines are counted; the page cache and the binary are not).
const MemoryLimitShare = 0.85

// cgroupRoot is where the cgroup file system is mounted.
const cgroupRoot = "/sys/fs/cgroup"

// memoryLimit returns the soft memory limit the sidecar should run with and
// where it comes from: nothing when GOMEMLIMIT is set (the runtime reads it
// itself) or when the container has no memory limit; else
// MemoryLimitShare of the cgroup's limit. root is the cgroup mount, self the
// process's /proc/self/cgroup.
func memoryLimit(getenv func(string) string, root, self string) (int64, string) {
	if getenv("GOMEMLIMIT") != "" {
		return 0, "GOMEMLIMIT"
	}
	limit, file, ok := cgroupMemoryLimit(root, self)
	if !ok {
		return 0, ""
	}
	return int64(float64(limit) * MemoryLimitShare), file
}

// ApplyMemoryLimit sets the Go runtime's soft memory limit from the
// container's cgroup unless GOMEMLIMIT is set; it returns the limit set (0:
// none) and its source, for the log.
func ApplyMemoryLimit() (int64, string) {
	limit, source := memoryLimit(os.Getenv, cgroupRoot, "/proc/self/cgroup")
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	return limit, source
}

// cgroupMemoryLimit reads the memory limit of the process's cgroup: cgroup
// v2's memory.max (in the process's own cgroup folder, then at the root,
// which is the container's own under a cgroup namespace), else cgroup v1's
// memory.limit_in_bytes. "max", a v1 value near 2^63, or no file: no limit.
func cgroupMemoryLimit(root, self string) (int64, string, bool) {
	var candidates []string
	for _, p := range ownCgroups(self) {
		candidates = append(candidates, filepath.Join(root, p, "memory.max"))
	}
	candidates = append(candidates, filepath.Join(root, "memory.max"), filepath.Join(root, "memory", "memory.limit_in_bytes"))
	for _, f := range candidates {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		v := strings.TrimSpace(string(data))
		if v == "max" {
			return 0, f, false
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 || n > 1<<60 {
			return 0, f, false
		}
		return n, f, true
	}
	return 0, "", false
}

// ownCgroups are the cgroup v2 paths of /proc/self/cgroup ("0::/path").
func ownCgroups(self string) []string {
	f, err := os.Open(self)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "0::"); ok && p != "/" && !strings.Contains(p, "..") {
			out = append(out, p)
		}
	}
	return out
}
