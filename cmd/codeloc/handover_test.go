package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/codeloc/codeloc/internal/cli"
	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/testcache"
)

// TestMain lets the test binary stand in for the binaries of the image, by
// the name it is started as: as codeloc it is this package's main; as
// codeloc-jobs it runs the validate command both binaries share, its live
// checks replaced by standInLive. TestHandOverLive starts it under those
// names instead of building them (building codeloc-jobs, which links
// client-go and pgx, took most of this package's time on a cold cache).
func TestMain(m *testing.M) {
	switch filepath.Base(os.Args[0]) {
	case names.BinaryCLI:
		main()
	case names.BinaryJobs:
		root := cli.NewRoot(names.BinaryJobs, "stand-in", cli.NewValidateCmd(standInLive))
		os.Exit(cli.Run(root, os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(testcache.Run(m))
}

// standInLive is the stand-in codeloc-jobs's live checks: it names what it
// was given and fails as the real one does without a cluster (exit 2).
func standInLive(_ context.Context, _, _ io.Writer, dir, contract, kubeconfig string) error {
	return cli.Usagef("stand-in live checks of %s, contract %s, kubeconfig %s", dir, contract, kubeconfig)
}

// install puts the test binary in dir under name (a hard link, else a copy),
// so that it runs as that binary and os.Executable names dir.
func install(t *testing.T, dir, name string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if os.Link(self, path) == nil {
		return path
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// runIn runs bin with args, with PATH holding only bin's folder, and returns
// its exit code and combined output.
func runIn(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin))
	out, err := cmd.CombinedOutput()
	return exitCode(err), string(out)
}

// liveArgs are the arguments of `validate --live` on citation.
func liveArgs(dir string) []string {
	return []string{"validate", "--live", "--contract", "../../validate/contract.example.yaml",
		"--kubeconfig", filepath.Join(dir, "no-such-kubeconfig"), "../../fixtures/citation"}
}

// TestHandOverLive checks that the per-render codeloc hands `validate
// --live` to the codeloc-jobs next to it, with its own arguments, that what
// codeloc-jobs prints and its exit code are the command's, and that codeloc
// says what to install when codeloc-jobs is missing.
func TestHandOverLive(t *testing.T) {
	dir := t.TempDir()
	codeloc := install(t, dir, names.BinaryCLI)
	args := liveArgs(dir)
	code, out := runIn(t, codeloc, args...)
	if code != cli.ExitUsage || !strings.Contains(out, "go build ./cmd/codeloc-jobs") {
		t.Errorf("without codeloc-jobs: exit %d, output %q", code, out)
	}
	install(t, dir, names.BinaryJobs)
	code, out = runIn(t, codeloc, args...)
	want := fmt.Sprintf("codeloc-jobs: stand-in live checks of ../../fixtures/citation, contract ../../validate/contract.example.yaml, kubeconfig %s\n", args[5])
	if code != cli.ExitUsage || out != want {
		t.Errorf("through codeloc-jobs: exit %d, output %q, want %q", code, out, want)
	}
}

// TestHandOverLiveRealJobs runs the hand-over with the real codeloc-jobs,
// built here: under CI=true only, where its packages are built for their
// own tests anyway (from a cold cache the build takes 25-50 s on 2 cores).
func TestHandOverLiveRealJobs(t *testing.T) {
	if os.Getenv("CI") != "true" {
		t.Skip("builds codeloc-jobs (client-go, pgx): runs under CI=true; TestHandOverLive checks the hand-over with a stand-in")
	}
	dir := t.TempDir()
	codeloc := install(t, dir, names.BinaryCLI)
	if b, err := exec.Command("go", "build", "-o", filepath.Join(dir, names.BinaryJobs), "github.com/codeloc/codeloc/cmd/codeloc-jobs").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/codeloc-jobs: %v\n%s", err, b)
	}
	code, out := runIn(t, codeloc, liveArgs(dir)...)
	if code != cli.ExitUsage || !strings.HasPrefix(out, "codeloc-jobs: kubernetes configuration") {
		t.Errorf("through codeloc-jobs: exit %d, output %q", code, out)
	}
}

func exitCode(err error) int {
	if err == nil {
		return cli.ExitOK
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// TestParseCache runs codeloc (this test binary, whose build information
// names go-pgquery's and wazero's versions, so that its parse cache is on)
// on code-locations with migrations, with a cache folder of its own: cold,
// the render parses and writes the cache; warm, it reads the cache and
// leaves it as it is; both print exactly what the golden files say, and so
// does a render whose cache folder cannot be created, with nothing more on
// stderr.
func TestParseCache(t *testing.T) {
	dir := t.TempDir()
	codeloc := install(t, dir, names.BinaryCLI)
	cache := filepath.Join(dir, "cache")
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	root := repoRoot(t)
	golden := func(t *testing.T, p string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	citation := golden(t, "render/testdata/golden/citation.yaml")
	blocking := golden(t, "fixtures/invalid/sql-index-blocking/expected.txt")
	tests := []struct {
		name, fixture, cacheDir string
		code                    int
		stdout, stderr          string
		entries                 int // in cache after the run
	}{
		{"citation, cold", "fixtures/citation", cache, cli.ExitOK, citation, "", 1},
		{"citation, warm", "fixtures/citation", cache, cli.ExitOK, citation, "", 1},
		{"a lint error, cold", "fixtures/invalid/sql-index-blocking", cache, cli.ExitInvalid, "", blocking, 3},
		{"a lint error, warm", "fixtures/invalid/sql-index-blocking", cache, cli.ExitInvalid, "", blocking, 3},
		{"citation, no cache folder", "fixtures/citation", notDir, cli.ExitOK, citation, "", 3},
	}
	var before map[string][]byte
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(codeloc, "render", tt.fixture)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "CODELOC_CACHE_DIR="+tt.cacheDir)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			code := exitCode(cmd.Run())
			if code != tt.code || stdout.String() != tt.stdout || stderr.String() != tt.stderr {
				t.Errorf("exit %d, want %d; stdout as the golden file: %v; stderr %q, want %q",
					code, tt.code, stdout.String() == tt.stdout, stderr.String(), tt.stderr)
			}
			entries := map[string][]byte{}
			des, _ := os.ReadDir(filepath.Join(cache, "sqlparse"))
			for _, de := range des {
				entries[de.Name()], _ = os.ReadFile(filepath.Join(cache, "sqlparse", de.Name()))
			}
			if len(entries) != tt.entries {
				t.Errorf("%d cache entries, want %d", len(entries), tt.entries)
			}
			if strings.HasSuffix(tt.name, "warm") && !reflect.DeepEqual(entries, before) {
				t.Errorf("a warm render changed the cache")
			}
			before = entries
		})
	}
}
