package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDagsterRun (after TestFirstDeploy): a run of mediawatch's job, then
// one of citation's, launched through the real webserver's GraphQL
// (launchRun), queued and dequeued by dagster-daemon (QueuedRunCoordinator),
// launched by dagster-k8s's K8sRunLauncher against the test API server: its
// Job dagster-run-<id> is created, the admission policy admits its pod
// (the code-location's bindings and params), the harness runs the run
// worker (`dagster api execute_run`) with the pod's env and volumes, and
// the run ends SUCCESS in Dagster; citation's asset read the researchers
// table of its migration and mediawatch's mart. Logs the times.
func TestDagsterRun(t *testing.T) {
	h := need(t)
	ctx := context.Background()
	if err := h.sql(ctx, dbName, `INSERT INTO researchers (orcid, full_name, embedding)
		VALUES ('0000-0001-0000-0001', 'Ada Lovelace', array_fill(0.1, ARRAY[384])::vector),
		       ('0000-0002-0000-0002', 'Alan Turing', array_fill(0.2, ARRAY[384])::vector)
		ON CONFLICT (orcid) DO NOTHING`); err != nil {
		t.Fatal(err)
	}
	for _, j := range []struct{ location, job string }{{"mediawatch", "mediawatch_daily"}, {"citation", "citation_daily"}} {
		start := time.Now()
		id, err := h.dagster.launchRun(ctx, j.location, j.job, nil)
		if err != nil {
			t.Fatalf("launchRun %s/%s: %v", j.location, j.job, err)
		}
		run, err := h.dagster.waitRun(ctx, id, stepTimeout)
		t.Logf("run %s of %s/%s: %s after %.1f s", id, j.location, j.job, run.Status, time.Since(start).Seconds())
		if err != nil || run.Status != "SUCCESS" {
			h.dumpRun(ctx, t, id)
			t.Fatalf("run %s of %s: %s (%v), want SUCCESS", id, j.job, run.Status, err)
		}
		job, err := h.kube.BatchV1().Jobs(appNS).Get(ctx, "dagster-run-"+id, metav1.GetOptions{})
		if err != nil {
			t.Errorf("the run's Job: %v", err)
		} else if job.Spec.Template.Spec.Containers[0].Image != h.deploymentImage(ctx, j.location) {
			t.Errorf("run pod image %s, want the code server's %s", job.Spec.Template.Spec.Containers[0].Image, h.deploymentImage(ctx, j.location))
		}
		// The run is SUCCESS once the worker wrote its last event, a moment
		// before its process exits.
		var w jobRun
		var ok bool
		_ = poll(ctx, time.Minute, func(context.Context) (bool, error) {
			w, ok = h.runWorkers.lastRunWorker(id)
			return ok, nil
		})
		if !ok || w.ExitCode != 0 {
			t.Errorf("run worker of %s: %+v (found %v)", id, w, ok)
		} else {
			t.Logf("run worker pod %s ran %.1f s", w.Pod, w.End.Sub(w.Start).Seconds())
		}
	}
	logs, err := h.dagster.runMessages(ctx, h.dagster.lastRunID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs, "visibility from mediawatch's mart: {'0000-0001-0000-0001': 2, '0000-0002-0000-0002': 1}") {
		t.Errorf("citation's run did not read mediawatch's mart and its researchers:\n%s", logs)
	}
}

// dagsterRun is a run as runOrError gives it.
type dagsterRun struct {
	RunID  string `json:"runId"`
	Status string `json:"status"`
}

// launchRun sends launchRun for a job of a location's repository, with
// tags; it returns the run's id.
func (d *dagsterWebserver) launchRun(ctx context.Context, location, job string, tags map[string]string) (string, error) {
	tagList := []map[string]string{} // null: a TypeError in the webserver
	for k, v := range tags {
		tagList = append(tagList, map[string]string{"key": k, "value": v})
	}
	params := map[string]any{
		"selector":          map[string]any{"repositoryLocationName": location, "repositoryName": "__repository__", "jobName": job},
		"runConfigData":     map[string]any{},
		"executionMetadata": map[string]any{"tags": tagList},
	}
	var out struct {
		R struct {
			Typename string     `json:"__typename"`
			Message  string     `json:"message"`
			Run      dagsterRun `json:"run"`
		} `json:"launchRun"`
	}
	err := d.graphql(ctx, `mutation($p: ExecutionParams!) { launchRun(executionParams: $p) { __typename
  ... on LaunchRunSuccess { run { runId status } }
  ... on Error { message } } }`, map[string]any{"p": params}, &out)
	if err != nil {
		return "", err
	}
	if out.R.Typename != "LaunchRunSuccess" {
		return "", fmt.Errorf("launchRun: %s: %s", out.R.Typename, out.R.Message)
	}
	d.lastRunID = out.R.Run.RunID
	return out.R.Run.RunID, nil
}

// waitRun polls the run until it ends (SUCCESS, FAILURE, CANCELED).
func (d *dagsterWebserver) waitRun(ctx context.Context, id string, timeout time.Duration) (dagsterRun, error) {
	var run dagsterRun
	err := poll(ctx, timeout, func(ctx context.Context) (bool, error) {
		var out struct {
			R dagsterRun `json:"runOrError"`
		}
		if err := d.graphql(ctx, `query($id: ID!) { runOrError(runId: $id) { ... on Run { runId status } } }`, map[string]any{"id": id}, &out); err != nil {
			return false, err
		}
		run = out.R
		return run.Status == "SUCCESS" || run.Status == "FAILURE" || run.Status == "CANCELED", nil
	})
	return run, err
}

// runMessages is the run's event log, one "EVENT_TYPE message" a line.
func (d *dagsterWebserver) runMessages(ctx context.Context, id string) (string, error) {
	var out struct {
		L struct {
			Events []struct {
				Typename string `json:"__typename"`
				Message  string `json:"message"`
			} `json:"events"`
		} `json:"logsForRun"`
	}
	err := d.graphql(ctx, `query($id: ID!) { logsForRun(runId: $id) { ... on EventConnection { events { __typename ... on MessageEvent { message } } } } }`,
		map[string]any{"id": id}, &out)
	var b strings.Builder
	for _, e := range out.L.Events {
		fmt.Fprintf(&b, "%s %s\n", e.Typename, e.Message)
	}
	return b.String(), err
}

// dumpRun logs the run's events, for a failure.
func (h *harness) dumpRun(ctx context.Context, t *testing.T, id string) {
	t.Helper()
	logs, err := h.dagster.runMessages(ctx, id)
	t.Logf("run %s events (%v):\n%s", id, err, logs)
}

// hostileRunConfig is the dagster-k8s/config tag of TestHostileRun: another
// code-location's ServiceAccount (citation's), host networking, and a
// Secret mediawatch does not declare (citation's database role).
const hostileRunConfig = `{"pod_spec_config": {"service_account_name": "citation", "host_network": true},
 "container_config": {"env_from": [{"secret_ref": {"name": "pgvector-pg-auth"}}]}}`

// TestHostileRun: a run of mediawatch's job whose dagster-k8s/config tag
// asks for citation's ServiceAccount, host networking and citation's
// database Secret. K8sRunLauncher creates its Job as asked; the admission
// policy denies its pod (the Job controller's FailedCreate events carry
// the denial); the run never starts and dagster-daemon's run monitoring
// ends it FAILURE after its start timeout, the message it writes in the
// run's event log (RUN_FAILURE, the UI's run page) holding the Job's
// events, so the user sees the denial there.
func TestHostileRun(t *testing.T) {
	h := need(t)
	ctx := context.Background()
	start := time.Now()
	id, err := h.dagster.launchRun(ctx, "mediawatch", "mediawatch_daily", map[string]string{"dagster-k8s/config": hostileRunConfig})
	if err != nil {
		t.Fatal(err)
	}
	run, err := h.dagster.waitRun(ctx, id, deployTimeout)
	logs, _ := h.dagster.runMessages(ctx, id)
	t.Logf("run %s: %s after %.1f s; events:\n%s", id, run.Status, time.Since(start).Seconds(), logs)
	if err != nil || run.Status != "FAILURE" {
		t.Fatalf("hostile run %s: %s (%v), want FAILURE", id, run.Status, err)
	}
	for _, want := range []string{"Run timed out due to taking longer than", "FailedCreate: Error creating: pods",
		"ValidatingAdmissionPolicy 'codeloc-code-location' with binding 'codeloc-mediawatch.dagster' denied request"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the run's events do not show the denial (%q)", want)
		}
	}
	if w, ok := h.runWorkers.lastRunWorker(id); ok {
		t.Errorf("a run worker pod of the hostile run ran: %+v", w)
	}
}
