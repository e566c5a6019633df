package sidecar

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/plugin"
)

// TestPluginYAML loads the repo's plugin.yaml with the sidecar's reader
// (Argo CD's rules; TestAnnouncementAndConfiguration holds its answers to
// those of Argo CD's stock cmp-server reading the same file) and checks what
// Argo CD derives from it.
func TestPluginYAML(t *testing.T) {
	t.Setenv("ARGOCD_PLUGINSOCKFILEPATH", "/home/argocd/cmp-server/plugins")
	cfg, err := readPluginConfig(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{
		"apiVersion": cfg.APIVersion,
		"kind":       cfg.Kind,
		"name":       cfg.Metadata.Name,
		"version":    cfg.Spec.Version,
		"address":    cfg.Address(),
		"generate":   cfg.Spec.Generate.Command,
		"fileName":   cfg.Spec.Discover.FileName,
		"discovery":  cfg.Spec.Discover.IsDefined(),
	}
	want := map[string]any{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "ConfigManagementPlugin",
		"name":       plugin.Name,
		"version":    plugin.Version,
		"address":    "/home/argocd/cmp-server/plugins/codeloc-v1.sock",
		"generate":   []string{"codeloc", "generate"},
		"fileName":   "code-location.manifest.yaml",
		"discovery":  true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plugin.yaml (-want +got):\n%s", diff)
	}
	var params []plugin.Parameter
	for _, p := range cfg.Spec.Parameters.Static {
		params = append(params, plugin.Parameter{Name: p.Name, Title: p.Title, Tooltip: p.Tooltip, Default: p.String_})
		if p.CollectionType != "string" || p.ItemType != "string" {
			t.Errorf("parameter %s: collectionType %q itemType %q, want string", p.Name, p.CollectionType, p.ItemType)
		}
	}
	if diff := cmp.Diff(plugin.Parameters, params); diff != "" {
		t.Errorf("plugin.yaml parameters differ from plugin.Parameters (-code +yaml):\n%s", diff)
	}
	if _, err := LoadPluginConfig(moduleRoot); err != nil {
		t.Errorf("LoadPluginConfig: %v", err)
	}
}

// TestLoadPluginConfigRefuses checks what the in-process server cannot honour.
func TestLoadPluginConfigRefuses(t *testing.T) {
	base, err := os.ReadFile(filepath.Join(moduleRoot, "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, old, new, want string
	}{
		{"init command", "  generate:\n", "  init:\n    command: [sh, -c, \"true\"]\n  generate:\n", "spec.init is set"},
		{"find command", "    fileName: code-location.manifest.yaml\n", "    find:\n      command: [sh, -c, ls]\n", "spec.discover.find.command"},
		{"dynamic parameters", "    static:\n", "    dynamic:\n      command: [echo, '[]']\n    static:\n", "spec.parameters.dynamic"},
		{"unknown parameter", "      - name: contract\n", "      - name: overlay\n", `parameter "overlay" is announced, but codeloc does not know it`},
		{"other default", "        string: \"\"\n      - name: contract", "        string: base\n      - name: contract", `announced with default "base", but codeloc applies ""`},
		{"not a plugin", "kind: ConfigManagementPlugin", "kind: Plugin", "kind should be ConfigManagementPlugin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(string(base), tt.old) {
				t.Fatalf("plugin.yaml has no %q", tt.old)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "plugin.yaml"), []byte(strings.Replace(string(base), tt.old, tt.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadPluginConfig(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// backend starts a plugin server for a contract and points the repo-server
// code at it.
type backend struct {
	name  string
	start func(t *testing.T, contract string)
}

var backends = []backend{
	{"sidecar", func(t *testing.T, contract string) {
		sockDir(t)
		startOurs(t, contract)
	}},
	{"stock", func(t *testing.T, contract string) {
		codelocOnPath(t)
		sockDir(t)
		t.Setenv(plugin.EnvContract, contract)
		startStock(t, moduleRoot, false)
	}},
}

// TestGoodFixtures renders the good fixtures through GenerateManifests:
// exactly the golden objects, plus Argo CD's tracking label.
func TestGoodFixtures(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			b.start(t, exampleContract)
			for _, name := range []string{"citation", "mediawatch"} {
				for _, whole := range []bool{true, false} {
					t.Run(fmt.Sprintf("%s/whole-repo=%v", name, whole), func(t *testing.T) {
						res, err := generate(context.Background(), name, genOpts{generatePath: !whole})
						if err != nil {
							t.Fatal(err)
						}
						got := responseObjects(t, res, appName(name))
						if diff := cmp.Diff(goldenObjects(t, name), got); diff != "" {
							t.Errorf("objects differ from the golden render (-golden +got):\n%s", diff)
						}
					})
				}
			}
		})
	}
}

// TestInvalidFixtures renders every fixtures/invalid case through
// GenerateManifests: the error carries exactly the lines `codeloc render`
// prints.
func TestInvalidFixtures(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			for _, g := range byContract(invalidFixtures(t)) {
				b.start(t, g.contract) // later servers shadow earlier ones: new socket folder
				errs := renderAll(g.names, genOpts{})
				for i, name := range g.names {
					t.Run(name, func(t *testing.T) {
						want := expectedLines(t, name)
						if b.name == "stock" {
							want = stockLines(name, want)
						}
						if errs[i] == nil {
							t.Fatal("no error")
						}
						if got := normalize(errs[i].Error()); !strings.Contains(got, want) {
							t.Errorf("error does not carry the expected lines\n got: %s\nwant: %s", got, want)
						}
					})
				}
			}
		})
	}
}

// fixtureGroup is a run of invalid fixtures rendered with one contract.
type fixtureGroup struct {
	contract string
	names    []string
}

// byContract cuts the fixtures into runs that share a contract
// (fixtureContract), in their order.
func byContract(names []string) []fixtureGroup {
	var groups []fixtureGroup
	for _, name := range names {
		c := fixtureContract(name)
		if len(groups) == 0 || groups[len(groups)-1].contract != c {
			groups = append(groups, fixtureGroup{contract: c})
		}
		g := &groups[len(groups)-1]
		g.names = append(g.names, name)
	}
	return groups
}

// renderAll renders the invalid fixtures names through GenerateManifests,
// four at a time (the server serves requests concurrently, as in
// production), and returns each one's error.
func renderAll(names []string, o genOpts) []error {
	errs := make([]error, len(names))
	next := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				_, errs[i] = generate(context.Background(), "invalid/"+names[i], o)
			}
		}()
	}
	for i := range names {
		next <- i
	}
	close(next)
	wg.Wait()
	return errs
}

// stockLines is what the stock cmp-server shows instead of a fixture's
// expected lines: its discovery rejects a folder without the declaration
// before codeloc runs.
func stockLines(name, want string) string {
	if name == "missing-manifest" {
		return `couldn't find cmp-server plugin with name "codeloc-v1" supporting the given repository`
	}
	return want
}

// TestInvalidFixturesGeneratePaths sends only the Application's folder, as
// with manifest-generate-paths: ".", to the sidecar: messages still show
// repo paths; links and bases outside the folder are not sent.
func TestInvalidFixturesGeneratePaths(t *testing.T) {
	differ := map[string]string{
		"kustomize-escape":   "kustomize-build: accumulating resources",
		"symlink-escape":     "illegal filepath in symlink",
		"link-kustomization": "illegal filepath in symlink",
	}
	for _, g := range byContract(invalidFixtures(t)) {
		sockDir(t)
		startOurs(t, g.contract)
		errs := renderAll(g.names, genOpts{generatePath: true})
		for i, name := range g.names {
			t.Run(name, func(t *testing.T) {
				want, ok := differ[name]
				if !ok {
					want = expectedLines(t, name)
				}
				err := errs[i]
				if err == nil {
					t.Fatal("no error")
				}
				if got := normalize(err.Error()); !strings.Contains(got, want) {
					t.Errorf("error does not carry the expected lines\n got: %s\nwant: %s", got, want)
				}
			})
		}
	}
}

// TestRequestProblems covers what the Application itself gets wrong, on
// both servers: the same lines.
func TestRequestProblems(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name    string
		fixture string
		opts    genOpts
		want    []string
	}{
		{
			name: "unknown parameter", fixture: "mediawatch",
			opts: genOpts{params: pluginParams{{Name: "overlay", String_: str("prod")}}},
			want: []string{`plugin-unknown-parameter spec.source.plugin.parameters[0]: unknown parameter "overlay" (codeloc's parameters are kustomize-root, contract)`},
		},
		{
			name: "array parameter", fixture: "mediawatch",
			opts: genOpts{params: pluginParams{{Name: "kustomize-root", Array: []string{"a"}}}},
			want: []string{`plugin-bad-parameter spec.source.plugin.parameters[0]: parameter "kustomize-root" is a string, not a map or an array`},
		},
		{
			name: "plugin env", fixture: "mediawatch",
			opts: genOpts{env: pluginEnv{{Name: "KUSTOMIZE_ROOT", Value: "overlays/prod"}}},
			want: []string{`plugin-unknown-env spec.source.plugin.env: codeloc takes no plugin env, got "KUSTOMIZE_ROOT"`},
		},
		{
			name: "kustomize root outside", fixture: "mediawatch",
			opts: genOpts{params: pluginParams{{Name: "kustomize-root", String_: str("../citation")}}},
			want: []string{`kustomize-root kustomize-root: "../citation" leaves the code-location folder`},
		},
		{
			name: "contract not mounted", fixture: "mediawatch",
			opts: genOpts{params: pluginParams{{Name: "contract", String_: str("staging")}}},
			want: []string{`contract-not-found spec.source.plugin.parameters.contract: contract "staging" is not mounted (mounted: example)`},
		},
		{
			name: "namespace", fixture: "mediawatch", opts: genOpts{namespace: "default"},
			want: []string{`namespace-mismatch spec.destination.namespace: the Application deploys to "default" but the cluster contract's namespace is "dagster"`},
		},
		{
			name: "api not served", fixture: "citation", opts: genOpts{apiVersions: []string{"v1", "apps/v1", "batch/v1", "rbac.authorization.k8s.io/v1"}},
			want: []string{`fixtures/citation/code-location.manifest.yaml:25:5: api-not-served dependsOn.buckets: the destination cluster does not serve objectbucket.io/v1alpha1`},
		},
		{
			name: "no batch/v1", fixture: "mediawatch", opts: genOpts{apiVersions: []string{"v1", "apps/v1", "rbac.authorization.k8s.io/v1"}},
			want: []string{`api-not-served: the destination cluster does not serve batch/v1`},
		},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			b.start(t, exampleContract)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					_, err := generate(context.Background(), tt.fixture, tt.opts)
					if err == nil {
						t.Fatal("no error")
					}
					for _, w := range tt.want {
						if !strings.Contains(err.Error(), w) {
							t.Errorf("error does not carry %q:\n%v", w, err)
						}
					}
				})
			}
		})
	}
}

// TestParameters checks the parameters that change the render.
func TestParameters(t *testing.T) {
	str := func(s string) *string { return &s }
	// A code-location whose kustomization lives in deploy/.
	src := filepath.Join(repoRoot, "fixtures", "mediawatch")
	dst := filepath.Join(repoRoot, "fixtures", "param-root")
	if err := copyTree(src, filepath.Join(dst, "deploy")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dst) })
	if err := os.Rename(filepath.Join(dst, "deploy", "code-location.manifest.yaml"), filepath.Join(dst, "code-location.manifest.yaml")); err != nil {
		t.Fatal(err)
	}
	// Two contracts: the parameter picks one.
	contracts := filepath.Join(tmpRoot, "two-contracts")
	example, _ := os.ReadFile(exampleContract)
	for _, n := range []string{"prod", "staging"} {
		if err := writeFile(filepath.Join(contracts, n+".yaml"), example); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			b.start(t, contracts)
			t.Run("no contract named", func(t *testing.T) {
				_, err := generate(context.Background(), "mediawatch", genOpts{})
				want := "contract-ambiguous spec.source.plugin.parameters.contract: 2 contracts are mounted (prod, staging) and the Application names none (set the plugin parameter contract to one of them)"
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v, want %q", err, want)
				}
			})
			t.Run("kustomize-root and contract", func(t *testing.T) {
				res, err := generate(context.Background(), "param-root", genOpts{params: pluginParams{
					{Name: "kustomize-root", String_: str("deploy")},
					{Name: "contract", String_: str("staging")},
				}})
				if err != nil {
					t.Fatal(err)
				}
				got := responseObjects(t, res, "param-root")
				if diff := cmp.Diff(goldenObjects(t, "mediawatch"), got); diff != "" {
					t.Errorf("objects differ from mediawatch's (-golden +got):\n%s", diff)
				}
			})
		})
	}
}

// TestDiscovery checks MatchRepository: an Application without a plugin
// name finds the sidecar by the declaration file, and only then.
func TestDiscovery(t *testing.T) {
	sockDir(t)
	startOurs(t, exampleContract)
	res, err := generate(context.Background(), "citation", genOpts{plugin: "-"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(goldenObjects(t, "citation"), responseObjects(t, res, "citation")); diff != "" {
		t.Errorf("discovered render differs (-golden +got):\n%s", diff)
	}
	_, err = generate(context.Background(), "invalid/missing-manifest", genOpts{plugin: "-"})
	if want := "could not find plugin supporting the given repository"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestConcurrent runs 16 GenerateManifests calls on mixed fixtures at once.
func TestConcurrent(t *testing.T) {
	sockDir(t)
	startOurs(t, exampleContract)
	cases := []string{"citation", "mediawatch", "invalid/bad-names", "invalid/kustomize-remote", "invalid/policy-kinds", "invalid/migrations", "invalid/yaml-syntax", "invalid/missing-manifest"}
	golden := map[string][]object{"citation": goldenObjects(t, "citation"), "mediawatch": goldenObjects(t, "mediawatch")}
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for i := range 16 {
		wg.Add(1)
		go func(name string) {
			defer wg.Done()
			res, err := generate(context.Background(), name, genOpts{generatePath: i%2 == 0})
			if want, ok := golden[name]; ok {
				if err != nil {
					errs <- fmt.Sprintf("%s: %v", name, err)
				} else if len(res.Manifests) != len(want) {
					errs <- fmt.Sprintf("%s: %d objects, want %d", name, len(res.Manifests), len(want))
				}
				return
			}
			if want := expectedLines(t, strings.TrimPrefix(name, "invalid/")); err == nil || !strings.Contains(err.Error(), want) {
				errs <- fmt.Sprintf("%s: error %v, want %q", name, err, want)
			}
		}(cases[i%len(cases)])
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestDeadline checks a render past the request's deadline is cancelled
// and leaves no request folder.
func TestDeadline(t *testing.T) {
	sockDir(t)
	entered := make(chan struct{}, 1)
	s := startOurs(t, exampleContract, func(o *Options) {
		o.beforeRender = func(ctx context.Context) {
			entered <- struct{}{}
			<-ctx.Done() // a render slower than the deadline
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := generate(ctx, "citation", genOpts{})
	if err == nil || !strings.Contains(err.Error(), "DeadlineExceeded") {
		t.Errorf("error %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 15*time.Second { // a bound against a hang, not a speed test
		t.Errorf("the call returned after %v", d)
	}
	select {
	case <-entered:
	default:
		t.Error("the render never started")
	}
	if !strings.Contains(s.logs.String(), `"outcome":"cancelled","codes":["deadline-exceeded"]`) {
		t.Errorf("no cancelled log line:\n%s", s.logs)
	}
}

// TestConcurrentBound: with --max-concurrent 1, a second render waits for
// the first to end before it is received and rendered, and both succeed.
// The first render is held until the second has waited a while or entered
// its render (which would be the bound broken).
func TestConcurrentBound(t *testing.T) {
	sockDir(t)
	var inRender, most atomic.Int32
	entered := make(chan struct{}, 2)
	first := make(chan struct{})
	var once sync.Once
	startOurs(t, exampleContract, func(o *Options) {
		o.Limits.Concurrent = 1
		o.beforeRender = func(context.Context) {
			n := inRender.Add(1)
			defer inRender.Add(-1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			entered <- struct{}{}
			once.Do(func() { <-first }) // the first render waits
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs := make(chan error, 2)
	go func() { _, err := generate(ctx, "citation", genOpts{generatePath: true}); errs <- err }()
	<-entered
	go func() { _, err := generate(ctx, "citation", genOpts{generatePath: true}); errs <- err }()
	select {
	case <-entered: // the second render started while the first held its turn
	case <-time.After(time.Second):
	}
	close(first)
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if m := most.Load(); m != 1 {
		t.Errorf("%d renders at once, want 1", m)
	}
}

// TestRenderBudget: a render past --max-render-seconds is answered with the
// budget's one line at once, while the render goes on holding its slot:
// with --max-concurrent 1 the next request waits until it really ends.
func TestRenderBudget(t *testing.T) {
	sockDir(t)
	release := make(chan struct{})
	var renders atomic.Int32
	startOurs(t, exampleContract, func(o *Options) {
		o.Limits.Concurrent = 1
		o.Limits.RenderSeconds = 1
		o.beforeRender = func(context.Context) {
			if renders.Add(1) == 1 {
				<-release // the first render outlasts its budget
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := generate(ctx, "citation", genOpts{generatePath: true})
	if err == nil || !strings.Contains(err.Error(), "InvalidArgument") ||
		!strings.Contains(err.Error(), "render-budget: the render took longer than its budget of 1s") ||
		!strings.Contains(err.Error(), "--max-render-seconds or CODELOC_MAX_RENDER_SECONDS") {
		t.Fatalf("error %v, want the budget's line", err)
	}
	second := make(chan error, 1)
	go func() { _, err := generate(ctx, "citation", genOpts{generatePath: true}); second <- err }()
	select {
	case err := <-second:
		t.Fatalf("the second request was served while the first render held the slot: %v", err)
	case <-time.After(1500 * time.Millisecond):
	}
	close(release)
	if err := <-second; err != nil {
		t.Errorf("second request: %v", err)
	}
}
