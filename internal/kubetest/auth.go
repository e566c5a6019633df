package kubetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

var (
	serviceAccounts = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	selfReviews     = schema.GroupVersionResource{Group: "authorization.k8s.io", Version: "v1", Resource: "selfsubjectaccessreviews"}
)

// ServiceAccountConfig creates the service account ns/name if it is absent,
// asks the TokenRequest API for a one-hour token (no controller-manager is
// needed for that) and returns a config authenticating with it.
func (e *Env) ServiceAccountConfig(ctx context.Context, ns, name string) (*rest.Config, error) {
	sa := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ServiceAccount",
		"metadata": map[string]any{"name": name, "namespace": ns},
	}}
	client := e.dyn.Resource(serviceAccounts).Namespace(ns)
	if _, err := client.Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("create service account %s/%s: %w", ns, name, err)
	}
	req := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     map[string]any{"expirationSeconds": int64(3600)},
	}}
	resp, err := client.Create(ctx, req, metav1.CreateOptions{}, "token")
	if err != nil {
		return nil, fmt.Errorf("request token for %s/%s: %w", ns, name, err)
	}
	token, _, _ := unstructured.NestedString(resp.Object, "status", "token")
	if token == "" {
		return nil, fmt.Errorf("token request for %s/%s returned no token", ns, name)
	}
	return e.TokenConfig(token), nil
}

// TokenConfig returns a copy of the admin config authenticating with token.
func (e *Env) TokenConfig(token string) *rest.Config {
	cfg := rest.CopyConfig(e.Admin)
	cfg.BearerToken = token
	return cfg
}

// Access is one authorization question: may the user do Verb on Resource?
type Access struct {
	Verb, Group, Resource, Subresource, Namespace, Name string
}

func (a Access) String() string {
	r := a.Resource
	if a.Group != "" {
		r += "." + a.Group
	}
	if a.Subresource != "" {
		r += "/" + a.Subresource
	}
	if a.Name != "" {
		r += "/" + a.Name
	}
	if a.Namespace != "" {
		r += " in " + a.Namespace
	}
	return a.Verb + " " + r
}

// CanI asks the apiserver, as cfg's user, whether a is allowed
// (SelfSubjectAccessReview, which every authenticated user may create).
func CanI(ctx context.Context, cfg *rest.Config, a Access) (bool, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return false, err
	}
	review := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
		"spec": map[string]any{"resourceAttributes": map[string]any{
			"verb": a.Verb, "group": a.Group, "resource": a.Resource, "subresource": a.Subresource,
			"namespace": a.Namespace, "name": a.Name,
		}},
	}}
	resp, err := dyn.Resource(selfReviews).Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	allowed, _, _ := unstructured.NestedBool(resp.Object, "status", "allowed")
	return allowed, nil
}

// WaitForAccess polls until cfg's user is allowed every access: RBAC
// objects take a moment to reach the authorizer's cache.
func WaitForAccess(ctx context.Context, cfg *rest.Config, accesses ...Access) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	for _, a := range accesses {
		for {
			ok, err := CanI(ctx, cfg, a)
			if ok {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("still not allowed to %s: %w (last error: %w)", a, ctx.Err(), err)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	return nil
}

func randSuffix() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
