package install_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/internal/kubetest"
)

// kubectlManager is the field manager of `kubectl apply --server-side`.
const kubectlManager = "kubectl"

// stockBase is the operator's argocd/ folder over the stock install.yaml.
const stockBase = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: argocd
resources:
  - install.yaml
`

// TestOverStockInstall proves the README's install on the stock install of
// every supported Argo CD version (the manifests .ci/e2e-tools.sh copies
// from each version's module): with the stock install applied by `kubectl
// apply --server-side`, the operator's kustomization (argocd/ + this
// component) applied the same way is accepted by a real kube-apiserver —
// dry-run, strict field validation, no field-manager conflict — and so are
// the example root and the Applications `codeloc application` prints,
// against that version's own CRDs. The component must leave every stock
// object in place and the repo-server's own container untouched.
func TestOverStockInstall(t *testing.T) {
	for _, version := range kubetest.ArgoCDVersions {
		t.Run("v"+version, func(t *testing.T) {
			t.Parallel()
			install := stockInstall(t, version)
			stock := buildStock(t, install)
			bundle := buildIn(t, stockFS(t, install), operatorKustomization, nil)
			checkStockKept(t, stock, bundle)
			applyOverStock(t, stock, bundle)
		})
	}
}

// stockInstall reads install.yaml of an Argo CD version, skipping (failing
// under CI=true) when .ci/e2e-tools.sh has not fetched it.
func stockInstall(t *testing.T, version string) []byte {
	t.Helper()
	dir, err := kubetest.ArgoCDManifests(version)
	if errors.Is(err, kubetest.ErrNoArgoCDManifests) && os.Getenv(kubetest.EnvCI) != "true" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "install.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// stockFS is an in-memory folder whose /ops/argocd is the operator's
// argocd/ over the stock install.
func stockFS(t *testing.T, install []byte) filesys.FileSystem {
	t.Helper()
	fs := filesys.MakeFsInMemory()
	for name, data := range map[string][]byte{"kustomization.yaml": []byte(stockBase), "install.yaml": install} {
		if err := fs.WriteFile(filepath.Join("/ops/argocd", name), data); err != nil {
			t.Fatal(err)
		}
	}
	return fs
}

// buildStock is the operator's argocd/ folder alone: the stock install in
// namespace argocd.
func buildStock(t *testing.T, install []byte) []object {
	t.Helper()
	const alone = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - argocd\n"
	fs := stockFS(t, install)
	if err := fs.WriteFile("/ops/kustomization.yaml", []byte(alone)); err != nil {
		t.Fatal(err)
	}
	return runKustomize(t, fs)
}

// checkStockKept compares the bundle with the stock install it was built
// over: every stock object is still there, the repo-server's own container
// is unchanged, and the ConfigMaps the component patches keep every stock
// key.
func checkStockKept(t *testing.T, stock, bundle []object) {
	t.Helper()
	built := map[string]object{}
	for _, o := range bundle {
		built[o.Kind+" "+o.Namespace+"/"+o.Name] = o
	}
	for _, o := range stock {
		if _, ok := built[o.Kind+" "+o.Namespace+"/"+o.Name]; !ok {
			t.Errorf("stock %s %s/%s is missing from the bundle", o.Kind, o.Namespace, o.Name)
		}
	}
	var before, after appsv1.Deployment
	findLoose(t, stock, "Deployment", "argocd", "argocd-repo-server", &before)
	findLoose(t, bundle, "Deployment", "argocd", "argocd-repo-server", &after)
	if diff := cmp.Diff(container(before, "argocd-repo-server"), container(after, "argocd-repo-server")); diff != "" {
		t.Errorf("the component changed the repo-server container (-stock +bundle):\n%s", diff)
	}
	if container(after, "codeloc") == nil {
		t.Error("no codeloc container in argocd-repo-server")
	}
	for _, name := range []string{"argocd-cm", "argocd-cmd-params-cm"} {
		var s, b corev1.ConfigMap
		findLoose(t, stock, "ConfigMap", "argocd", name, &s)
		findLoose(t, bundle, "ConfigMap", "argocd", name, &b)
		for k, v := range s.Data {
			if b.Data[k] != v {
				t.Errorf("%s: stock key %s changed or dropped", name, k)
			}
		}
	}
}

// applyOverStock applies the stock install to a dedicated kube-apiserver as
// `kubectl apply --server-side` would, then the bundle, the example root and
// the generated Applications the same way with dryRun=All.
func applyOverStock(t *testing.T, stock, bundle []object) {
	t.Helper()
	env := kubetest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env.ApplyYAML(t, "", "apiVersion: v1\nkind: Namespace\nmetadata: {name: argocd}\n---\n"+
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: rook-ceph}\n")

	crds, rest := splitCRDs(t, stock)
	if err := env.ServerSideApply(ctx, kubectlManager, "", false, crds...); err != nil {
		t.Fatalf("stock CRDs:\n%v", err)
	}
	if err := env.WaitForCRDs(ctx, crds...); err != nil {
		t.Fatal(err)
	}
	if err := env.ServerSideApply(ctx, kubectlManager, "", false, rest...); err != nil {
		t.Fatalf("stock install:\n%v", err)
	}

	var stream [][]byte
	for _, o := range bundle {
		stream = append(stream, o.YAML)
	}
	root, err := os.ReadFile(rootAppFile)
	if err != nil {
		t.Fatal(err)
	}
	stream = append(stream, root, generatedApplications(t))
	objs, err := kubetest.ParseYAML(bytes.Join(stream, []byte("\n---\n")))
	if err != nil {
		t.Fatal(err)
	}
	if err := env.ServerSideApply(ctx, kubectlManager, "", true, objs...); err != nil {
		t.Fatalf("kubectl apply --server-side --dry-run=server of the bundle over the stock install:\n%v", err)
	}
}

// splitCRDs parses objects into the CRDs and the rest.
func splitCRDs(t *testing.T, objs []object) (crds, rest []*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		u, err := kubetest.ParseYAML(o.YAML)
		if err != nil {
			t.Fatal(err)
		}
		if o.Kind == "CustomResourceDefinition" {
			crds = append(crds, u...)
		} else {
			rest = append(rest, u...)
		}
	}
	return crds, rest
}

// findLoose is find without strict decoding: the stock objects of a newer
// Argo CD may carry fields this module's k8s.io/api does not know.
func findLoose(t *testing.T, objs []object, kind, ns, name string, v any) {
	t.Helper()
	if err := yaml.Unmarshal(lookup(t, objs, kind, ns, name), v); err != nil {
		t.Fatalf("%s %s/%s: %v", kind, ns, name, err)
	}
}

func container(d appsv1.Deployment, name string) *corev1.Container {
	for i, c := range d.Spec.Template.Spec.Containers {
		if c.Name == name {
			return &d.Spec.Template.Spec.Containers[i]
		}
	}
	return nil
}
