package install_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// healthKey is the argocd-cm key of the Application health check.
const healthKey = "resource.customizations.health.argoproj.io_Application"

// healthScript reads the script from the patch the bundle ships, and checks
// that the built argocd-cm carries it unchanged.
func healthScript(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("argocd-cm-health.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var patch corev1.ConfigMap
	if err := yaml.UnmarshalStrict(data, &patch); err != nil {
		t.Fatal(err)
	}
	script := patch.Data[healthKey]
	if script == "" {
		t.Fatalf("argocd-cm-health.yaml has no %s", healthKey)
	}
	var built corev1.ConfigMap
	find(t, build(t), "ConfigMap", "argocd", "argocd-cm", &built)
	if built.Data[healthKey] != script {
		t.Fatalf("the built argocd-cm does not carry the script of argocd-cm-health.yaml")
	}
	return script
}

// runHealth runs script as Argo CD v2.14 runs a health customization
// (util/lua): standard libraries off except package, base and table (Argo CD
// adds a safe os), a one-second deadline, the object as the global obj, and
// a table {status, message} returned.
func runHealth(t *testing.T, script, object string) (status, message string) {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(object), &obj); err != nil {
		t.Fatal(err)
	}
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.LoadLibName, lua.OpenPackage}, {lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), Protect: true}, lua.LString(lib.name)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", toLua(l, obj))
	if err := l.DoString(script); err != nil {
		t.Fatalf("the health script fails: %v", err)
	}
	hs, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		t.Fatalf("the health script returns %s, not a table", l.Get(-1).Type())
	}
	status, message = lua.LVAsString(hs.RawGetString("status")), lua.LVAsString(hs.RawGetString("message"))
	switch status {
	case "Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown":
	default:
		t.Fatalf("status %q is not an Argo CD health status", status)
	}
	return status, message
}

// toLua converts decoded JSON to Lua values the way Argo CD does: objects
// and arrays become tables (arrays 1-based), scalars their Lua kind.
func toLua(l *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case map[string]any:
		t := l.NewTable()
		for k, e := range v {
			t.RawSetString(k, toLua(l, e))
		}
		return t
	case []any:
		t := l.NewTable()
		for _, e := range v {
			t.Append(toLua(l, e))
		}
		return t
	case string:
		return lua.LString(v)
	case bool:
		return lua.LBool(v)
	case float64:
		return lua.LNumber(v)
	case int64:
		return lua.LNumber(v)
	case nil:
		return lua.LNil
	}
	panic("unexpected JSON value")
}

// app is a child Application with the given status block.
func app(status string) string {
	return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: citation, namespace: argocd}\n" + status
}

func TestApplicationHealth(t *testing.T) {
	script := healthScript(t)
	tests := []struct {
		name, status       string
		want               string
		messageContains    []string
		messageNotContains string
	}{
		{"healthy and synced",
			"status: {health: {status: Healthy}, sync: {status: Synced, revision: 5d2e8b4}}",
			"Healthy", []string{"Synced and Healthy"}, ""},
		{"healthy but out of sync",
			"status: {health: {status: Healthy}, sync: {status: OutOfSync}}",
			"Progressing", []string{"waiting for Synced and Healthy", "health Healthy, sync OutOfSync"}, ""},
		{"degraded",
			"status: {health: {status: Degraded, message: 'Job citation-preflight failed: secret pgvector-pg-auth not found'}, sync: {status: Synced}}",
			"Degraded", []string{"secret pgvector-pg-auth not found"}, ""},
		{"no status", "", "Progressing", []string{"first reconciliation"}, ""},
		{"empty status", "status: {}", "Progressing", []string{"first reconciliation"}, ""},
		{"missing: nothing deployed yet (a parent ignores a Missing child)",
			`status:
  health: {status: Missing}
  sync: {status: OutOfSync}
  operationState: {phase: Failed, message: 'one or more synchronization tasks completed unsuccessfully, reason: preflight citation: secret quotes-api-token does not exist'}`,
			"Progressing", []string{"health Missing, sync OutOfSync", "secret quotes-api-token does not exist"}, ""},
		{"unknown (a parent ignores an Unknown child)",
			"status: {health: {status: Unknown}, sync: {status: Unknown}}",
			"Progressing", []string{"health Unknown, sync Unknown"}, ""},
		{"suspended",
			"status: {health: {status: Suspended, message: paused}, sync: {status: Synced}}",
			"Suspended", []string{"paused"}, ""},
		{"progressing and synced",
			"status: {health: {status: Progressing, message: 'Waiting for rollout'}, sync: {status: Synced}}",
			"Progressing", []string{"health Progressing, sync Synced", "Waiting for rollout"}, ""},
		{"render error",
			`status:
  health: {status: Healthy}
  sync: {status: Unknown}
  conditions:
    - {type: OrphanedResourceWarning, message: 'orphans'}
    - {type: ComparisonError, message: 'rpc error: code = Unknown desc = citation/code-location.manifest.yaml:6:18: contract-version-unsupported contractVersion: contract version 4 is not accepted'}`,
			"Progressing", []string{"sync Unknown", "ComparisonError: rpc error", "contract version 4 is not accepted"}, "orphans"},
		{"sync failed, retrying",
			`status:
  health: {status: Healthy}
  sync: {status: OutOfSync}
  operationState: {phase: Failed, message: 'one or more synchronization tasks completed unsuccessfully (retried 2 times).'}`,
			"Progressing", []string{"last sync Failed: one or more synchronization tasks"}, ""},
		{"preflight failed: its line from the hook's result",
			`status:
  health: {status: Missing}
  sync: {status: OutOfSync}
  operationState:
    phase: Running
    message: 'one or more synchronization tasks completed unsuccessfully. Retrying attempt #2 at 19:31:29.'
    syncResult:
      resources:
        - {kind: ServiceAccount, name: quotes-preflight, hookType: PreSync, hookPhase: Succeeded, message: quotes-preflight created}
        - {kind: Pod, name: quotes-preflight, hookType: PreSync, hookPhase: Failed, message: 'preflight quotes: 1 problem: secret-missing dependsOn.secrets[1]'}`,
			"Progressing", []string{"last sync Running: one or more synchronization tasks", "Pod/quotes-preflight: preflight quotes: 1 problem: secret-missing"}, "quotes-preflight created"},
		{"sync running",
			"status: {health: {status: Healthy}, sync: {status: OutOfSync}, operationState: {phase: Running}}",
			"Progressing", []string{"last sync Running"}, ""},
		{"healthy and synced with a warning",
			"status: {health: {status: Healthy}, sync: {status: Synced}, conditions: [{type: SharedResourceWarning, message: shared}]}",
			"Healthy", nil, "shared"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, message := runHealth(t, script, app(tt.status))
			if status != tt.want {
				t.Errorf("status %q, want %q (message %q)", status, tt.want, message)
			}
			for _, s := range tt.messageContains {
				if !strings.Contains(message, s) {
					t.Errorf("message %q lacks %q", message, s)
				}
			}
			if tt.messageNotContains != "" && strings.Contains(message, tt.messageNotContains) {
				t.Errorf("message %q holds %q", message, tt.messageNotContains)
			}
		})
	}
}
