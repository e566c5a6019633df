package kubetest

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// TestRestartAPIServer: after a graceful restart, then a SIGKILL and
// restart, clients built before (the admin's, a service account's token)
// read what was stored before from a new process on the same address.
func TestRestartAPIServer(t *testing.T) {
	env := Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ns := env.Namespace(t)
	env.ApplyYAML(t, ns, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kept}\ndata: {a: \"1\"}\n")
	sa, err := env.ServiceAccountConfig(ctx, ns, "reader")
	if err != nil {
		t.Fatal(err)
	}
	cms := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	admin := dynamic.NewForConfigOrDie(env.Admin)
	saClient := dynamic.NewForConfigOrDie(sa)
	for _, kill := range []bool{false, true} {
		before := env.APIServer().Pid()
		start := time.Now()
		if err := env.RestartAPIServer(ctx, kill); err != nil {
			t.Fatal(err)
		}
		t.Logf("kill=%v: restarted in %s", kill, time.Since(start).Round(time.Millisecond))
		if env.APIServer().Pid() == before {
			t.Fatalf("kill=%v: the same process %d serves", kill, before)
		}
		cm, err := admin.Resource(cms).Namespace(ns).Get(ctx, "kept", metav1.GetOptions{})
		if err != nil || cm.Object["data"].(map[string]any)["a"] != "1" {
			t.Fatalf("kill=%v: ConfigMap after the restart: %v, %v", kill, cm, err)
		}
		// The token is still valid (same signing key): a 403, not a 401.
		if _, err := saClient.Resource(cms).Namespace(ns).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
			t.Fatalf("kill=%v: the service account's list: %v, want 403", kill, err)
		}
	}
}
