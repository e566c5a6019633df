package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// dagsterWebserver stands in for the platform's Dagster webserver, which
// cannot run here (no Python registry): it answers the two GraphQL
// mutations codeloc-jobs reload sends exactly as Dagster's schema says
// (dagster-graphql schema/roots/mutation.py: reloadRepositoryLocation's
// WorkspaceLocationEntry or RepositoryLocationNotFound; reloadWorkspace).
// Like the real webserver, it knows the locations of the workspace.yaml it
// last read, here the workspace ConfigMap the root app synced, read again
// on reloadWorkspace.
type dagsterWebserver struct {
	h      *harness
	srv    *http.Server
	url    string
	mu     sync.Mutex
	known  []string
	reload []string // locations reloaded, in order
}

// startDagster serves the stand-in webserver on a free local port.
func (h *harness) startDagster() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	d := &dagsterWebserver{h: h, url: "http://" + l.Addr().String()}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /graphql", d.graphql)
	d.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = d.srv.Serve(l) }()
	h.dagster = d
	return nil
}

func (d *dagsterWebserver) graphql(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Query     string            `json:"query"`
		Variables map[string]string `json:"variables"`
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"errors": [{"message": "Invalid JSON"}]}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case strings.Contains(req.Query, "reloadWorkspace"):
		d.readWorkspace(r.Context())
		_, _ = io.WriteString(w, `{"data": {"reloadWorkspace": {"__typename": "Workspace"}}}`)
	case strings.Contains(req.Query, "reloadRepositoryLocation"):
		d.answerReload(w, req.Variables["repositoryLocationName"])
	default:
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"errors": [{"message": "unexpected query"}]}`)
	}
}

func (d *dagsterWebserver) answerReload(w http.ResponseWriter, name string) {
	d.mu.Lock()
	known := slices.Contains(d.known, name)
	if known {
		d.reload = append(d.reload, name)
	}
	d.mu.Unlock()
	if !known {
		_, _ = fmt.Fprintf(w, `{"data": {"reloadRepositoryLocation": {"__typename": "RepositoryLocationNotFound", "message": "Location %s does not exist."}}}`, name)
		return
	}
	_, _ = fmt.Fprintf(w, `{"data": {"reloadRepositoryLocation": {"__typename": "WorkspaceLocationEntry", "name": %q, "loadStatus": "LOADED",
		"locationOrLoadError": {"__typename": "RepositoryLocation", "name": %q, "repositories": [{"name": "__repository__"}]}}}}`, name, name)
}

// readWorkspace reads the location names of the workspace ConfigMap.
func (d *dagsterWebserver) readWorkspace(ctx context.Context) {
	cm, err := d.h.kube.CoreV1().ConfigMaps(appNS).Get(ctx, workspaceConfigMap, metav1.GetOptions{})
	if err != nil {
		return
	}
	var ws struct {
		LoadFrom []struct {
			GRPCServer struct {
				LocationName string `json:"location_name"`
			} `json:"grpc_server"`
		} `json:"load_from"`
	}
	if yaml.Unmarshal([]byte(cm.Data["workspace.yaml"]), &ws) != nil {
		return
	}
	var names []string
	for _, l := range ws.LoadFrom {
		names = append(names, l.GRPCServer.LocationName)
	}
	d.mu.Lock()
	d.known = names
	d.mu.Unlock()
}

// reloaded lists the locations reloaded so far.
func (d *dagsterWebserver) reloaded() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.reload)
}

// workspaceConfigMap is the contract's dagster.workspaceConfigMap.
const workspaceConfigMap = "dagster-workspace"
