package sqllint_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codeloc/codeloc/validate/sqllint"
)

// adrMigration is fixtures/citation's migration: the ADR's table and its
// HNSW index, in the safe form.
var adrMigration = func() string {
	data, err := os.ReadFile("../../fixtures/citation/migrations/001-researchers-hnsw.sql")
	if err != nil {
		panic(err)
	}
	return string(data)
}()

// childEnv makes the test binary a child process that lints once (or not
// at all) and reports its memory: see TestBenchChild.
const childEnv = "SQLLINT_BENCH_CHILD"

// TestBenchChild is not a test: BenchmarkStartup runs the test binary
// with childEnv set, and this is what the child does.
func TestBenchChild(t *testing.T) {
	mode := os.Getenv(childEnv)
	if mode == "" {
		t.Skip("the child process of BenchmarkStartup")
	}
	start := time.Now()
	if mode == "lint" {
		if fs := sqllint.Lint(adrMigration, sqllint.Config{}); len(fs) != 0 {
			t.Fatalf("findings in the ADR's safe migration: %v", fs)
		}
	}
	elapsed := time.Since(start)
	debug.FreeOSMemory()
	fmt.Printf("child: first-lint-ns %d rss-after-gc-kb %d\n", elapsed.Nanoseconds(), rssKB(t))
}

// rssKB reads the process's resident set from /proc.
func rssKB(t *testing.T) int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

// BenchmarkStartup is what the first Lint of a process costs: libpg_query's
// WebAssembly compiled by wazero (or read from CODELOC_CACHE_DIR/wazero,
// when an earlier child wrote it there) and instantiated; a test binary has
// no precompiled folder beside it. bench/coldstart.sh measures the whole
// command, as the image stages it. Each
// iteration runs a fresh process that lints the ADR's migration ("lint")
// or nothing ("none", the process's own cost); first-lint-ms is the
// first Lint call alone, as the child times it (wall); process-cpu-ms
// the child's user+sys CPU; maxRSS-KB is the child's
// peak resident set, rss-after-gc-KB what it keeps after that (what a
// long-lived sidecar holds for the parser).
func BenchmarkStartup(b *testing.B) {
	for _, mode := range []string{"none", "lint"} {
		b.Run(mode, func(b *testing.B) {
			var firstNS, cpu, maxRSS, kept float64
			for b.Loop() {
				cmd := exec.Command(os.Args[0], "-test.run=^TestBenchChild$", "-test.v")
				cmd.Env = append(os.Environ(), childEnv+"="+mode)
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("child: %v\n%s", err, out)
				}
				var ns, rss int
				for _, line := range strings.Split(string(out), "\n") {
					if _, err := fmt.Sscanf(line, "child: first-lint-ns %d rss-after-gc-kb %d", &ns, &rss); err == nil {
						break
					}
				}
				firstNS += float64(ns)
				cpu += float64(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime())
				kept += float64(rss)
				maxRSS = max(maxRSS, float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss))
			}
			n := float64(b.N)
			b.ReportMetric(firstNS/n/1e6, "first-lint-ms")
			b.ReportMetric(cpu/n/1e6, "process-cpu-ms")
			b.ReportMetric(maxRSS, "maxRSS-KB")
			b.ReportMetric(kept/n, "rss-after-gc-KB")
		})
	}
}

// BenchmarkLint is a warm Lint of the ADR's migration: what every render
// after the first pays in a long-lived process.
func BenchmarkLint(b *testing.B) {
	sqllint.Lint(adrMigration, sqllint.Config{})
	for b.Loop() {
		sqllint.Lint(adrMigration, sqllint.Config{})
	}
}
