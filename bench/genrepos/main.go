// Command genrepos writes the generated code-locations of render's
// BenchmarkRender under a folder, one per size (objects-100,
// objects-1000, ...), for bench/compare.sh to render with codeloc and
// kustomize alike.
//
//	go run ./bench/genrepos -out DIR -sizes 100,1000,5000
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/codeloc/codeloc/internal/benchrepo"
)

// migrations is the number of migrations of every generated repo, as in
// BenchmarkRender.
const migrations = 100

func main() {
	out := flag.String("out", "", "the folder to write the repos under (required)")
	sizes := flag.String("sizes", "100,1000,5000", "comma-separated sizes, in objects (at least 4 each)")
	flag.Parse()
	if err := run(*out, *sizes); err != nil {
		fmt.Fprintln(os.Stderr, "genrepos:", err)
		os.Exit(1)
	}
}

func run(out, sizes string) error {
	if out == "" {
		return fmt.Errorf("-out is required")
	}
	for _, f := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return fmt.Errorf("-sizes: %q is not a number", f)
		}
		dir := filepath.Join(out, fmt.Sprintf("objects-%d", n))
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if err := benchrepo.Write(dir, n, migrations); err != nil {
			return err
		}
	}
	return nil
}
