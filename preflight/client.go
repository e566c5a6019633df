package preflight

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/codeloc/codeloc/internal/problem"
)

// Resources the preflight reads.
var (
	secretsGVR         = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	configMapsGVR      = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	serviceAccountsGVR = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	nodesGVR           = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	podsGVR            = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	resourceQuotasGVR  = schema.GroupVersionResource{Version: "v1", Resource: "resourcequotas"}
	obcGVR             = schema.GroupVersionResource{Group: "objectbucket.io", Version: "v1alpha1", Resource: "objectbucketclaims"}
	applicationsGVR    = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}
	cephClustersGVR    = schema.GroupVersionResource{Group: "ceph.rook.io", Version: "v1", Resource: "cephclusters"}
)

// client wraps the dynamic and metadata clients, bounds each call in time,
// retries a call the API server failed transiently (retry.go) and counts
// the HTTP requests sent.
type client struct {
	dyn      dynamic.Interface
	meta     metadata.Interface
	timeout  time.Duration
	retryFor time.Duration
	requests *atomic.Int64
	outages  *outages
}

// newClient builds the clients on one shared HTTP client that counts
// requests. It never builds a typed clientset: the CLI stays lean.
func newClient(cfg *rest.Config, timeout, retryFor time.Duration) (*client, error) {
	cfg = rest.CopyConfig(cfg)
	var n atomic.Int64
	o := &outages{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return metadataOnlyTransport{rt} })
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{rt, &n, o} })
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 50, 100 // a handful of requests: never throttle them
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = timeout
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, err
	}
	meta, err := metadata.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, err
	}
	return &client{dyn: dyn, meta: meta, timeout: timeout, retryFor: retryFor, requests: &n, outages: o}, nil
}

// countingTransport counts the requests that reach the network layer, and
// records those the API server failed transiently: client-go retries some
// itself (a GET on a reset connection or an EOF), retried the others.
type countingTransport struct {
	next    http.RoundTripper
	n       *atomic.Int64
	outages *outages
}

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.n.Add(1)
	resp, err := t.next.RoundTrip(r)
	if reason := transientRoundTrip(resp, err); reason != "" {
		t.outages.record(reason, true)
	} else if err == nil {
		t.outages.answered()
	}
	return resp, err
}

// metadataOnlyTransport drops the plain-object fallback that client-go's
// metadata client adds to its Accept header ("...;as=PartialObjectMetadata
// ...,application/json"): a server unable to answer with metadata only
// must fail (406) rather than send a Secret's data.
type metadataOnlyTransport struct{ next http.RoundTripper }

func (t metadataOnlyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	accept := r.Header.Get("Accept")
	if !strings.Contains(accept, "as=PartialObjectMetadata") {
		return t.next.RoundTrip(r)
	}
	var keep []string
	for _, mt := range strings.Split(accept, ",") {
		if strings.Contains(mt, "as=PartialObjectMetadata") {
			keep = append(keep, strings.TrimSpace(mt))
		}
	}
	r = r.Clone(r.Context())
	r.Header.Set("Accept", strings.Join(keep, ","))
	return t.next.RoundTrip(r)
}

// get reads one object, each attempt bounded by the call timeout.
func (c *client) get(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) (*unstructured.Unstructured, error) {
	return retried(ctx, c, func(ctx context.Context) (*unstructured.Unstructured, error) {
		return c.dyn.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	})
}

// getMetadata reads only an object's metadata (PartialObjectMetadata): for
// Secrets, the data never leaves the apiserver.
func (c *client) getMetadata(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) (*metav1.PartialObjectMetadata, error) {
	return retried(ctx, c, func(ctx context.Context) (*metav1.PartialObjectMetadata, error) {
		return c.meta.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	})
}

// listPageSize bounds each page of a list.
const listPageSize = 500

// list reads every item, page by page, each page bounded by the timeout.
func (c *client) list(ctx context.Context, gvr schema.GroupVersionResource, ns string, opts metav1.ListOptions) ([]unstructured.Unstructured, error) {
	opts.Limit = listPageSize
	var items []unstructured.Unstructured
	for {
		page, err := c.listPage(ctx, gvr, ns, opts)
		if err != nil {
			return nil, err
		}
		items = append(items, page.Items...)
		if opts.Continue = page.GetContinue(); opts.Continue == "" {
			return items, nil
		}
	}
}

func (c *client) listPage(ctx context.Context, gvr schema.GroupVersionResource, ns string, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	return retried(ctx, c, func(ctx context.Context) (*unstructured.UnstructuredList, error) {
		return c.dyn.Resource(gvr).Namespace(ns).List(ctx, opts)
	})
}

// objectNotFound reports whether err says that the named object does not
// exist, as opposed to its resource type not being served at all (both are
// 404s).
func objectNotFound(err error) bool {
	var se apierrors.APIStatus
	if !errors.As(err, &se) || !apierrors.IsNotFound(err) {
		return false
	}
	d := se.Status().Details
	return d != nil && d.Name != ""
}

// resourceNotServed reports a 404 for the resource type itself (CRD absent).
func resourceNotServed(err error) bool {
	return apierrors.IsNotFound(err) && !objectNotFound(err)
}

// apiProblem turns an unexpected API error into a problem at path: 403s are
// `forbidden` (the RBAC shipped with codeloc no longer matches), the rest
// `api-error`.
func apiProblem(path, what string, err error) problem.Problem {
	if apierrors.IsForbidden(err) {
		return problem.Problem{Code: CodeForbidden, Path: path,
			Message: fmt.Sprintf("may not %s: %s", what, statusMessage(err)),
			Hint:    "the preflight's Role (rendered) and ClusterRole codeloc-preflight (install bundle) must grant it; re-sync the Application or reinstall codeloc's RBAC"}
	}
	return problem.Problem{Code: CodeAPIError, Path: path,
		Message: fmt.Sprintf("cannot %s: %s", what, statusMessage(err)),
		Hint:    "check that the Kubernetes API is reachable and healthy; Argo CD's sync retry runs the preflight again"}
}

// statusMessage is err on one line: the API status's message when there is
// one, and how long it was retried when it was.
func statusMessage(err error) string {
	msg := err.Error()
	var se apierrors.APIStatus
	if errors.As(err, &se) && se.Status().Message != "" {
		msg = se.Status().Message
	}
	var gaveUp *retriesExhausted
	if errors.As(err, &gaveUp) {
		msg += gaveUp.suffix()
	}
	return strings.Join(strings.Fields(msg), " ")
}
