package install_test

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/codeloc/codeloc/appofapps"
	"github.com/codeloc/codeloc/internal/kubetest"
	"github.com/codeloc/codeloc/validate"
)

// TestServerSideDryRun sends the built bundle, the example root Application
// and the Applications `codeloc application` prints to a real kube-apiserver
// with dryRun=All and strict field validation: every object must be
// accepted (schemas, RBAC rules, admission), nothing is stored.
func TestServerSideDryRun(t *testing.T) {
	env := kubetest.Start(t)
	env.InstallCRDs(t, kubetest.CRDApplication)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// The namespaces must exist for the namespaced objects' dry-run: argocd
	// comes with the (stand-in) Argo CD base, rook-ceph with Rook.
	env.ApplyYAML(t, "", "apiVersion: v1\nkind: Namespace\nmetadata: {name: rook-ceph}\n")
	var stream [][]byte
	for _, o := range build(t) {
		if o.Kind == "Namespace" {
			env.ApplyYAML(t, "", string(o.YAML))
			continue
		}
		stream = append(stream, o.YAML)
	}
	root, err := os.ReadFile(rootAppFile)
	if err != nil {
		t.Fatal(err)
	}
	stream = append(stream, root)
	stream = append(stream, generatedApplications(t))

	objs, err := kubetest.ParseYAML(bytes.Join(stream, []byte("\n---\n")))
	if err != nil {
		t.Fatal(err)
	}
	if err := env.DryRun(ctx, "", objs...); err != nil {
		t.Fatalf("server-side dry-run:\n%v", err)
	}
	if n := count(objs, "Application"); n != 3 {
		t.Errorf("%d Applications dry-run, want the root and 2 generated", n)
	}
}

// generatedApplications is `codeloc application` over the fixtures.
func generatedApplications(t *testing.T) []byte {
	t.Helper()
	c, ps := validate.LoadContract("")
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	apps, err := appofapps.Generate([]string{"../../fixtures/mediawatch", "../../fixtures/citation"},
		appofapps.Options{RepoURL: "https://git.example/atlas.git", RepoRoot: "../../fixtures", Contract: c})
	if err != nil {
		t.Fatal(err)
	}
	return appofapps.Stream(apps)
}

func count(objs []*unstructured.Unstructured, kind string) int {
	n := 0
	for _, o := range objs {
		if o.GetKind() == kind {
			n++
		}
	}
	return n
}
