package kubetest

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

func TestMain(m *testing.M) { Main(m) }

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestFindBinariesMissing(t *testing.T) {
	t.Setenv(EnvBinDir, t.TempDir())
	if _, err := FindBinaries(); !errors.Is(err, ErrNoBinaries) {
		t.Fatalf("FindBinaries() = %v, want ErrNoBinaries", err)
	}
}

func TestNamespaceName(t *testing.T) {
	got := namespaceName("TestPreflight/Secrets_missing")
	if !strings.HasPrefix(got, "testpreflight-secrets-missing-") || len(got) > 63 {
		t.Fatalf("namespaceName = %q", got)
	}
	long := namespaceName(strings.Repeat("a/", 60))
	if len(long) > 63 || strings.Contains(long, "--") {
		t.Fatalf("namespaceName(long) = %q", long)
	}
}

func TestApplyDryRunAndStatus(t *testing.T) {
	env := Shared(t)
	t.Logf("apiserver start: %s", env.StartTime)
	ns := env.Namespace(t)
	env.InstallCRDs(t)
	ctx := ctxT(t)

	env.ApplyYAML(t, ns, `
apiVersion: v1
kind: ConfigMap
metadata: {name: one}
data: {a: "1"}
---
apiVersion: objectbucket.io/v1alpha1
kind: ObjectBucketClaim
metadata: {name: bucket}
spec: {storageClassName: fast}
status: {phase: Bound}
`)
	obc, err := env.Dynamic().Resource(ObjectBucketClaims).Namespace(ns).Get(ctx, "bucket", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if phase := obc.Object["status"].(map[string]any)["phase"]; phase != "Bound" {
		t.Fatalf("status.phase = %v, want Bound (status subresource applied)", phase)
	}

	// A dry-run reports every rejected object and stores nothing.
	err = env.DryRun(ctx, ns, MustParseYAML(t, `
apiVersion: v1
kind: ConfigMap
metadata: {name: two}
data: {a: "1"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: three}
data: {a: "1"}
bogus: field
---
apiVersion: v1
kind: Service
metadata: {name: svc}
spec: {ports: [{port: 99999}]}
`)...)
	if err == nil {
		t.Fatal("DryRun accepted an unknown field and a bad port")
	}
	for _, want := range []string{"ConfigMap/" + ns + "/three", "bogus", "Service/" + ns + "/svc"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("DryRun error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "/two") {
		t.Errorf("DryRun rejected a valid object:\n%v", err)
	}
	_, err = env.Dynamic().Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(ns).Get(ctx, "two", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("dry-run stored the object: %v", err)
	}
}

func TestServiceAccountConfig(t *testing.T) {
	env := Shared(t)
	ns := env.Namespace(t)
	ctx := ctxT(t)
	cfg, err := env.ServiceAccountConfig(ctx, ns, "reader")
	if err != nil {
		t.Fatal(err)
	}
	cms := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	dyn := dynamic.NewForConfigOrDie(cfg)
	if _, err := dyn.Resource(cms).Namespace(ns).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("list before the binding: %v, want 403", err)
	}
	env.ApplyYAML(t, ns, `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects: [{kind: ServiceAccount, name: reader, namespace: `+ns+`}]
`)
	if err := WaitForAccess(ctx, cfg, Access{Verb: "list", Resource: "configmaps", Namespace: ns}); err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(cms).Namespace(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("list after the binding: %v", err)
	}
	if ok, err := CanI(ctx, cfg, Access{Verb: "create", Resource: "configmaps", Namespace: ns}); ok || err != nil {
		t.Fatalf("CanI(create) = %v, %v; want false", ok, err)
	}
}

// TestArgoCDVersionsAgree keeps the supported Argo CD versions of
// .ci/e2e-tools.sh (which builds and fetches them) equal to ArgoCDVersions
// (which the tests run on).
func TestArgoCDVersionsAgree(t *testing.T) {
	out, err := exec.Command("bash", "../../.ci/e2e-tools.sh", "--versions").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Fields(string(out)), ArgoCDVersions; !slices.Equal(got, want) {
		t.Errorf(".ci/e2e-tools.sh --versions = %v, ArgoCDVersions = %v", got, want)
	}
}
