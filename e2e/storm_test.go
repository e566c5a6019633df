package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// envStormSize sets the number of code-locations of TestStorm (default 20,
// what CI runs; 200 for the scale figures, with E2E_NODES=50).
const envStormSize = "E2E_STORM_SIZE"

// stormDepth is the depth of the storm's dependency DAG.
const stormDepth = 4

// TestStorm deploys a generated atlas of code-locations at once (a
// dependency DAG of depth 4, a third with a migration) and waits until
// every Application is Synced and Healthy. It asserts no timing: the
// figures are logged (time to all Healthy, the sidecar's render metrics).
func TestStorm(t *testing.T) {
	h := need(t)
	ctx := context.Background()
	n := stormSize()
	names := make([]string, n)
	for i := range n {
		names[i] = fmt.Sprintf("storm-%03d", i)
		if err := h.stormCodeLocation(i, n); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.atlas.commit(fmt.Sprintf("atlas: %d storm code-locations", n)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := h.pushApplications(ctx, append([]string{"mediawatch"}, names...)...); err != nil {
		t.Fatal(err)
	}
	timeout := 10*time.Minute + time.Duration(n)*5*time.Second
	for _, name := range names {
		if _, err := h.waitRefreshed(ctx, name, timeout-time.Since(start), "Synced and Healthy", appState.healthy); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("storm of %d code-locations: all Synced and Healthy %s after the push", n, time.Since(start).Round(time.Second))
	t.Logf("codeloc-sidecar metrics:\n%s", h.sidecarFigures(ctx))
}

func stormSize() int {
	if n, err := strconv.Atoi(os.Getenv(envStormSize)); err == nil && n > 0 {
		return n
	}
	return 20
}

// stormCodeLocation writes storm-i, a copy of mediawatch at level
// i*depth/n of the DAG depending on one code-location of the level above;
// every third one also declares the database and a migration.
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
			extra = append(extra, "  database: [pgvector]", "  secrets: [pgvector-pg-auth]", "  migrations: [001-init.sql]")
		}
		if len(extra) == 0 {
			return s
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

// sidecarFigures returns the codeloc_* lines of the sidecar's /metrics.
func (h *harness) sidecarFigures(ctx context.Context) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.sidecarMetrics+"/metrics", nil)
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
