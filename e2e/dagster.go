package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// dagsterWebserver is the platform's Dagster webserver: the real
// `dagster-webserver` of .ci/dagster.sh's virtualenv, with PostgreSQL
// storage (database dagsterDB of the harness's PostgreSQL) and the
// platform's instance (the dagster-instance ConfigMap's dagster.yaml, as
// the chart mounts it in DAGSTER_HOME), reading the workspace ConfigMap
// the root app synced (written to a file, as the chart mounts it, and
// rewritten when the ConfigMap changes, as the kubelet does). It runs in a
// mount namespace of its own whose /etc/hosts (codeServers.hostsFile)
// resolves each Service `<service>.<namespace>.svc` to its address in the
// harness: gRPC resolves through getaddrinfo, which reads /etc/hosts.
type dagsterWebserver struct {
	h         *harness
	port      int
	url       string // http://127.0.0.1:port
	home      string // DAGSTER_HOME: dagster.yaml
	workspace string // the workspace ConfigMap's workspace.yaml, as mounted
	lastWS    string // the workspace.yaml last written
	proc      *process
	daemon    *process // dagster-daemon
	lastRunID string   // the run launchRun last started
}

// The webserver's storage database and the instance ConfigMap's name.
const (
	dagsterDB       = "dagster"
	dagsterInstance = "dagster-instance"
)

// prepareDagster picks the webserver's address (the contract names it
// before the webserver starts).
func (h *harness) prepareDagster() error {
	port, err := freePort()
	if err != nil {
		return err
	}
	h.dagster = &dagsterWebserver{h: h, port: port, url: "http://127.0.0.1:" + strconv.Itoa(port),
		home: filepath.Join(h.dir, "dagster-home"), workspace: filepath.Join(h.dir, "dagster-workspace", "workspace.yaml")}
	return nil
}

// instanceYAML is the platform's dagster.yaml: PostgreSQL storage, the
// QueuedRunCoordinator and dagster-k8s's K8sRunLauncher against the test
// API server (load_incluster_config false, a kubeconfig), the run pods'
// instance ConfigMap, PostgreSQL password Secret, account and env
// ConfigMap the chart's values would set.
func (h *harness) instanceYAML() string {
	return fmt.Sprintf(`storage:
  postgres:
    postgres_db:
      username: postgres
      password: {env: DAGSTER_PG_PASSWORD}
      hostname: 127.0.0.1
      port: %d
      db_name: %s
      # SQLAlchemy 2.1 (the lock's) maps "postgresql" to psycopg 3, which
      # the lock does not hold; dagster-postgres depends on psycopg2.
      scheme: postgresql+psycopg2
run_coordinator:
  module: dagster.core.run_coordinator
  class: QueuedRunCoordinator
  config: {max_concurrent_runs: 4}
run_launcher:
  module: dagster_k8s
  class: K8sRunLauncher
  config:
    load_incluster_config: false
    kubeconfig_file: %s
    job_namespace: %s
    instance_config_map: %s
    postgres_password_secret: dagster-postgresql-secret
    dagster_home: /opt/dagster/dagster_home
    service_account_name: dagster
    env_config_maps: [dagster-pipeline-env]
run_monitoring:
  enabled: true
  start_timeout_seconds: 45
  poll_interval_seconds: 5
telemetry: {enabled: false}
`, h.pgPort, dagsterDB, h.kubeconfig, appNS, dagsterInstance)
}

// instanceConfigMap is the platform's dagster-instance ConfigMap.
func (h *harness) instanceConfigMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: dagsterInstance},
		Data: map[string]string{"dagster.yaml": h.instanceYAML()}}
}

// dagsterEnv is the environment of the platform's Dagster processes.
func (h *harness) dagsterEnv() []string {
	return []string{"DAGSTER_HOME=" + h.dagster.home, "DAGSTER_PG_PASSWORD=e2e", "PYTHONUNBUFFERED=1",
		"ATLAS_DATALAKE_DIR=" + h.datalakeDir(), "PATH=" + filepath.Join(h.tools.dagsterVenv, "bin") + ":" + os.Getenv("PATH")}
}

// datalakeDir stands in for the atlas-datalake bucket: every Dagster
// process the harness runs gets it as ATLAS_DATALAKE_DIR.
func (h *harness) datalakeDir() string { return filepath.Join(h.dir, "datalake") }

// startDagster creates the storage database, writes DAGSTER_HOME and the
// workspace, and starts the webserver in its mount namespace.
func (h *harness) startDagster(ctx context.Context) error {
	d := h.dagster
	if err := h.sql(ctx, "postgres", "CREATE DATABASE "+dagsterDB); err != nil {
		return err
	}
	for _, dir := range []string{d.home, filepath.Dir(d.workspace), h.datalakeDir()} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(d.home, "dagster.yaml"), []byte(h.instanceYAML()), 0o644); err != nil {
		return err
	}
	if err := d.syncWorkspace(ctx); err != nil {
		return err
	}
	p, err := h.start("dagster-webserver", "unshare", h.dagsterEnv(), append(inHosts(h.codeServers.hostsFile),
		filepath.Join(h.tools.dagsterVenv, "bin", "dagster-webserver"), "-h", "127.0.0.1", "-p", strconv.Itoa(d.port),
		"-w", d.workspace)...)
	if err != nil {
		return err
	}
	d.proc = p
	if err := p.WaitFor(ctx, 3*time.Minute, func(ctx context.Context) bool { return httpOK(ctx, d.url+"/server_info") }); err != nil {
		return err
	}
	go d.watchWorkspace(h.stopc)
	return nil
}

// inHosts is the command prefix running a program in a mount namespace of
// its own whose /etc/hosts is hosts (bind-mounted; rewritten in place, so
// the namespace sees every change).
func inHosts(hosts string) []string {
	return []string{"-m", "--propagation", "private", "sh", "-c", `mount --bind "$0" /etc/hosts && exec "$@"`, hosts}
}

// syncWorkspace writes the workspace ConfigMap's workspace.yaml to the
// mounted file when it changed; without the ConfigMap, an empty workspace.
func (d *dagsterWebserver) syncWorkspace(ctx context.Context) error {
	text := "load_from: []\n"
	cm, err := d.h.kube.CoreV1().ConfigMaps(appNS).Get(ctx, workspaceConfigMap, metav1.GetOptions{})
	switch {
	case err == nil:
		text = cm.Data["workspace.yaml"]
	case !apierrors.IsNotFound(err):
		return err
	}
	if text == d.lastWS {
		return nil
	}
	if err := os.WriteFile(d.workspace, []byte(text), 0o644); err != nil {
		return err
	}
	d.lastWS = text
	return nil
}

func (d *dagsterWebserver) watchWorkspace(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-time.After(500 * time.Millisecond):
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = d.syncWorkspace(ctx)
		cancel()
	}
}

// graphql sends one query to the webserver and decodes its data into out.
func (d *dagsterWebserver) graphql(ctx context.Context, query string, vars map[string]any, out any) error {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.url+"/graphql", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	var r struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("graphql: HTTP %d: %s", resp.StatusCode, data)
	}
	if len(r.Errors) > 0 {
		return fmt.Errorf("graphql: %s", r.Errors[0].Message)
	}
	return json.Unmarshal(r.Data, out)
}

// locationEntry is one entry of the webserver's workspaceOrError.
type locationEntry struct {
	Name       string `json:"name"`
	LoadStatus string `json:"loadStatus"`
	Location   struct {
		Typename string `json:"__typename"`
		Message  string `json:"message"` // PythonError
		Cause    *struct {
			Message string `json:"message"`
		} `json:"cause"`
		Repositories []struct {
			Name            string `json:"name"`
			DisplayMetadata []struct {
				Key, Value string
			} `json:"displayMetadata"`
			AssetNodes []struct {
				AssetKey struct {
					Path []string `json:"path"`
				} `json:"assetKey"`
			} `json:"assetNodes"`
			Jobs []struct {
				Name string `json:"name"`
			} `json:"jobs"`
		} `json:"repositories"`
	} `json:"locationOrLoadError"`
}

// loaded reports whether the location is LOADED with a repository.
func (e locationEntry) loaded() bool {
	return e.LoadStatus == "LOADED" && e.Location.Typename == "RepositoryLocation" && len(e.Location.Repositories) > 0
}

// assets are the location's asset keys, "a/b" each.
func (e locationEntry) assets() []string {
	var out []string
	for _, r := range e.Location.Repositories {
		for _, a := range r.AssetNodes {
			out = append(out, strings.Join(a.AssetKey.Path, "/"))
		}
	}
	return out
}

// image is the repositories' display metadata "image": the code server's
// DAGSTER_CURRENT_IMAGE (dagster _core/remote_representation/code_location.py
// get_display_metadata).
func (e locationEntry) image() string {
	for _, r := range e.Location.Repositories {
		for _, m := range r.DisplayMetadata {
			if m.Key == "image" {
				return m.Value
			}
		}
	}
	return ""
}

func (e locationEntry) String() string {
	if e.Location.Typename == "PythonError" {
		return fmt.Sprintf("%s %s PythonError: %s", e.Name, e.LoadStatus, e.errorText())
	}
	return fmt.Sprintf("%s %s %s image %q assets %v", e.Name, e.LoadStatus, e.Location.Typename, e.image(), e.assets())
}

// errorText is a PythonError's first line, and its cause's.
func (e locationEntry) errorText() string {
	s := firstLine(e.Location.Message)
	if c := e.Location.Cause; c != nil {
		s += " (caused by " + firstLine(c.Message) + ")"
	}
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

const workspaceQuery = `{ workspaceOrError { __typename ... on Workspace { locationEntries {
  name loadStatus
  locationOrLoadError { __typename
    ... on RepositoryLocation { repositories { name displayMetadata { key value } assetNodes { assetKey { path } } jobs { name } } }
    ... on PythonError { message cause { message } } } } }
  ... on PythonError { message } } }`

// workspace returns the webserver's location entries by name.
func (d *dagsterWebserver) workspaceEntries(ctx context.Context) (map[string]locationEntry, error) {
	var out struct {
		W struct {
			Typename string          `json:"__typename"`
			Message  string          `json:"message"`
			Entries  []locationEntry `json:"locationEntries"`
		} `json:"workspaceOrError"`
	}
	if err := d.graphql(ctx, workspaceQuery, nil, &out); err != nil {
		return nil, err
	}
	if out.W.Typename != "Workspace" {
		return nil, fmt.Errorf("workspaceOrError: %s %s", out.W.Typename, firstLine(out.W.Message))
	}
	m := map[string]locationEntry{}
	for _, e := range out.W.Entries {
		m[e.Name] = e
	}
	return m, nil
}

// reloadWorkspace sends Dagster's reloadWorkspace mutation (the webserver
// reads workspace.yaml again).
func (d *dagsterWebserver) reloadWorkspace(ctx context.Context) error {
	var out map[string]any
	return d.graphql(ctx, `mutation { reloadWorkspace { __typename ... on PythonError { message } } }`, nil, &out)
}

// waitLocation polls the webserver's workspace until cond holds for the
// location's entry (absent: the zero entry), returning the last entry.
func (d *dagsterWebserver) waitLocation(ctx context.Context, name string, timeout time.Duration, cond func(locationEntry, bool) bool) (locationEntry, error) {
	var last locationEntry
	err := poll(ctx, timeout, func(ctx context.Context) (bool, error) {
		m, err := d.workspaceEntries(ctx)
		if err != nil {
			return false, err
		}
		e, ok := m[name]
		last = e
		return cond(e, ok), nil
	})
	return last, err
}

// watchLoaded polls the webserver from now on, for up to timeout, and sends, once every
// location is LOADED, when each first was (an unbuffered wait is not
// needed: the channel holds the answer).
func (d *dagsterWebserver) watchLoaded(ctx context.Context, timeout time.Duration, locations ...string) <-chan map[string]time.Time {
	out := make(chan map[string]time.Time, 1)
	go func() {
		at := map[string]time.Time{}
		_ = poll(ctx, timeout, func(ctx context.Context) (bool, error) {
			m, err := d.workspaceEntries(ctx)
			if err != nil {
				return false, err
			}
			for _, l := range locations {
				if _, seen := at[l]; !seen && m[l].loaded() {
					at[l] = time.Now()
				}
			}
			return len(at) == len(locations), nil
		})
		if len(at) == len(locations) {
			out <- at
		}
	}()
	return out
}

// workspaceConfigMap is the contract's dagster.workspaceConfigMap.
const workspaceConfigMap = "dagster-workspace"
