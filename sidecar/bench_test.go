package sidecar

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/codeloc/codeloc/sidecar/cmpapi"
	"github.com/codeloc/codeloc/sidecar/cmpapi/cmptest"
)

// BenchmarkGenerateManifests measures one render of fixtures/citation per
// op, through the plugin socket, driven by Argo CD's repo-server code
// (GenerateManifests with manifest-generate-paths: "."), for:
//
//	(a) sidecar:         codeloc-sidecar, in-process render (and
//	    sidecar-only: GenerateManifest alone, on a prepared tarball);
//	(b) stock-codeloc:   Argo CD's cmp-server executing `codeloc generate`;
//	(c) stock-kustomize: Argo CD's cmp-server executing `kustomize build .`,
//	    the plain Argo CD kustomize cost ($CODELOC_KUSTOMIZE, else PATH;
//	    `bash .ci/tools.sh` installs v5.4.3).
//
// Each reports p50 and p99 latency in ms. Allocations count this process
// only: the client and (a)'s server, not (b)'s and (c)'s child processes.
//
//	go test ./sidecar -run '^$' -bench GenerateManifests -benchtime 200x
func BenchmarkGenerateManifests(b *testing.B) {
	b.Run("a-sidecar", func(b *testing.B) {
		sockDir(b)
		startOurs(b, exampleContract)
		measure(b, "codeloc-v1")
	})
	b.Run("a-sidecar-only", func(b *testing.B) {
		// The sidecar's own share: a prepared tarball sent on one open
		// connection, no repo-server tar step and no discovery call.
		sockDir(b)
		s := startOurs(b, exampleContract)
		direct(b, s.socket)
	})
	b.Run("b-stock-codeloc", func(b *testing.B) {
		codelocOnPath(b)
		sockDir(b)
		setenv(b, "CODELOC_CONTRACT", exampleContract)
		startStock(b, moduleRoot, false)
		measure(b, "codeloc-v1")
	})
	b.Run("c-stock-kustomize", func(b *testing.B) {
		kustomize := kustomizeBinary(b)
		sockDir(b)
		startKustomize(b, kustomize)
		measure(b, "kustomize-v1")
	})
}

// kustomizeBinary finds the kustomize CLI or skips (fails under CI=true).
func kustomizeBinary(b *testing.B) string {
	if k := os.Getenv("CODELOC_KUSTOMIZE"); k != "" {
		return k
	}
	if k, err := exec.LookPath("kustomize"); err == nil {
		return k
	}
	msg := "no kustomize: set CODELOC_KUSTOMIZE=$(bash .ci/tools.sh | tail -n1)/kustomize"
	if os.Getenv("CI") == "true" {
		b.Fatal(msg)
	}
	b.Skip(msg)
	return ""
}

// measure renders citation b.N times and reports latency percentiles.
func measure(b *testing.B, pluginName string) {
	b.Helper()
	opts := genOpts{plugin: pluginName, generatePath: true}
	if _, err := generate(context.Background(), "citation", opts); err != nil { // warm up
		b.Fatal(err)
	}
	durations := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		res, err := generate(context.Background(), "citation", opts)
		durations = append(durations, time.Since(start))
		if err != nil || len(res.Manifests) == 0 {
			b.Fatalf("render: %v", err)
		}
	}
	b.StopTimer()
	slices.Sort(durations)
	b.ReportMetric(ms(percentile(durations, 50)), "p50-ms")
	b.ReportMetric(ms(percentile(durations, 99)), "p99-ms")
}

func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p+99)/100 - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkSidecarRSS starts the built codeloc-sidecar binary, renders
// through it with GenerateManifests (mixed good and invalid fixtures) and
// reports its resident memory from /proc/<pid>/status: at start, after 100
// renders and after 1,000 (b.N is ignored: run with -benchtime 1x), the
// peak, and the files it left in its TMPDIR (must be 0: requests are
// unpacked in memory).
//
//	go test ./sidecar -run '^$' -bench SidecarRSS -benchtime 1x
func BenchmarkSidecarRSS(b *testing.B) {
	bin := sidecarBinary(b)
	socks := sockDir(b)
	tmp := b.TempDir()
	cmd := exec.Command(bin, "--contract", exampleContract, "--config-dir", moduleRoot, "--log-level", "warn")
	cmd.Env = append(os.Environ(), "ARGOCD_PLUGINSOCKFILEPATH="+socks, "TMPDIR="+tmp)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}()
	socket := filepath.Join(socks, "codeloc-v1.sock")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if accepting(socket) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("codeloc-sidecar did not start")
		}
	}
	mixed := []string{"citation", "mediawatch", "invalid/bad-names", "invalid/policy-kinds"}
	status := func() (rss, hwm float64) {
		return procStatus(b, cmd.Process.Pid, "VmRSS"), procStatus(b, cmd.Process.Pid, "VmHWM")
	}
	rss0, _ := status()
	b.ResetTimer()
	var rss100 float64
	for i := range 1000 {
		_, err := generate(context.Background(), mixed[i%len(mixed)], genOpts{generatePath: true})
		if (err == nil) != (i%len(mixed) < 2) {
			b.Fatalf("render %d: %v", i, err)
		}
		if i == 99 {
			rss100, _ = status()
		}
	}
	b.StopTimer()
	rss, hwm := status()
	left, _ := os.ReadDir(tmp)
	b.ReportMetric(rss0, "rss-at-start-MiB")
	b.ReportMetric(rss100, "rss-after-100-MiB")
	b.ReportMetric(rss, "rss-after-1000-MiB")
	b.ReportMetric(hwm, "peak-rss-MiB")
	b.ReportMetric(float64(len(left)), "tmp-files-left")
}

// direct sends a prepared tarball of fixtures/citation straight to
// GenerateManifest b.N times on one connection.
func direct(b *testing.B, socket string) {
	b.Helper()
	app := filepath.Join(repoRoot, "fixtures", "citation")
	env := []string{"ARGOCD_APP_NAME=citation", "ARGOCD_APP_NAMESPACE=dagster", "ARGOCD_APP_SOURCE_PATH=fixtures/citation",
		"KUBE_API_VERSIONS=" + strings.Join(apiVersions, ","), "ARGOCD_APP_PARAMETERS=null"}
	data, header, err := cmptest.CompressRepo(app, app, env)
	if err != nil {
		b.Fatal(err)
	}
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	client := cmpapi.NewConfigManagementPluginServiceClient(conn)
	once := func() error {
		stream, err := client.GenerateManifest(context.Background())
		if err != nil {
			return err
		}
		if err := stream.Send(header); err != nil {
			return err
		}
		if err := stream.Send(cmpapi.FileRequest(data)); err != nil {
			return err
		}
		res, err := stream.CloseAndRecv()
		if err == nil && len(res.Manifests) == 0 {
			err = fmt.Errorf("no manifests")
		}
		return err
	}
	if err := once(); err != nil {
		b.Fatal(err)
	}
	durations := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		err := once()
		durations = append(durations, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	slices.Sort(durations)
	b.ReportMetric(ms(percentile(durations, 50)), "p50-ms")
	b.ReportMetric(ms(percentile(durations, 99)), "p99-ms")
}
