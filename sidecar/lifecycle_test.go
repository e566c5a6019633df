package sidecar

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"google.golang.org/protobuf/testing/protocmp"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/codeloc/codeloc/internal/fsys"

	"github.com/codeloc/codeloc/sidecar/cmpapi"
	"github.com/codeloc/codeloc/sidecar/cmpapi/cmptest"
)

// dial connects a raw plugin client to a socket.
func dial(t *testing.T, socket string) (cmpapi.ConfigManagementPluginServiceClient, *grpc.ClientConn) {
	t.Helper()
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return cmpapi.NewConfigManagementPluginServiceClient(conn), conn
}

// tgz builds a gzipped tarball; a value starting with "->" is a symlink.
func tgz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		body := files[name]
		h := &tar.Header{Name: name, Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(body))}
		if target, ok := strings.CutPrefix(body, "->"); ok {
			h = &tar.Header{Name: name, Mode: 0o777, Typeflag: tar.TypeSymlink, Linkname: target}
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sendTarball streams a hand-made tarball as the repo-server would.
func sendTarball(stream cmpapi.ConfigManagementPluginService_GenerateManifestClient, appRelPath string, data []byte) error {
	sum := sha256.Sum256(data)
	err := stream.Send(&cmpapi.AppStreamRequest{Request: &cmpapi.AppStreamRequest_Metadata{Metadata: &cmpapi.ManifestRequestMetadata{
		AppName: "evil", AppRelPath: appRelPath, Checksum: hex.EncodeToString(sum[:]), Size: int64(len(data)),
		Env: []*cmpapi.EnvEntry{{Name: "ARGOCD_APP_SOURCE_PATH", Value: appRelPath}, {Name: "ARGOCD_APP_NAMESPACE", Value: "dagster"}},
	}}})
	if err != nil {
		return err
	}
	return stream.Send(cmpapi.FileRequest(data))
}

// TestSymlinkEscape checks that a repository holding a link out of it is
// refused, through the repo-server's own tar step and with a tarball
// built by hand.
func TestSymlinkEscape(t *testing.T) {
	sockDir(t)
	s := startOurs(t, exampleContract)

	t.Run("GenerateManifests", func(t *testing.T) {
		repo := filepath.Join(t.TempDir(), "repo")
		if err := copyTree(filepath.Join(repoRoot, "fixtures", "mediawatch"), filepath.Join(repo, "fixtures", "evil")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../../../outside.yaml", filepath.Join(repo, "fixtures", "evil", "extra.yaml")); err != nil {
			t.Fatal(err)
		}
		_, err := generate(context.Background(), "evil", genOpts{repo: repo})
		if want := "illegal filepath in symlink"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	})

	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"relative link", map[string]string{
			"fixtures/evil/code-location.manifest.yaml": "codeLocation: evil\n",
			"fixtures/evil/passwd":                      "->../../../etc/passwd",
		}, "illegal filepath in symlink"},
		{"path out of the folder", map[string]string{
			"../evil/code-location.manifest.yaml": "codeLocation: evil\n",
		}, "illegal filepath in archive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, _ := dial(t, s.socket)
			stream, err := client.GenerateManifest(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if err := sendTarball(stream, "fixtures/evil", tgz(t, tt.files)); err != nil {
				t.Fatal(err)
			}
			_, err = stream.CloseAndRecv()
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "InvalidArgument") {
				t.Errorf("error %v, want InvalidArgument %q", err, tt.want)
			}
		})
	}
}

// TestUnpackLinks checks the links of an archive as production unpacks
// it (Server.unpack: the unpacker checks each link's text as it makes it,
// then every link once all exist): what stays inside is kept, a dangling
// link is left to the reader, the rest is refused. Argo CD's Untgz already
// refuses much of what a tarball can express; these archives are made by
// hand.
func TestUnpackLinks(t *testing.T) {
	link := func(name, target string) entry { return special(name, tar.TypeSymlink, target) }
	tests := []struct {
		name    string
		prefix  string // the repo path of the folder sent
		entries []entry
		want    string // "" for no error
	}{
		{"inside", "", []entry{file("sub/a.yaml", "a"), link("sub/link", "a.yaml")}, ""},
		{"inside a sub-folder sent", "app", []entry{file("sub/a.yaml", "a"), link("sub/link", "a.yaml")}, ""},
		{"dangling", "", []entry{link("sub/link", "missing.yaml")}, ""},
		{"a chain inside", "", []entry{file("top.yaml", "t"), link("sub/l1", "l2"), link("sub/l2", "../top.yaml")}, ""},
		{"a linked folder, then a file below it", "", []entry{file("dir/x.yaml", "x"), link("sub/d", "../dir"), link("sub/x", "d/x.yaml")}, ""},
		{"parent", "", []entry{link("sub/link", "../../outside.yaml")}, "illegal filepath in symlink: sub/link -> ../../outside.yaml"},
		{"parent of a sub-folder sent", "app", []entry{link("sub/link", "../../outside.yaml")}, "illegal filepath in symlink: app/sub/link -> ../../outside.yaml"},
		{"a .. after a link", "", []entry{link("sub/up", "../.."), link("sub/link", "up/../../outside.yaml")}, "illegal filepath in symlink: sub/up -> ../.."},
		// The target is made clean as committed: up/.. goes, and the link
		// dangles inside instead of reaching outside.yaml through up.
		{"a .. after a link, cleaned", "", []entry{link("sub/up", ".."), link("sub/link", "up/../outside.yaml")}, ""},
		{"absolute", "", []entry{link("sub/link", "/etc/hostname")}, "symbolic link sub/link points outside the repository"},
		{"loop", "", []entry{link("sub/l1", "l2"), link("sub/l2", "l1")}, "symbolic link sub/l1 cannot be resolved"},
		{"itself", "", []entry{link("sub/link", "link")}, "symbolic link sub/link cannot be resolved"},
		{"a link where a folder goes", "", []entry{file("dir/x.yaml", "x"), link("sub", "dir"), file("sub/y.yaml", "y")}, "sub clashes with an earlier entry of the archive"},
		{"a file through a link", "", []entry{file("dir/x.yaml", "x"), link("sub/x.yaml", "../dir/x.yaml"), file("sub/x.yaml", "y")}, "sub/x.yaml clashes with an earlier entry of the archive"},
		{"a link over a file", "", []entry{file("sub/x.yaml", "x"), link("sub/x.yaml", "y.yaml")}, "sub/x.yaml clashes with an earlier entry of the archive"},
		{"a file over a folder", "", []entry{file("sub/x/a.yaml", "x"), file("sub/x", "y")}, "sub/x clashes with an earlier entry of the archive"},
	}
	cfg, err := LoadPluginConfig(moduleRoot)
	must(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mem := fsys.NewMemory()
			dest := path.Join(memRepo, tt.prefix)
			must(t, mem.MkdirAll(dest))
			must(t, mem.WriteFile("/outside.yaml", []byte("x")))
			must(t, mem.WriteFile(memRepo+"/outside.yaml", []byte("x")))
			data := archiveOf(t, tt.entries...)
			srv := &Server{cfg: cfg, limits: DefaultLimits()}
			err := srv.unpack(context.Background(), &chunks{data: data}, mem, tt.prefix, hexSum(data))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, errRepo)):
				t.Errorf("error %v, want a refusal %q", err, tt.want)
			}
			if tt.want == "" { // every link made resolves inside, or dangles
				for _, e := range tt.entries {
					if e.h.Typeflag != tar.TypeSymlink {
						continue
					}
					p := path.Join(dest, e.h.Name)
					if _, err := mem.Lstat(p); err != nil {
						t.Errorf("%s was not made: %v", e.h.Name, err)
					}
					if to, err := mem.EvalSymlinks(p); err == nil && (!within(to, dest) || path.Base(to) == "outside.yaml") {
						t.Errorf("%s resolves to %s, outside", e.h.Name, to)
					}
				}
			}
		})
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestStalledUpload checks a client that stops sending is cut at its
// deadline.
func TestStalledUpload(t *testing.T) {
	sockDir(t)
	s := startOurs(t, exampleContract)
	client, _ := dial(t, s.socket)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	stream, err := client.GenerateManifest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	data := tgz(t, map[string]string{"fixtures/x/code-location.manifest.yaml": "codeLocation: x\n"})
	sum := sha256.Sum256(data)
	err = stream.Send(&cmpapi.AppStreamRequest{Request: &cmpapi.AppStreamRequest_Metadata{Metadata: &cmpapi.ManifestRequestMetadata{
		AppRelPath: "fixtures/x", Checksum: hex.EncodeToString(sum[:]), Size: int64(len(data)),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(cmpapi.FileRequest(data[:10])); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done() // the client never finishes its upload
	if _, err := stream.CloseAndRecv(); err == nil || !strings.Contains(err.Error(), "DeadlineExceeded") {
		t.Errorf("error %v, want DeadlineExceeded", err)
	}
}

// TestGracefulShutdown stops the sidecar while a render is in flight: the
// socket goes at once, the render finishes and is answered, Run returns.
func TestGracefulShutdown(t *testing.T) {
	sockDir(t)
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	s := startOurs(t, exampleContract, func(o *Options) {
		o.beforeRender = func(context.Context) {
			once.Do(func() { close(entered) })
			<-release
		}
	})
	result := make(chan error, 1)
	go func() {
		_, err := generate(context.Background(), "citation", genOpts{})
		result <- err
	}()
	<-entered
	s.cancel() // what SIGTERM does in internal/cli/sidecarcmd
	s.cancel = nil
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(s.socket); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the socket is still there 5s after shutdown began")
		}
	}
	select {
	case err := <-result:
		t.Fatalf("the in-flight request ended before its render: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if err := <-result; err != nil {
		t.Errorf("in-flight request: %v", err)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
}

// freeAddr returns a local TCP address nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// TestObservability checks /healthz, /metrics, gRPC health and the JSON
// log lines, which never carry credentials.
func TestObservability(t *testing.T) {
	sockDir(t)
	addr := freeAddr(t)
	s := startOurs(t, exampleContract, func(o *Options) { o.MetricsAddr = addr })
	if code, body := httpGet(t, "http://"+addr+"/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	_, conn := dial(t, s.socket)
	h, err := grpc_health_v1.NewHealthClient(conn).Check(context.Background(), &grpc_health_v1.HealthCheckRequest{})
	if err != nil || h.Status != grpc_health_v1.HealthCheckResponse_SERVING {
		t.Errorf("gRPC health: %v %v", h, err)
	}
	secretURL := "https://robot:tok3n-s3cret@git.example.com/atlas/atlas.git"
	if _, err := generate(context.Background(), "citation", genOpts{repoURL: secretURL}); err != nil {
		t.Fatal(err)
	}
	if _, err := generate(context.Background(), "invalid/bad-names", genOpts{repoURL: secretURL}); err == nil {
		t.Fatal("bad-names rendered")
	}
	_, metrics := httpGet(t, "http://"+addr+"/metrics")
	for _, want := range []string{
		`codeloc_render_duration_seconds_count{outcome="ok"} 1`,
		`codeloc_render_duration_seconds_count{outcome="invalid"} 1`,
		`codeloc_receive_duration_seconds_count 2`,
		`codeloc_render_failures_total{code="bad-name"} 1`,
		`codeloc_render_failures_total{code="unknown-secret"} 1`,
		`codeloc_contract_loads_total 1`,
		`codeloc_renders_in_flight 0`,
		`go_goroutines `,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics has no %q", want)
		}
	}
	if strings.Contains(s.logs.String(), "tok3n") {
		t.Errorf("logs carry a credential:\n%s", s.logs)
	}
	var renders []map[string]any
	for _, l := range logLines(t, s.logs) {
		if l["msg"] == "render" {
			total, _ := l["duration_ms"].(float64)
			if received, ok := l["receive_ms"].(float64); !ok || received <= 0 || received > total {
				t.Errorf("receive_ms %v, duration_ms %v: want 0 < receive_ms <= duration_ms", l["receive_ms"], l["duration_ms"])
			}
			delete(l, "time")
			delete(l, "duration_ms")
			delete(l, "receive_ms")
			renders = append(renders, l)
		}
	}
	want := []map[string]any{
		{"level": "INFO", "msg": "render", "app": "citation", "namespace": "dagster", "revision": "0123456789abcdef0123456789abcdef01234567",
			"path": "fixtures/citation", "repo": "https://git.example.com/atlas/atlas.git", "outcome": "ok", "objects": float64(16)},
		{"level": "INFO", "msg": "render", "app": "bad-names", "namespace": "dagster", "revision": "0123456789abcdef0123456789abcdef01234567",
			"path": "fixtures/invalid/bad-names", "repo": "https://git.example.com/atlas/atlas.git", "outcome": "invalid",
			"codes": []any{"bad-name", "bad-revision", "bad-contract-version", "unknown-database", "unknown-secret"}},
	}
	if diff := gocmp.Diff(want, renders, cmpopts.IgnoreMapEntries(func(k string, _ any) bool { return k == "objects" })); diff != "" {
		t.Errorf("render log lines (-want +got):\n%s", diff)
	}
	if len(renders) > 0 && renders[0]["objects"] != float64(len(goldenObjects(t, "citation"))) {
		t.Errorf("objects = %v, want %d", renders[0]["objects"], len(goldenObjects(t, "citation")))
	}
}

// configMapVolume lays out dir as kubelet mounts a ConfigMap: each key a
// link into ..data, itself a link to a timestamped folder swapped on update.
func configMapVolume(t *testing.T, dir, version string, files map[string][]byte) {
	t.Helper()
	data := filepath.Join(dir, "..2026_"+version)
	must(t, os.MkdirAll(data, 0o755))
	for k, v := range files {
		must(t, os.WriteFile(filepath.Join(data, k), v, 0o644))
		link := filepath.Join(dir, k)
		if _, err := os.Lstat(link); os.IsNotExist(err) {
			must(t, os.Symlink(filepath.Join("..data", k), link))
		}
	}
	tmp := filepath.Join(dir, "..data_tmp")
	_ = os.Remove(tmp)
	must(t, os.Symlink(filepath.Base(data), tmp))
	must(t, os.Rename(tmp, filepath.Join(dir, "..data"))) // atomic swap
}

// TestContractReload swaps the mounted contract as a ConfigMap update does:
// the next request renders against the new one, without a restart.
func TestContractReload(t *testing.T) {
	sockDir(t)
	dir := filepath.Join(t.TempDir(), "contract")
	must(t, os.MkdirAll(dir, 0o755))
	example, err := os.ReadFile(exampleContract)
	must(t, err)
	configMapVolume(t, dir, "01", map[string][]byte{"prod.yaml": example})
	s := startOurs(t, dir)
	if _, err := generate(context.Background(), "mediawatch", genOpts{}); err != nil {
		t.Fatalf("before the update: %v", err)
	}
	moved := bytes.Replace(example, []byte("\nnamespace: dagster\n"), []byte("\nnamespace: dagster-next\n"), 1)
	configMapVolume(t, dir, "02", map[string][]byte{"prod.yaml": moved})
	_, err = generate(context.Background(), "mediawatch", genOpts{})
	if want := `cluster contract's namespace is "dagster-next"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("after the update: %v, want %q", err, want)
	}
	if _, err := generate(context.Background(), "mediawatch", genOpts{namespace: "dagster-next"}); err != nil {
		t.Errorf("after the update, in the new namespace: %v", err)
	}
	if n := strings.Count(s.logs.String(), `"msg":"contract loaded"`); n != 2 {
		t.Errorf("contract loaded %d times, want 2 (start, update)", n)
	}
}

// TestAnnouncementAndConfiguration compares the answers of the sidecar and
// of the stock cmp-server for the same plugin.yaml.
func TestAnnouncementAndConfiguration(t *testing.T) {
	answers := func(t *testing.T, socket string) (any, any) {
		client, _ := dial(t, socket)
		cfg, err := client.CheckPluginConfiguration(context.Background(), &emptypb.Empty{})
		must(t, err)
		stream, err := client.GetParametersAnnouncement(context.Background())
		must(t, err)
		app := filepath.Join(repoRoot, "fixtures", "citation")
		data, md, err := cmptest.CompressRepo(app, app, []string{"ARGOCD_APP_NAME=citation"})
		must(t, err)
		must(t, cmptest.Send(stream, md, data, 1024))
		ann, err := stream.CloseAndRecv()
		must(t, err)
		return cfg, ann
	}
	sockDir(t)
	ours := startOurs(t, exampleContract)
	oursCfg, oursAnn := answers(t, ours.socket)
	sockDir(t)
	stock := startStock(t, moduleRoot, false)
	stockCfg, stockAnn := answers(t, stock)
	opts := protocmp.Transform()
	if diff := gocmp.Diff(stockCfg, oursCfg, opts); diff != "" {
		t.Errorf("CheckPluginConfiguration (-stock +sidecar):\n%s", diff)
	}
	if diff := gocmp.Diff(stockAnn, oursAnn, opts); diff != "" {
		t.Errorf("GetParametersAnnouncement (-stock +sidecar):\n%s", diff)
	}
	if n := len(oursAnn.(*cmpapi.ParametersAnnouncementResponse).ParameterAnnouncements); n != 2 {
		t.Errorf("%d parameters announced, want 2", n)
	}
}

// TestNoLeak renders many times and checks goroutines, open files, request
// folders and heap come back (CODELOC_LEAK_RENDERS sets the count).
func TestNoLeak(t *testing.T) {
	n := 120
	if v := os.Getenv("CODELOC_LEAK_RENDERS"); v != "" {
		fmt.Sscan(v, &n)
	}
	sockDir(t)
	startOurs(t, exampleContract)
	mixed := []string{"citation", "mediawatch", "invalid/bad-names", "invalid/kustomize-missing-file"}
	render := func(i int) {
		_, err := generate(context.Background(), mixed[i%len(mixed)], genOpts{generatePath: true})
		if (err == nil) != (i%len(mixed) < 2) {
			t.Fatalf("render %d (%s): %v", i, mixed[i%len(mixed)], err)
		}
	}
	for i := range 8 {
		render(i)
	}
	goroutines, fds, heap := settleGoroutines(0), openFiles(t), heapAfterGC()
	for i := range n {
		render(i)
	}
	if got := settleGoroutines(goroutines + 2); got > goroutines+2 {
		t.Errorf("%d goroutines after %d renders, %d before", got, n, goroutines)
	}
	var got int
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		runtime.GC() // Argo CD's ReceiveRepoStream leaves its tarball to the finalizer
		if got = openFiles(t); got <= fds+4 || time.Now().After(deadline) {
			break
		}
	}
	if got > fds+4 {
		t.Errorf("%d open files after %d renders, %d before", got, n, fds)
	}
	after := heapAfterGC()
	if grown := int64(after) - int64(heap); grown > 16<<20 {
		t.Errorf("heap grew by %d MiB over %d renders", grown>>20, n)
	}
	t.Logf("%d renders: goroutines %d -> %d, open files %d -> %d, heap %.1f -> %.1f MiB",
		n, goroutines, runtime.NumGoroutine(), fds, got, float64(heap)/(1<<20), float64(after)/(1<<20))
}

func openFiles(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(entries)
}

func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestCreatesNoFile runs requests of every outcome (discovery, a render,
// an invalid declaration, a refused link, a limit) with TMPDIR pointing at
// an empty folder, and checks that it stays empty: each request is
// unpacked in memory, and nothing is written to the disk. (The repo-server
// side is left out: Argo CD's client writes its tarballs to TMPDIR; the
// tarballs here are made before.)
func TestCreatesNoFile(t *testing.T) {
	sockDir(t)
	calls := prepareCalls(t)
	invalid := tgz(t, map[string]string{"fixtures/evil/code-location.manifest.yaml": "codeLocation: Not_A_Name\n"})
	escape := tgz(t, map[string]string{"fixtures/evil/code-location.manifest.yaml": "codeLocation: evil\n", "fixtures/evil/passwd": "->../../../etc/passwd"})
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	s := startOurs(t, exampleContract)
	client := clientOf(t, s.socket)
	must(t, calls.all(client))
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"invalid", invalid, "bad-name"},
		{"refused", escape, "illegal filepath in symlink"},
		{"limit", archiveOf(t, file("fixtures/evil/"+strings.Repeat("d/", 40)+"x.yaml", "x: 1\n")), "names deep"},
	} {
		stream, err := client.GenerateManifest(context.Background())
		must(t, err)
		must(t, sendTarball(stream, "fixtures/evil", tt.data))
		if _, err := stream.CloseAndRecv(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	if entries, err := os.ReadDir(tmp); err != nil || len(entries) > 0 {
		t.Errorf("TMPDIR holds %v (%v), want nothing", entries, err)
	}
}
