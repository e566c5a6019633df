package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/codeloc/codeloc/internal/kubetest"
	"github.com/codeloc/codeloc/internal/names"
)

// Bounds of the scenarios' waits (a cold Argo CD takes a while to list
// and watch every API the first time).
const (
	deployTimeout = 5 * time.Minute
	stepTimeout   = 3 * time.Minute
)

const rootApp = "app-of-apps"

// The scenarios share one cluster and run in file order: first deploy,
// preflight failure, render refused, dependency not ready, new revision,
// removal, storm. Each starts from the state the previous one left.

// TestFirstDeploy: the root app-of-apps syncs cluster/apps; mediawatch
// (wave 0) is Synced and Healthy before citation (wave 1) is created;
// citation's preflight passes, its migration (the ADR's: pgvector, an HNSW
// index built CONCURRENTLY) is in the ledger and its index valid, its
// Deployment is created after the migrate Job completed, and citation-data
// carries Prune=false/Delete=false; a run pod Dagster would launch for
// citation is admitted, one reading an undeclared Secret is refused.
func TestFirstDeploy(t *testing.T) {
	h := need(t)
	ctx := context.Background()
	pushed := time.Now()
	loaded := h.dagster.watchLoaded(ctx, deployTimeout+stepTimeout, "mediawatch", "citation")
	if err := h.ensureRoot(ctx); err != nil {
		t.Fatal(err)
	}
	order, err := h.waitOrdered(ctx, "mediawatch", "citation", deployTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("mediawatch Synced+Healthy at %s; citation created at %s", order.firstHealthy.Format(time.RFC3339Nano), order.secondCreated)
	if _, err := h.waitApp(ctx, "citation", deployTimeout, "Synced and Healthy", appState.healthy); err != nil {
		t.Fatal(err)
	}
	h.checkHooksGateWorkload(ctx, t, "citation", "citation")
	files, err := h.ledger(ctx, "citation")
	if err != nil || strings.Join(files, ",") != "001-researchers-hnsw.sql" {
		t.Errorf("ledger of citation = %v, %v; want [001-researchers-hnsw.sql]", files, err)
	}
	// The ADR's own migration ran: pgvector's HNSW index, built CONCURRENTLY, is valid.
	if got, err := h.text(ctx, `SELECT am.amname || ' ' || i.indisvalid FROM pg_index i
		JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
		WHERE i.indexrelid = to_regclass('researchers_embedding_hnsw')`); err != nil || got != "hnsw true" {
		t.Errorf("index researchers_embedding_hnsw (access method, valid) = %q, %v; want \"hnsw true\"", got, err)
	}
	h.checkDataClaimKept(ctx, t, "citation-data")
	h.checkBucketFromApps(ctx, t, "atlas-datalake")
	if _, err := h.waitApp(ctx, rootApp, stepTimeout, "Synced and Healthy", appState.healthy); err != nil {
		t.Error(err)
	}
	h.checkDagsterFindsIt(ctx, t, "citation", "citation.dagster.svc", "3030")
	h.checkDagsterFindsIt(ctx, t, "mediawatch", "mediawatch.dagster.svc", "3030")
	h.checkFirstLoaded(ctx, t, pushed, loaded, map[string][]string{
		"mediawatch": {"mediawatch/mentions", "mediawatch/mentions_by_researcher"},
		"citation":   {"citation/researchers", "citation/researcher_visibility"},
	}, map[string]string{"mediawatch": "registry:80/mediawatch-dagster:5d2e8b4", "citation": "registry:80/citation-dagster:a3f9c1d"})
	h.checkRunPodAdmission(ctx, t)
}

// checkFirstLoaded: the real webserver's workspaceOrError lists each
// code-location LOADED, with its repository, its assets and the image of
// its Deployment (DAGSTER_CURRENT_IMAGE); logs the time from the push
// (the root applied, cluster/apps committed) to LOADED.
func (h *harness) checkFirstLoaded(ctx context.Context, t *testing.T, pushed time.Time, loaded <-chan map[string]time.Time, assets map[string][]string, images map[string]string) {
	t.Helper()
	var at map[string]time.Time
	select {
	case at = <-loaded:
	case <-time.After(stepTimeout):
		t.Fatalf("the webserver did not list %v LOADED", slices.Sorted(maps.Keys(assets)))
	}
	entries, err := h.dagster.workspaceEntries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, cl := range slices.Sorted(maps.Keys(assets)) {
		e := entries[cl]
		t.Logf("dagster: %s; push to LOADED %.1f s", e, at[cl].Sub(pushed).Seconds())
		if !e.loaded() || e.Location.Repositories[0].Name != "__repository__" {
			t.Errorf("%s: %s, want LOADED with the repository __repository__", cl, e)
		}
		for _, a := range assets[cl] {
			if !slices.Contains(e.assets(), a) {
				t.Errorf("%s serves the assets %v, not %s", cl, e.assets(), a)
			}
		}
		if e.image() != images[cl] {
			t.Errorf("%s serves the image %q, want %q", cl, e.image(), images[cl])
		}
	}
}

// checkDagsterFindsIt: the record publishes the code-location's gRPC
// location, the workspace ConfigMap the root app synced from cluster/apps
// lists it, the PostSync reload hook reloaded it in the real Dagster
// webserver (which knows it from that workspace), which serves it LOADED.
func (h *harness) checkDagsterFindsIt(ctx context.Context, t *testing.T, cl, host, port string) {
	t.Helper()
	rec, err := h.kube.CoreV1().ConfigMaps(appNS).Get(ctx, names.RecordName(cl), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("record of %s: %v", cl, err)
	}
	if d := rec.Data; d[names.RecordKeyGRPCHost] != host || d[names.RecordKeyGRPCPort] != port || d[names.RecordKeyLocationName] != cl {
		t.Errorf("record of %s: grpcHost %q grpcPort %q locationName %q; want %s %s %s", cl, d[names.RecordKeyGRPCHost], d[names.RecordKeyGRPCPort], d[names.RecordKeyLocationName], host, port, cl)
	}
	ws, err := h.kube.CoreV1().ConfigMaps(appNS).Get(ctx, workspaceConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("workspace ConfigMap: %v", err)
	}
	if w := ws.Data["workspace.yaml"]; !strings.Contains(w, "location_name: "+cl) || !strings.Contains(w, "host: "+host) {
		t.Errorf("workspace.yaml does not load %s at %s:\n%s", cl, host, w)
	}
	var run jobRun
	err = poll(ctx, stepTimeout, func(context.Context) (bool, error) {
		r, ok := h.lastRun(cl, "reload")
		run = r
		return ok && !r.End.IsZero(), nil
	})
	if err != nil {
		t.Fatalf("no reload hook ran for %s: %v", cl, err)
	}
	t.Logf("reload hook said: %s", run.Message)
	if run.ExitCode != 0 || !strings.Contains(run.Message, cl) {
		t.Errorf("reload of %s: exit %d, %q", cl, run.ExitCode, run.Message)
	}
	if e, err := h.dagster.waitLocation(ctx, cl, stepTimeout, func(e locationEntry, ok bool) bool { return ok && e.loaded() }); err != nil {
		t.Errorf("the webserver does not serve %s LOADED: %v; last: %s", cl, err, e)
	}
}

// ensureRoot applies the root app-of-apps (sidecar/install's, pointing at
// cluster/apps) unless it exists: the storm can run alone.
func (h *harness) ensureRoot(ctx context.Context) error {
	if s, err := h.state(ctx, rootApp); err != nil || s.Exists {
		return err
	}
	root, err := h.rootApplication()
	if err != nil {
		return err
	}
	if err := h.applyYAML(ctx, argocdNS, root); err != nil {
		return fmt.Errorf("apply the root Application: %w", err)
	}
	return nil
}

// ordering records when the first Application became Synced+Healthy and
// when the second appeared.
type ordering struct {
	firstHealthy  time.Time
	secondCreated time.Time
}

// waitOrdered polls both Applications until the second exists, failing if
// it appears while the first is not yet Synced+Healthy.
func (h *harness) waitOrdered(ctx context.Context, first, second string, timeout time.Duration) (ordering, error) {
	var o ordering
	var bad error
	err := poll(ctx, timeout, func(ctx context.Context) (bool, error) {
		a, err := h.state(ctx, first)
		if err != nil {
			return false, err
		}
		if a.healthy() && o.firstHealthy.IsZero() {
			o.firstHealthy = time.Now()
		}
		b, err := h.state(ctx, second)
		if err != nil || !b.Exists {
			return false, err
		}
		o.secondCreated = b.Created
		if o.firstHealthy.IsZero() {
			bad = errorf("%s was created while %s was %s", second, first, a)
		}
		return true, nil
	})
	if bad != nil {
		return o, bad
	}
	return o, err
}

// checkHooksGateWorkload: the code-location's preflight and migrate pods
// ran and succeeded, and the Deployment was created after the migrate Job
// completed.
func (h *harness) checkHooksGateWorkload(ctx context.Context, t *testing.T, cl, deployment string) {
	t.Helper()
	for _, role := range []string{"preflight", "migrate"} {
		if r, ok := h.lastRun(cl, role); !ok || r.ExitCode != 0 {
			t.Errorf("%s %s: last run %+v (found %v), want exit 0", cl, role, r, ok)
		}
	}
	job, err := h.kube.BatchV1().Jobs(appNS).Get(ctx, names.MigrateName(cl), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("migrate Job: %v", err)
	}
	if job.Status.CompletionTime == nil {
		t.Fatalf("migrate Job %s has no completion time: %+v", job.Name, job.Status)
	}
	d, err := h.kube.AppsV1().Deployments(appNS).Get(ctx, deployment, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Deployment %s: %v", deployment, err)
	}
	if d.CreationTimestamp.Before(job.Status.CompletionTime) {
		t.Errorf("Deployment %s created at %s, before the migrate Job completed at %s", deployment, d.CreationTimestamp, job.Status.CompletionTime)
	}
}

// checkDataClaimKept: the block PVC exists and tells Argo CD never to
// prune or delete it.
func (h *harness) checkDataClaimKept(ctx context.Context, t *testing.T, name string) {
	t.Helper()
	pvc, err := h.kube.CoreV1().PersistentVolumeClaims(appNS).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("PVC %s: %v", name, err)
	}
	opts := pvc.Annotations["argocd.argoproj.io/sync-options"]
	if !strings.Contains(opts, "Prune=false") || !strings.Contains(opts, "Delete=false") {
		t.Errorf("PVC %s sync-options = %q, want Prune=false and Delete=false", name, opts)
	}
}

// checkBucketFromApps: the contract's bucket's ObjectBucketClaim is the
// one codeloc application wrote into cluster/apps (the root app synced it:
// Argo CD's tracking, never pruned or deleted, its maxSize the
// contract's), and the harness's provisioner bound it.
func (h *harness) checkBucketFromApps(ctx context.Context, t *testing.T, name string) {
	t.Helper()
	obc, err := h.dyn.Resource(kubetest.ObjectBucketClaims).Namespace(appNS).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("ObjectBucketClaim %s: %v", name, err)
	}
	phase, _, _ := unstructured.NestedString(obc.Object, "status", "phase")
	maxSize, _, _ := unstructured.NestedString(obc.Object, "spec", "additionalConfig", "maxSize")
	anno := obc.GetAnnotations()
	if phase != "Bound" || maxSize != "500Gi" || anno["argocd.argoproj.io/sync-options"] != "Prune=false,Delete=false" ||
		!strings.HasPrefix(anno["argocd.argoproj.io/tracking-id"]+obc.GetLabels()["app.kubernetes.io/instance"], rootApp) {
		t.Errorf("ObjectBucketClaim %s: phase %q, maxSize %q, annotations %v, labels %v: want Bound, 500Gi, Prune=false,Delete=false, synced by %s",
			name, phase, maxSize, anno, obc.GetLabels(), rootApp)
	}
}

// lastRun is the latest Job pod the harness ran for a code-location's role.
func (h *harness) lastRun(cl, role string) (jobRun, bool) {
	runs := h.jobs.snapshot()
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].CodeLocation == cl && runs[i].Role == role {
			return runs[i], true
		}
	}
	return jobRun{}, false
}

// deploymentExists reports whether the Deployment exists.
func (h *harness) deploymentExists(ctx context.Context, name string) (bool, error) {
	_, err := h.kube.AppsV1().Deployments(appNS).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}
