package preflight_test

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/codeloc/codeloc/internal/kubetest"
	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/preflight"
	"github.com/codeloc/codeloc/render/emit"
	"github.com/codeloc/codeloc/validate"
)

// TestPlatformObjectsLeastPrivilege runs, as the preflight's own
// ServiceAccount, the preflight of a declaration that depends on the
// platform's ConfigMaps and ServiceAccount (the Dagster chart's): with the
// RBAC codeloc emits for it, the preflight passes, reads those objects'
// metadata only, reports each missing one, and may read no other ConfigMap
// or ServiceAccount; with the Role emitted before they were declared, each
// is reported `forbidden`, distinct from missing. (TestLeastPrivilege
// proves the Role `codeloc render` emits for fixtures/citation, platform
// ConfigMaps included; the emitter is the same.)
func TestPlatformObjectsLeastPrivilege(t *testing.T) {
	env := sharedEnv(t)

	t.Run("the rendered Role", func(t *testing.T) {
		w := newWorld(t, env, withServiceAccount)
		w.apply(t, good())
		other := env.Namespace(t)
		env.ApplyYAML(t, w.ns, w.subst(`
apiVersion: v1
kind: ConfigMap
metadata: {name: dagster-workspace, namespace: {{ns}}}
data: {workspace.yaml: not-yours}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: dagster-webserver, namespace: {{ns}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: dagster-instance, namespace: `+other+`}
data: {dagster.yaml: other-namespace}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: dagster, namespace: `+other+`}
`))
		cfg := w.asPreflight(t, w.decl)

		t.Run("passes, reading metadata only", func(t *testing.T) {
			platform := captureRequests(cfg, func(path string) bool {
				return strings.Contains(path, "/configmaps/dagster-") || strings.Contains(path, "/serviceaccounts/")
			})
			rep := w.run(t, preflight.Options{Config: platform.cfg})
			w.expect(t, rep)
			platform.assertMetadataOnly(t, 3)
			checked := strings.Join(rep.Checked, "\n")
			for _, want := range []string{"ConfigMap dagster-instance: present", "ConfigMap dagster-pipeline-env: present", "ServiceAccount dagster: present"} {
				if !strings.Contains(checked, want) {
					t.Errorf("checked lacks %q:\n%s", want, checked)
				}
			}
			t.Logf("as citation-preflight: %s", rep.Summary())
		})

		t.Run("reports what is missing", func(t *testing.T) {
			objs := kubetest.MustParseYAML(t, w.subst("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dagster-pipeline-env, namespace: {{ns}}}\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: dagster, namespace: {{ns}}}\n"))
			if err := env.Delete(ctxFor(t), w.ns, objs...); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = env.Apply(context.Background(), w.ns, objs...) })
			w.expect(t, w.run(t, preflight.Options{Config: cfg}),
				`configmap-missing dependsOn.configMaps[1]: ConfigMap "dagster-pipeline-env" does not exist in namespace "{{ns}}"`,
				`service-account-missing dependsOn.serviceAccounts[0]: ServiceAccount "dagster" does not exist in namespace "{{ns}}"`)
		})

		t.Run("no other ConfigMap or ServiceAccount", func(t *testing.T) {
			ctx := ctxFor(t)
			dyn := dynamic.NewForConfigOrDie(cfg)
			meta := metadata.NewForConfigOrDie(cfg)
			ns := w.ns
			patch := []byte(`{"metadata":{"labels":{"touched":"yes"}}}`)
			forbidden := map[string]func(context.Context) error{
				"get another ConfigMap (metadata)": func(ctx context.Context) error {
					_, err := meta.Resource(configMaps).Namespace(ns).Get(ctx, "dagster-workspace", metav1.GetOptions{})
					return err
				},
				"get another ConfigMap": func(ctx context.Context) error {
					_, err := dyn.Resource(configMaps).Namespace(ns).Get(ctx, "dagster-workspace", metav1.GetOptions{})
					return err
				},
				"list configmaps": func(ctx context.Context) error {
					_, err := meta.Resource(configMaps).Namespace(ns).List(ctx, metav1.ListOptions{})
					return err
				},
				"watch configmaps": func(ctx context.Context) error {
					_, err := meta.Resource(configMaps).Namespace(ns).Watch(ctx, metav1.ListOptions{})
					return err
				},
				"update a declared ConfigMap": func(ctx context.Context) error {
					return patchIt(ctx, dyn, configMaps, ns, "dagster-instance", patch)
				},
				"delete a declared ConfigMap": func(ctx context.Context) error {
					return dyn.Resource(configMaps).Namespace(ns).Delete(ctx, "dagster-instance", metav1.DeleteOptions{})
				},
				"get a declared ConfigMap elsewhere": func(ctx context.Context) error {
					_, err := meta.Resource(configMaps).Namespace(other).Get(ctx, "dagster-instance", metav1.GetOptions{})
					return err
				},
				"get another ServiceAccount": func(ctx context.Context) error {
					_, err := meta.Resource(saResource).Namespace(ns).Get(ctx, "dagster-webserver", metav1.GetOptions{})
					return err
				},
				"get its own ServiceAccount": func(ctx context.Context) error {
					_, err := meta.Resource(saResource).Namespace(ns).Get(ctx, names.PreflightName("citation"), metav1.GetOptions{})
					return err
				},
				"list serviceaccounts": func(ctx context.Context) error {
					_, err := meta.Resource(saResource).Namespace(ns).List(ctx, metav1.ListOptions{})
					return err
				},
				"create a ServiceAccount": func(ctx context.Context) error { return create(ctx, dyn, saResource, ns, "ServiceAccount", "mine") },
				"update the declared ServiceAccount": func(ctx context.Context) error {
					return patchIt(ctx, dyn, saResource, ns, "dagster", patch)
				},
				"delete the declared ServiceAccount": func(ctx context.Context) error {
					return dyn.Resource(saResource).Namespace(ns).Delete(ctx, "dagster", metav1.DeleteOptions{})
				},
				"mint a token for the declared ServiceAccount": func(ctx context.Context) error { return mintToken(ctx, dyn, ns, "dagster") },
				"get the declared ServiceAccount elsewhere": func(ctx context.Context) error {
					_, err := meta.Resource(saResource).Namespace(other).Get(ctx, "dagster", metav1.GetOptions{})
					return err
				},
			}
			for name, call := range forbidden {
				if err := call(ctx); !apierrors.IsForbidden(err) {
					t.Errorf("%s: got %v, want 403 Forbidden", name, err)
				}
			}
			t.Logf("%d requests refused with 403", len(forbidden))
		})
	})

	t.Run("a Role emitted before they were declared", func(t *testing.T) {
		w := newWorld(t, env, withServiceAccount)
		s := good()
		s.configMaps = []string{"dagster-instance"} // present or not, forbidden first
		w.apply(t, s)
		before, ps := validate.ParseDeclaration(validate.ManifestFile, []byte(withoutPlatform(declarationYAML)))
		if len(ps) > 0 {
			t.Fatal(ps)
		}
		cfg := w.asPreflight(t, before)
		w.expect(t, w.run(t, preflight.Options{Config: cfg}),
			`forbidden dependsOn.configMaps[0]: may not get ConfigMap "dagster-instance" in namespace "{{ns}}": `,
			`forbidden dependsOn.configMaps[1]: may not get ConfigMap "dagster-pipeline-env" in namespace "{{ns}}": `,
			`forbidden dependsOn.serviceAccounts[0]: may not get ServiceAccount "dagster" in namespace "{{ns}}": `)
	})
}

// asPreflight applies the preflight RBAC codeloc emits for roleFor with
// w's contract (its ServiceAccount, Role and RoleBinding, in w's
// namespace) and the
// namespaced part of the install bundle (testdata/rbac-cluster.yaml: the
// Roles in Rook's and Argo CD's namespaces; the ClusterRole is left out,
// cluster-wide and shared with the other tests, and the state's quota makes
// it unneeded), and returns the configuration of the preflight's
// ServiceAccount once the Role is in force.
func (w *world) asPreflight(t *testing.T, roleFor *validate.Declaration) *rest.Config {
	t.Helper()
	ctx := ctxFor(t)
	objs, err := emit.Objects(emit.Input{Declaration: roleFor, Contract: w.con})
	if err != nil {
		t.Fatal(err)
	}
	sa := names.PreflightName(roleFor.CodeLocation)
	var rbac strings.Builder
	for _, o := range objs {
		switch o.GetKind() {
		case "ServiceAccount", "Role", "RoleBinding":
			if o.GetName() != sa {
				continue
			}
			doc, err := o.String()
			if err != nil {
				t.Fatal(err)
			}
			rbac.WriteString("---\n" + doc)
		}
	}
	if rbac.Len() == 0 {
		t.Fatalf("codeloc emits no %s ServiceAccount, Role or RoleBinding", sa)
	}
	w.env.ApplyYAML(t, w.ns, rbac.String())
	for _, o := range kubetest.MustParseYAML(t, w.exampleNamespaces(readTestdata(t, "rbac-cluster.yaml"))) {
		if o.GetNamespace() == "" {
			continue
		}
		if err := w.env.Apply(ctx, "", o); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := w.env.ServiceAccountConfig(ctx, w.ns, sa)
	if err != nil {
		t.Fatal(err)
	}
	err = kubetest.WaitForAccess(ctx, cfg,
		kubetest.Access{Verb: "get", Resource: "secrets", Namespace: w.ns, Name: "pgvector-pg-auth"},
		kubetest.Access{Verb: "list", Resource: "cephclusters", Group: "ceph.rook.io", Namespace: w.ceph},
		kubetest.Access{Verb: "get", Resource: "applications", Group: "argoproj.io", Namespace: w.argocd, Name: "mediawatch"},
	)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
