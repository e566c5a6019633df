package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/codeloc/codeloc/internal/names"
)

// TestPreflightFailsThenRecovers: a new code-location (quotes, a copy of
// citation, wave 1) declares a Secret the contract allows but the cluster
// lacks, and reader (wave 2) depends on it. quotes' sync fails on
// its preflight, its Deployment is never created, and the root waits at
// wave 1 (reader is not created); once the Secret exists, the
// retried sync goes Healthy and the root carries on.
func TestPreflightFailsThenRecovers(t *testing.T) {
	h := need(t)
	ctx := context.Background()
	if err := h.addQuotes(ctx); err != nil {
		t.Fatal(err)
	}
	failed, err := h.waitRefreshed(ctx, "quotes", stepTimeout, "failing its preflight", func(s appState) bool {
		r, ok := h.lastRun("quotes", "preflight")
		return ok && r.ExitCode != 0 && strings.Contains(s.result("Pod/quotes-preflight"), lateSecret)
	})
	if err != nil {
		t.Fatal(err)
	}
	run, _ := h.lastRun("quotes", "preflight")
	t.Logf("preflight said: %s", run.Message)
	t.Logf("quotes: %s", failed)
	if !strings.Contains(run.Message, lateSecret) {
		t.Errorf("preflight message %q does not name %s", run.Message, lateSecret)
	}
	h.checkTerminationMessage(ctx, t, "quotes", lateSecret)
	// The preflight is a bare Pod hook: Argo CD reports a failed Pod hook
	// with its termination message (a failed Job hook only says "Job has
	// reached the specified backoff limit"). The operation's own message
	// stays generic ("one or more synchronization tasks completed
	// unsuccessfully"); the line is the hook's result, which the UI and
	// `argocd app get` show, and the root shows it as the child's health
	// message (sidecar/install's health check).
	if res := failed.result("Pod/quotes-preflight"); !strings.Contains(res, "Failed: "+run.Message) {
		t.Errorf("quotes' preflight hook result = %q, want Failed with the preflight's line %q", res, run.Message)
	}
	var status, msg string
	var treeErr error
	err = poll(ctx, stepTimeout, func(ctx context.Context) (bool, error) {
		status, msg, treeErr = h.childHealth(ctx, rootApp, "quotes")
		return status == "Progressing" && strings.Contains(withoutTimings(msg), withoutTimings(run.Message)), nil
	})
	t.Logf("the root sees quotes %s: %s", status, msg)
	if err != nil {
		t.Errorf("the root does not show quotes Progressing with the preflight's line: %v (last error: %v)", err, treeErr)
	}
	h.checkNoDeployment(ctx, t, "quotes")
	h.checkRootWaits(ctx, t, "reader")
	h.createSecret(ctx, t, lateSecret)
	for _, app := range []string{"quotes", "reader", rootApp} {
		if _, err := h.waitRefreshed(ctx, app, stepTimeout, "Synced and Healthy", appState.healthy); err != nil {
			t.Fatal(err)
		}
	}
}

// addQuotes pushes quotes (citation's copy declaring lateSecret) and
// reader (mediawatch's copy depending on quotes), and their
// Applications.
func (h *harness) addQuotes(ctx context.Context) error {
	declare := replace("secrets: [pgvector-pg-auth,", "secrets: [pgvector-pg-auth, "+lateSecret+",")
	if err := h.cloneCodeLocation("citation", "quotes", declare); err != nil {
		return err
	}
	dependOnQuotes := replace("dependsOn:\n", "dependsOn:\n  codeLocations: [quotes]\n")
	if err := h.cloneCodeLocation("mediawatch", "reader", dependOnQuotes); err != nil {
		return err
	}
	if err := h.atlas.commit("atlas: quotes and reader"); err != nil {
		return err
	}
	return h.pushApplications(ctx, "mediawatch", "citation", "quotes", "reader")
}

// preflightTimings is the part of a preflight's line that changes from one
// run to the next: "(8 checks passed in 27ms, 9 API requests)".
var preflightTimings = regexp.MustCompile(`\(\d+ checks passed in [^)]*\)`)

// withoutTimings is a preflight line less its timings: the sync retries
// run the preflight again, and from Argo CD 3.0 the root's view of a
// child's health message may be from a later run than the one the test
// read first (a status change that keeps the health status is not pushed
// to the parent; its next reconciliation reads it).
func withoutTimings(line string) string {
	return preflightTimings.ReplaceAllString(line, "(…)")
}

// childHealth is the health the parent Application shows for a child
// Application (as the bundle's health check made it), read from the
// parent's resource tree as the UI and `argocd app get` read it.
func (h *harness) childHealth(ctx context.Context, parent, child string) (status, message string, err error) {
	nodes, err := h.resourceTree(ctx, parent)
	if err != nil {
		return "", "", err
	}
	for _, n := range nodes {
		if n.Kind == "Application" && n.Name == child && n.Health != nil {
			return n.Health.Status, n.Health.Message, nil
		}
	}
	return "", "", nil
}

// checkTerminationMessage: the failed preflight pod's termination message
// (what the kubelet would report) carries want.
func (h *harness) checkTerminationMessage(ctx context.Context, t *testing.T, cl, want string) {
	t.Helper()
	p, err := h.kube.CoreV1().Pods(appNS).Get(ctx, names.PreflightName(cl), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Status.ContainerStatuses {
		if c.State.Terminated != nil && strings.Contains(c.State.Terminated.Message, want) {
			return
		}
	}
	t.Errorf("the failed %s pod has no termination message naming %s: %+v", p.Name, want, p.Status.ContainerStatuses)
}

// checkRootWaits: the root's sync is still running (not Failed) and the
// Application of the next wave is not created.
func (h *harness) checkRootWaits(ctx context.Context, t *testing.T, next string) {
	t.Helper()
	root, err := h.state(ctx, rootApp)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("root while %s waits for its wave: %s", next, root)
	if root.OpPhase != "Running" {
		t.Errorf("root operation %s, want Running (waiting at quotes' wave)", root.OpPhase)
	}
	if s, err := h.state(ctx, next); err != nil || s.Exists {
		t.Errorf("%s exists (%v) while its dependency fails", next, err)
	}
}

func (h *harness) checkNoDeployment(ctx context.Context, t *testing.T, name string) {
	t.Helper()
	if ok, err := h.deploymentExists(ctx, name); err != nil || ok {
		t.Errorf("Deployment %s exists=%v (err %v), want it never created", name, ok, err)
	}
}

func (h *harness) createSecret(ctx context.Context, t *testing.T, name string) {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}, StringData: map[string]string{"token": "e2e"}}
	if _, err := h.kube.CoreV1().Secrets(appNS).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Secret %s: %v", name, err)
	}
}

// TestRenderRefused: an invalid declaration shows as a ComparisonError
// made of codeloc's lines, the running workload is untouched, and the fix
// recovers without waiting out the repo-server's error cache.
func TestRenderRefused(t *testing.T) {
	h := need(t)
	ctx := context.Background()
	const file = "citation/code-location.manifest.yaml"
	before, err := h.kube.AppsV1().Deployments(appNS).Get(ctx, "citation", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("citation is not deployed: %v", err)
	}
	if err := h.editAtlas("citation: bad cpu", file, replace("cpu: 500m", "cpu: lots")); err != nil {
		t.Fatal(err)
	}
	s, err := h.waitRefreshed(ctx, "citation", stepTimeout, "showing a ComparisonError", func(s appState) bool {
		return s.condition("ComparisonError") != ""
	})
	if err != nil {
		t.Fatal(err)
	}
	msg := s.condition("ComparisonError")
	t.Logf("ComparisonError: %s", msg)
	for _, want := range []string{"code-location.manifest.yaml", "resources.cpu"} {
		if !strings.Contains(msg, want) {
			t.Errorf("ComparisonError lacks %q", want)
		}
	}
	for _, noise := range []string{"Usage:", "level=", "time="} {
		if strings.Contains(msg, noise) {
			t.Errorf("ComparisonError carries %q", noise)
		}
	}
	after, err := h.kube.AppsV1().Deployments(appNS).Get(ctx, "citation", metav1.GetOptions{})
	if err != nil || after.Generation != before.Generation {
		t.Errorf("citation touched while the render fails: %v, generation %d → %d", err, before.Generation, after.Generation)
	}
	if err := h.editAtlas("citation: fix cpu", file, replace("cpu: lots", "cpu: 500m")); err != nil {
		t.Fatal(err)
	}
	if _, err := h.waitRefreshed(ctx, "citation", stepTimeout, "recovered", func(s appState) bool {
		return s.healthy() && s.condition("ComparisonError") == ""
	}); err != nil {
		t.Fatal(err)
	}
}
