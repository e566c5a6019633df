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
		id := h.launchWhenLoaded(ctx, t, j.location, j.job, nil)
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

// launchWhenLoaded waits until the location is LOADED, then launches the
// run; a PipelineNotFoundError (the location reloading: a retried sync's
// reload hook restarts a `dagster code-server start` server's child) is
// tried again until the location serves the job.
func (h *harness) launchWhenLoaded(ctx context.Context, t *testing.T, location, job string, tags map[string]string) string {
	t.Helper()
	var id string
	var last error
	err := poll(ctx, stepTimeout, func(ctx context.Context) (bool, error) {
		m, err := h.dagster.workspaceEntries(ctx)
		if err != nil || !m[location].loaded() {
			return false, err
		}
		id, last = h.dagster.launchRun(ctx, location, job, tags)
		if last != nil && strings.Contains(last.Error(), "PipelineNotFoundError") {
			return false, last
		}
		return true, nil
	})
	if err != nil || last != nil {
		t.Fatalf("launchRun %s/%s: %v %v", location, job, err, last)
	}
	return id
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

// hostileRuns are the dagster-k8s/config tags of TestHostileRun: all three
// asks at once (another code-location's ServiceAccount, citation's; host
// networking; a Secret mediawatch does not declare, citation's database
// role), then each alone.
var hostileRuns = []struct{ name, config string }{
	{"all three", `{"pod_spec_config": {"service_account_name": "citation", "host_network": true},
 "container_config": {"env_from": [{"secret_ref": {"name": "pgvector-pg-auth"}}]}}`},
	{"another code-location's ServiceAccount", `{"pod_spec_config": {"service_account_name": "citation"}}`},
	{"host network", `{"pod_spec_config": {"host_network": true}}`},
	{"an undeclared Secret", `{"container_config": {"env_from": [{"secret_ref": {"name": "pgvector-pg-auth"}}]}}`},
}

// TestHostileRun: runs of mediawatch's job whose dagster-k8s/config tag
// asks for citation's ServiceAccount, host networking and citation's
// database Secret (together, then each alone; launched at once).
// K8sRunLauncher creates each Job as asked; the admission policy denies its
// pod (the Job controller's FailedCreate events carry the denial); the run
// never starts and dagster-daemon's run monitoring ends it FAILURE after
// its start timeout, the message it writes in the run's event log
// (RUN_FAILURE, the UI's run page) holding the Job's events, so the user
// sees the denial there.
func TestHostileRun(t *testing.T) {
	h := need(t)
	ctx := context.Background()
	start := time.Now()
	ids := make([]string, len(hostileRuns))
	for i, r := range hostileRuns {
		ids[i] = h.launchWhenLoaded(ctx, t, "mediawatch", "mediawatch_daily", map[string]string{"dagster-k8s/config": r.config})
	}
	for i, r := range hostileRuns {
		id := ids[i]
		run, err := h.dagster.waitRun(ctx, id, deployTimeout)
		logs, _ := h.dagster.runMessages(ctx, id)
		denial := ""
		for _, line := range strings.Split(logs, "\n") {
			if strings.HasPrefix(line, "FailedCreate: ") {
				denial = line
			}
		}
		t.Logf("hostile run (%s) %s: %s after %.1f s; last denial: %s", r.name, id, run.Status, time.Since(start).Seconds(), denial)
		if err != nil || run.Status != "FAILURE" {
			t.Errorf("hostile run (%s) %s: %s (%v), want FAILURE; events:\n%s", r.name, id, run.Status, err, logs)
			continue
		}
		for _, want := range []string{"Run timed out due to taking longer than", "FailedCreate: Error creating: pods",
			"ValidatingAdmissionPolicy 'codeloc-code-location' with binding 'codeloc-mediawatch.dagster' denied request"} {
			if !strings.Contains(logs, want) {
				t.Errorf("hostile run (%s): its events do not show the denial (%q):\n%s", r.name, want, logs)
			}
		}
		if w, ok := h.runWorkers.lastRunWorker(id); ok {
			t.Errorf("a run worker pod of the hostile run (%s) ran: %+v", r.name, w)
		}
	}
}
