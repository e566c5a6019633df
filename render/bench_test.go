package render_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/codeloc/codeloc/internal/benchrepo"
	"github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/render/emit"
	"github.com/codeloc/codeloc/validate"
)

// benchSizes are the sizes of the generated code-locations, in objects:
// 100, 1000 and 5000 unless $CODELOC_BENCH_SIZES lists others (comma
// separated, at least 4 each), for profiling one size or comparing sizes
// (issue 20: 250,500,1000).
func benchSizes(tb testing.TB) []int {
	env := os.Getenv("CODELOC_BENCH_SIZES")
	if env == "" {
		return []int{100, 1000, 5000}
	}
	var sizes []int
	for _, f := range strings.Split(env, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < benchrepo.Kinds {
			tb.Fatalf("CODELOC_BENCH_SIZES: %q is not a number of objects of at least %d", f, benchrepo.Kinds)
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
	// The generated repos go past the example's limits.objects: lift it.
	big := *c
	big.Limits.Objects = 1 << 30
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("generated/objects=%d/migrations=%d", n, benchMigrations), func(b *testing.B) {
			dir := b.TempDir()
			if err := benchrepo.Write(dir, n, benchMigrations); err != nil {
				b.Fatal(err)
			}
			benchRender(b, render.Request{Dir: dir, Contract: &big})
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

// TestBenchRepoRenders keeps the generator valid as the checks evolve.
func TestBenchRepoRenders(t *testing.T) {
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	dir := t.TempDir()
	if err := benchrepo.Write(dir, 8, 3); err != nil {
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
