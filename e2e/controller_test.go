package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codeloc/codeloc/internal/kubetest"
	"github.com/codeloc/codeloc/internal/testbuf"
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

func TestCacheDeadlock(t *testing.T) {
	// As argoproj/argo-cd#28928's dump shows the deadlock.
	const cacheLock = "goroutine 4747806 gp=0x36bd7935e5a0 m=nil [sync.Mutex.Lock, 938 minutes]:\nruntime.gopark(0x0?, 0x0?, 0x0?, 0x0?, 0x0?)\n\t/usr/local/go/src/runtime/proc.go:462 +0xce\nsync.(*RWMutex).Lock(0x56039712d260?)\n\t/usr/local/go/src/sync/rwmutex.go:150 +0x32\ngithub.com/argoproj/argo-cd/gitops-engine/pkg/cache.runSynced({0x56039eea3a20, 0x36bd785c6438}, 0x36bd798234e8)\n\t/go/src/x/cluster.go:1 +0x1\n"
	const liveStateLock = "goroutine 12 [sync.RWMutex.RLock, 3 minutes]:\nsync.(*RWMutex).RLock(0x1)\n\tsync/rwmutex.go:71\ngithub.com/argoproj/argo-cd/v3/controller/cache.(*liveStateCache).getCluster(0x1)\n\tcontroller/cache/cache.go:516\n"
	const shortCacheLock = "goroutine 13 [sync.RWMutex.RLock]:\ngithub.com/argoproj/argo-cd/gitops-engine/v3/pkg/cache.(*clusterCache).FindResources(0x1)\n\t/x/cluster.go:1\n"
	const otherLock = "goroutine 14 [sync.Mutex.Lock, 5 minutes]:\ngithub.com/argoproj/argo-cd/v3/util/settings.(*SettingsManager).x()\n\t/s.go:1\n"
	const main = "goroutine 1 [sync.WaitGroup.Wait, 40 minutes]:\nsync.(*WaitGroup).Wait(0x284e0fb34dd0)\n\tsync/waitgroup.go:206 +0x85\ngithub.com/argoproj/argo-cd/v3/cmd/argocd-application-controller/commands.NewCommand.func1()\n\tx.go:244\n"
	tests := []struct {
		name, dump, want string
	}{
		{"healthy", shortCacheLock + "\n" + otherLock + "\n" + main, ""},
		{"the deadlock of #28928", main + "\n" + cacheLock + "\n" + shortCacheLock,
			"1 goroutine(s) waiting up to 938 min on a cluster cache lock, at github.com/argoproj/argo-cd/gitops-engine/pkg/cache.runSynced({0x56039eea3a20, 0x36bd785c6438}, 0x36bd798234e8)"},
		{"Argo CD's live state cache", liveStateLock + "\n" + liveStateLock,
			"2 goroutine(s) waiting up to 3 min on a cluster cache lock, at github.com/argoproj/argo-cd/v3/controller/cache.(*liveStateCache).getCluster(0x1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := cacheDeadlock(tc.dump); got != tc.want {
				t.Errorf("cacheDeadlock:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestWatchController: a process standing for the controller, whose
// pprof endpoint serves a dump, is killed when the dump shows the cluster
// cache deadlocked, and left alone when it does not.
func TestWatchController(t *testing.T) {
	const hung = "goroutine 5 [sync.RWMutex.Lock, 2 minutes]:\ngithub.com/argoproj/argo-cd/gitops-engine/v3/pkg/cache.runSynced(0x1)\n\t/x/cluster.go:1\n"
	const healthy = "goroutine 5 [sync.RWMutex.Lock]:\ngithub.com/argoproj/argo-cd/gitops-engine/v3/pkg/cache.runSynced(0x1)\n\t/x/cluster.go:1\n"
	for _, tc := range []struct {
		name, dump string
		killed     bool
	}{{"hung", hung, true}, {"healthy", healthy, false}} {
		t.Run(tc.name, func(t *testing.T) {
			var reads atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/debug/pprof/goroutine" && r.URL.Query().Get("debug") == "2" {
					reads.Add(1)
					_, _ = io.WriteString(w, tc.dump)
				}
			}))
			defer srv.Close()
			dir := t.TempDir()
			p, err := kubetest.StartProcess("controller", "sleep", filepath.Join(dir, "controller.log"), nil, "600")
			if err != nil {
				t.Fatal(err)
			}
			defer p.Stop()
			var said testbuf.Buffer
			h := &harness{logs: dir, controller: p, controllerMetrics: srv.URL, out: &said}
			stop := make(chan struct{})
			defer close(stop)
			go h.watchController(stop, 10*time.Millisecond)
			if tc.killed {
				select {
				case <-p.Done():
				case <-time.After(30 * time.Second):
					t.Fatalf("a hung controller was not killed (%d dumps read)", reads.Load())
				}
				if n := h.controllerHangs.Load(); n != 1 {
					t.Errorf("hangs = %d, want 1", n)
				}
				if dumps, _ := filepath.Glob(filepath.Join(dir, "argocd-application-controller.goroutines-*.txt")); len(dumps) != 1 {
					t.Errorf("dumps kept: %v, want one", dumps)
				}
				if s := said.String(); !strings.Contains(s, "argocd-application-controller hung at ") || !strings.Contains(s, "waiting up to 2 min on a cluster cache lock") {
					t.Errorf("the harness said %q", s)
				}
				return
			}
			for reads.Load() < 5 {
				time.Sleep(5 * time.Millisecond)
			}
			if p.Exited() || h.controllerHangs.Load() != 0 || said.String() != "" {
				t.Errorf("a healthy controller was killed (%q)", said.String())
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
