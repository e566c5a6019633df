package sidecar

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/codeloc/codeloc/internal/kubetest"
	"github.com/codeloc/codeloc/internal/testbuf"
)

// loadMix is what the load sends, in turn: the good fixtures, whose
// object count is checked, and an invalid one, whose lines are.
var loadMix = []string{"citation", "mediawatch", "citation", "mediawatch", "citation", "mediawatch", "citation", "invalid/bad-names"}

// loadTests skips a load test unless CODELOC_LOAD=1: each takes tens of
// seconds, more than the rest of the package. CI runs them on their own
// line (.ci/run).
func loadTests(t *testing.T) {
	t.Helper()
	if os.Getenv("CODELOC_LOAD") != "1" {
		t.Skip("a load test: run it with CODELOC_LOAD=1 go test ./sidecar -run '^(TestLoad|TestRetainsNothing)$' -v")
	}
}

// TestLoad renders CODELOC_LOAD_REQUESTS requests (default 200; 10000
// for the full run) at concurrency 1, 4 and 16 through Argo CD's
// repo-server code against the built codeloc-sidecar, and checks what does
// not depend on the machine's speed or the collector's timing: no failure,
// its goroutines back to their count before the load, no file created in
// its TMPDIR. Latency (p50, p99), renders/s and the resident memory are logged,
// never asserted (RSS moves with GC pacing and the scavenger; what the
// renders retain is TestRetainsNothing's).
//
//	CODELOC_LOAD=1 CODELOC_LOAD_REQUESTS=10000 go test ./sidecar -run TestLoad -v -timeout 60m
func TestLoad(t *testing.T) {
	loadTests(t)
	n := 200
	if v := os.Getenv("CODELOC_LOAD_REQUESTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			t.Fatalf("CODELOC_LOAD_REQUESTS=%q: want a positive count", v)
		}
	}
	p := startBinary(t)
	check := loadCheck(t)
	for _, c := range []int{1, 4, 16} {
		t.Run(fmt.Sprintf("concurrency=%d", c), func(t *testing.T) {
			runLoad(c, max(4*c, n/20), check) // warm-up: the pools and the heap at this concurrency
			before := p.sample(t)
			res := runLoad(c, n, check)
			after := p.settle(t, before.goroutines)
			res.report(t, c, before, after)
			if res.failures > 0 {
				t.Errorf("%d of %d requests failed; first: %v", res.failures, n, res.first)
			}
			if after.goroutines > before.goroutines {
				t.Errorf("%d goroutines after the load, %d before", after.goroutines, before.goroutines)
			}
			emptyDir(t, p.tmp)
		})
	}
}

// loadCheck judges one load answer: a good fixture's object count, the
// invalid fixture's lines.
func loadCheck(t *testing.T) func(name string, objects int, err error) error {
	t.Helper()
	want := map[string]int{"citation": len(goldenObjects(t, "citation")), "mediawatch": len(goldenObjects(t, "mediawatch"))}
	bad := expectedLines(t, "bad-names")
	return func(name string, objects int, err error) error {
		if name == "invalid/bad-names" {
			if err == nil || !strings.Contains(normalize(err.Error()), bad) {
				return fmt.Errorf("%s: %s, want %q", name, fmt.Sprint(err), bad)
			}
			return nil
		}
		if err != nil || objects != want[name] {
			return fmt.Errorf("%s: %d objects (%s), want %d", name, objects, fmt.Sprint(err), want[name])
		}
		return nil
	}
}

// retainedPerRequest bounds what a render may leave on the heap, on
// average. A render that kept its tree, its objects or its log attributes
// would leave tens of KiB (a goroutine left behind is caught by the count);
// what stays legitimately (gRPC's and the runtime's bookkeeping) does not
// grow with the request count.
const retainedPerRequest = 1 << 10

// TestRetainsNothing runs the sidecar in this process, renders the load mix
// at concurrency 16, and compares the live heap after a full collection
// before and after: it must grow by less than retainedPerRequest per
// request. Unlike RSS, the live heap after runtime.GC does not depend on
// when the collector last ran. CODELOC_LEAK_N sets the request count
// (default 400); what stays legitimately is a constant ~20 KiB at any count.
// A load test (CODELOC_LOAD=1); TestNoLeak checks the same with fewer
// renders and a coarser bound in every run.
func TestRetainsNothing(t *testing.T) {
	loadTests(t)
	sockDir(t)
	// Its log lines are formatted as in production but not kept: the
	// test's log buffer would be the only thing that grows.
	startOurs(t, exampleContract, func(o *Options) { o.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil)) })
	check := loadCheck(t)
	n := 400
	if v, _ := strconv.Atoi(os.Getenv("CODELOC_LEAK_N")); v > 0 {
		n = v
	}
	runLoad(16, 64, check) // warm-up: once-only state, pools, connections
	goroutines := steadyGoroutines()
	before := liveHeap()
	res := runLoad(16, n, check)
	if res.failures > 0 {
		t.Fatalf("%d of %d requests failed; first: %v", res.failures, n, res.first)
	}
	if g := settleGoroutines(goroutines); g > goroutines {
		t.Errorf("%d goroutines after the load, %d before", g, goroutines)
	}
	after := liveHeap()
	grew := int(after) - int(before)
	t.Logf("live heap %d -> %d bytes after %d renders (%+d bytes a render)", before, after, n, grew/n)
	if grew > n*retainedPerRequest {
		t.Errorf("the live heap grew by %d bytes over %d renders (%d a render, more than %d)", grew, n, grew/n, retainedPerRequest)
	}
}

// liveHeap is the bytes of live heap objects after a full collection (two:
// the first frees what finalizers and sync.Pool victims still held).
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// loadResult is what one load run measured.
type loadResult struct {
	durations []time.Duration
	wall      time.Duration
	failures  int64
	first     error
}

// runLoad sends n requests from c workers; check judges each answer.
func runLoad(c, n int, check func(name string, objects int, err error) error) loadResult {
	res := loadResult{durations: make([]time.Duration, n)}
	var next atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				name := loadMix[i%len(loadMix)]
				t0 := time.Now()
				out, err := generate(context.Background(), name, genOpts{generatePath: true})
				res.durations[i] = time.Since(t0)
				objects := 0
				if out != nil {
					objects = len(out.Manifests)
				}
				if err := check(name, objects, err); err != nil {
					mu.Lock()
					if res.failures++; res.first == nil {
						res.first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	res.wall = time.Since(start)
	return res
}

// report logs a run's figures, on one line.
func (r loadResult) report(t *testing.T, c int, before, after procSample) {
	sorted := slices.Clone(r.durations)
	slices.Sort(sorted)
	t.Logf("concurrency %d: %d requests, %d failures, p50 %.2f ms, p99 %.2f ms, %.1f renders/s; sidecar RSS %.1f -> %.1f MiB, goroutines %d -> %d",
		c, len(r.durations), r.failures, ms(percentile(sorted, 50)), ms(percentile(sorted, 99)),
		float64(len(r.durations))/r.wall.Seconds(), before.rss, after.rss, before.goroutines, after.goroutines)
}

// sidecarProc is the built codeloc-sidecar, serving on the socket folder
// sockDir set, with its metrics on.
type sidecarProc struct {
	cmd     *exec.Cmd
	metrics string
	tmp     string // the sidecar's TMPDIR, where nothing may appear
	// scraper reads /metrics over one kept-alive connection: the sidecar
	// then always serves our samples with the same goroutines (the
	// connection's and its request's). A connection per sample would
	// leave the previous one's goroutine closing for a moment or not,
	// which moved the count by one with the timing.
	scraper *http.Client
}

// procSample is the sidecar's resident memory (MiB) and goroutines.
type procSample struct {
	rss        float64
	goroutines int
}

// startBinary builds and starts codeloc-sidecar for the test; at the end
// it sends SIGTERM and checks a clean exit.
func startBinary(t *testing.T) *sidecarProc {
	t.Helper()
	bin := sidecarBinary(t)
	socks := sockDir(t)
	p := &sidecarProc{metrics: "http://" + freeAddr(t) + "/metrics", tmp: t.TempDir(), scraper: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}}
	p.cmd = exec.Command(bin, "--contract", exampleContract, "--config-dir", moduleRoot,
		"--log-level", "warn", "--metrics-addr", strings.TrimSuffix(strings.TrimPrefix(p.metrics, "http://"), "/metrics"))
	p.cmd.Env = append(os.Environ(), "ARGOCD_PLUGINSOCKFILEPATH="+socks, "TMPDIR="+p.tmp)
	logs := &testbuf.Buffer{}
	p.cmd.Stderr = logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.scraper.CloseIdleConnections()
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		if err := p.cmd.Wait(); err != nil {
			t.Errorf("codeloc-sidecar: %v; logs:\n%s", err, logs)
		}
	})
	socket := filepath.Join(socks, "codeloc-v1.sock")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if accepting(socket) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("codeloc-sidecar did not start; logs:\n%s", logs)
		}
	}
}

// sample reads the sidecar's RSS and goroutines now.
func (p *sidecarProc) sample(t *testing.T) procSample {
	t.Helper()
	return procSample{rss: procStatus(t, p.cmd.Process.Pid, "VmRSS"), goroutines: int(p.metric(t, "go_goroutines"))}
}

// settle samples the sidecar once its goroutines are back to at most max
// (or after 10s, when they are not: the caller reports it).
func (p *sidecarProc) settle(t *testing.T, max int) procSample {
	t.Helper()
	s := p.sample(t)
	for deadline := time.Now().Add(10 * time.Second); s.goroutines > max && time.Now().Before(deadline); s = p.sample(t) {
		time.Sleep(20 * time.Millisecond)
	}
	return s
}

// metric reads one unlabelled metric from the sidecar's /metrics, on the
// scraper's connection.
func (p *sidecarProc) metric(t *testing.T, name string) float64 {
	t.Helper()
	res, err := p.scraper.Get(p.metrics)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_, _ = io.Copy(io.Discard, res.Body) // read to the end, so the connection is kept
		res.Body.Close()
	}()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("no %s in /metrics", name)
	return 0
}

// built codeloc-sidecar, once per test binary.
var (
	sidecarOnce sync.Once
	sidecarBin  string
	sidecarErr  error
)

// sidecarBinary builds cmd/codeloc-sidecar once.
func sidecarBinary(tb testing.TB) string {
	tb.Helper()
	sidecarOnce.Do(func() {
		sidecarBin = filepath.Join(tmpRoot, "bin", "codeloc-sidecar")
		cmd := exec.Command("go", "build", "-o", sidecarBin, "./cmd/codeloc-sidecar")
		cmd.Dir = moduleRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			sidecarErr = fmt.Errorf("go build ./cmd/codeloc-sidecar: %w\n%s", err, out)
		}
	})
	if sidecarErr != nil {
		tb.Fatal(sidecarErr)
	}
	return sidecarBin
}

// procStatus reads a kB field of /proc/<pid>/status, in MiB (skips
// without /proc).
func procStatus(tb testing.TB, pid int, field string) float64 {
	tb.Helper()
	if _, err := os.Stat("/proc/self/status"); errors.Is(err, os.ErrNotExist) {
		tb.Skip("no /proc")
	}
	kb, err := kubetest.StatusKiB(pid, field)
	if err != nil {
		tb.Fatal(err)
	}
	return float64(kb) / 1024
}

// accepting reports whether the plugin server accepts connections on
// socket: the file is there from bind(2) on, but a connection is refused
// until listen(2), so a client that dials as soon as the file shows can
// be refused (as Argo CD's repo-server can be, and retries).
func accepting(socket string) bool {
	c, err := net.Dial("unix", socket)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
