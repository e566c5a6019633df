package preflight

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestTransient: what an API server restarting or overloaded gives is
// retried; an answer is not.
func TestTransient(t *testing.T) {
	gr := schema.GroupResource{Resource: "configmaps"}
	dial := func(errno syscall.Errno) error {
		return &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/api/v1/namespaces/dagster/configmaps/x",
			Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errno)}}
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"refused", dial(syscall.ECONNREFUSED), "connection refused"},
		{"reset", dial(syscall.ECONNRESET), "connection reset"},
		{"http2 lost", errors.New("http2: client connection lost"), "connection reset"},
		{"eof", &url.Error{Op: "Get", URL: "https://x", Err: io.EOF}, "connection closed"},
		{"unexpected eof", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), "connection closed"},
		{"goaway", errors.New("http2: server sent GOAWAY and closed the connection"), "connection closed"},
		{"503", apierrors.NewServiceUnavailable("apiserver is shutting down"), "503 Service Unavailable"},
		{"429", apierrors.NewTooManyRequests("slow down", 1), "429 Too Many Requests"},
		{"server timeout", apierrors.NewServerTimeout(gr, "get", 1), "server timeout"},
		{"504", apierrors.NewTimeoutError("etcd", 1), "server timeout"},
		{"call timeout", &url.Error{Op: "Get", URL: "https://x", Err: context.DeadlineExceeded}, "no answer within the call timeout"},
		{"forbidden", apierrors.NewForbidden(gr, "x", errors.New("no")), ""},
		{"not found", apierrors.NewNotFound(gr, "x"), ""},
		{"internal", apierrors.NewInternalError(errors.New("boom")), ""},
		{"tls", errors.New("tls: failed to verify certificate: x509: certificate signed by unknown authority"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := transient(tc.err); got != tc.want {
				t.Errorf("transient(%v) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}
