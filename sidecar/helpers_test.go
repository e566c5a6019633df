package sidecar

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/codeloc/codeloc/internal/argocdref"
	"github.com/codeloc/codeloc/internal/testbuf"
	"github.com/codeloc/codeloc/validate"
	"github.com/codeloc/codeloc/validate/sqllint"

	"github.com/codeloc/codeloc/sidecar/cmpapi"
)

// Test environment shared by the package's tests and benchmarks, set up
// once by TestMain under one temporary folder.
var (
	// moduleRoot is the repository checkout the tests run from.
	moduleRoot string
	// tmpRoot holds everything the tests create.
	tmpRoot string
	// repoRoot is a copy of fixtures/ laid out as an atlas repo: the
	// repo-server tars it for each request.
	repoRoot string
	// exampleContract is validate's example contract written to a file.
	exampleContract string
	// fixtureRepos holds the small repositories repoFor makes.
	fixtureRepos string
)

// appLabel is the tracking label Argo CD sets on every generated object.
const appLabel = "app.kubernetes.io/instance"

// apiVersions is what a destination serving everything the output needs
// sends in KUBE_API_VERSIONS.
var apiVersions = []string{
	"apps/v1", "apps/v1/Deployment", "batch/v1", "batch/v1/CronJob", "batch/v1/Job",
	"objectbucket.io/v1alpha1", "objectbucket.io/v1alpha1/ObjectBucketClaim",
	"rbac.authorization.k8s.io/v1", "rbac.authorization.k8s.io/v1/Role", "rbac.authorization.k8s.io/v1/RoleBinding",
	"v1", "v1/ConfigMap", "v1/PersistentVolumeClaim", "v1/Service", "v1/ServiceAccount",
}

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	var err error
	if moduleRoot, err = filepath.Abs(".."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if tmpRoot, err = os.MkdirTemp("", "codeloc-sidecar-test-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmpRoot)
	// The codeloc the stock cmp-server runs (a real build, whose parse
	// cache is on) shares one parse cache for the run: only the first
	// render of each migration pays libpg_query's compilation, and nothing
	// is written under the user's home.
	if err := os.Setenv(sqllint.CacheDirEnv, filepath.Join(tmpRoot, "cache")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	repoRoot = filepath.Join(tmpRoot, "repo")
	if err := copyTree(filepath.Join(moduleRoot, "fixtures"), filepath.Join(repoRoot, "fixtures")); err != nil {
		fmt.Fprintln(os.Stderr, "copying fixtures:", err)
		return 1
	}
	fixtureRepos = filepath.Join(tmpRoot, "repos")
	exampleContract = filepath.Join(tmpRoot, "contracts", "example.yaml")
	if err := writeFile(exampleContract, validate.ExampleContract); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Argo CD's repo-server, one process for the run (argocdref).
	repoServer = argocdref.Shared(mainTB{})
	return m.Run()
}

// repoServer runs Argo CD's GenerateManifests for the package's tests.
var repoServer *argocdref.RepoServer

// mainTB is the testing.TB of TestMain, where no test runs yet: a failure
// panics.
type mainTB struct{ testing.TB }

func (mainTB) Helper()                      {}
func (mainTB) Fatal(args ...any)            { panic(fmt.Sprint(args...)) }
func (mainTB) Fatalf(f string, args ...any) { panic(fmt.Sprintf(f, args...)) }

// copyTree copies a folder, keeping symbolic links as links.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// binaries built once per test binary.
var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// codelocOnPath builds cmd/codeloc and puts it first on PATH, for Argo CD's
// stock cmp-server to execute `codeloc generate`.
func codelocOnPath(tb testing.TB) {
	tb.Helper()
	buildOnce.Do(func() {
		binDir = filepath.Join(tmpRoot, "bin")
		cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, "codeloc"), "./cmd/codeloc")
		cmd.Dir = moduleRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/codeloc: %w\n%s", err, out)
			return
		}
		buildErr = os.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	})
	if buildErr != nil {
		tb.Fatal(buildErr)
	}
}

// sockDir returns a fresh plugin socket folder and points Argo CD's
// repo-server and servers at it.
func sockDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp(tmpRoot, "sock-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	setenv(tb, cmpapi.EnvPluginSockFilePath, dir)
	return dir
}

// setenv is t.Setenv for tests and benchmarks.
func setenv(tb testing.TB, k, v string) {
	tb.Helper()
	if t, ok := tb.(*testing.T); ok {
		t.Setenv(k, v)
		return
	}
	old, had := os.LookupEnv(k)
	os.Setenv(k, v)
	tb.Cleanup(func() {
		if had {
			os.Setenv(k, old)
		} else {
			os.Unsetenv(k)
		}
	})
}

// ours is a codeloc-sidecar started with Run.
type ours struct {
	socket string
	cancel context.CancelFunc
	done   chan error
	logs   *testbuf.Buffer
}

// startOurs runs the sidecar with the repo's plugin.yaml until the test
// ends; the caller has set the socket folder (sockDir).
func startOurs(tb testing.TB, contract string, tweak ...func(*Options)) *ours {
	tb.Helper()
	logs := &testbuf.Buffer{}
	ready := make(chan string, 1)
	o := Options{
		Contract:        contract,
		ConfigDir:       moduleRoot,
		ShutdownTimeout: 10 * time.Second,
		Logger:          slog.New(slog.NewJSONHandler(logs, nil)),
		Ready:           func(s string) { ready <- s },
	}
	for _, f := range tweak {
		f(&o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &ours{cancel: cancel, done: make(chan error, 1), logs: logs}
	go func() { s.done <- Run(ctx, o) }()
	select {
	case s.socket = <-ready:
	case err := <-s.done:
		cancel()
		tb.Fatalf("sidecar did not start: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		tb.Fatal("sidecar did not start in 30s")
	}
	tb.Cleanup(func() { s.stop(tb) })
	return s
}

// stop shuts the sidecar down and returns Run's error (once).
func (s *ours) stop(tb testing.TB) error {
	tb.Helper()
	if s.cancel == nil {
		return nil
	}
	s.cancel()
	s.cancel = nil
	select {
	case err := <-s.done:
		return err
	case <-time.After(30 * time.Second):
		tb.Fatal("sidecar did not stop in 30s")
	}
	return nil
}

// startStock runs Argo CD's own cmp-server (argocdref stock) with the
// plugin.yaml in configDir, on the socket folder set by sockDir, with
// discovery unless noDiscover.
func startStock(tb testing.TB, configDir string, noDiscover bool) string {
	tb.Helper()
	work, err := os.MkdirTemp(tmpRoot, "stockwork-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(work) })
	return argocdref.Stock(tb, configDir, noDiscover, "ARGOCD_CMP_WORKDIR="+work)
}

// pluginParams and pluginEnv are an Application's plugin parameters and
// env, as Argo CD's Application type spells them.
type (
	pluginParams = []argocdref.PluginParam
	pluginEnv    = []argocdref.EnvEntry
)

// genOpts are per-call variations of a GenerateManifests request.
type genOpts struct {
	plugin       string // default codeloc-v1; "-" for none (discovery)
	generatePath bool   // send only the app folder (manifest-generate-paths: .)
	params       pluginParams
	env          pluginEnv
	namespace    string // default dagster
	apiVersions  []string
	repo         string // default repoFor(name)
	repoURL      string // default https://git.example.com/atlas/atlas.git
}

// generate renders fixtures/<name> through Argo CD's repo-server function
// GenerateManifests (in argocdref's process), which finds the plugin
// socket, tars the repo and streams it to the plugin.
func generate(ctx context.Context, name string, o genOpts) (*argocdref.Response, error) {
	switch o.plugin {
	case "":
		o.plugin = "codeloc-v1"
	case "-": // no name: discovery
		o.plugin = ""
	}
	if o.namespace == "" {
		o.namespace = "dagster"
	}
	if o.apiVersions == nil {
		o.apiVersions = apiVersions
	}
	if o.repo == "" {
		var err error
		if o.repo, err = repoFor(name); err != nil {
			return nil, err
		}
	}
	if o.repoURL == "" {
		o.repoURL = "https://git.example.com/atlas/atlas.git"
	}
	path := "fixtures/" + name
	return repoServer.Generate(ctx, argocdref.Request{
		SockDir: os.Getenv(cmpapi.EnvPluginSockFilePath), Repo: o.repo, AppPath: filepath.Join(o.repo, filepath.FromSlash(path)),
		Path: path, AppName: appName(name), Namespace: o.namespace, Plugin: o.plugin, Params: o.params, Env: o.env,
		APIVersions: o.apiVersions, KubeVersion: "1.31.4", GeneratePath: o.generatePath, RepoURL: o.repoURL, AppLabelKey: appLabel,
	})
}

// repoFor is a repository holding fixtures/<name> and the two fixtures
// that other fixtures' links and bases reach (citation, mediawatch),
// copied from repoRoot once per name. The repo-server sends the whole
// repository per request (twice, for discovery and the render) and the
// server unpacks it: a repository of a few dozen files instead of all
// fixtures' hundreds proves the same, in a tenth of the time.
func repoFor(name string) (string, error) {
	v, _ := reposMade.LoadOrStore(name, &repoMade{})
	r := v.(*repoMade)
	r.once.Do(func() {
		r.dir = filepath.Join(fixtureRepos, strings.ReplaceAll(name, "/", "_"))
		for _, f := range []string{name, "citation", "mediawatch"} {
			if _, err := os.Stat(filepath.Join(r.dir, "fixtures", f)); err == nil {
				continue // name is one of the two
			}
			if r.err = copyTree(filepath.Join(repoRoot, "fixtures", f), filepath.Join(r.dir, "fixtures", f)); r.err != nil {
				return
			}
		}
	})
	return r.dir, r.err
}

// reposMade are repoFor's repositories, by fixture name.
var reposMade sync.Map

type repoMade struct {
	once sync.Once
	dir  string
	err  error
}

func appName(fixture string) string {
	return strings.ReplaceAll(filepath.Base(fixture), "_", "-")
}

// object is a decoded Kubernetes object.
type object = map[string]any

// goldenObjects reads render/testdata/golden/<name>.yaml.
func goldenObjects(tb testing.TB, name string) []object {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(moduleRoot, "render", "testdata", "golden", name+".yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []object
	for {
		var o object
		if err := dec.Decode(&o); errors.Is(err, io.EOF) {
			return objs
		} else if err != nil {
			tb.Fatal(err)
		}
		if o != nil {
			objs = append(objs, o)
		}
	}
}

// responseObjects decodes a ManifestResponse and removes Argo CD's
// tracking label after checking it names the Application.
func responseObjects(tb testing.TB, res *argocdref.Response, app string) []object {
	tb.Helper()
	objs := make([]object, len(res.Manifests))
	for i, m := range res.Manifests {
		if err := json.Unmarshal([]byte(m), &objs[i]); err != nil {
			tb.Fatal(err)
		}
		md, _ := objs[i]["metadata"].(map[string]any)
		labels, _ := md["labels"].(map[string]any)
		if labels[appLabel] != app {
			tb.Errorf("%v/%v: tracking label %s = %v, want %q", objs[i]["kind"], md["name"], appLabel, labels[appLabel], app)
		}
		delete(labels, appLabel)
		if len(labels) == 0 {
			delete(md, "labels")
		}
	}
	return objs
}

// invalidFixtures lists fixtures/invalid/*.
func invalidFixtures(tb testing.TB) []string {
	tb.Helper()
	dirs, err := filepath.Glob(filepath.Join(moduleRoot, "fixtures", "invalid", "*", "expected.txt"))
	if err != nil || len(dirs) == 0 {
		tb.Fatalf("no invalid fixtures (%v)", err)
	}
	names := make([]string, len(dirs))
	for i, d := range dirs {
		names[i] = filepath.Base(filepath.Dir(d))
	}
	return names
}

// expectedLines reads an invalid fixture's expected stderr.
func expectedLines(tb testing.TB, name string) string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(moduleRoot, "fixtures", "invalid", name, "expected.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// fixtureContract returns the contract a fixture is rendered with: its own
// contract.yaml when it has one (the test repo's copy), else the example.
func fixtureContract(name string) string {
	own := filepath.Join(repoRoot, "fixtures", "invalid", name, "contract.yaml")
	if _, err := os.Stat(own); err == nil {
		return own
	}
	return exampleContract
}

// normalize shows paths under a test repo (repoRoot, repoFor's) as repo
// paths, as the CLI prints them from the repo root.
func normalize(s string) string {
	s = strings.ReplaceAll(s, repoRoot+string(filepath.Separator), "")
	return regexp.MustCompile(regexp.QuoteMeta(fixtureRepos+string(filepath.Separator))+`[^/]+/`).ReplaceAllString(s, "")
}

// emptyDir fails unless dir is empty, waiting briefly for cleanups that run
// after the client got its answer.
func emptyDir(tb testing.TB, dir string) {
	tb.Helper()
	var entries []os.DirEntry
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var err error
		entries, err = os.ReadDir(dir)
		if err != nil {
			tb.Fatal(err)
		}
		if len(entries) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, e := range entries {
		tb.Errorf("left in %s: %s", dir, e.Name())
	}
}

// settleGoroutines waits until at most max goroutines run.
func settleGoroutines(max int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(5 * time.Second); n > max && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(20 * time.Millisecond)
	}
	return n
}

// logLines decodes the JSON log lines in b.
func logLines(tb testing.TB, b *testbuf.Buffer) []map[string]any {
	tb.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			tb.Fatalf("log line is not JSON: %q", l)
		}
		out = append(out, m)
	}
	return out
}
