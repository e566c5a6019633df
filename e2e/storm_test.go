package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codeloc/codeloc/internal/kubetest"
)

// envStormSize sets the number of code-locations of TestStorm (default 20,
// what CI runs; 200 for the scale figures, with E2E_NODES=50).
const envStormSize = "E2E_STORM_SIZE"

// stormDepth is the depth of the storm's dependency DAG.
const stormDepth = 4

// TestStorm deploys a generated atlas of code-locations at once (a
// dependency DAG of depth 4, a third with a migration, some with a bucket)
// and waits until every Application is Synced and Healthy, then
// hard-refreshes them all. It asserts no timing: the figures (time to all
// Healthy, renders/s, per-render p50/p99 from the plugin server's own log,
// peak RSS of the plugin server and its children) are logged and appended
// to $E2E_FIGURES.
func TestStorm(t *testing.T) {
	h := need(t)
	ctx := context.Background()
	n := stormSize()
	m := h.startMeasure()
	if err := h.deployStorm(ctx, n); err != nil {
		t.Fatal(err)
	}
	f, err := m.done("deploy", n)
	if err != nil {
		t.Fatal(err)
	}
	h.report(t, f)
	h.reportDagsterMemory(t, n)
	if f.Renders == 0 {
		t.Errorf("the plugin server logged no render during the storm")
	}
	m = h.startMeasure()
	if err := h.hardRefreshAll(ctx, stormNames(n)); err != nil {
		t.Fatal(err)
	}
	f, err = m.done("hard refresh", n)
	if err != nil {
		t.Fatal(err)
	}
	h.report(t, f)
	if f.Renders < n {
		t.Errorf("a hard refresh of %d Applications made %d renders, want %d or more", n, f.Renders, n)
	}
	h.checkSpread(t, f)
	if h.pluginKind == pluginSidecar {
		for i, url := range h.sidecarMetricsURLs() {
			t.Logf("codeloc-sidecar %d metrics:\n%s", i+1, h.sidecarFigures(ctx, url))
		}
	}
}

// reportDagsterMemory logs the resident memory of the Dagster processes
// the harness runs once the storm is deployed: the code servers (each
// process with its children), the webserver and the daemon.
func (h *harness) reportDagsterMemory(t *testing.T, n int) {
	t.Helper()
	procs, rss := h.codeServers.memory()
	web, daemon := kubetest.TreeRSS(h.dagster.proc.Pid()), kubetest.TreeRSS(h.dagster.daemon.Pid())
	const mib = 1 << 20
	t.Logf("Dagster after the deploy of %d: %d code-server processes, RSS %.1f MiB; webserver %.1f MiB, daemon %.1f MiB; sum %.1f MiB",
		n, procs, float64(rss)/mib, float64(web)/mib, float64(daemon)/mib, float64(rss+web+daemon)/mib)
}

// checkSpread logs how the balancer spread connections over the
// repo-servers and checks that every plugin server rendered. Each render
// lands on a replica picked at random: one of N gets none by chance with
// odds under N·(1-1/N)^renders, 2·10⁻⁶ for N=2 at 20 renders and smaller
// for larger N at 20·(N-1), below which it only logs.
func (h *harness) checkSpread(t *testing.T, f figures) {
	t.Helper()
	if h.lb == nil {
		return
	}
	t.Logf("connections per repo-server through the balancer: %v; renders per plugin server: %v", h.lb.Connections(), f.RendersPerServer)
	if f.Renders < 20*(len(f.RendersPerServer)-1) {
		return
	}
	for i, r := range f.RendersPerServer {
		if r == 0 {
			t.Errorf("plugin server %d of %d served none of %d renders", i+1, len(f.RendersPerServer), f.Renders)
		}
	}
}

// BenchmarkHardRefresh measures a hard refresh of every storm Application
// (each one rendered again through the plugin server, the repo-server's
// cache bypassed) until all are Synced and Healthy again. It deploys the
// storm first when the cluster does not hold it yet:
//
//	CODELOC_E2E=1 E2E_STORM_SIZE=200 go test -run '^$' -bench HardRefresh -benchtime 3x ./e2e/
func BenchmarkHardRefresh(b *testing.B) {
	if errors.Is(setupErr, errNotRequested) {
		b.Skip(setupErr)
	}
	if setupErr != nil {
		b.Fatal(setupErr)
	}
	ctx := context.Background()
	n := stormSize()
	if err := h.deployStorm(ctx, n); err != nil {
		b.Fatal(err)
	}
	renders := 0
	b.ResetTimer()
	for range b.N {
		m := h.startMeasure()
		if err := h.hardRefreshAll(ctx, stormNames(n)); err != nil {
			b.Fatal(err)
		}
		f, err := m.done("hard refresh", n)
		if err != nil {
			b.Fatal(err)
		}
		renders += f.Renders
		b.Logf("%s", f)
	}
	b.ReportMetric(float64(renders)/float64(b.N), "renders/op")
}

func (h *harness) report(t *testing.T, f figures) {
	t.Helper()
	t.Logf("%s", f)
	if err := saveFigures(f); err != nil {
		t.Error(err)
	}
}

func stormNames(n int) []string {
	names := make([]string, n)
	for i := range n {
		names[i] = fmt.Sprintf("storm-%03d", i)
	}
	return names
}

// deployStorm pushes n storm code-locations and their Applications (once)
// and waits until every one is Synced and Healthy.
func (h *harness) deployStorm(ctx context.Context, n int) error {
	if err := h.ensureRoot(ctx); err != nil {
		return err
	}
	names := stormNames(n)
	last, err := h.state(ctx, names[n-1])
	if err != nil {
		return err
	}
	if !last.Exists {
		for i := range n {
			if err := h.stormCodeLocation(i, n); err != nil {
				return err
			}
		}
		if err := h.atlas.commit(fmt.Sprintf("atlas: %d storm code-locations", n)); err != nil {
			return err
		}
		folders, err := h.atlasFolders()
		if err != nil {
			return err
		}
		if err := h.pushApplications(ctx, folders...); err != nil {
			return err
		}
	}
	return h.waitAllHealthy(ctx, names, 10*time.Minute+time.Duration(n)*5*time.Second)
}

// waitAllHealthy waits until every Application named is Synced and
// Healthy, reading them all with one list. Every 5 s it asks for a normal
// refresh of the root and of the pending Applications that exist: the
// periodic resync reads git through the repo-server's revision cache (3
// min), a refresh does not.
func (h *harness) waitAllHealthy(ctx context.Context, names []string, timeout time.Duration) error {
	var pending []string
	var refreshed time.Time
	err := poll(ctx, timeout, func(ctx context.Context) (bool, error) {
		states, err := h.states(ctx)
		if err != nil {
			return false, err
		}
		pending = pending[:0]
		for _, name := range names {
			if !states[name].healthy() {
				pending = append(pending, name)
			}
		}
		if len(pending) > 0 && time.Since(refreshed) > 5*time.Second {
			refreshed = time.Now()
			h.refreshExisting(ctx, states, append([]string{rootApp}, pending...))
		}
		return len(pending) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("%d of %d Applications not Synced and Healthy (%v): %w", len(pending), len(names), h.describe(ctx, pending), err)
	}
	return nil
}

// refreshExisting asks for a normal refresh of the Applications named
// that exist; errors are left to the next round.
func (h *harness) refreshExisting(ctx context.Context, states map[string]appState, names []string) {
	for _, name := range names {
		if states[name].Exists {
			_ = h.refresh(ctx, name, "normal")
		}
	}
}

// describe gives the state of the first few Applications named.
func (h *harness) describe(ctx context.Context, names []string) string {
	var b strings.Builder
	for _, name := range names[:min(len(names), 3)] {
		s, _ := h.state(ctx, name)
		fmt.Fprintf(&b, "\n  %s: %s", name, s)
	}
	return b.String()
}

// hardRefreshAll asks Argo CD for a hard refresh of every Application
// named (a new render, the manifest cache bypassed) and waits until Argo
// CD has done each one (it removes the annotation) and all are Synced and
// Healthy.
func (h *harness) hardRefreshAll(ctx context.Context, names []string) error {
	for _, name := range names {
		if err := h.refresh(ctx, name, "hard"); err != nil {
			return err
		}
	}
	err := poll(ctx, 10*time.Minute, func(ctx context.Context) (bool, error) {
		states, err := h.states(ctx)
		if err != nil {
			return false, err
		}
		for _, name := range names {
			if states[name].RefreshPending {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("hard refresh: %w", err)
	}
	return h.waitAllHealthy(ctx, names, 5*time.Minute)
}

func stormSize() int {
	if n, err := strconv.Atoi(os.Getenv(envStormSize)); err == nil && n > 0 {
		return n
	}
	return 20
}

// stormCodeLocation writes storm-i, a copy of mediawatch at level
// i*depth/n of the DAG depending on one code-location of the level above;
// every third one also declares the database and a migration; odd ones
// drop mediawatch's bucket, so half of them have one. All keep its
// Dagster platform objects, which its code server and run pods read.
func (h *harness) stormCodeLocation(i, n int) error {
	name := fmt.Sprintf("storm-%03d", i)
	perLevel := max(n/stormDepth, 1)
	level := min(i/perLevel, stormDepth-1)
	edit := func(s string) string {
		var extra []string
		if level > 0 {
			dep := (level-1)*perLevel + i%perLevel
			extra = append(extra, fmt.Sprintf("  codeLocations: [storm-%03d]", dep))
		}
		if i%3 == 0 {
			extra = append(extra, "  database: [pgvector]", "  migrations: [001-init.sql]")
			s = strings.Replace(s, "  secrets: [dagster-postgresql-secret]", "  secrets: [dagster-postgresql-secret, pgvector-pg-auth]", 1)
		}
		if i%2 == 1 {
			s = withoutBuckets(s)
		}
		return strings.Replace(s, "dependsOn:\n", "dependsOn:\n"+strings.Join(extra, "\n")+"\n", 1)
	}
	if err := h.cloneCodeLocation("mediawatch", name, edit); err != nil {
		return err
	}
	if i%3 != 0 {
		return nil
	}
	sql := fmt.Sprintf("CREATE TABLE IF NOT EXISTS storm_%03d (id bigint PRIMARY KEY);\n", i)
	return h.atlas.write(map[string]string{name + "/migrations/001-init.sql": sql})
}

// withoutBuckets drops the dependsOn.buckets block of a declaration.
func withoutBuckets(s string) string {
	start := strings.Index(s, "  buckets:\n")
	if start < 0 {
		return s
	}
	end := start + len("  buckets:\n")
	for end < len(s) && strings.HasPrefix(s[end:], "    ") {
		end += strings.IndexByte(s[end:], '\n') + 1
	}
	return s[:start] + s[end:]
}

// sidecarFigures returns the codeloc_* lines of a sidecar's /metrics
// (base: its metrics URL).
func (h *harness) sidecarFigures(ctx context.Context, base string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return err.Error()
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "codeloc_") || strings.HasPrefix(line, "process_resident_memory_bytes") {
			b.WriteString("    " + line + "\n")
		}
	}
	return b.String()
}
