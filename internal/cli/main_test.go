package cli_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/internal/cli"
	"github.com/codeloc/codeloc/internal/golden"
	"github.com/codeloc/codeloc/internal/testcache"
	"github.com/codeloc/codeloc/validate"
)

// TestMain runs the tests with one parse cache folder of their own: the
// first lint of each migration is cold, the others read it, and nothing is
// written under the user's home.
func TestMain(m *testing.M) {
	os.Exit(testcache.Run(m))
}

// run is codeloc's main in-process: cli.Codeloc run with args, its exit
// code.
func run(args []string, stdout, stderr io.Writer) int {
	return cli.Run(cli.Codeloc(), args, stdout, stderr)
}

// runCLI runs the CLI in-process and returns its exit code and outputs.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestRenderInvalidFixtures renders every fixtures/invalid case from the
// repo root: exit 1, nothing on stdout, exactly the pinned stderr lines.
func TestRenderInvalidFixtures(t *testing.T) {
	t.Chdir("../..")
	dirs, err := filepath.Glob("fixtures/invalid/*")
	if err != nil || len(dirs) < 20 {
		t.Fatalf("want at least 20 invalid fixtures, got %d (%v)", len(dirs), err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			args := []string{"render", dir}
			if _, err := os.Stat(filepath.Join(dir, "contract.yaml")); err == nil {
				args = append(args, "--contract", filepath.Join(dir, "contract.yaml"))
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != cli.ExitInvalid {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, cli.ExitInvalid, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout is not empty:\n%s", stdout)
			}
			golden.Check(t, filepath.Join(dir, "expected.txt"), []byte(stderr), "go test ./internal/cli -run InvalidFixtures -update")
			for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if strings.Contains(line, "goroutine ") || strings.Contains(line, "Usage:") {
					t.Errorf("stderr carries a stack or usage text: %q", line)
				}
			}
		})
	}
}

// TestRenderGoodFixtures checks the CLI prints the golden stream.
func TestRenderGoodFixtures(t *testing.T) {
	t.Chdir("../..")
	for _, name := range []string{"citation", "mediawatch", "allpaths"} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "render", filepath.Join("fixtures", name))
			if code != cli.ExitOK || stderr != "" {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			want, err := os.ReadFile(filepath.Join("render", "testdata", "golden", name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), stdout); diff != "" {
				t.Errorf("stdout differs from the golden file (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateJSON(t *testing.T) {
	t.Chdir("../..")
	tests := []struct {
		args     []string
		code     int
		contains []string
	}{
		{[]string{"validate", "fixtures/citation", "-o", "json"}, cli.ExitOK, []string{`"valid": true`, `"codeLocation": "citation"`, `"problems": []`}},
		{[]string{"validate", "fixtures/invalid/bad-quantities", "-o", "json"}, cli.ExitInvalid, []string{`"valid": false`, `"code": "bad-quantity"`, `"path": "resources.cpu"`, `"line": 6`, `"column": 8`, `"hint": "write a Kubernetes quantity`}},
		{[]string{"validate", "fixtures/mediawatch"}, cli.ExitOK, []string{"mediawatch: valid (11 objects)"}},
		{[]string{"validate", "fixtures/citation", "-o", "yaml"}, cli.ExitUsage, nil},
		{[]string{"render", "fixtures/citation", "--bogus"}, cli.ExitUsage, nil},
		{[]string{"render", "a", "b"}, cli.ExitUsage, nil},
		{[]string{"render", "fixtures/citation", "--contract", "does-not-exist.yaml"}, cli.ExitInvalid, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.code, stderr)
			}
			for _, s := range tt.contains {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			if code != cli.ExitOK && !strings.Contains(strings.Join(tt.args, " "), "json") && stdout != "" {
				t.Errorf("stdout not empty on failure: %s", stdout)
			}
		})
	}
}

func TestSchemaAndContractCommands(t *testing.T) {
	for _, c := range []string{"schema", "contract", "version"} {
		code, stdout, stderr := runCLI(t, c)
		if code != cli.ExitOK || stdout == "" || stderr != "" {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %q", c, code, len(stdout), stderr)
		}
	}
}

// TestRenderMigrationWarnings renders fixtures/citation with a second
// migration that the contract's policy only warns about and that carries
// a reasoned opt-out: exit 0, the stream on stdout, one warning line each
// on stderr.
func TestRenderMigrationWarnings(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../fixtures/citation")); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "code-location.manifest.yaml")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte("migrations: [001-researchers-hnsw.sql]"), []byte("migrations: [001-researchers-hnsw.sql, 002-affiliations.sql]"), 1)
	sql := "ALTER TABLE researchers ALTER COLUMN affiliation SET NOT NULL;\n" +
		"-- codeloc:allow sql-drop full_name moved to the people table two revisions ago\n" +
		"ALTER TABLE researchers DROP COLUMN full_name;\n"
	contract := strings.Replace(string(validate.ExampleContract), "    sql-set-not-null: error\n", "    sql-set-not-null: warning\n", 1)
	for name, content := range map[string][]byte{
		manifest: data,
		filepath.Join(dir, "migrations", "002-affiliations.sql"): []byte(sql),
		filepath.Join(dir, "contract.yaml"):                      []byte(contract),
	} {
		if err := os.WriteFile(name, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCLI(t, "render", dir, "--contract", filepath.Join(dir, "contract.yaml"))
	if code != cli.ExitOK || !strings.Contains(stdout, "kind: Deployment") {
		t.Fatalf("exit %d, %d bytes on stdout; stderr:\n%s", code, len(stdout), stderr)
	}
	file := filepath.Join(dir, "migrations", "002-affiliations.sql")
	want := file + `:1:1: warning: sql-set-not-null: SET NOT NULL on "affiliation" scans the whole table "researchers" under an ACCESS EXCLUSIVE lock: no validated CHECK (affiliation IS NOT NULL) of the table is known from an earlier file or statement (ADD CONSTRAINT ... CHECK (col IS NOT NULL) NOT VALID in one file, VALIDATE CONSTRAINT in a later file, then SET NOT NULL in that file or a later one: PostgreSQL 12+ uses the validated constraint and skips the scan)
` + file + `:3:1: warning: sql-drop: allowed: full_name moved to the people table two revisions ago
`
	// render first says which contract it read: its versions and checksum.
	sum := sha256.Sum256([]byte(contract))
	summary := "contract file " + filepath.Join(dir, "contract.yaml") + ": contractVersions [2, 3], sha256 " + hex.EncodeToString(sum[:]) + "\n"
	if diff := cmp.Diff(summary+want, stderr); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	// validate says the same, and counts the objects.
	code, stdout, stderr = runCLI(t, "validate", dir, "--contract", filepath.Join(dir, "contract.yaml"))
	if code != cli.ExitOK || !strings.Contains(stdout, "citation: valid") || stderr != want {
		t.Errorf("validate: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
}
