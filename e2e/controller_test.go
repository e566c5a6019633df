package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSummarizeLockWaits(t *testing.T) {
	const lockWait = "goroutine 7 [sync.RWMutex.RLock, 12 minutes]:\nsync.runtime_SemacquireRWMutexR(0x1?, 0x0?, 0x0?)\n\t/usr/local/go/src/runtime/sema.go:100 +0x25\ngithub.com/argoproj/argo-cd/gitops-engine/v3/pkg/cache.(*clusterCache).FindResources(0x1)\n\t/x/cluster.go:1 +0x1\n"
	const shortWait = "goroutine 8 [sync.Mutex.Lock]:\nsync.runtime_SemacquireMutex()\n\t/x.go:1\ngithub.com/argoproj/argo-cd/v3/controller.(*ApplicationController).x()\n\t/y.go:2\n"
	const idle = "goroutine 9 [select, 30 minutes]:\ngithub.com/argoproj/argo-cd/v3/controller.(*ApplicationController).Run()\n\t/z.go:3\n"
	tests := []struct {
		name, dump, want string
	}{
		{"none", shortWait + "\n" + idle, "2 goroutines, none waiting on a lock for a minute or more"},
		{"grouped", lockWait + "\n" + idle + "\n" + lockWait + "\n" + shortWait,
			"4 goroutines; 2 waiting (up to 12 min) on sync.RWMutex.RLock in github.com/argoproj/argo-cd/gitops-engine/v3/pkg/cache.(*clusterCache).FindResources(0x1)"},
		{"not a dump", "Profiler endpoint is not enabled", "0 goroutines, none waiting on a lock for a minute or more"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := summarizeLockWaits(tc.dump); got != tc.want {
				t.Errorf("summarizeLockWaits:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestCrashExcerpt(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, log, want string
	}{
		{"panic", "info a\ninfo b\npanic: boom\n\ngoroutine 1 [running]:\nmain.main()\n", "panic: boom\n\ngoroutine 1 [running]:\nmain.main()"},
		{"fatal", "info a\nfatal error: concurrent map writes\nx\n", "fatal error: concurrent map writes\nx"},
		{"long lines cut", strings.Repeat("x", 500) + "\n", strings.Repeat("x", 400) + " ..."},
		{"no panic: the tail", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n", "3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, "log")
			if err := os.WriteFile(file, []byte(tc.log), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := crashExcerpt(file); got != tc.want {
				t.Errorf("crashExcerpt:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestCrashBackOff(t *testing.T) {
	for n, want := range map[int64]time.Duration{1: 0, 2: 10 * time.Second, 3: 20 * time.Second, 6: 160 * time.Second, 7: 5 * time.Minute, 40: 5 * time.Minute} {
		if got := crashBackOff(n); got != want {
			t.Errorf("crashBackOff(%d) = %s, want %s", n, got, want)
		}
	}
}
