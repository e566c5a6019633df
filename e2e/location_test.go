package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestLocationLoadError: badcode (mediawatch's copy) ships an image whose
// Dagster code does not load (testdata/dagster/images/badcode-dagster: an
// asset whose input no asset produces). The real webserver answers the
// reload hook with a location whose locationOrLoadError is Dagster's
// PythonError; the hook's one line carries Dagster's message, its Pod
// hook fails with it, so badcode's sync fails; mediawatch stays LOADED.
// badcode is removed at the end.
func TestLocationLoadError(t *testing.T) {
	h := need(t)
	ctx := context.Background()
	start := time.Now()
	if err := h.cloneCodeLocation("mediawatch", "badcode", nil); err != nil {
		t.Fatal(err)
	}
	if err := h.atlas.commit("atlas: badcode"); err != nil {
		t.Fatal(err)
	}
	if err := h.pushAtlasApplications(ctx); err != nil {
		t.Fatal(err)
	}
	failed, err := h.waitRefreshed(ctx, "badcode", deployTimeout, "failing its reload", func(s appState) bool {
		r, ok := h.lastRun("badcode", "reload")
		return ok && !r.End.IsZero() && r.ExitCode != 0 && strings.Contains(s.result("Pod/badcode-reload"), "Failed")
	})
	if err != nil {
		t.Fatal(err)
	}
	run, _ := h.lastRun("badcode", "reload")
	t.Logf("reload hook said (%.1f s after the push): %s", run.End.Sub(start).Seconds(), run.Message)
	t.Logf("badcode: %s", failed)
	for _, want := range []string{"reload badcode: FAILED", "reload-load-error", "DagsterInvalidDefinitionError", `Input asset "["missing_upstream"]" is not produced`} {
		if !strings.Contains(run.Message, want) {
			t.Errorf("the reload hook's line lacks %q: %s", want, run.Message)
		}
	}
	if strings.Contains(run.Message, "\n") {
		t.Errorf("the reload hook's message spans lines: %q", run.Message)
	}
	if !strings.Contains(failed.OpMessage, "one or more synchronization tasks completed unsuccessfully") {
		t.Errorf("badcode's sync did not fail: %s", failed)
	}
	if res := failed.result("Pod/badcode-reload"); !strings.Contains(res, "DagsterInvalidDefinitionError") {
		t.Errorf("badcode's reload hook result = %q, want Dagster's error", res)
	}
	entries, err := h.dagster.workspaceEntries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("dagster: %s", entries["badcode"])
	if e := entries["badcode"]; e.Location.Typename != "PythonError" || !strings.Contains(e.errorText(), "missing_upstream") {
		t.Errorf("the webserver shows badcode as %s, want its PythonError", e)
	}
	// badcode's hook met RepositoryLocationNotFound first and sent
	// reloadWorkspace, which reloads every location (dagster
	// _core/workspace/context.py reload_workspace) and so restarts the child
	// server of every `dagster code-server start` location (mediawatch's:
	// _grpc/proxy_server.py ReloadCode): mediawatch may be seen in error
	// while its child restarts; it must be LOADED again.
	if e := entries["mediawatch"]; !e.loaded() {
		t.Logf("mediawatch, right after badcode's reloads: %s", e)
	}
	if e, err := h.dagster.waitLocation(ctx, "mediawatch", stepTimeout, func(e locationEntry, ok bool) bool { return ok && e.loaded() }); err != nil {
		t.Errorf("mediawatch is not LOADED after badcode's reloads: %v (%s)", err, e)
	}
	// The answer dagster/graphql's unit test decodes for an unknown name,
	// from the real webserver.
	if e, err := h.dagster.reloadLocation(ctx, "nowhere"); err != nil || e.Typename != "RepositoryLocationNotFound" || e.Message != "Location nowhere does not exist." {
		t.Errorf("reloadRepositoryLocation(nowhere) = %+v, %v; want RepositoryLocationNotFound, \"Location nowhere does not exist.\"", e, err)
	}
	// Argo CD retries the failed sync (the e2e's retry: 20 attempts), each
	// running the reload hook again; a removal waits for the operation. A
	// user stops it as `argocd app terminate-op` does, then removes badcode.
	if err := h.terminateOperation(ctx, "badcode"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.waitApp(ctx, "badcode", stepTimeout, "operation ended", func(s appState) bool {
		return s.OpPhase != "Running" && s.OpPhase != "Terminating"
	}); err != nil {
		t.Fatal(err)
	}
	h.removeCodeLocation(ctx, t, "badcode")
}

// terminateOperation does what argocd-server's TerminateOperation does
// (`argocd app terminate-op`): the running operation's phase becomes
// Terminating, which the controller ends (no further retry).
func (h *harness) terminateOperation(ctx context.Context, app string) error {
	patch := []byte(`{"status":{"operationState":{"phase":"Terminating"}}}`)
	_, err := h.dyn.Resource(applications).Namespace(argocdNS).Patch(ctx, app, "application/merge-patch+json", patch, metav1.PatchOptions{})
	return err
}

// TestCodeServerKilled: mediawatch's code server process is killed
// (SIGKILL of its process group, as an OOM kill) and its restart held: a
// reload in the real webserver answers the location's PythonError (the
// webserver cannot reach the server); once the process is back (the
// kubelet's restart), codeloc-jobs reload (the hook's command) brings the
// location back LOADED. Logs the times.
func TestCodeServerKilled(t *testing.T) {
	h := need(t)
	ctx := context.Background()
	const cl = "mediawatch"
	if e, err := h.dagster.waitLocation(ctx, cl, stepTimeout, func(e locationEntry, ok bool) bool { return ok && e.loaded() }); err != nil {
		t.Fatalf("%s is not LOADED before the kill: %v (%s)", cl, err, e)
	}
	h.codeServers.holdRestarts(cl, true)
	defer h.codeServers.holdRestarts(cl, false)
	pod, err := h.codeServers.kill(cl)
	if err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	var entry reloadEntry
	err = poll(ctx, stepTimeout, func(ctx context.Context) (bool, error) {
		e, err := h.dagster.reloadLocation(ctx, cl)
		entry = e
		return err == nil && e.Location.Typename == "PythonError", err
	})
	if err != nil {
		t.Fatalf("the webserver does not show %s's error after the kill: %v (last: %+v)", cl, err, entry)
	}
	t.Logf("dagster: %s %s after the kill of pod %s's code server (%.1f s): %s", cl, entry.LoadStatus, pod, time.Since(killed).Seconds(), firstLine(entry.Location.Message))
	if e, err := h.dagster.workspaceEntries(ctx); err == nil && e[cl].loaded() {
		t.Errorf("workspaceOrError still shows %s LOADED after the failed reload: %s", cl, e[cl])
	}
	h.codeServers.holdRestarts(cl, false)
	released := time.Now()
	cmd := exec.CommandContext(ctx, filepath.Join(h.bin, "codeloc-jobs"), "reload", "--webserver-url", h.dagster.url, "--location", cl, "--timeout", "120s")
	out, err := cmd.CombinedOutput()
	t.Logf("codeloc-jobs reload (%.1f s after the restart was released, %.1f s after the kill): %s", time.Since(released).Seconds(), time.Since(killed).Seconds(), strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("codeloc-jobs reload: %v", err)
	}
	if e, err := h.dagster.waitLocation(ctx, cl, stepTimeout, func(e locationEntry, ok bool) bool { return ok && e.loaded() }); err != nil {
		t.Errorf("%s not LOADED again: %v (%s)", cl, err, e)
	}
}

// reloadEntry is the answer of reloadRepositoryLocation.
type reloadEntry struct {
	Typename   string `json:"__typename"`
	Message    string `json:"message"`
	LoadStatus string `json:"loadStatus"`
	Location   struct {
		Typename string `json:"__typename"`
		Message  string `json:"message"`
	} `json:"locationOrLoadError"`
}

// reloadLocation sends Dagster's reloadRepositoryLocation mutation, as
// the reload hook does.
func (d *dagsterWebserver) reloadLocation(ctx context.Context, name string) (reloadEntry, error) {
	var out struct {
		R reloadEntry `json:"reloadRepositoryLocation"`
	}
	err := d.graphql(ctx, `mutation($n: String!) { reloadRepositoryLocation(repositoryLocationName: $n) { __typename
  ... on WorkspaceLocationEntry { loadStatus locationOrLoadError { __typename ... on PythonError { message } } }
  ... on PythonError { message } ... on RepositoryLocationNotFound { message } } }`, map[string]any{"n": name}, &out)
	return out.R, err
}

// pushAtlasApplications regenerates cluster/apps for every code-location
// of atlas.
func (h *harness) pushAtlasApplications(ctx context.Context) error {
	left, err := h.atlasFolders()
	if err != nil {
		return err
	}
	return h.pushApplications(ctx, left...)
}
