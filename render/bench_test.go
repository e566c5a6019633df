package render_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/render/emit"
	"github.com/codeloc/codeloc/validate"
)

// benchSizes are the sizes of the generated code-locations, in objects:
// 100, 1000 and 5000 unless $CODELOC_BENCH_SIZES lists others (comma
// separated multiples of 4), for profiling one size.
func benchSizes(tb testing.TB) []int {
	env := os.Getenv("CODELOC_BENCH_SIZES")
	if env == "" {
		return []int{100, 1000, 5000}
	}
	var sizes []int
	for _, f := range strings.Split(env, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < len(benchKinds) || n%len(benchKinds) != 0 {
			tb.Fatalf("CODELOC_BENCH_SIZES: %q is not a positive multiple of %d", f, len(benchKinds))
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// benchMigrations is the number of migrations of every generated repo.
const benchMigrations = 100

// BenchmarkRender measures what `codeloc render` does after start-up:
// Render then Write, on each fixture and on generated repos of growing size.
// The contract is loaded once, outside the loop.
//
//	go test ./render -run '^$' -bench BenchmarkRender -benchmem
func BenchmarkRender(b *testing.B) {
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		b.Fatal(problems)
	}
	for _, fx := range []string{"citation", "mediawatch"} {
		b.Run("fixture="+fx, func(b *testing.B) {
			benchRender(b, render.Request{Dir: filepath.Join("..", "fixtures", fx), Contract: c})
		})
	}
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("generated/objects=%d/migrations=%d", n, benchMigrations), func(b *testing.B) {
			dir := b.TempDir()
			if err := writeBenchRepo(dir, n, benchMigrations); err != nil {
				b.Fatal(err)
			}
			benchRender(b, render.Request{Dir: dir, Contract: c})
		})
	}
}

func benchRender(b *testing.B, req render.Request) {
	b.ReportAllocs()
	objects, size := 0, 0
	for b.Loop() {
		res, err := render.Render(req)
		if err != nil {
			b.Fatal(err)
		}
		out, err := emit.Write(res.Objects)
		if err != nil {
			b.Fatal(err)
		}
		objects, size = len(res.Objects), len(out)
	}
	b.SetBytes(int64(size))
	b.ReportMetric(float64(objects), "objects/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*objects), "ns/object")
}

// TestWriteBenchRepos writes the generated repos of BenchmarkRender under
// $CODELOC_BENCH_REPOS (objects-100, objects-1000, ...) for bench/compare.sh,
// so that the whole-process comparison renders the same inputs. Skipped
// when the variable is not set. TestBenchRepoRenders checks the generator.
func TestWriteBenchRepos(t *testing.T) {
	out := os.Getenv("CODELOC_BENCH_REPOS")
	if out == "" {
		t.Skip("CODELOC_BENCH_REPOS is not set")
	}
	for _, n := range benchSizes(t) {
		dir := filepath.Join(out, fmt.Sprintf("objects-%d", n))
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := writeBenchRepo(dir, n, benchMigrations); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBenchRepoRenders keeps the generator valid as the checks evolve.
func TestBenchRepoRenders(t *testing.T) {
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	dir := t.TempDir()
	if err := writeBenchRepo(dir, 8, 3); err != nil {
		t.Fatal(err)
	}
	res, err := render.Render(render.Request{Dir: dir, Contract: c})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Objects) < 8 {
		t.Fatalf("%d objects rendered, want at least 8", len(res.Objects))
	}
}

// benchKinds are the generated object kinds, one file each; the generated
// repo holds objects/len(benchKinds) of each.
var benchKinds = []struct {
	file string
	doc  func(i int) string
}{
	{"serviceaccounts.yaml", func(i int) string {
		return fmt.Sprintf(`apiVersion: v1
kind: ServiceAccount
metadata:
  name: gen-worker-%05d
  labels:
    app.kubernetes.io/name: gen-worker-%05d
automountServiceAccountToken: false
`, i, i)
	}},
	{"configmaps.yaml", func(i int) string {
		return fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: gen-worker-%05d
  labels:
    app.kubernetes.io/name: gen-worker-%05d
data:
  DAGSTER_CODE_LOCATION: gen
  WORKER_INDEX: "%d"
  workspace.yaml: |
    load_from:
      - python_module:
          module_name: gen.worker_%05d
          working_directory: /opt/dagster/app
`, i, i, i, i)
	}},
	{"services.yaml", func(i int) string {
		return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: gen-worker-%05d
  labels:
    app.kubernetes.io/name: gen-worker-%05d
spec:
  selector:
    app.kubernetes.io/name: gen-worker-%05d
  ports:
    - name: grpc
      port: 3030
      targetPort: grpc
`, i, i, i)
	}},
	{"deployments.yaml", func(i int) string {
		return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: gen-worker-%05d
  labels:
    app.kubernetes.io/name: gen-worker-%05d
    app.kubernetes.io/component: user-code
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: gen-worker-%05d
  template:
    metadata:
      labels:
        app.kubernetes.io/name: gen-worker-%05d
        app.kubernetes.io/component: user-code
    spec:
      serviceAccountName: gen-worker-%05d
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        fsGroup: 1000
      containers:
        - name: dagster
          image: gen-dagster
          args: ["dagster", "api", "grpc", "-h", "0.0.0.0", "-p", "3030", "-m", "gen.worker_%05d"]
          ports:
            - name: grpc
              containerPort: 3030
          envFrom:
            - configMapRef:
                name: gen-worker-%05d
          resources:
            requests:
              cpu: 1m
              memory: 4Mi
            limits:
              memory: 64Mi
          readinessProbe:
            grpc:
              port: 3030
            periodSeconds: 10
`, i, i, i, i, i, i, i)
	}},
}

const benchRevision = "0badc0ffee1234567890abcdef0123456789abcd"

// writeBenchRepo writes into dir a valid code-location "gen" whose kustomize
// root yields objects objects (ServiceAccounts, ConfigMaps, Services and
// Deployments in equal numbers, one file per kind, images retagged by the
// kustomization) and which declares migrations SQL files, a database, its
// secret, a bucket and a disk, so that every part of Render runs. Each
// Deployment requests 1m cpu and 4Mi memory, so that up to 8,000 objects
// fit the declared 2 cpu and 8Gi.
func writeBenchRepo(dir string, objects, migrations int) error {
	if objects < len(benchKinds) || objects%len(benchKinds) != 0 {
		return fmt.Errorf("objects must be a positive multiple of %d, not %d", len(benchKinds), objects)
	}
	if err := os.MkdirAll(filepath.Join(dir, validate.MigrationsDir), 0o755); err != nil {
		return err
	}
	files := map[string]string{}
	var kust strings.Builder
	kust.WriteString("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n")
	for _, k := range benchKinds {
		var sb strings.Builder
		for i := range objects / len(benchKinds) {
			if i > 0 {
				sb.WriteString("---\n")
			}
			sb.WriteString(k.doc(i))
		}
		files[k.file] = sb.String()
		fmt.Fprintf(&kust, "  - %s\n", k.file)
	}
	fmt.Fprintf(&kust, "images:\n  - name: gen-dagster\n    newName: registry:80/gen-dagster\n    newTag: %s\n", benchRevision)
	files["kustomization.yaml"] = kust.String()

	var decl strings.Builder
	fmt.Fprintf(&decl, `codeLocation: gen
ready: true
revision: %s
contractVersion: 3
resources:
  cpu: "2"
  memory: 8Gi
  disk: 20Gi
dependsOn:
  database: [pgvector]
  secrets: [pgvector-pg-auth]
  buckets:
    - name: atlas-datalake
      size: 100Gi
      storageClass: rook-ceph-datalake
`, benchRevision)
	if migrations > 0 {
		decl.WriteString("  migrations:\n")
	}
	for i := 1; i <= migrations; i++ {
		name := fmt.Sprintf("%03d-x.sql", i)
		fmt.Fprintf(&decl, "    - %s\n", name)
		files[filepath.Join(validate.MigrationsDir, name)] = fmt.Sprintf(`-- migration %d of the generated benchmark repo
CREATE TABLE IF NOT EXISTS events_%03d (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source     text NOT NULL,
    payload    jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS events_%03d_created_at ON events_%03d (created_at);
`, i, i, i, i)
	}
	files[validate.ManifestFile] = decl.String()

	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}
