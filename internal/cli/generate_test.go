package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/validate"

	"github.com/codeloc/codeloc/internal/cli"
)

// generateEnv clears the variables generate reads, so that the test
// process's environment does not leak in.
func generateEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ARGOCD_") || strings.HasPrefix(k, "PARAM_") || strings.HasPrefix(k, "KUBE_") || k == "CODELOC_CONTRACT" {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
}

// runGenerate runs `codeloc generate` in-process from dir.
func runGenerate(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"generate"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// exampleContractFile writes the example contract where no fixture is.
func exampleContractFile(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "contract.yaml")
	if err := os.WriteFile(file, validate.ExampleContract, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestGenerateFixtures runs generate as the stock cmp-server does (working
// directory = the Application's path in the unpacked repo): the golden
// stream for good fixtures; for invalid ones exit 1, nothing on stdout and
// exactly the lines `codeloc render` prints.
func TestGenerateFixtures(t *testing.T) {
	root := repoRoot(t)
	contract := exampleContractFile(t)
	dirs, err := filepath.Glob(filepath.Join(root, "fixtures", "invalid", "*", "expected.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []string{"citation", "mediawatch", "allpaths"}
	for _, d := range dirs {
		cases = append(cases, "invalid/"+filepath.Base(filepath.Dir(d)))
	}
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			generateEnv(t)
			dir := filepath.Join(root, "fixtures", name)
			t.Setenv("ARGOCD_APP_SOURCE_PATH", "fixtures/"+name)
			t.Setenv("ARGOCD_APP_NAMESPACE", "dagster")
			t.Setenv("ARGOCD_APP_PARAMETERS", "null")
			c := contract
			if own := filepath.Join(dir, "contract.yaml"); fileExists(own) {
				c = own
			}
			t.Setenv("CODELOC_CONTRACT", c)
			code, stdout, stderr := runGenerate(t, dir)
			if !strings.HasPrefix(name, "invalid/") {
				want, err := os.ReadFile(filepath.Join(root, "render", "testdata", "golden", name+".yaml"))
				if err != nil {
					t.Fatal(err)
				}
				if code != cli.ExitOK || stderr != "" {
					t.Fatalf("exit %d, stderr:\n%s", code, stderr)
				}
				if diff := cmp.Diff(string(want), stdout); diff != "" {
					t.Errorf("stdout differs from the golden render (-want +got):\n%s", diff)
				}
				return
			}
			want, err := os.ReadFile(filepath.Join(dir, "expected.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if code != cli.ExitInvalid || stdout != "" {
				t.Errorf("exit %d, stdout %q; want exit 1 and nothing", code, stdout)
			}
			// A contract is shown where it is mounted: here, in the repo.
			stderr = strings.ReplaceAll(stderr, root+string(filepath.Separator), "")
			if diff := cmp.Diff(string(want), stderr); diff != "" {
				t.Errorf("stderr differs from expected.txt (-want +got):\n%s", diff)
			}
		})
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestGenerateSubFolderSent checks messages still show repo paths when
// Argo CD sent only the Application's folder (manifest-generate-paths).
func TestGenerateSubFolderSent(t *testing.T) {
	generateEnv(t)
	root := repoRoot(t)
	dir := t.TempDir()
	src := filepath.Join(root, "fixtures", "invalid", "bad-names")
	for _, f := range []string{"code-location.manifest.yaml", "kustomization.yaml", "deployment.yaml", "service.yaml", "workspace.yaml"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("ARGOCD_APP_SOURCE_PATH", "fixtures/invalid/bad-names")
	code, _, stderr := runGenerate(t, dir, "--contract", exampleContractFile(t))
	want, _ := os.ReadFile(filepath.Join(src, "expected.txt"))
	if code != cli.ExitInvalid {
		t.Errorf("exit %d", code)
	}
	if diff := cmp.Diff(string(want), stderr); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}

// TestGenerateRequest covers the contract and the Application's own
// mistakes: one line each, exit 1, nothing on stdout.
func TestGenerateRequest(t *testing.T) {
	root := repoRoot(t)
	contract := exampleContractFile(t)
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string // stderr; "" = success
	}{
		{
			name: "no contract",
			want: "contract-not-configured contract: no cluster contract is configured; the plugin never falls back to the example contract (mount the contract ConfigMap and pass --contract FILE|DIR or set CODELOC_CONTRACT)\n",
		},
		{name: "contract from the environment", env: map[string]string{"CODELOC_CONTRACT": contract}},
		{name: "the flag wins", args: []string{"--contract", contract}, env: map[string]string{"CODELOC_CONTRACT": "/nonexistent"}},
		{
			name: "contract folder missing", args: []string{"--contract", "/nonexistent/contracts"},
			want: "/nonexistent/contracts: contract-not-found: /nonexistent/contracts does not exist (mount the cluster contract (a ConfigMap) where --contract or CODELOC_CONTRACT points)\n",
		},
		{
			name: "unknown parameter", args: []string{"--contract", contract},
			env:  map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"overlay","string":"prod"}]`},
			want: `plugin-unknown-parameter spec.source.plugin.parameters[0]: unknown parameter "overlay" (codeloc's parameters are kustomize-root, contract)` + "\n",
		},
		{
			name: "destination namespace", args: []string{"--contract", contract},
			env:  map[string]string{"ARGOCD_APP_NAMESPACE": "default"},
			want: `namespace-mismatch spec.destination.namespace: the Application deploys to "default" but the cluster contract's namespace is "dagster" (set the Application's destination namespace to dagster)` + "\n",
		},
		{
			name: "API not served", args: []string{"--contract", contract},
			env:  map[string]string{"KUBE_API_VERSIONS": "v1,batch/v1,rbac.authorization.k8s.io/v1", "ARGOCD_APP_SOURCE_PATH": "fixtures/mediawatch"},
			want: "fixtures/mediawatch/code-location.manifest.yaml:10:5: api-not-served dependsOn.buckets: the destination cluster does not serve objectbucket.io/v1alpha1 (install the API on the cluster (for objectbucket.io: Rook's object store / lib-bucket-provisioner CRDs) or deploy elsewhere)\n",
		},
		{name: "arguments", args: []string{"fixtures/mediawatch"}, want: "codeloc: unknown command \"fixtures/mediawatch\" for \"codeloc generate\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			generateEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			code, stdout, stderr := runGenerate(t, filepath.Join(root, "fixtures", "mediawatch"), tt.args...)
			if tt.want == "" {
				if code != cli.ExitOK || stderr != "" || !strings.Contains(stdout, "kind: Deployment") {
					t.Errorf("exit %d, stderr %q", code, stderr)
				}
				return
			}
			if code == cli.ExitOK || stdout != "" {
				t.Errorf("exit %d, stdout %q; want a failure and nothing", code, stdout)
			}
			if diff := cmp.Diff(tt.want, stderr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}
