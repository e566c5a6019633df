package preflight_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/codeloc/codeloc/internal/kubetest"
	"github.com/codeloc/codeloc/preflight"
)

var (
	secrets      = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	configMaps   = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	pods         = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	nodes        = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	quotas       = schema.GroupVersionResource{Version: "v1", Resource: "resourcequotas"}
	saResource   = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	claims       = kubetest.ObjectBucketClaims
	applications = kubetest.Applications
	cephClusters = kubetest.CephClusters
)

// TestLeastPrivilege runs the preflight with only its own ServiceAccount's
// permissions (testdata/role.yaml + testdata/rbac-cluster.yaml): it passes,
// through both capacity paths, and everything else is refused.
func TestLeastPrivilege(t *testing.T) {
	env := sharedEnv(t)
	ctx := ctxFor(t)
	w := newWorld(t, env, nil)
	w.apply(t, good())
	env.ApplyYAML(t, w.ns, w.exampleNamespaces(readTestdata(t, "role.yaml")))
	env.ApplyYAML(t, w.ns, w.exampleNamespaces(readTestdata(t, "rbac-cluster.yaml")))

	// Decoys: what the preflight must not reach.
	other := env.Namespace(t)
	env.ApplyYAML(t, w.ns, w.subst(`
apiVersion: v1
kind: Secret
metadata: {name: other-secret, namespace: {{ns}}}
stringData: {password: not-yours}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: codeloc-other, namespace: {{ns}}}
data: {ready: "true"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: dagster-workspace, namespace: {{ns}}}
data: {workspace.yaml: not-yours}
---
apiVersion: objectbucket.io/v1alpha1
kind: ObjectBucketClaim
metadata: {name: other-bucket, namespace: {{ns}}}
spec: {storageClassName: rook-ceph-datalake}
---
apiVersion: v1
kind: Secret
metadata: {name: pgvector-pg-auth, namespace: `+other+`}
stringData: {password: other-namespace}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: codeloc-mediawatch, namespace: `+other+`}
data: {ready: "true"}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: mediawatch, namespace: `+other+`}
spec: {project: default}
---
apiVersion: ceph.rook.io/v1
kind: CephCluster
metadata: {name: rook-ceph, namespace: `+other+`}
spec: {}
`))

	cfg, err := env.ServiceAccountConfig(ctx, w.ns, "citation-preflight")
	if err != nil {
		t.Fatal(err)
	}
	err = kubetest.WaitForAccess(ctx, cfg,
		kubetest.Access{Verb: "get", Resource: "secrets", Namespace: w.ns, Name: "pgvector-pg-auth"},
		kubetest.Access{Verb: "list", Resource: "nodes"},
		kubetest.Access{Verb: "list", Resource: "cephclusters", Group: "ceph.rook.io", Namespace: w.ceph},
		kubetest.Access{Verb: "get", Resource: "applications", Group: "argoproj.io", Namespace: w.argocd, Name: "mediawatch"},
	)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("passes with a quota", func(t *testing.T) {
		secretAccepts := captureSecretRequests(cfg)
		rep := w.run(t, preflight.Options{Config: secretAccepts.cfg})
		w.expect(t, rep)
		t.Logf("as %s: %s", "citation-preflight", rep.Summary())
		secretAccepts.assertMetadataOnly(t, 2)
	})

	t.Run("passes without a quota (nodes)", func(t *testing.T) {
		node := kubetest.MustParseYAML(t, "apiVersion: v1\nkind: Node\nmetadata: {name: rbac-"+w.ns+"}\nstatus: {allocatable: {cpu: \"8\", memory: 32Gi}}\n")
		if err := env.Apply(ctx, "", node...); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Delete(context.Background(), "", node...) })
		if err := env.Delete(ctx, w.ns, kubetest.MustParseYAML(t, "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: compute}\n")...); err != nil {
			t.Fatal(err)
		}
		rep := w.run(t, preflight.Options{Config: cfg})
		w.expect(t, rep)
		t.Logf("as %s: %s", "citation-preflight", rep.Summary())
	})

	t.Run("everything else is forbidden", func(t *testing.T) {
		dyn := dynamic.NewForConfigOrDie(cfg)
		meta := metadata.NewForConfigOrDie(cfg)
		ns, argocd, ceph := w.ns, w.argocd, w.ceph
		patch := []byte(`{"metadata":{"labels":{"touched":"yes"}}}`)
		forbidden := map[string]func(context.Context) error{
			// Secrets: only the declared one, only get.
			"get another secret (metadata)": func(ctx context.Context) error {
				_, err := meta.Resource(secrets).Namespace(ns).Get(ctx, "other-secret", metav1.GetOptions{})
				return err
			},
			"get another secret": func(ctx context.Context) error {
				_, err := dyn.Resource(secrets).Namespace(ns).Get(ctx, "other-secret", metav1.GetOptions{})
				return err
			},
			"list secrets": func(ctx context.Context) error {
				_, err := dyn.Resource(secrets).Namespace(ns).List(ctx, metav1.ListOptions{})
				return err
			},
			"list secrets (metadata)": func(ctx context.Context) error {
				_, err := meta.Resource(secrets).Namespace(ns).List(ctx, metav1.ListOptions{})
				return err
			},
			"watch secrets": func(ctx context.Context) error {
				_, err := dyn.Resource(secrets).Namespace(ns).Watch(ctx, metav1.ListOptions{})
				return err
			},
			"create a secret":            func(ctx context.Context) error { return create(ctx, dyn, secrets, ns, "Secret", "mine") },
			"update the declared secret": func(ctx context.Context) error { return patchIt(ctx, dyn, secrets, ns, "pgvector-pg-auth", patch) },
			"delete the declared secret": func(ctx context.Context) error {
				return dyn.Resource(secrets).Namespace(ns).Delete(ctx, "pgvector-pg-auth", metav1.DeleteOptions{})
			},
			"get the secret in another namespace": func(ctx context.Context) error {
				_, err := meta.Resource(secrets).Namespace(other).Get(ctx, "pgvector-pg-auth", metav1.GetOptions{})
				return err
			},
			// ConfigMaps: only the required code-locations' records, only get.
			"get another record": func(ctx context.Context) error {
				_, err := dyn.Resource(configMaps).Namespace(ns).Get(ctx, "codeloc-other", metav1.GetOptions{})
				return err
			},
			"list configmaps": func(ctx context.Context) error {
				_, err := dyn.Resource(configMaps).Namespace(ns).List(ctx, metav1.ListOptions{})
				return err
			},
			"create a configmap": func(ctx context.Context) error { return create(ctx, dyn, configMaps, ns, "ConfigMap", "mine") },
			"update the record":  func(ctx context.Context) error { return patchIt(ctx, dyn, configMaps, ns, "codeloc-mediawatch", patch) },
			"delete the record": func(ctx context.Context) error {
				return dyn.Resource(configMaps).Namespace(ns).Delete(ctx, "codeloc-mediawatch", metav1.DeleteOptions{})
			},
			"get a record elsewhere": func(ctx context.Context) error {
				_, err := dyn.Resource(configMaps).Namespace(other).Get(ctx, "codeloc-mediawatch", metav1.GetOptions{})
				return err
			},
			// The platform's ConfigMaps and ServiceAccounts: only the declared ConfigMaps.
			"get an undeclared platform ConfigMap": func(ctx context.Context) error {
				_, err := meta.Resource(configMaps).Namespace(ns).Get(ctx, "dagster-workspace", metav1.GetOptions{})
				return err
			},
			"update a declared platform ConfigMap": func(ctx context.Context) error {
				return patchIt(ctx, dyn, configMaps, ns, "dagster-instance", patch)
			},
			"get an undeclared ServiceAccount": func(ctx context.Context) error {
				_, err := meta.Resource(saResource).Namespace(ns).Get(ctx, "dagster", metav1.GetOptions{})
				return err
			},
			"list serviceaccounts": func(ctx context.Context) error {
				_, err := meta.Resource(saResource).Namespace(ns).List(ctx, metav1.ListOptions{})
				return err
			},
			"get another bucket claim": func(ctx context.Context) error {
				_, err := dyn.Resource(claims).Namespace(ns).Get(ctx, "other-bucket", metav1.GetOptions{})
				return err
			},
			"list bucket claims": func(ctx context.Context) error {
				_, err := dyn.Resource(claims).Namespace(ns).List(ctx, metav1.ListOptions{})
				return err
			},
			"update the bucket claim": func(ctx context.Context) error { return patchIt(ctx, dyn, claims, ns, "atlas-datalake", patch) },
			// Cluster and other namespaces: reads the capacity check needs, nothing more.
			"get a node": func(ctx context.Context) error {
				_, err := dyn.Resource(nodes).Get(ctx, "any", metav1.GetOptions{})
				return err
			},
			"update a node": func(ctx context.Context) error { return patchIt(ctx, dyn, nodes, "", "rbac-"+ns, patch) },
			"create a pod":  func(ctx context.Context) error { return create(ctx, dyn, pods, ns, "Pod", "mine") },
			"delete pods": func(ctx context.Context) error {
				return dyn.Resource(pods).Namespace(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
			},
			"create a quota": func(ctx context.Context) error { return create(ctx, dyn, quotas, ns, "ResourceQuota", "mine") },
			"list Applications": func(ctx context.Context) error {
				_, err := dyn.Resource(applications).Namespace(argocd).List(ctx, metav1.ListOptions{})
				return err
			},
			"update an Application": func(ctx context.Context) error { return patchIt(ctx, dyn, applications, argocd, "mediawatch", patch) },
			"get an Application elsewhere": func(ctx context.Context) error {
				_, err := dyn.Resource(applications).Namespace(other).Get(ctx, "mediawatch", metav1.GetOptions{})
				return err
			},
			"list CephClusters elsewhere": func(ctx context.Context) error {
				_, err := dyn.Resource(cephClusters).Namespace(other).List(ctx, metav1.ListOptions{})
				return err
			},
			"update the CephCluster": func(ctx context.Context) error { return patchIt(ctx, dyn, cephClusters, ceph, "rook-ceph", patch) },
			"mint a token":           func(ctx context.Context) error { return mintToken(ctx, dyn, ns, "citation-preflight") },
		}
		for name, call := range forbidden {
			if err := call(ctx); !apierrors.IsForbidden(err) {
				t.Errorf("%s: got %v, want 403 Forbidden", name, err)
			}
		}
		t.Logf("%d requests refused with 403", len(forbidden))
	})

	t.Run("RBAC cannot separate a secret's data from its metadata", func(t *testing.T) {
		// `get secrets` serves both: resourceNames is the boundary, and the
		// preflight itself only asks for metadata (proven above).
		s, err := dynamic.NewForConfigOrDie(cfg).Resource(secrets).Namespace(w.ns).Get(ctx, "pgvector-pg-auth", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("full get of the declared secret: %v", err)
		}
		if _, ok := s.Object["data"]; !ok {
			t.Fatal("the full get returned no data: the note in testdata/role.yaml is wrong")
		}
	})

	t.Run("the group binding is the documented trade-off", func(t *testing.T) {
		app, err := env.ServiceAccountConfig(ctx, w.ns, "some-workload")
		if err != nil {
			t.Fatal(err)
		}
		if err := kubetest.WaitForAccess(ctx, app, kubetest.Access{Verb: "list", Resource: "nodes"}); err != nil {
			t.Errorf("another ServiceAccount of the namespace: %v", err)
		}
		ok, err := kubetest.CanI(ctx, app, kubetest.Access{Verb: "get", Resource: "secrets", Namespace: w.ns, Name: "pgvector-pg-auth"})
		if ok || err != nil {
			t.Errorf("another ServiceAccount may get the declared secret: %v, %v", ok, err)
		}
	})
}

func create(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, kind, name string) error {
	o := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": name},
	}}
	_, err := dyn.Resource(gvr).Namespace(ns).Create(ctx, o, metav1.CreateOptions{})
	return err
}

func patchIt(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, name string, patch []byte) error {
	_, err := dyn.Resource(gvr).Namespace(ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// requestCapture records the method, path and Accept header of every
// request whose path matches.
type requestCapture struct {
	cfg     *rest.Config
	mu      sync.Mutex
	accepts []string
}

// captureSecretRequests records every Secret request.
func captureSecretRequests(cfg *rest.Config) *requestCapture {
	return captureRequests(cfg, func(path string) bool { return strings.Contains(path, "/secrets") })
}

func captureRequests(cfg *rest.Config, match func(path string) bool) *requestCapture {
	c := &requestCapture{cfg: rest.CopyConfig(cfg)}
	c.cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if match(r.URL.Path) {
				c.mu.Lock()
				c.accepts = append(c.accepts, r.Method+" "+r.URL.Path+" Accept: "+r.Header.Get("Accept"))
				c.mu.Unlock()
			}
			return rt.RoundTrip(r)
		})
	})
	return c
}

// assertMetadataOnly checks that n matching requests were sent, all GETs
// asking for PartialObjectMetadata only.
func (c *requestCapture) assertMetadataOnly(t *testing.T, n int) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.accepts) != n {
		t.Errorf("%d captured requests, want %d: %q", len(c.accepts), n, c.accepts)
	}
	for _, a := range c.accepts {
		if !strings.HasPrefix(a, "GET ") || !metadataOnlyAccept(a[strings.Index(a, "Accept: ")+len("Accept: "):]) {
			t.Errorf("request not metadata-only: %s", a)
		}
	}
}

// metadataOnlyAccept: every media type asks for PartialObjectMetadata, so
// the server can never answer with the Secret itself.
func metadataOnlyAccept(accept string) bool {
	for _, mt := range strings.Split(accept, ",") {
		if !strings.Contains(mt, "as=PartialObjectMetadata") {
			return false
		}
	}
	return accept != ""
}

func mintToken(ctx context.Context, dyn dynamic.Interface, ns, sa string) error {
	req := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
		"metadata": map[string]any{"name": sa, "namespace": ns},
		"spec":     map[string]any{},
	}}
	_, err := dyn.Resource(saResource).Namespace(ns).Create(ctx, req, metav1.CreateOptions{}, "token")
	return err
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
