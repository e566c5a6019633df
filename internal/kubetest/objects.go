package kubetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// FieldManager is the server-side apply manager of objects the harness applies.
const FieldManager = "kubetest"

// ParseYAML decodes a stream of YAML (or JSON) documents, skipping empty
// ones. A List kind is flattened into its items.
func ParseYAML(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for i := 0; ; i++ {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if len(m) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		if u.IsList() {
			err := u.EachListItem(func(o runtime.Object) error {
				out = append(out, o.(*unstructured.Unstructured))
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("document %d: %w", i, err)
			}
			continue
		}
		out = append(out, u)
	}
}

// MustParseYAML is ParseYAML failing t on error.
func MustParseYAML(t testing.TB, data string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := ParseYAML([]byte(data))
	if err != nil {
		t.Fatalf("kubetest: parse YAML: %v", err)
	}
	return objs
}

// Describe names an object as kind/namespace/name for messages.
func Describe(o *unstructured.Unstructured) string {
	if ns := o.GetNamespace(); ns != "" {
		return o.GetKind() + "/" + ns + "/" + o.GetName()
	}
	return o.GetKind() + "/" + o.GetName()
}

// Resource returns a dynamic client for o's kind, scoped to o's namespace
// (or ns when o has none and the kind is namespaced).
func (e *Env) Resource(ctx context.Context, o *unstructured.Unstructured, ns string) (dynamic.ResourceInterface, error) {
	return e.resourceFor(ctx, e.dyn, o, ns)
}

func (e *Env) resourceFor(ctx context.Context, dyn dynamic.Interface, o *unstructured.Unstructured, ns string) (dynamic.ResourceInterface, error) {
	m, err := e.mapper.mapping(ctx, o.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	if m.Scope.Name() != meta.RESTScopeNameNamespace {
		return dyn.Resource(m.Resource), nil
	}
	if o.GetNamespace() == "" {
		o.SetNamespace(ns)
	}
	if o.GetNamespace() == "" {
		return nil, fmt.Errorf("%s: namespaced kind without a namespace", Describe(o))
	}
	return dyn.Resource(m.Resource).Namespace(o.GetNamespace()), nil
}

// Apply creates or updates each object with server-side apply (forced) as
// the admin. Namespaced objects without a namespace go to ns. When an object
// carries a status and its kind has a status subresource, the status is
// applied through it as well, so that tests can set what controllers would.
func (e *Env) Apply(ctx context.Context, ns string, objs ...*unstructured.Unstructured) error {
	var errs []error
	for _, o := range objs {
		if err := e.applyOne(ctx, ns, o.DeepCopy()); err != nil {
			errs = append(errs, fmt.Errorf("apply %s: %w", Describe(o), err))
		}
	}
	return errors.Join(errs...)
}

func (e *Env) applyOne(ctx context.Context, ns string, o *unstructured.Unstructured) error {
	ri, err := e.Resource(ctx, o, ns)
	if err != nil {
		return err
	}
	status, hasStatus := o.Object["status"]
	opts := metav1.ApplyOptions{FieldManager: FieldManager, Force: true}
	if _, err := ri.Apply(ctx, o.GetName(), o, opts); err != nil {
		return err
	}
	if !hasStatus {
		return nil
	}
	s := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": o.GetAPIVersion(), "kind": o.GetKind(),
		"metadata": map[string]any{"name": o.GetName(), "namespace": o.GetNamespace()},
		"status":   status,
	}}
	_, err = ri.ApplyStatus(ctx, o.GetName(), s, opts)
	if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
		return nil // no status subresource: the status went with the object
	}
	return err
}

// ApplyYAML parses and applies a YAML stream, failing t on error.
func (e *Env) ApplyYAML(t testing.TB, ns, data string) []*unstructured.Unstructured {
	t.Helper()
	objs := MustParseYAML(t, data)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.Apply(ctx, ns, objs...); err != nil {
		t.Fatalf("kubetest: %v", err)
	}
	return objs
}

// Delete deletes each object (absent ones are fine) as the admin.
func (e *Env) Delete(ctx context.Context, ns string, objs ...*unstructured.Unstructured) error {
	var errs []error
	for _, o := range objs {
		o = o.DeepCopy()
		ri, err := e.Resource(ctx, o, ns)
		if err == nil {
			err = ri.Delete(ctx, o.GetName(), metav1.DeleteOptions{})
		}
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete %s: %w", Describe(o), err))
		}
	}
	return errors.Join(errs...)
}

// DryRun asks the apiserver to create each object with dryRun=All and
// strict field validation, as the admin: every admission step and schema
// check runs, nothing is stored. Namespaced objects without a namespace are
// checked in ns (which must exist). Every rejected object is reported.
func (e *Env) DryRun(ctx context.Context, ns string, objs ...*unstructured.Unstructured) error {
	return e.DryRunAs(ctx, e.Admin, ns, objs...)
}

// DryRunAs is DryRun with the identity of cfg.
func (e *Env) DryRunAs(ctx context.Context, cfg *rest.Config, ns string, objs ...*unstructured.Unstructured) error {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	opts := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict}
	var errs []error
	for _, o := range objs {
		o = o.DeepCopy()
		ri, err := e.resourceFor(ctx, dyn, o, ns)
		if err == nil {
			_, err = ri.Create(ctx, o, opts)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("dry-run %s: %w", Describe(o), err))
		}
	}
	return errors.Join(errs...)
}

// ServerSideApply applies each object as `kubectl apply --server-side`
// does: field manager manager, conflicts with other managers refused (no
// --force-conflicts), strict field validation. With dryRun, every admission
// step and schema check runs and nothing is stored. Every rejected object is
// reported.
func (e *Env) ServerSideApply(ctx context.Context, manager, ns string, dryRun bool, objs ...*unstructured.Unstructured) error {
	opts := metav1.PatchOptions{FieldManager: manager, FieldValidation: metav1.FieldValidationStrict}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	var errs []error
	for _, o := range objs {
		o = o.DeepCopy()
		ri, err := e.Resource(ctx, o, ns)
		if err != nil {
			errs = append(errs, fmt.Errorf("apply %s: %w", Describe(o), err))
			continue
		}
		data, err := o.MarshalJSON()
		if err == nil {
			_, err = ri.Patch(ctx, o.GetName(), types.ApplyPatchType, data, opts)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("apply %s: %w", Describe(o), err))
		}
	}
	return errors.Join(errs...)
}

// Namespace creates a namespace named after t (plus a random suffix) and
// returns its name. Namespaces are never deleted: without a
// controller-manager they would stay Terminating anyway.
func (e *Env) Namespace(t testing.TB) string {
	t.Helper()
	name := namespaceName(t.Name())
	ns := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Apply(ctx, "", ns); err != nil {
		t.Fatalf("kubetest: %v", err)
	}
	return name
}

// namespaceName turns a test name into a DNS label with a random suffix.
func namespaceName(test string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(test) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	base := strings.Trim(b.String(), "-")
	if len(base) > 50 {
		base = strings.TrimRight(base[:50], "-")
	}
	if base == "" {
		base = "t"
	}
	return base + "-" + randSuffix()
}

// mapper maps kinds to resources through discovery, refreshing its cache
// when a kind is unknown (a CRD just installed).
type mapper struct {
	disco  discovery.CachedDiscoveryInterface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

func newMapper(cfg *rest.Config) (*mapper, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	cached := memory.NewMemCacheClient(dc)
	return &mapper{disco: cached, mapper: restmapper.NewDeferredDiscoveryRESTMapper(cached)}, nil
}

// mapping resolves gvk, retrying with a fresh discovery for up to 15 s.
func (m *mapper) mapping(ctx context.Context, gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	deadline := time.Now().Add(15 * time.Second)
	for {
		rm, err := m.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err == nil || !meta.IsNoMatchError(err) || time.Now().After(deadline) {
			return rm, err
		}
		m.mapper.Reset()
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %w", err, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
