package kubetest

import (
	"context"
	"embed"
	"fmt"
	"path"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

//go:embed testdata/crds/*.yaml
var crdFiles embed.FS

// Names of the embedded CRDs, for InstallCRDs.
const (
	CRDObjectBucketClaim = "objectbucketclaims.objectbucket.io"
	CRDApplication       = "applications.argoproj.io"
	CRDCephCluster       = "cephclusters.ceph.rook.io"
)

// Resources of the embedded CRDs.
var (
	ObjectBucketClaims = schema.GroupVersionResource{Group: "objectbucket.io", Version: "v1alpha1", Resource: "objectbucketclaims"}
	Applications       = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}
	CephClusters       = schema.GroupVersionResource{Group: "ceph.rook.io", Version: "v1", Resource: "cephclusters"}
)

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// CRDs returns the embedded minimal CRDs (all, or the named ones). Their
// schemas preserve unknown fields: they check nothing but the kind.
func CRDs(names ...string) ([]*unstructured.Unstructured, error) {
	entries, err := crdFiles.ReadDir("testdata/crds")
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, e := range entries {
		data, err := crdFiles.ReadFile(path.Join("testdata/crds", e.Name()))
		if err != nil {
			return nil, err
		}
		objs, err := ParseYAML(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		for _, o := range objs {
			if len(names) == 0 || slices.Contains(names, o.GetName()) {
				out = append(out, o)
			}
		}
	}
	if len(names) > 0 && len(out) != len(names) {
		return nil, fmt.Errorf("kubetest: unknown CRD among %v", names)
	}
	return out, nil
}

// InstallCRDs installs the embedded CRDs (all, or the named ones) and waits
// until they are established and discoverable.
func (e *Env) InstallCRDs(t testing.TB, names ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.InstallCRDsContext(ctx, names...); err != nil {
		t.Fatalf("kubetest: %v", err)
	}
}

// InstallCRDsContext is InstallCRDs for callers without a testing.TB.
func (e *Env) InstallCRDsContext(ctx context.Context, names ...string) error {
	crds, err := CRDs(names...)
	if err != nil {
		return err
	}
	if err := e.Apply(ctx, "", crds...); err != nil {
		return err
	}
	return e.WaitForCRDs(ctx, crds...)
}

// WaitForCRDs waits until each CRD (applied by the caller) is established
// and its kind discoverable.
func (e *Env) WaitForCRDs(ctx context.Context, crds ...*unstructured.Unstructured) error {
	for _, crd := range crds {
		if err := e.waitEstablished(ctx, crd.GetName()); err != nil {
			return err
		}
		gvk := schema.GroupVersionKind{
			Group:   mustString(crd, "spec", "group"),
			Version: firstVersion(crd),
			Kind:    mustString(crd, "spec", "names", "kind"),
		}
		if _, err := e.mapper.mapping(ctx, gvk); err != nil {
			return fmt.Errorf("CRD %s established but not discoverable: %w", crd.GetName(), err)
		}
	}
	return nil
}

func (e *Env) waitEstablished(ctx context.Context, name string) error {
	for {
		crd, err := e.dyn.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
		if err == nil && established(crd) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("CRD %s not established: %w (last error: %w)", name, ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

func mustString(o *unstructured.Unstructured, fields ...string) string {
	s, _, _ := unstructured.NestedString(o.Object, fields...)
	return s
}

func firstVersion(crd *unstructured.Unstructured) string {
	vs, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	if len(vs) == 0 {
		return ""
	}
	m, _ := vs[0].(map[string]any)
	s, _ := m["name"].(string)
	return s
}
