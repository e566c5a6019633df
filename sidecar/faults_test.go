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
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/codeloc/codeloc/internal/fsys"

	"github.com/codeloc/codeloc/sidecar/cmpapi"
)

// entry is one tar entry of a hand-made archive: a regular file unless the
// header says otherwise.
type entry struct {
	h    tar.Header
	body string
}

func file(name, body string) entry {
	return entry{tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))}, body}
}

func special(name string, typ byte, link string) entry {
	return entry{h: tar.Header{Name: name, Typeflag: typ, Mode: 0o644, Linkname: link}}
}

// archiveOf gzips a tar of the entries, in their order.
func archiveOf(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := e.h
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, e.body); err != nil {
			t.Fatal(err)
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

// zeros is an archive holding one file of size bytes of zeros (a multiple
// of 512) at about a thousandth of its size: gzip members of zeros are
// concatenated after the header's, and the tar ends in zeros too.
func zeros(t testing.TB, name string, size int64) []byte {
	t.Helper()
	var head bytes.Buffer
	tw := tar.NewWriter(&head)
	if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: size, Format: tar.FormatUSTAR}); err != nil {
		t.Fatal(err)
	}
	member := func(data []byte) []byte {
		var b bytes.Buffer
		gz, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		gz.Write(data)
		gz.Close()
		return b.Bytes()
	}
	out := member(head.Bytes()[:512])
	const mib = 1 << 20
	oneMiB := member(make([]byte, mib))
	rest := size + 1024 // the content, then the two zero blocks that end a tar
	for ; rest >= mib; rest -= mib {
		out = append(out, oneMiB...)
	}
	return append(out, member(make([]byte, rest))...)
}

// stream is one raw GenerateManifest call of a hand-made repository.
type stream struct {
	data       []byte
	checksum   string // default: the data's
	size       int64  // announced size; default: the data's
	appRelPath string // default fixtures/evil
}

// send streams s to the sidecar as the repo-server would, in 1 MiB chunks.
func (s stream) send(ctx context.Context, client cmpapi.ConfigManagementPluginServiceClient) error {
	st, err := client.GenerateManifest(ctx)
	if err != nil {
		return err
	}
	if err := st.Send(s.header()); err != nil {
		return err
	}
	for rest := s.data; len(rest) > 0; {
		n := min(len(rest), 1<<20)
		if err := st.Send(cmpapi.FileRequest(rest[:n])); err != nil {
			break // the server answered early: CloseAndRecv says why
		}
		rest = rest[n:]
	}
	_, err = st.CloseAndRecv()
	return err
}

func (s stream) header() *cmpapi.AppStreamRequest {
	if s.checksum == "" {
		sum := sha256.Sum256(s.data)
		s.checksum = hex.EncodeToString(sum[:])
	}
	if s.size == 0 {
		s.size = int64(len(s.data))
	}
	if s.appRelPath == "" {
		s.appRelPath = "fixtures/evil"
	}
	return &cmpapi.AppStreamRequest{Request: &cmpapi.AppStreamRequest_Metadata{Metadata: &cmpapi.ManifestRequestMetadata{
		AppName: "evil", AppRelPath: s.appRelPath, Checksum: s.checksum, Size: s.size,
		Env: []*cmpapi.EnvEntry{{Name: "ARGOCD_APP_SOURCE_PATH", Value: s.appRelPath}, {Name: "ARGOCD_APP_NAMESPACE", Value: "dagster"}},
	}}}
}

// faultLimits are small limits, so that a bomb over each is cheap to send.
var faultLimits = Limits{RepoBytes: 256 << 10, ExpandedBytes: 1 << 20, Entries: 40, Depth: 8, FileBytes: 128 << 10}

// faultCases are hand-made repository streams the sidecar must refuse,
// with the gRPC code and a piece of the one-line message.
func faultCases(t testing.TB) []struct {
	name   string
	stream stream
	code   codes.Code
	want   string
} {
	manifest := file("fixtures/evil/code-location.manifest.yaml", "codeLocation: evil\n")
	good := archiveOf(t, manifest)
	many := []entry{manifest}
	for i := range faultLimits.Entries {
		many = append(many, file(fmt.Sprintf("fixtures/evil/f%03d.yaml", i), "x: 1\n"))
	}
	var spread []entry
	for i := range 9 {
		spread = append(spread, file(fmt.Sprintf("fixtures/evil/part%d.bin", i), strings.Repeat("x", 120<<10)))
	}
	deep := "fixtures/evil/" + strings.Repeat("d/", 6) + "x.yaml"
	random := bytes.Repeat([]byte("not a gzip stream at all "), 100)
	return []struct {
		name   string
		stream stream
		code   codes.Code
		want   string
	}{
		{"truncated stream", stream{data: good[:len(good)/2], checksum: hexSum(good), size: int64(len(good))}, codes.InvalidArgument, "not a valid .tar.gz: unexpected EOF"},
		{"checksum mismatch", stream{data: good, checksum: hexSum([]byte("other"))}, codes.InvalidArgument, "does not match its checksum"},
		{"malformed gzip", stream{data: random}, codes.InvalidArgument, "not a valid .tar.gz: gzip: invalid header"},
		{"dot-dot entry", stream{data: archiveOf(t, manifest, file("fixtures/evil/../../../etc/cron.d/x", "boom"))}, codes.InvalidArgument, "illegal filepath in archive: fixtures/evil/../../../etc/cron.d/x goes up out of the repository"},
		{"absolute path", stream{data: archiveOf(t, manifest, file("/etc/passwd", "root::0:0"))}, codes.InvalidArgument, "illegal filepath in archive: /etc/passwd is an absolute path"},
		{"character device", stream{data: archiveOf(t, manifest, special("fixtures/evil/null", tar.TypeChar, ""))}, codes.InvalidArgument, "fixtures/evil/null is a device file"},
		{"block device", stream{data: archiveOf(t, manifest, special("fixtures/evil/sda", tar.TypeBlock, ""))}, codes.InvalidArgument, "fixtures/evil/sda is a device file"},
		{"fifo", stream{data: archiveOf(t, manifest, special("fixtures/evil/pipe", tar.TypeFifo, ""))}, codes.InvalidArgument, "fixtures/evil/pipe is a fifo"},
		{"hard link", stream{data: archiveOf(t, manifest, special("fixtures/evil/passwd", tar.TypeLink, "/etc/passwd"))}, codes.InvalidArgument, "fixtures/evil/passwd is a hard link"},
		{"symlink loop", stream{data: archiveOf(t, manifest, special("fixtures/evil/a", tar.TypeSymlink, "b"), special("fixtures/evil/b", tar.TypeSymlink, "a"))}, codes.InvalidArgument, "symbolic link fixtures/evil/a cannot be resolved"},
		{"symlink to itself", stream{data: archiveOf(t, manifest, special("fixtures/evil/self", tar.TypeSymlink, "self"))}, codes.InvalidArgument, "symbolic link fixtures/evil/self cannot be resolved"},
		{"absolute symlink", stream{data: archiveOf(t, manifest, special("fixtures/evil/etc", tar.TypeSymlink, "/etc"))}, codes.InvalidArgument, "symbolic link fixtures/evil/etc points outside the repository"},
		{"symlink out", stream{data: archiveOf(t, manifest, special("fixtures/evil/up", tar.TypeSymlink, "../../.."))}, codes.InvalidArgument, "illegal filepath in symlink: fixtures/evil/up -> ../../.."},
		{"unknown entry type", stream{data: archiveOf(t, manifest, special("fixtures/evil/cont", tar.TypeCont, ""))}, codes.InvalidArgument, "tar entry of type"},
		{"second header", stream{data: nil}, codes.InvalidArgument, "second header"},
		{"bomb: expanded bytes", stream{data: archiveOf(t, append([]entry{manifest}, spread...)...)}, codes.InvalidArgument,
			"the repository expands past 1Mi (raise the limit with --max-expanded-bytes or CODELOC_SIDECAR_MAX_EXPANDED_BYTES)"},
		{"bomb: entries", stream{data: archiveOf(t, many...)}, codes.InvalidArgument,
			"the repository holds more than 40 files, folders and links (raise the limit with --max-entries or CODELOC_SIDECAR_MAX_ENTRIES)"},
		{"bomb: depth", stream{data: archiveOf(t, manifest, file(deep, "x: 1\n"))}, codes.InvalidArgument,
			"the path " + deep + " is more than 8 names deep (raise the limit with --max-depth or CODELOC_SIDECAR_MAX_DEPTH)"},
		{"bomb: single file", stream{data: zeros(t, "fixtures/evil/zeros.bin", 100<<20)}, codes.InvalidArgument,
			"the file fixtures/evil/zeros.bin (100Mi) is larger than 128Ki (raise the limit with --max-file-bytes or CODELOC_SIDECAR_MAX_FILE_BYTES)"},
		{"bomb: compressed bytes, announced", stream{data: bytes.Repeat([]byte{1}, 300<<10)}, codes.InvalidArgument,
			"the compressed repository stream is larger than 256Ki (raise the limit with --max-repo-bytes or CODELOC_SIDECAR_MAX_REPO_BYTES)"},
		{"bomb: compressed bytes, hidden", stream{data: incompressible(t, 300<<10), size: 1000}, codes.InvalidArgument,
			"the compressed repository stream is larger than 256Ki"},
		{"application path out", stream{data: good, appRelPath: "../elsewhere"}, codes.InvalidArgument, `the application path "../elsewhere" leaves the repository`},
	}
}

func hexSum(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// incompressible is an archive of a file of size pseudo-random bytes.
func incompressible(t testing.TB, size int) []byte {
	t.Helper()
	return archiveOf(t, file("fixtures/evil/noise.bin", string(incompressibleBytes(size))))
}

// TestFaults sends each bad repository stream to the sidecar: each is
// refused with one readable gRPC error line, leaves no request folder and
// no goroutine behind, and the next normal request renders.
func TestFaults(t *testing.T) {
	sockDir(t)
	s := startOurs(t, exampleContract, func(o *Options) { o.Limits = faultLimits })
	client, _ := dial(t, s.socket)
	_, err := client.CheckPluginConfiguration(context.Background(), &emptypb.Empty{}) // connect
	must(t, err)
	mustRender(t)
	base := steadyGoroutines()
	for _, tt := range faultCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.name == "second header" {
				err = secondHeader(client)
			} else {
				err = tt.stream.send(context.Background(), client)
			}
			checkRefusal(t, err, tt.code, tt.want)
			if n := settleGoroutines(base + 2); n > base+2 {
				t.Errorf("%d goroutines after the refusal, %d before", n, base)
			}
			mustRender(t)
		})
	}
	if strings.Count(s.logs.String(), `"outcome":"refused"`) < len(faultCases(t)) {
		t.Errorf("not every refusal was logged as refused:\n%s", s.logs)
	}
}

// secondHeader sends a stream whose chunks are interrupted by a header.
func secondHeader(client cmpapi.ConfigManagementPluginServiceClient) error {
	st, err := client.GenerateManifest(context.Background())
	if err != nil {
		return err
	}
	h := stream{data: []byte{0x1f}}.header()
	_ = st.Send(h)
	_ = st.Send(h)
	_, err = st.CloseAndRecv()
	return err
}

// checkRefusal checks a refusal: the code, one line, the words.
func checkRefusal(t *testing.T, err error, code codes.Code, want string) {
	t.Helper()
	st, ok := status.FromError(err)
	switch {
	case err == nil:
		t.Fatal("accepted")
	case !ok || st.Code() != code:
		t.Errorf("error %v, want code %v", err, code)
	case strings.ContainsAny(st.Message(), "\n\r"):
		t.Errorf("message is not one line: %q", st.Message())
	case !strings.Contains(st.Message(), want):
		t.Errorf("message %q does not carry %q", st.Message(), want)
	default:
		t.Logf("%v: %s", st.Code(), st.Message())
	}
}

// mustRender renders citation through the repo-server's code.
func mustRender(t *testing.T) {
	t.Helper()
	if _, err := generate(context.Background(), "citation", genOpts{generatePath: true}); err != nil {
		t.Fatalf("a normal request after the fault: %v", err)
	}
}

// TestClientGoes covers clients that give up mid-stream: one cancels its
// call, one closes its connection. The request is cancelled, its folder
// removed, no goroutine left, and the next request renders.
func TestClientGoes(t *testing.T) {
	sockDir(t)
	// A connection per scrape, closed at once: this sidecar runs in the
	// test's process, whose goroutines are counted.
	metrics := &sidecarProc{metrics: "http://" + freeAddr(t) + "/metrics", scraper: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}}
	s := startOurs(t, exampleContract, func(o *Options) {
		o.MetricsAddr = strings.TrimSuffix(strings.TrimPrefix(metrics.metrics, "http://"), "/metrics")
	})
	mustRender(t)
	base := steadyGoroutines()
	data := archiveOf(t, file("fixtures/evil/code-location.manifest.yaml", "codeLocation: evil\n"), file("fixtures/evil/big.yaml", strings.Repeat("x: 1\n", 1<<16)))
	for _, tt := range []struct {
		name string
		quit func(cancel context.CancelFunc, closeConn func())
	}{
		{"cancel", func(cancel context.CancelFunc, _ func()) { cancel() }},
		{"disconnect", func(_ context.CancelFunc, closeConn func()) { closeConn() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			client, conn := dial(t, s.socket)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			st, err := client.GenerateManifest(ctx)
			must(t, err)
			must(t, st.Send(stream{data: data}.header()))
			must(t, st.Send(cmpapi.FileRequest(data[:len(data)/2])))
			waitFor(t, "the request in flight", func() bool { return metrics.metric(t, "codeloc_renders_in_flight") == 1 })
			tt.quit(cancel, func() { conn.Close() })
			conn.Close() // its own goroutines go with it
			if n := settleGoroutines(base + 2); n > base+2 {
				t.Errorf("%d goroutines after the client went, %d before", n, base)
			}
			mustRender(t)
		})
	}
	waitFor(t, "two cancelled log lines", func() bool { return strings.Count(s.logs.String(), `"outcome":"cancelled"`) == 2 })
}

// steadyGoroutines returns the goroutine count once it stops moving.
func steadyGoroutines() int {
	n := runtime.NumGoroutine()
	for range 50 {
		time.Sleep(20 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			return n
		}
		n = m
	}
	return n
}

// waitFor waits until cond holds (a state, not a duration: the bound only
// stops a test that would hang).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s", what)
		}
	}
}

// TestUnpackStopsAtLimits unpacks bombs straight into memory and checks
// what was stored before the refusal: never a file past the file limit,
// never more than the expanded limit in all.
func TestUnpackStopsAtLimits(t *testing.T) {
	small := faultLimits
	small.RepoBytes = 64 << 20 // what reaches the unpacker
	tests := []struct {
		name   string
		limits Limits
		data   []byte
	}{
		{"1 GiB of zeros, default limits", DefaultLimits(), zeros(t, "fixtures/evil/zeros.bin", 1<<30)},
		{"1 GiB of zeros", small, zeros(t, "fixtures/evil/zeros.bin", 1<<30)},
		{"files that add up", small, func() []byte {
			var es []entry
			for i := range 12 {
				es = append(es, file(fmt.Sprintf("fixtures/evil/p%02d.bin", i), strings.Repeat("y", 100<<10)))
			}
			return archiveOf(t, es...)
		}()},
		{"file over the limit after small ones", small, archiveOf(t, file("fixtures/evil/a.yaml", "a: 1\n"), file("fixtures/evil/z.bin", strings.Repeat("z", 200<<10)))},
	}
	cfg, err := LoadPluginConfig(moduleRoot)
	must(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := fsys.NewMemory()
			must(t, mem.MkdirAll(memRepo))
			srv := &Server{cfg: cfg, limits: tt.limits}
			err := srv.unpack(context.Background(), &chunks{data: tt.data}, mem, "", hexSum(tt.data))
			var le *limitError
			if !errors.As(err, &le) {
				t.Fatalf("error %v, want a limit", err)
			}
			if got := storedBytes(t, mem, tt.limits.FileBytes); got > tt.limits.ExpandedBytes {
				t.Errorf("%d bytes were stored, limit %d", got, tt.limits.ExpandedBytes)
			}
		})
	}
}

// storedBytes adds up the files in mem, failing for one over most.
func storedBytes(t *testing.T, mem *fsys.Memory, most int64) int64 {
	var total int64
	must(t, mem.Walk("/", func(p string, fi fs.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		if fi.Size() > most {
			t.Errorf("%s reached %d bytes", p, fi.Size())
		}
		total += fi.Size()
		return nil
	}))
	return total
}

// chunks is a repository stream's chunks, without its header.
type chunks struct {
	data []byte
}

func (c *chunks) Recv() (*cmpapi.AppStreamRequest, error) {
	if len(c.data) == 0 {
		return nil, io.EOF
	}
	n := min(len(c.data), 64<<10)
	chunk := c.data[:n]
	c.data = c.data[n:]
	return cmpapi.FileRequest(chunk), nil
}

// TestMatchRepositoryLimits checks discovery under the limits: a stream
// over one is not discovered (and logged), one whose declaration comes
// before a bomb is discovered without reading the bomb.
func TestMatchRepositoryLimits(t *testing.T) {
	sockDir(t)
	s := startOurs(t, exampleContract, func(o *Options) { o.Limits = faultLimits })
	client, _ := dial(t, s.socket)
	manifest := file("fixtures/evil/code-location.manifest.yaml", "codeLocation: evil\n")
	bomb := zeros(t, "fixtures/evil/zeros.bin", 8<<20)
	tests := []struct {
		name string
		data []byte
		want bool
	}{
		{"declaration, then a bomb", concatArchives(t, archiveOf(t, manifest), bomb), true},
		{"a bomb, then the declaration", concatArchives(t, bomb, archiveOf(t, manifest)), false},
		{"no declaration", archiveOf(t, file("fixtures/evil/x.yaml", "x: 1\n")), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := client.MatchRepository(context.Background())
			must(t, err)
			must(t, st.Send(stream{data: tt.data}.header()))
			must(t, st.Send(cmpapi.FileRequest(tt.data)))
			res, err := st.CloseAndRecv()
			if err != nil || res.GetIsSupported() != tt.want {
				t.Errorf("supported %v (%v), want %v", res.GetIsSupported(), err, tt.want)
			}
		})
	}
	if !strings.Contains(s.logs.String(), "match repository: repository refused") {
		t.Errorf("the refused discovery was not logged:\n%s", s.logs)
	}
}

// concatArchives joins two gzipped tars into one: the first's entries,
// then the second's (the first's end-of-archive blocks are dropped).
func concatArchives(t testing.TB, a, b []byte) []byte {
	t.Helper()
	first, err := gunzip(a)
	must(t, err)
	second, err := gunzip(b)
	must(t, err)
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	gz.Write(first[:len(first)-1024])
	gz.Write(second)
	gz.Close()
	return buf.Bytes()
}

func gunzip(data []byte) ([]byte, error) {
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(gz)
}

// TestLimitsThroughRepoServer sends repositories over each limit with Argo
// CD's own repo-server code, which sends the whole repository before it
// reads the answer: the refusal still reaches it, as one line naming the
// setting, and nothing is left behind.
func TestLimitsThroughRepoServer(t *testing.T) {
	sockDir(t)
	startOurs(t, exampleContract, func(o *Options) { o.Limits = faultLimits })
	manifest := map[string]string{"code-location.manifest.yaml": "codeLocation: evil\n"}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range manifest {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	many, spread := map[string]string{}, map[string]string{}
	for i := range faultLimits.Entries {
		many[fmt.Sprintf("f%03d.yaml", i)] = "x: 1\n"
	}
	for i := range 9 {
		spread[fmt.Sprintf("part%d.bin", i)] = strings.Repeat("x", 120<<10)
	}
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"file", with(map[string]string{"noise.bin": string(incompressibleBytes(200 << 10))}), "the file fixtures/evil/noise.bin (200Ki) is larger than 128Ki (raise the limit with --max-file-bytes"},
		{"entries", with(many), "files, folders and links (raise the limit with --max-entries"},
		{"depth", with(map[string]string{"a/b/c/d/e/f/x.yaml": "x: 1\n"}), "is more than 8 names deep (raise the limit with --max-depth"},
		{"expanded", with(spread), "the repository expands past 1Mi (raise the limit with --max-expanded-bytes"},
		{"compressed", with(map[string]string{"a.bin": string(incompressibleBytes(120 << 10)), "b.bin": string(incompressibleBytes(121 << 10)), "c.bin": string(incompressibleBytes(122 << 10))}),
			"the compressed repository stream is larger than 256Ki (raise the limit with --max-repo-bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := filepath.Join(t.TempDir(), "repo")
			for name, body := range tt.files {
				must(t, writeFile(filepath.Join(repo, "fixtures", "evil", filepath.FromSlash(name)), []byte(body)))
			}
			_, err := generate(context.Background(), "evil", genOpts{repo: repo, generatePath: true})
			if err == nil || !strings.Contains(err.Error(), "InvalidArgument desc = codeloc: repository refused: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want InvalidArgument %q", err, tt.want)
			}
			mustRender(t)
		})
	}
}

// incompressibleBytes is n pseudo-random bytes, which gzip cannot shrink.
func incompressibleBytes(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242 + n)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}
