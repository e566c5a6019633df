package sidecar

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/codeloc/codeloc/plugin"
	"github.com/codeloc/codeloc/render/emit"

	"github.com/codeloc/codeloc/sidecar/cmpapi"
	"github.com/codeloc/codeloc/sidecar/cmpapi/cmptest"
)

// speedVariant is one way of rendering fixtures/citation once.
type speedVariant struct {
	name string
	run  func() error
}

// BenchmarkSpeed renders fixtures/citation once per variant per op, the
// variants interleaved so that the machine's load weighs on each alike,
// and reports each variant's p50 and p99 (ms) and the ratios the sidecar
// is held to:
//
//	render           in-process plugin.Generate and emit.Write, what
//	                 BenchmarkRender measures (no server, no stream)
//	sidecar-generate the sidecar's GenerateManifest alone, on a prepared
//	                 tarball of the Application's folder
//	sidecar-calls    what the repo-server asks the sidecar per render, on
//	                 prepared tarballs: CheckPluginConfiguration,
//	                 MatchRepository (the whole repo), GenerateManifest
//	stock-calls      the same calls to Argo CD's cmp-server running
//	                 `kustomize build .`
//	sidecar, stock   GenerateManifests, Argo CD's repo-server code, which
//	                 also tars the repo twice per render
//
//	go test ./sidecar -run '^$' -bench Speed -benchtime 300x
//
// Everything the benchmark writes goes under TMPDIR: the repository, the
// stock cmp-server's work dir (where it unpacks each request) and the
// repo-server's tarballs. TMPDIR=/dev/shm runs it on tmpfs, a folder on the
// disk (the default /tmp, here) on the disk; the sidecar writes nothing.
// CODELOC_SPEED_DISCOVERY=off runs both servers without plugin.yaml's
// discover block (speedNoDiscovery).
func BenchmarkSpeed(b *testing.B) {
	variants := speedVariants(b)
	durations := make([][]time.Duration, len(variants))
	for _, v := range variants { // warm up
		if err := v.run(); err != nil {
			b.Fatalf("%s: %v", v.name, err)
		}
	}
	b.ResetTimer()
	for i := range b.N {
		for k := range variants {
			j := (i + k) % len(variants) // each in every position in turn
			start := time.Now()
			err := variants[j].run()
			durations[j] = append(durations[j], time.Since(start))
			if err != nil {
				b.Fatalf("%s: %v", variants[j].name, err)
			}
		}
	}
	b.StopTimer()
	p50 := map[string]float64{}
	for j, v := range variants {
		slices.Sort(durations[j])
		p50[v.name] = ms(percentile(durations[j], 50))
		b.ReportMetric(p50[v.name], v.name+"-p50-ms")
		b.ReportMetric(ms(percentile(durations[j], 99)), v.name+"-p99-ms")
	}
	b.ReportMetric(p50["sidecar"]/p50["stock"], "sidecar/stock")
	b.ReportMetric(p50["sidecar-calls"]/p50["stock-calls"], "calls/stock-calls")
	b.ReportMetric(p50["sidecar-generate"]/p50["render"], "generate/render")
}

// speedVariants starts the servers and prepares the tarballs.
func speedVariants(b *testing.B) []speedVariant {
	kustomize := kustomizeBinary(b)
	sockDir(b)
	ours := startOurs(b, exampleContract, withoutDiscovery(b))
	stock := startKustomize(b, kustomize)
	calls := prepareCalls(b)
	oursClient, stockClient := clientOf(b, ours.socket), clientOf(b, stock)
	inProcess := inProcessRender(b)
	return []speedVariant{
		{"render", inProcess},
		{"sidecar-generate", func() error { return calls.generate(oursClient) }},
		{"sidecar-calls", func() error { return calls.all(oursClient) }},
		{"stock-calls", func() error { return calls.all(stockClient) }},
		{"sidecar", func() error { return viaRepoServer("codeloc-v1") }},
		{"stock", func() error { return viaRepoServer("kustomize-v1") }},
	}
}

// startKustomize runs Argo CD's cmp-server with `kustomize build .` on the
// socket folder sockDir set.
func startKustomize(b *testing.B, kustomize string) string {
	dir := b.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "kustomize-plugin.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	data = bytes.Replace(data, []byte("command: [kustomize,"), []byte("command: ["+strconv.Quote(kustomize)+","), 1)
	if err := writeFile(filepath.Join(dir, "plugin.yaml"), data); err != nil {
		b.Fatal(err)
	}
	return startStock(b, dir, speedNoDiscovery())
}

// speedNoDiscovery reports CODELOC_SPEED_DISCOVERY=off: both servers then
// run without plugin.yaml's discover block, as a platform whose
// Applications all name the plugin may run them (docs/operator-guide.md):
// the repo-server makes no MatchRepository call, so that it tars and
// uploads the repository once per render instead of twice.
func speedNoDiscovery() bool { return os.Getenv("CODELOC_SPEED_DISCOVERY") == "off" }

// withoutDiscovery points the sidecar at a copy of plugin.yaml without its
// discover block when speedNoDiscovery.
func withoutDiscovery(b *testing.B) func(*Options) {
	return func(o *Options) {
		if !speedNoDiscovery() {
			return
		}
		data, err := os.ReadFile(filepath.Join(moduleRoot, "plugin.yaml"))
		if err != nil {
			b.Fatal(err)
		}
		const block = "  discover:\n    fileName: code-location.manifest.yaml\n"
		if !strings.Contains(string(data), block) {
			b.Fatalf("plugin.yaml: no %q to remove", block)
		}
		dir := b.TempDir()
		if err := writeFile(filepath.Join(dir, "plugin.yaml"), []byte(strings.Replace(string(data), block, "", 1))); err != nil {
			b.Fatal(err)
		}
		o.ConfigDir = dir
	}
}

// viaRepoServer renders citation with Argo CD's GenerateManifests.
func viaRepoServer(pluginName string) error {
	res, err := generate(context.Background(), "citation", genOpts{plugin: pluginName, generatePath: true})
	if err == nil && len(res.Manifests) == 0 {
		err = fmt.Errorf("no manifests")
	}
	return err
}

// inProcessRender is the render alone: plugin.Generate, then the YAML
// stream `codeloc generate` writes.
func inProcessRender(b *testing.B) func() error {
	app := filepath.Join(repoRoot, "fixtures", "citation")
	src := plugin.Source{AppDir: app, RepoRoot: repoRoot, Environ: citationEnv(), Contracts: plugin.NewContracts(exampleContract)}
	return func() error {
		_, res, err := plugin.Generate(src)
		if err != nil {
			return err
		}
		_, err = emit.Write(res.Objects)
		return err
	}
}

func citationEnv() []string {
	return []string{"ARGOCD_APP_NAME=citation", "ARGOCD_APP_NAMESPACE=dagster", "ARGOCD_APP_SOURCE_PATH=fixtures/citation",
		"ARGOCD_APP_REVISION=0123456789abcdef0123456789abcdef01234567", "KUBE_API_VERSIONS=" + strings.Join(apiVersions, ","), "ARGOCD_APP_PARAMETERS=null"}
}

// preparedCalls are the streams the repo-server sends for one render of
// citation with manifest-generate-paths, tarred once.
type preparedCalls struct {
	matchHeader, generateHeader *cmpapi.AppStreamRequest
	repo, app                   []byte
	noMatch                     bool // no discovery: no MatchRepository call
}

func prepareCalls(b testing.TB) *preparedCalls {
	app := filepath.Join(repoRoot, "fixtures", "citation")
	p := &preparedCalls{noMatch: speedNoDiscovery()}
	var err error
	if p.matchHeader, p.repo, err = tarball(repoRoot, app); err != nil {
		b.Fatal(err)
	}
	if p.generateHeader, p.app, err = tarball(app, app); err != nil {
		b.Fatal(err)
	}
	return p
}

// tarball is root as the repo-server streams it for the app at appPath.
func tarball(root, appPath string) (*cmpapi.AppStreamRequest, []byte, error) {
	data, header, err := cmptest.CompressRepo(root, appPath, citationEnv())
	return header, data, err
}

// all makes the repo-server's calls for one render.
func (p *preparedCalls) all(client cmpapi.ConfigManagementPluginServiceClient) error {
	ctx := context.Background()
	if _, err := client.CheckPluginConfiguration(ctx, &emptypb.Empty{}); err != nil {
		return err
	}
	if p.noMatch {
		return p.generate(client)
	}
	match, err := client.MatchRepository(ctx)
	if err != nil {
		return err
	}
	if err := sendChunks(match, p.matchHeader, p.repo); err != nil {
		return err
	}
	if res, err := match.CloseAndRecv(); err != nil || !res.GetIsSupported() {
		return fmt.Errorf("match: %v %s", res, fmt.Sprint(err))
	}
	if _, err := client.CheckPluginConfiguration(ctx, &emptypb.Empty{}); err != nil {
		return err
	}
	return p.generate(client)
}

// generate makes the GenerateManifest call alone.
func (p *preparedCalls) generate(client cmpapi.ConfigManagementPluginServiceClient) error {
	st, err := client.GenerateManifest(context.Background())
	if err != nil {
		return err
	}
	if err := sendChunks(st, p.generateHeader, p.app); err != nil {
		return err
	}
	res, err := st.CloseAndRecv()
	if err == nil && len(res.Manifests) == 0 {
		err = fmt.Errorf("no manifests")
	}
	return err
}

// sendChunks sends a header and data in the repo-server's chunk size.
func sendChunks(s cmpapi.StreamSender, header *cmpapi.AppStreamRequest, data []byte) error {
	if err := s.Send(header); err != nil {
		return err
	}
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 1024) // ARGOCD_CMP_CHUNK_SIZE's default
		if err := s.Send(cmpapi.FileRequest(rest[:n])); err != nil {
			return err
		}
		rest = rest[n:]
	}
	return nil
}

func clientOf(b testing.TB, socket string) cmpapi.ConfigManagementPluginServiceClient {
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	return cmpapi.NewConfigManagementPluginServiceClient(conn)
}

// BenchmarkThroughput reports renders/s at concurrency 8 for the sidecar
// and for Argo CD's cmp-server running `kustomize build .`, on the
// repo-server's calls with prepared tarballs (calls) and through
// GenerateManifests (repo-server); the runs alternate in four rounds so
// that the machine's load weighs on each alike. b.N renders per variant.
//
//	go test ./sidecar -run '^$' -bench Throughput -benchtime 200x
func BenchmarkThroughput(b *testing.B) {
	kustomize := kustomizeBinary(b)
	sockDir(b)
	ours := startOurs(b, exampleContract)
	stock := startKustomize(b, kustomize)
	calls := prepareCalls(b)
	oursClient, stockClient := clientOf(b, ours.socket), clientOf(b, stock)
	variants := []speedVariant{
		{"sidecar-calls", func() error { return calls.all(oursClient) }},
		{"stock-calls", func() error { return calls.all(stockClient) }},
		{"sidecar", func() error { return viaRepoServer("codeloc-v1") }},
		{"stock", func() error { return viaRepoServer("kustomize-v1") }},
	}
	const concurrency, rounds = 8, 4
	spent := make([]time.Duration, len(variants))
	b.ResetTimer()
	for r := range rounds {
		n := b.N/rounds + min(1, max(0, b.N%rounds-r))
		for j, v := range variants {
			d, err := concurrently(concurrency, n, v.run)
			if err != nil {
				b.Fatalf("%s: %v", v.name, err)
			}
			spent[j] += d
		}
	}
	b.StopTimer()
	rate := map[string]float64{}
	for j, v := range variants {
		rate[v.name] = float64(b.N) / spent[j].Seconds()
		b.ReportMetric(rate[v.name], v.name+"-renders/s")
	}
	b.ReportMetric(rate["sidecar-calls"]/rate["stock-calls"], "calls-x-stock")
	b.ReportMetric(rate["sidecar"]/rate["stock"], "sidecar-x-stock")
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// concurrently runs f n times from c workers and returns the wall time.
func concurrently(c, n int, f func() error) (time.Duration, error) {
	var next atomic.Int64
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	start := time.Now()
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				if err := f(); err != nil {
					mu.Lock()
					first = firstErr(first, err)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start), first
}
