package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/codeloc/codeloc/internal/names"
)

// The two scenarios of Argo CD 3.6's changes to hooks and diffs (issue 30).
// They run after the fault scenarios and before TestDependencyNotReady
// (file order), each on a code-location of its own that it removes at its
// end, as TestRemoval removes citation: cluster/apps, the atlas and the
// namespace are left as they were found.

const (
	hookGone     = "hookgone"          // TestHookDeletedOutOfBand's code-location
	hookGoneFile = "001-hook-gone.sql" // its migration
	hookGoneNext = "002-hook-gone.sql" // the one its second sync applies
	ssaPod       = "ssapod"            // TestServerSideApplyAdmission's code-location
	ssaWorker    = "ssapod-worker"     // the bare Pod it ships
)

// TestHookDeletedOutOfBand: a code-location's migrate Job, a PreSync hook,
// is deleted out of band once its sync has ended (a clean-up script, or a
// TTL controller), while its Application exists: it is gone from the API
// server at once, not left Terminating (Argo CD removed its
// argocd.argoproj.io/hook-finalizer when it completed), and so from the
// controller's cache. The next sync (a second migration) creates the hook
// again and applies the new file once. Then the code-location's removal
// from cluster/apps deletes its Application (resources-finalizer, as
// codeloc application writes it): the deletion completes and no object of
// the code-location is left holding the hook finalizer or Terminating.
func TestHookDeletedOutOfBand(t *testing.T) {
	h := need(t)
	ctx := context.Background()
	files := map[string]string{hookGone + "/migrations/" + hookGoneFile: "CREATE TABLE hook_gone (id int PRIMARY KEY);\n"}
	if err := h.addCodeLocation(ctx, hookGone, func(s string) string { return withMigration(hookGoneFile)(withoutBuckets(s)) }, files); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.cleanupHookGone(t) })
	if _, err := h.waitRefreshed(ctx, hookGone, deployTimeout, "Synced and Healthy", func(s appState) bool {
		return s.healthy() && s.OpPhase == "Succeeded"
	}); err != nil {
		t.Fatal(err)
	}
	job := names.MigrateName(hookGone)
	jobs := h.kube.BatchV1().Jobs(appNS)
	done, err := jobs.Get(ctx, job, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(done.Finalizers, hookFinalizer) || done.Status.Succeeded == 0 {
		t.Fatalf("the completed hook %s: succeeded %d, finalizers %v; want completed, without %s", job, done.Status.Succeeded, done.Finalizers, hookFinalizer)
	}
	if err := jobs.Delete(ctx, job, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}); err != nil {
		t.Fatal(err)
	}
	deleted := time.Now()
	err = poll(ctx, stepTimeout, func(ctx context.Context) (bool, error) {
		_, err := jobs.Get(ctx, job, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		last, _ := jobs.Get(ctx, job, metav1.GetOptions{})
		if last != nil {
			t.Fatalf("%s still in the API server after its deletion (finalizers %v, deletionTimestamp %v): %v", job, last.Finalizers, last.DeletionTimestamp, err)
		}
		t.Fatal(err)
	}
	t.Logf("%s deleted out of band: gone from the API server %v later", job, time.Since(deleted).Round(10*time.Millisecond))
	since := time.Now()
	manifest, err := h.atlas.read(hookGone + "/code-location.manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	next := strings.Replace(manifest, "migrations: ["+hookGoneFile+"]", "migrations: ["+hookGoneFile+", "+hookGoneNext+"]", 1)
	if next == manifest {
		t.Fatalf("%s's manifest does not declare %s", hookGone, hookGoneFile)
	}
	// With a new revision: a migration alone changes only hooks, which
	// leaves the Application Synced, and auto-sync waits for OutOfSync.
	if err := h.atlas.write(map[string]string{
		hookGone + "/code-location.manifest.yaml": next,
		hookGone + "/migrations/" + hookGoneNext:  "CREATE TABLE hook_gone_next (id int PRIMARY KEY);\n",
	}); err != nil {
		t.Fatal(err)
	}
	if err := h.bumpRevision(hookGone, "5d2e8b4", "7a2c4e6"); err != nil {
		t.Fatal(err)
	}
	s, err := h.waitRefreshed(ctx, hookGone, stepTimeout, "synced again", func(s appState) bool {
		r, ok := h.lastRun(hookGone, "migrate")
		return ok && r.Start.After(since) && r.ExitCode == 0 && s.healthy() && s.OpPhase == "Succeeded"
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %s", hookGone, s)
	if res := s.result("Job/" + job); !strings.Contains(res, " Succeeded") {
		t.Errorf("the migrate hook's result = %q, want Succeeded", res)
	}
	h.expectLedgerOf(ctx, t, hookGone, []string{hookGoneFile, hookGoneNext})
	h.removeCodeLocation(ctx, t, hookGone)
}

// cleanupHookGone drops what hookgone's migration left in the database.
func (h *harness) cleanupHookGone(t *testing.T) {
	ctx := context.Background()
	for _, stmt := range []string{
		"DROP TABLE IF EXISTS hook_gone",
		"DROP TABLE IF EXISTS hook_gone_next",
		"DELETE FROM codeloc_schema_migrations WHERE code_location = '" + hookGone + "'",
	} {
		if err := h.sql(ctx, dbName, stmt); err != nil {
			t.Logf("cleanup: %s: %v", stmt, err)
		}
	}
}

// TestServerSideApplyAdmission: ssapod ships a bare Pod (the contract
// allows the kind) and its Application comes from a custom template that
// adds syncOptions ServerSideApply=true, which on Argo CD 3.6 implies
// server-side diff: each resource that exists is diffed by a dry-run apply,
// which admission judges. The first deploy creates the Pod (a creation is
// diffed without a dry-run) and goes Synced and Healthy. A new revision
// changes the Pod's image: the dry-run is an update of a code-location's
// pod changing its image, which codeloc-pod-images denies; the user sees a
// ComparisonError carrying admission's message, the sync status Unknown,
// no sync started (auto-sync waits for OutOfSync) and nothing applied (the
// Pod, the Deployment and the record keep the old revision). Reverting
// the revision in git recovers: Synced and Healthy, the same Pod.
func TestServerSideApplyAdmission(t *testing.T) {
	h := need(t)
	ctx := context.Background()
	const oldRev, newRev = "5d2e8b4", "6e1f0a9"
	if err := h.useSSATemplate(t, ssaPod); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{ssaPod + "/worker.yaml": workerPodYAML}
	if err := h.addCodeLocation(ctx, ssaPod, func(s string) string {
		s = withoutBuckets(s)
		s = strings.Replace(s, "cpu: 250m", "cpu: 500m", 1)
		return strings.Replace(s, "memory: 512Mi", "memory: 1Gi", 1)
	}, files, func(dir string) error {
		return editFile(filepath.Join(dir, "kustomization.yaml"), replace("  - service.yaml\n", "  - service.yaml\n  - worker.yaml\n"))
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.waitRefreshed(ctx, ssaPod, deployTimeout, "Synced and Healthy", appState.healthy); err != nil {
		t.Fatal(err)
	}
	if opts, err := h.syncOptions(ctx, ssaPod); err != nil || !slices.Contains(opts, "ServerSideApply=true") {
		t.Fatalf("%s's syncOptions = %v (%v), want ServerSideApply=true from the custom template", ssaPod, opts, err)
	}
	pods := h.kube.CoreV1().Pods(appNS)
	before, err := pods.Get(ctx, ssaWorker, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	oldImage := "registry:80/ssapod-dagster:" + oldRev
	if got := before.Spec.Containers[0].Image; got != oldImage {
		t.Fatalf("%s runs %s, want %s", ssaWorker, got, oldImage)
	}
	// The first sync ends (PostSync) after Synced+Healthy: pushed during it,
	// the new revision would be applied by that sync, without its PreSync
	// hooks (the params), and the new Pod refused.
	if _, err := h.waitIdle(ctx, ssaPod); err != nil {
		t.Fatal(err)
	}
	pushed := time.Now()
	if err := h.bumpRevision(ssaPod, oldRev, newRev); err != nil {
		t.Fatal(err)
	}
	const denied = "the images of a code-location's pod stay those it was admitted with"
	s, err := h.waitRefreshed(ctx, ssaPod, stepTimeout, "showing admission's denial", func(s appState) bool {
		return strings.Contains(s.condition("ComparisonError"), denied)
	})
	if err != nil {
		t.Fatal(err)
	}
	msg := s.condition("ComparisonError")
	t.Logf("%s after the new revision: %s", ssaPod, s)
	for _, want := range []string{"error running server side apply in dryrun mode for resource Pod/" + ssaWorker, "ValidatingAdmissionPolicy 'codeloc-pod-images'", denied} {
		if !strings.Contains(msg, want) {
			t.Errorf("ComparisonError lacks %q", want)
		}
	}
	if s.Sync != "Unknown" {
		t.Errorf("sync status %s while the diff fails, want Unknown", s.Sync)
	}
	if started, err := h.operationStarted(ctx, ssaPod); err != nil || started.After(pushed) {
		t.Errorf("a sync started at %v after the push at %v (%v): auto-sync should wait for OutOfSync", started, pushed, err)
	}
	after, err := pods.Get(ctx, ssaWorker, metav1.GetOptions{})
	if err != nil || after.UID != before.UID || after.Spec.Containers[0].Image != oldImage {
		t.Errorf("%s changed while the diff fails: %v", ssaWorker, err)
	}
	if got := h.deploymentImage(ctx, ssaPod); got != oldImage {
		t.Errorf("Deployment %s runs %s while the diff fails, want %s (nothing applied)", ssaPod, got, oldImage)
	}
	if rev, err := h.recordRevision(ctx, ssaPod); err != nil || rev != oldRev {
		t.Errorf("record of %s says revision %q (%v) while the diff fails, want %s", ssaPod, rev, err, oldRev)
	}
	// The fix in git: the revision reverted. (Deleting the Pod, as the
	// message says, was tried first: the sync it started was a selective
	// self-heal sync, without the PreSync params of the new revision, and
	// admission refused the new Pod and the Deployment's new pods.)
	if err := h.bumpRevision(ssaPod, newRev, oldRev); err != nil {
		t.Fatal(err)
	}
	s, err = h.waitRefreshed(ctx, ssaPod, stepTimeout, "recovered at "+oldRev, func(s appState) bool {
		return s.healthy() && s.condition("ComparisonError") == ""
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s after the revert: %s", ssaPod, s)
	if after, err := pods.Get(ctx, ssaWorker, metav1.GetOptions{}); err != nil || after.UID != before.UID {
		t.Errorf("%s replaced by the revert (%v)", ssaWorker, err)
	}
	h.removeCodeLocation(ctx, t, ssaPod)
}

// workerPodYAML is the bare Pod ssapod ships (its image is the
// code-location's: kustomize's images entry sets the revision).
const workerPodYAML = `apiVersion: v1
kind: Pod
metadata:
  name: ` + ssaWorker + `
spec:
  securityContext:
    runAsNonRoot: true
    runAsUser: 1000
  containers:
    - name: worker
      image: ssapod-dagster
      args: ["dagster-daemon", "run"]
      resources:
        requests: {cpu: 250m, memory: 512Mi}
        limits: {memory: 512Mi}
`

// useSSATemplate makes the e2e's Application template a custom one giving
// the Application of cl syncOptions ServerSideApply=true, as a platform's
// template would; the test's end restores the e2e's template.
func (h *harness) useSSATemplate(t *testing.T, cl string) error {
	prev := h.appTemplate
	data, err := os.ReadFile(prev)
	if err != nil {
		return err
	}
	const last = "        maxDuration: 20s\n"
	tmpl := string(data)
	if !strings.HasSuffix(tmpl, last) {
		return fmt.Errorf("the e2e's template does not end with its retry's %q", last)
	}
	tmpl += "{{- if eq .Name " + fmt.Sprintf("%q", cl) + " }}\n    syncOptions:\n      - ServerSideApply=true\n{{- end }}\n"
	custom := filepath.Join(h.dir, "application-ssa.yaml")
	if err := os.WriteFile(custom, []byte(tmpl), 0o644); err != nil {
		return err
	}
	h.appTemplate = custom
	t.Cleanup(func() { h.appTemplate = prev })
	return nil
}

// addCodeLocation adds cl (mediawatch's copy, edit applied to its
// manifest) with files, applies each change to its folder, regenerates
// cluster/apps from the whole atlas and makes sure the root exists.
func (h *harness) addCodeLocation(ctx context.Context, cl string, edit func(string) string, files map[string]string, changes ...func(dir string) error) error {
	if err := h.cloneCodeLocation("mediawatch", cl, edit); err != nil {
		return err
	}
	if err := h.atlas.write(files); err != nil {
		return err
	}
	for _, change := range changes {
		if err := change(filepath.Join(h.atlas.dir, cl)); err != nil {
			return err
		}
	}
	if err := h.atlas.commit("atlas: " + cl); err != nil {
		return err
	}
	apps, err := h.atlasFolders()
	if err != nil {
		return err
	}
	if err := h.pushApplications(ctx, apps...); err != nil {
		return err
	}
	return h.ensureRoot(ctx)
}

// removeCodeLocation removes cl from the atlas and cluster/apps, as
// TestRemoval does: the root prunes its Application, whose
// resources-finalizer deletes its objects. The deletion must complete,
// and no object of cl may be left holding the hook finalizer or
// Terminating.
func (h *harness) removeCodeLocation(ctx context.Context, t *testing.T, cl string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(h.atlas.dir, cl)); err != nil {
		t.Fatal(err)
	}
	if err := h.atlas.commit("atlas: remove " + cl); err != nil {
		t.Fatal(err)
	}
	apps, err := h.atlasFolders()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.pushApplications(ctx, apps...); err != nil {
		t.Fatal(err)
	}
	removed := time.Now()
	if _, err := h.waitRefreshed(ctx, cl, stepTimeout, "deleted", func(s appState) bool { return !s.Exists }); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s's Application deleted %v after its removal from cluster/apps", cl, time.Since(removed).Round(10*time.Millisecond))
	var stuck []string
	err = poll(ctx, stepTimeout, func(ctx context.Context) (bool, error) {
		var err error
		stuck, err = h.stuckObjects(ctx, cl)
		return len(stuck) == 0, err
	})
	if err != nil {
		t.Errorf("objects of %s held by %s or Terminating after its Application's deletion: %v (%v)", cl, hookFinalizer, stuck, err)
	}
}

// stuckObjects lists the objects of cl, of the kinds codeloc renders as
// hooks (its own names: cl or cl-*), that hold hookFinalizer or are
// Terminating.
func (h *harness) stuckObjects(ctx context.Context, cl string) ([]string, error) {
	var out []string
	for _, gvr := range hookResources {
		list, err := h.dyn.Resource(gvr).Namespace(appNS).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, o := range list.Items {
			if o.GetName() != cl && !strings.HasPrefix(o.GetName(), cl+"-") {
				continue
			}
			if slices.Contains(o.GetFinalizers(), hookFinalizer) || o.GetDeletionTimestamp() != nil {
				out = append(out, fmt.Sprintf("%s/%s %v", o.GetKind(), o.GetName(), o.GetFinalizers()))
			}
		}
	}
	return out, nil
}

// bumpRevision moves cl to a new revision and image tag in one commit.
func (h *harness) bumpRevision(cl, from, to string) error {
	files := map[string]string{}
	for _, f := range []string{"code-location.manifest.yaml", "kustomization.yaml"} {
		name := cl + "/" + f
		text, err := h.atlas.read(name)
		if err != nil {
			return err
		}
		out := strings.Replace(text, from, to, 1)
		if out == text {
			return fmt.Errorf("%s does not hold %s", name, from)
		}
		files[name] = out
	}
	return h.atlas.push(cl+": "+to, files)
}

// syncOptions are the Application's spec.syncPolicy.syncOptions.
func (h *harness) syncOptions(ctx context.Context, name string) ([]string, error) {
	app, err := h.application(ctx, name)
	if err != nil || app == nil {
		return nil, err
	}
	opts, _, err := unstructured.NestedStringSlice(app.Object, "spec", "syncPolicy", "syncOptions")
	return opts, err
}

// operationStarted is when the Application's last operation started.
func (h *harness) operationStarted(ctx context.Context, name string) (time.Time, error) {
	app, err := h.application(ctx, name)
	if err != nil || app == nil {
		return time.Time{}, err
	}
	s, _, _ := unstructured.NestedString(app.Object, "status", "operationState", "startedAt")
	return time.Parse(time.RFC3339, s)
}

// recordRevision is the revision the code-location's record publishes.
func (h *harness) recordRevision(ctx context.Context, cl string) (string, error) {
	cm, err := h.kube.CoreV1().ConfigMaps(appNS).Get(ctx, names.RecordName(cl), metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return cm.Data["revision"], nil
}

// editFile rewrites a file of the work tree with edit.
func editFile(path string, edit func(string) string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out := edit(string(data))
	if out == string(data) {
		return fmt.Errorf("edit of %s changed nothing", path)
	}
	return os.WriteFile(path, []byte(out), 0o644)
}
