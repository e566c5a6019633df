package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSummarizeStuck(t *testing.T) {
	const lockWait = "goroutine 7 [sync.RWMutex.RLock, 12 minutes]:\nsync.runtime_SemacquireRWMutexR(0x1?, 0x0?, 0x0?)\n\t/usr/local/go/src/runtime/sema.go:100 +0x25\ngithub.com/argoproj/argo-cd/gitops-engine/v3/pkg/cache.(*clusterCache).FindResources(0x1)\n\t/x/cluster.go:1 +0x1\n"
	const shortWait = "goroutine 8 [sync.Mutex.Lock]:\nsync.runtime_SemacquireMutex()\n\t/x.go:1\ngithub.com/argoproj/argo-cd/v3/controller.(*ApplicationController).x()\n\t/y.go:2\n"
	const idle = "goroutine 9 [select, 30 minutes]:\ngithub.com/argoproj/argo-cd/v3/controller.(*ApplicationController).Run()\n\t/z.go:3\n"
	// As Argo CD v3.6.2's idle workers wait.
	const idleWorker = "goroutine 10 [sync.Cond.Wait, 20 minutes]:\nsync.runtime_notifyListWait(0x284e0fc0a450, 0x1e)\n\truntime/sema.go:617 +0x1b3\nsync.(*Cond).Wait(0x0?)\n\tsync/cond.go:71 +0x73\nk8s.io/client-go/util/workqueue.(*Typed[...]).Get(0x507b7e0)\n\tk8s.io/client-go@v0.37.0/util/workqueue/queue.go:269 +0xab\ngithub.com/argoproj/argo-cd/v3/controller.(*ApplicationController).processAppRefreshQueueItem(0x284e0fd3c400)\n\tgithub.com/argoproj/argo-cd/v3/controller/appcontroller.go:1922 +0x53\n"
	const busyWorker = "goroutine 11 [IO wait, 4 minutes]:\ninternal/poll.runtime_pollWait()\n\t/a.go:1\ngithub.com/argoproj/argo-cd/v3/reposerver/apiclient.(*client).GenerateManifest()\n\t/r.go:9\ngithub.com/argoproj/argo-cd/v3/controller.(*ApplicationController).processAppOperationQueueItem()\n\t/c.go:3\n"
	tests := []struct {
		name, dump, want string
	}{
		{"none", shortWait + "\n" + idle + "\n" + idleWorker, "3 goroutines, none stuck for a minute or more"},
		{"lock waits grouped", lockWait + "\n" + idle + "\n" + lockWait + "\n" + shortWait,
			"4 goroutines; 2 stuck (up to 12 min) in sync.RWMutex.RLock at github.com/argoproj/argo-cd/gitops-engine/v3/pkg/cache.(*clusterCache).FindResources(0x1)"},
		{"a worker inside its item", busyWorker + "\n" + idleWorker,
			"2 goroutines; 1 stuck (up to 4 min) in IO wait at github.com/argoproj/argo-cd/v3/reposerver/apiclient.(*client).GenerateManifest()"},
		{"not a dump", "Profiler endpoint is not enabled", "0 goroutines, none stuck for a minute or more"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := summarizeStuck(tc.dump); got != tc.want {
				t.Errorf("summarizeStuck:\n got %s\nwant %s", got, tc.want)
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
