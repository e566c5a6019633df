package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/codeloc/codeloc/internal/names"
)

// TestDependencyNotReady: mediawatch pushes a revision with ready: false,
// which codeloc refuses to render, so mediawatch's Application is no
// longer Synced+Healthy; citation's next sync fails in preflight naming
// mediawatch, and recovers once mediawatch is ready again.
func TestDependencyNotReady(t *testing.T) {
	h := need(t)
	ctx := context.Background()
	if err := h.editAtlas("mediawatch: not ready", "mediawatch/code-location.manifest.yaml", replace("ready: true", "ready: false")); err != nil {
		t.Fatal(err)
	}
	if _, err := h.waitRefreshed(ctx, "mediawatch", stepTimeout, "refused", func(s appState) bool {
		return s.condition("ComparisonError") != ""
	}); err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	// A change of citation makes it sync again (its preflight runs at sync).
	if err := h.editAtlas("citation: touch", "citation/run-env.yaml", replace("CITATION_MARTS_SOURCE: mediawatch", "CITATION_MARTS_SOURCE: mediawatch-v2")); err != nil {
		t.Fatal(err)
	}
	s, err := h.waitRefreshed(ctx, "citation", stepTimeout, "failing its preflight", func(appState) bool {
		r, ok := h.lastRun("citation", "preflight")
		return ok && r.Start.After(since) && r.ExitCode != 0
	})
	if err != nil {
		t.Fatal(err)
	}
	run, _ := h.lastRun("citation", "preflight")
	t.Logf("preflight said: %s; citation: %s", run.Message, s)
	if !strings.Contains(run.Message, "mediawatch") {
		t.Errorf("preflight message %q does not name mediawatch", run.Message)
	}
	if err := h.editAtlas("mediawatch: ready", "mediawatch/code-location.manifest.yaml", replace("ready: false", "ready: true")); err != nil {
		t.Fatal(err)
	}
	if _, err := h.waitRefreshed(ctx, "citation", stepTimeout, "Synced and Healthy", appState.healthy); err != nil {
		t.Fatal(err)
	}
}

// migration002 is citation's second migration.
const migration002 = "CREATE TABLE IF NOT EXISTS citations (id bigint PRIMARY KEY, researcher bigint REFERENCES researchers(id));\n"

// TestNewRevision: a commit with a new revision, image tag and a second
// migration syncs; the preflight pod is recreated, 002 is applied once,
// and a re-sync applies nothing.
//
// The push waits until citation's previous operation has ended. Seen with
// Argo CD v2.14.21: a commit refreshed while an earlier (retried) sync is
// still running is then treated as "already attempted" (revisionUpdated
// false with manifest-generate-paths), and auto-sync takes the self-heal
// path: a selective sync of the OutOfSync resources only, which runs no
// hook, so the Deployment moved to the new image without migration 002.
func TestNewRevision(t *testing.T) {
	h := need(t)
	ctx := context.Background()
	if _, err := h.waitIdle(ctx, "citation"); err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	files := map[string]string{"citation/migrations/002-citations.sql": migration002}
	for name, edit := range map[string]func(string) string{
		"citation/code-location.manifest.yaml": func(s string) string {
			s = strings.Replace(s, "revision: a3f9c1d", "revision: b4d0e2f", 1)
			return strings.Replace(s, "migrations: [001-researchers-hnsw.sql]", "migrations: [001-researchers-hnsw.sql, 002-citations.sql]", 1)
		},
		"citation/kustomization.yaml": replace("newTag: a3f9c1d", "newTag: b4d0e2f"),
	} {
		text, err := h.atlas.read(name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = edit(text)
	}
	if err := h.atlas.push("citation: b4d0e2f with 002", files); err != nil {
		t.Fatal(err)
	}
	if _, err := h.waitRefreshed(ctx, "citation", stepTimeout, "deployed at b4d0e2f", func(s appState) bool {
		r, ok := h.lastRun("citation", "migrate")
		return s.healthy() && ok && r.Start.After(since) && h.deploymentImage(ctx, "citation") == "registry:80/citation-dagster:b4d0e2f"
	}); err != nil {
		t.Fatal(err)
	}
	if r, _ := h.lastRun("citation", "preflight"); !r.Start.After(since) || r.ExitCode != 0 {
		t.Errorf("preflight not re-run for the new revision: %+v", r)
	}
	h.checkLedger(ctx, t, "citation", "001-researchers-hnsw.sql,002-citations.sql")
	h.checkReloadedRevision(ctx, t, since, "citation", "registry:80/citation-dagster:b4d0e2f", "citation/citation_counts")
	h.resyncAppliesNothing(ctx, t, "citation")
}

// checkReloadedRevision: the PostSync reload hook of the new revision ran
// after since and succeeded against the real webserver, which now serves
// the location from the new image (DAGSTER_CURRENT_IMAGE, its display
// metadata) with the new image's definitions (asset); logs the time from
// the push to the new image LOADED.
func (h *harness) checkReloadedRevision(ctx context.Context, t *testing.T, since time.Time, cl, image, asset string) {
	t.Helper()
	var run jobRun
	err := poll(ctx, stepTimeout, func(context.Context) (bool, error) {
		r, ok := h.lastRun(cl, "reload")
		run = r
		return ok && r.Start.After(since) && !r.End.IsZero(), nil
	})
	if err != nil {
		t.Fatalf("no reload hook ran for %s since %s: %v", cl, since.Format(time.RFC3339), err)
	}
	t.Logf("reload hook said: %s", run.Message)
	if run.ExitCode != 0 || !strings.HasPrefix(run.Message, "reload "+cl+": ok (LOADED") {
		t.Errorf("reload of %s: exit %d, %q", cl, run.ExitCode, run.Message)
	}
	e, err := h.dagster.waitLocation(ctx, cl, stepTimeout, func(e locationEntry, ok bool) bool { return ok && e.loaded() && e.image() == image })
	t.Logf("dagster: %s; push to the new image LOADED %.1f s (the reload hook ended at %.1f s)", e, time.Since(since).Seconds(), run.End.Sub(since).Seconds())
	if err != nil {
		t.Fatalf("the webserver does not serve %s from %s: %v", cl, image, err)
	}
	if !slices.Contains(e.assets(), asset) {
		t.Errorf("%s serves the assets %v, without the new revision's %s", cl, e.assets(), asset)
	}
}

func (h *harness) deploymentImage(ctx context.Context, name string) string {
	d, err := h.kube.AppsV1().Deployments(appNS).Get(ctx, name, metav1.GetOptions{})
	if err != nil || len(d.Spec.Template.Spec.Containers) == 0 {
		return ""
	}
	return d.Spec.Template.Spec.Containers[0].Image
}

func (h *harness) checkLedger(ctx context.Context, t *testing.T, cl, want string) {
	t.Helper()
	files, err := h.ledger(ctx, cl)
	if err != nil || strings.Join(files, ",") != want {
		t.Errorf("ledger of %s = %v (err %v), want %s", cl, files, err, want)
	}
}

// resyncAppliesNothing makes the code-location sync again (a commit to its
// folder, so that auto-sync runs a full sync): the migrate Job runs again
// and the ledger is unchanged. A sync started by setting the Application's
// operation was tried first: Argo CD v2.14.21 deleted the hooks
// (BeforeHookCreation) and ended the operation "successfully synced (no
// more tasks)" without creating them again.
func (h *harness) resyncAppliesNothing(ctx context.Context, t *testing.T, cl string) {
	t.Helper()
	if _, err := h.waitIdle(ctx, cl); err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	if err := h.editAtlas(cl+": re-sync", cl+"/run-env.yaml", replace("DAGSTER_CODE_LOCATION: "+cl, "DAGSTER_CODE_LOCATION: "+cl+"-resync")); err != nil {
		t.Fatal(err)
	}
	if _, err := h.waitRefreshed(ctx, cl, stepTimeout, "re-synced", func(s appState) bool {
		r, ok := h.lastRun(cl, "migrate")
		return ok && r.Start.After(since) && s.OpPhase == "Succeeded" && s.healthy()
	}); err != nil {
		h.dumpJobs(ctx, t, since)
		t.Fatal(err)
	}
	r, _ := h.lastRun(cl, "migrate")
	t.Logf("re-sync migrate said: %s", r.Message)
	h.checkLedger(ctx, t, cl, "001-researchers-hnsw.sql,002-citations.sql")
}

// TestRemoval: citation (and quotes, reader) removed from atlas:
// `codeloc application --check` against the cluster/apps checkout reports
// the drift first (exit 1, the diff removing citation's Application);
// regenerated and pushed, cluster/apps loses their Applications, which
// prunes their workloads; citation-data stays.
func TestRemoval(t *testing.T) {
	h := need(t)
	ctx := context.Background()
	for _, cl := range []string{"citation", "quotes", "reader"} {
		if err := os.RemoveAll(filepath.Join(h.atlas.dir, cl)); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.atlas.commit("atlas: remove citation, quotes and reader"); err != nil {
		t.Fatal(err)
	}
	code, diff, stderr, err := h.codelocApplication(ctx, "--check")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("codeloc application --check: exit %d\n%s%s", code, stderr, diff)
	if code != 1 {
		t.Errorf("--check exit %d, want 1 (drift)", code)
	}
	for _, want := range []string{"--- a/citation.yaml\n+++ b/citation.yaml\n", "\n-kind: Application\n", "\n-  name: citation\n", "\n-citation.yaml\n"} {
		if !strings.Contains(diff, want) {
			t.Errorf("--check diff lacks %q", want)
		}
	}
	if !strings.Contains(stderr, "would be removed citation.yaml\n") {
		t.Errorf("--check stderr lacks the removal of citation.yaml:\n%s", stderr)
	}
	if _, err := h.apps.read("citation.yaml"); err != nil {
		t.Errorf("--check wrote: %v", err)
	}
	left, err := h.atlasFolders() // mediawatch, and what other scenarios added
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(left, "citation") || !slices.Contains(left, "mediawatch") {
		t.Fatalf("atlas holds %v after the removal", left)
	}
	if err := h.pushApplications(ctx, left...); err != nil {
		t.Fatal(err)
	}
	if code, diff, _, err := h.codelocApplication(ctx, "--check"); err != nil || code != 0 {
		t.Errorf("--check after the push: exit %d (%v)\n%s", code, err, diff)
	}
	if _, err := h.waitRefreshed(ctx, "citation", stepTimeout, "deleted", func(s appState) bool { return !s.Exists }); err != nil {
		t.Fatal(err)
	}
	err = poll(ctx, stepTimeout, func(ctx context.Context) (bool, error) {
		ok, err := h.deploymentExists(ctx, "citation")
		return !ok, err
	})
	if err != nil {
		t.Errorf("citation not pruned: %v", err)
	}
	h.checkLeftDagster(ctx, t, "citation", "mediawatch")
	_, err = h.kube.CoreV1().PersistentVolumeClaims(appNS).Get(ctx, "citation-data", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		t.Errorf("citation-data was deleted with its Application")
	} else if err != nil {
		t.Error(err)
	}
	// From 3.0 Argo CD adds a finalizer to each hook it creates and removes
	// it once the hook has completed: after every sync and the removal, no
	// hook (preflight Pod and RBAC, migrate Job) may still hold it, or it
	// would stay Terminating when deleted.
	if held, err := h.hookFinalizers(ctx); err != nil {
		t.Error(err)
	} else if len(held) > 0 {
		t.Errorf("objects still holding %s: %v", hookFinalizer, held)
	}
}

// checkLeftDagster: once the root synced the workspace ConfigMap without
// cl, a reloadWorkspace (the mutation a platform's webserver gets after a
// workspace change; the webserver reads workspace.yaml only at start and
// then) makes the real webserver drop it; kept stays LOADED.
func (h *harness) checkLeftDagster(ctx context.Context, t *testing.T, cl, kept string) {
	t.Helper()
	start := time.Now()
	err := poll(ctx, stepTimeout, func(ctx context.Context) (bool, error) {
		cm, err := h.kube.CoreV1().ConfigMaps(appNS).Get(ctx, workspaceConfigMap, metav1.GetOptions{})
		return err == nil && !strings.Contains(cm.Data["workspace.yaml"], "location_name: "+cl+"\n"), err
	})
	if err != nil {
		t.Fatalf("the workspace ConfigMap still lists %s: %v", cl, err)
	}
	if m, err := h.dagster.workspaceEntries(ctx); err == nil {
		t.Logf("before reloadWorkspace, the webserver lists %s: %s", cl, m[cl])
	}
	err = poll(ctx, stepTimeout, func(ctx context.Context) (bool, error) {
		if err := h.dagster.reloadWorkspace(ctx); err != nil {
			return false, err
		}
		m, err := h.dagster.workspaceEntries(ctx)
		_, listed := m[cl]
		return err == nil && !listed && m[kept].loaded(), err
	})
	if err != nil {
		t.Fatalf("after reloadWorkspace the webserver still lists %s, or not %s LOADED: %v", cl, kept, err)
	}
	t.Logf("dagster: %s left the webserver %.1f s after the workspace ConfigMap lost it", cl, time.Since(start).Seconds())
}

// hookFinalizer is the finalizer Argo CD 3 sets on the hooks it creates.
const hookFinalizer = "argocd.argoproj.io/hook-finalizer"

// hookResources are the kinds codeloc renders as hooks: the preflight Pod
// and its ServiceAccount, Role, RoleBinding and ConfigMap, the migrate Job.
var hookResources = []schema.GroupVersionResource{
	{Version: "v1", Resource: "pods"},
	{Version: "v1", Resource: "configmaps"},
	{Version: "v1", Resource: "serviceaccounts"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"},
	{Group: "batch", Version: "v1", Resource: "jobs"},
}

// hookFinalizers lists the objects of the contract's namespace, of the
// kinds codeloc renders as hooks, that hold hookFinalizer.
func (h *harness) hookFinalizers(ctx context.Context) ([]string, error) {
	var held []string
	for _, gvr := range hookResources {
		list, err := h.dyn.Resource(gvr).Namespace(appNS).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, o := range list.Items {
			if slices.Contains(o.GetFinalizers(), hookFinalizer) {
				held = append(held, o.GetKind()+"/"+o.GetName())
			}
		}
	}
	return held, nil
}

// dumpJobs logs the Jobs, their pods and the harness's runs, for a failure.
func (h *harness) dumpJobs(ctx context.Context, t *testing.T, since time.Time) {
	t.Helper()
	t.Logf("since %s", since.Format(time.RFC3339Nano))
	jobs, _ := h.kube.BatchV1().Jobs(appNS).List(ctx, metav1.ListOptions{})
	for _, j := range jobs.Items {
		t.Logf("job %s created %s uid %s succeeded %d", j.Name, j.CreationTimestamp, j.UID, j.Status.Succeeded)
	}
	pods, _ := h.kube.CoreV1().Pods(appNS).List(ctx, metav1.ListOptions{LabelSelector: names.LabelJob})
	for _, p := range pods.Items {
		t.Logf("pod %s created %s node %q phase %s anno %v", p.Name, p.CreationTimestamp, p.Spec.NodeName, p.Status.Phase, p.Annotations)
	}
	for _, r := range h.jobs.snapshot() {
		t.Logf("run %s %s %s start %s exit %d", r.Pod, r.CodeLocation, r.Role, r.Start.Format(time.RFC3339Nano), r.ExitCode)
	}
}

// waitIdle waits until the Application's last operation ended 2 s ago or
// more (see TestNewRevision for why).
func (h *harness) waitIdle(ctx context.Context, name string) (appState, error) {
	return h.waitApp(ctx, name, stepTimeout, "idle", func(s appState) bool {
		return s.OpPhase != "Running" && s.OpPhase != "Terminating" && time.Since(s.OpFinished) > 2*time.Second
	})
}
