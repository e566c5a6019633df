package e2e

import (
	"context"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// appState is what the scenarios read of an Application's status.
type appState struct {
	Exists             bool
	Sync, Health       string
	Revision           string    // status.sync.revision
	OpPhase, OpMessage string    // status.operationState
	OpFinished         time.Time // status.operationState.finishedAt
	Conditions         []string
	Results            []string // operationState.syncResult.resources, one line each
	Created            time.Time
	RefreshPending     bool // the refresh annotation is still there
}

func (s appState) String() string {
	return fmt.Sprintf("sync=%s health=%s revision=%.10s operation=%s %q conditions=%q results=%q",
		s.Sync, s.Health, s.Revision, s.OpPhase, s.OpMessage, s.Conditions, s.Results)
}

// healthy is the parent's notion of done: Synced and Healthy.
func (s appState) healthy() bool { return s.Sync == "Synced" && s.Health == "Healthy" }

// condition returns the message of the first condition of type kind.
func (s appState) condition(kind string) string {
	for _, c := range s.Conditions {
		if rest, ok := strings.CutPrefix(c, kind+": "); ok {
			return rest
		}
	}
	return ""
}

func stateOf(app *unstructured.Unstructured) appState {
	if app == nil {
		return appState{}
	}
	str := func(f ...string) string { v, _, _ := unstructured.NestedString(app.Object, f...); return v }
	s := appState{
		Exists: true, Created: app.GetCreationTimestamp().Time,
		Sync: str("status", "sync", "status"), Health: str("status", "health", "status"),
		Revision: str("status", "sync", "revision"),
		OpPhase:  str("status", "operationState", "phase"), OpMessage: str("status", "operationState", "message"),
	}
	_, s.RefreshPending = app.GetAnnotations()[refreshAnnotation]
	conds, _, _ := unstructured.NestedSlice(app.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		s.Conditions = append(s.Conditions, fmt.Sprintf("%v: %v", m["type"], m["message"]))
	}
	s.OpFinished, _ = time.Parse(time.RFC3339, str("status", "operationState", "finishedAt"))
	res, _, _ := unstructured.NestedSlice(app.Object, "status", "operationState", "syncResult", "resources")
	for _, r := range res {
		m, _ := r.(map[string]any)
		s.Results = append(s.Results, fmt.Sprintf("%v/%v %v %v %v: %v", m["kind"], m["name"], m["hookType"], m["status"], m["hookPhase"], m["message"]))
	}
	return s
}

// state reads an Application's status now.
func (h *harness) state(ctx context.Context, name string) (appState, error) {
	app, err := h.application(ctx, name)
	if err != nil {
		return appState{}, err
	}
	return stateOf(app), nil
}

// states reads every Application's status with one list, by name.
func (h *harness) states(ctx context.Context) (map[string]appState, error) {
	list, err := h.dyn.Resource(applications).Namespace(argocdNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make(map[string]appState, len(list.Items))
	for i := range list.Items {
		out[list.Items[i].GetName()] = stateOf(&list.Items[i])
	}
	return out, nil
}

// waitApp polls an Application until cond holds, and returns its state;
// the error carries the last state seen.
func (h *harness) waitApp(ctx context.Context, name string, timeout time.Duration, what string, cond func(appState) bool) (appState, error) {
	var last appState
	err := poll(ctx, timeout, func(ctx context.Context) (bool, error) {
		s, err := h.state(ctx, name)
		if err != nil {
			return false, err
		}
		last = s
		return cond(s), nil
	})
	if err != nil {
		return last, fmt.Errorf("application %s not %s: %w; last state: %s%s", name, what, err, last, h.controllerDiagnosis(ctx))
	}
	return last, nil
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// result returns the sync result line of kind/name ("" when absent).
func (s appState) result(kindName string) string {
	for _, r := range s.Results {
		if strings.HasPrefix(r, kindName+" ") {
			return r
		}
	}
	return ""
}
