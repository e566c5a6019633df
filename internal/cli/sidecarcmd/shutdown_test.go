package sidecarcmd

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/codeloc/codeloc/internal/testbuf"
	"github.com/codeloc/codeloc/validate"

	"github.com/codeloc/codeloc/sidecar/cmpapi"
	"github.com/codeloc/codeloc/sidecar/cmpapi/cmptest"
)

// inFlight is how many requests are in flight when SIGTERM comes.
const inFlight = 16

// TestSIGTERMInFlight sends SIGTERM while 16 GenerateManifest requests are
// in flight (each has sent its header and half of its repository): the
// socket goes at once and new calls are refused, on a new connection as on
// an open one; the 16 finish their upload and get their manifests within
// the drain timeout; run returns 0; the socket is gone, and no file was
// created in TMPDIR (requests are unpacked in memory).
func TestSIGTERMInFlight(t *testing.T) {
	socks, tmp := t.TempDir(), t.TempDir()
	t.Setenv("ARGOCD_PLUGINSOCKFILEPATH", socks)
	contract := filepath.Join(t.TempDir(), "contract.yaml")
	if err := os.WriteFile(contract, validate.ExampleContract, 0o644); err != nil {
		t.Fatal(err)
	}
	header, data := citationStream(t)
	t.Setenv("TMPDIR", tmp) // after citationStream, whose tarball goes there
	// The lint's parse cache is on in a main package's test binary: not
	// under the user's home.
	t.Setenv("CODELOC_CACHE_DIR", t.TempDir())
	metrics := "http://" + freeAddr(t) + "/metrics"
	logs := &testbuf.Buffer{}
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"--contract", contract, "--config-dir", "../../..", "--shutdown-timeout", "20s",
			"--metrics-addr", strings.TrimSuffix(strings.TrimPrefix(metrics, "http://"), "/metrics")}, io.Discard, logs)
	}()
	socket := filepath.Join(socks, "codeloc-v1.sock")
	waitUntil(t, "the socket", logs, func() bool { _, err := os.Stat(socket); return err == nil })
	client := dialSocket(t, socket)
	streams := make([]cmpapi.ConfigManagementPluginService_GenerateManifestClient, inFlight)
	for i := range streams {
		// WaitForReady: bind(2) creates the socket file before listen(2), so
		// the first dial may be refused; gRPC dials again instead of failing.
		st, err := client.GenerateManifest(context.Background(), grpc.WaitForReady(true))
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Send(header); err != nil {
			t.Fatal(err)
		}
		if err := st.Send(cmpapi.FileRequest(data[:len(data)/2])); err != nil {
			t.Fatal(err)
		}
		streams[i] = st
	}
	waitUntil(t, "16 requests in flight", logs, func() bool { return inFlightNow(metrics) == inFlight })

	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the socket to go", logs, func() bool { _, err := os.Stat(socket); return os.IsNotExist(err) })
	refused(t, "on a new connection", dialSocket(t, socket))
	refused(t, "on the open connection", client)

	finish(t, streams, data[len(data)/2:])
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d; logs:\n%s", code, logs)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return 30s after SIGTERM")
	}
	if e, err := os.ReadDir(tmp); err != nil || len(e) > 0 {
		t.Errorf("files created in TMPDIR: %v %v", e, err)
	}
	if _, err := os.Stat(socket); !os.IsNotExist(err) {
		t.Errorf("socket left: %v", err)
	}
}

// citationStream is fixtures/citation as the repo-server streams it with
// manifest-generate-paths: the header, then the tarball.
func citationStream(t *testing.T) (*cmpapi.AppStreamRequest, []byte) {
	t.Helper()
	app, err := filepath.Abs(filepath.Join("..", "..", "..", "fixtures", "citation"))
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"ARGOCD_APP_NAME=citation", "ARGOCD_APP_NAMESPACE=dagster", "ARGOCD_APP_SOURCE_PATH=fixtures/citation",
		"KUBE_API_VERSIONS=v1,apps/v1,batch/v1,rbac.authorization.k8s.io/v1,objectbucket.io/v1alpha1", "ARGOCD_APP_PARAMETERS=null"}
	data, header, err := cmptest.CompressRepo(app, app, env)
	if err != nil {
		t.Fatal(err)
	}
	return header, data
}

func dialSocket(t *testing.T, socket string) cmpapi.ConfigManagementPluginServiceClient {
	t.Helper()
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return cmpapi.NewConfigManagementPluginServiceClient(conn)
}

// refused checks a new call fails once shutdown began.
func refused(t *testing.T, where string, client cmpapi.ConfigManagementPluginServiceClient) {
	t.Helper()
	// gRPC's graceful stop closes the listener (the socket goes), then
	// drains each open connection: a call sent before the client reads the
	// server's GOAWAY may still be served. What must hold is that calls are
	// refused once the drain has begun, so the check waits for that, within
	// a bound that only stops a hang.
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := client.CheckPluginConfiguration(ctx, &emptypb.Empty{})
		cancel()
		switch {
		case err != nil && strings.Contains(err.Error(), "Unavailable"):
			return
		case err != nil:
			t.Errorf("a new call %s: %v, want Unavailable", where, err)
			return
		case time.Now().After(deadline):
			t.Errorf("new calls %s were still served 10s after SIGTERM", where)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// finish sends the rest of each in-flight upload and checks each answer.
func finish(t *testing.T, streams []cmpapi.ConfigManagementPluginService_GenerateManifestClient, rest []byte) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(streams))
	for i, st := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := st.Send(cmpapi.FileRequest(rest)); err != nil {
				errs <- fmt.Errorf("request %d: sending: %w", i, err)
				return
			}
			res, err := st.CloseAndRecv()
			switch {
			case err != nil:
				errs <- fmt.Errorf("request %d: %w", i, err)
			case len(res.GetManifests()) == 0:
				errs <- fmt.Errorf("request %d: no manifests", i)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// waitUntil waits for a state; the bound only stops a test that would hang.
func waitUntil(t *testing.T, what string, logs fmt.Stringer, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s; logs:\n%s", what, logs)
		}
	}
}

// freeAddr is a local TCP address nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// inFlightNow reads codeloc_renders_in_flight from the sidecar's /metrics
// (-1 when it cannot).
func inFlightNow(url string) int {
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := c.Get(url)
	if err != nil {
		return -1
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "codeloc_renders_in_flight "); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return -1
			}
			return n
		}
	}
	return -1
}
