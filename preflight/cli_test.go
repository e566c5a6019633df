package preflight_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/codeloc/codeloc/internal/kubetest"
)

var cli struct {
	once sync.Once
	path string
	err  error
	dir  string
}

// codelocBinary builds cmd/codeloc-jobs, the binary the PreSync Jobs run,
// once per test binary.
func codelocBinary(t *testing.T) string {
	t.Helper()
	cli.once.Do(func() {
		cli.dir, cli.err = os.MkdirTemp("", "preflight-cli-")
		if cli.err != nil {
			return
		}
		cli.path = filepath.Join(cli.dir, "codeloc-jobs")
		out, err := exec.Command("go", "build", "-o", cli.path, "github.com/codeloc/codeloc/cmd/codeloc-jobs").CombinedOutput()
		if err != nil {
			cli.err = errors.New("go build ./cmd/codeloc-jobs: " + err.Error() + "\n" + string(out))
		}
	})
	if cli.err != nil {
		t.Fatal(cli.err)
	}
	return cli.path
}

// mountLike writes files the way the kubelet mounts a ConfigMap: each name
// is a symbolic link into ..data.
func mountLike(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "..2026_06_24_10_00_00.000000001")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Base(data), filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(data, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("..data", name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type cliResult struct {
	stdout, stderr, termination string
	code                        int
	elapsed                     time.Duration
}

// runCLI runs codeloc-jobs with args, PG* and KUBECONFIG cleared, and
// (for preflight, the command that writes one) a termination log of its own.
func runCLI(t *testing.T, args ...string) cliResult {
	t.Helper()
	term := filepath.Join(t.TempDir(), "termination-log")
	if err := os.WriteFile(term, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if args[0] == "preflight" {
		args = append(args, "--termination-log", term)
	}
	cmd := exec.Command(codelocBinary(t), args...)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "PG") && k != "DATABASE_URL" && k != "KUBECONFIG" && k != "CODELOC_CONTRACT" && k != "KUBERNETES_SERVICE_HOST" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := cliResult{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	data, _ := os.ReadFile(term)
	res.termination = string(data)
	return res
}

// TestCommand runs `codeloc preflight` as the Job does: the declaration
// and contract mounted from a ConfigMap (symbolic links), a kubeconfig, no
// database credentials.
func TestCommand(t *testing.T) {
	env := sharedEnv(t)
	kubeconfig := kubetest.WriteKubeconfig(t, env.Admin)
	t.Cleanup(func() {
		if cli.dir != "" {
			os.RemoveAll(cli.dir)
		}
	})

	t.Run("passes", func(t *testing.T) {
		w := newWorld(t, env, nil)
		w.apply(t, good())
		dir := mountLike(t, map[string]string{"code-location.manifest.yaml": declarationYAML, "contract.yaml": w.subst(contractYAML)})
		res := runCLI(t, "preflight", "--dir", dir, "--contract", filepath.Join(dir, "contract.yaml"), "--kubeconfig", kubeconfig, "-v")
		if res.code != 0 {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
		}
		if !strings.HasPrefix(res.stdout, "preflight citation: ok (") || strings.Count(res.stdout, "\n") != 1 {
			t.Errorf("stdout is not the one-line summary: %q", res.stdout)
		}
		if res.termination != res.stdout {
			t.Errorf("termination message %q, want the summary %q", res.termination, res.stdout)
		}
		for _, want := range []string{"note: database pgvector: not checked", "ok: secret pgvector-pg-auth: present", "ok: code-location mediawatch: ready"} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
			}
		}
		t.Logf("codeloc preflight process: %s wall; %s", res.elapsed.Round(time.Millisecond), strings.TrimSpace(res.stdout))
	})

	t.Run("fails with every problem", func(t *testing.T) {
		w := newWorld(t, env, nil)
		s := good()
		s.secrets = []string{"dagster-postgresql-secret"}
		s.records["mediawatch"] = "false"
		w.apply(t, s)
		decl := strings.Replace(declarationYAML, "contractVersion: 3", "contractVersion: 2", 1)
		dir := mountLike(t, map[string]string{"code-location.manifest.yaml": decl, "contract.yaml": w.subst(contractYAML)})
		res := runCLI(t, "preflight", "--dir", dir, "--contract", filepath.Join(dir, "contract.yaml"), "--kubeconfig", kubeconfig)
		if res.code != 1 {
			t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
		}
		if res.stdout != "" {
			t.Errorf("stdout not empty on failure: %q", res.stdout)
		}
		for _, want := range []string{
			"preflight citation: 3 problems (",
			"code-location.manifest.yaml:4:18: contract-version-unsupported contractVersion: contract version 2 is not accepted",
			"\nsecret-missing dependsOn.secrets[0]: secret \"pgvector-pg-auth\" does not exist in namespace \"" + w.ns + "\"",
			"\ndependency-not-ready dependsOn.codeLocations[0]: code-location \"mediawatch\" is not ready",
		} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
			}
		}
		if !strings.HasPrefix(res.termination, "preflight citation: 3 problems (") || strings.Count(res.termination, "\n") != 1 ||
			!strings.Contains(res.termination, "; secret-missing dependsOn.secrets[0]") {
			t.Errorf("termination message is not the one-line summary: %q", res.termination)
		}
	})

	t.Run("reports the platform objects missing", func(t *testing.T) {
		// The same checks run from `codeloc-jobs validate --live`, which
		// goes through the same command code after the render-time checks.
		w := newWorld(t, env, nil)
		s := good()
		s.configMaps, s.serviceAccounts = []string{"dagster-instance"}, nil
		w.apply(t, s)
		dir := mountLike(t, map[string]string{"code-location.manifest.yaml": withServiceAccount(declarationYAML), "contract.yaml": w.subst(contractYAML)})
		res := runCLI(t, "preflight", "--dir", dir, "--contract", filepath.Join(dir, "contract.yaml"), "--kubeconfig", kubeconfig)
		if res.code != 1 || res.stdout != "" {
			t.Fatalf("exit %d, stdout %q\nstderr: %s", res.code, res.stdout, res.stderr)
		}
		for _, want := range []string{
			"preflight citation: 2 problems (",
			"\nconfigmap-missing dependsOn.configMaps[1]: ConfigMap \"dagster-pipeline-env\" does not exist in namespace \"" + w.ns + "\"",
			"\nservice-account-missing dependsOn.serviceAccounts[0]: ServiceAccount \"dagster\" does not exist in namespace \"" + w.ns + "\"",
		} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
			}
		}
		if !strings.Contains(res.termination, ": configmap-missing dependsOn.configMaps[1]") || !strings.Contains(res.termination, "; service-account-missing dependsOn.serviceAccounts[0]") {
			t.Errorf("termination message lacks the problems: %q", res.termination)
		}
	})

	t.Run("no contract", func(t *testing.T) {
		dir := mountLike(t, map[string]string{"code-location.manifest.yaml": declarationYAML})
		res := runCLI(t, "preflight", "--dir", dir, "--kubeconfig", kubeconfig)
		if res.code != 1 || !strings.Contains(res.stderr, "contract-unreadable: no cluster contract given (live checks need the cluster's real contract") {
			t.Fatalf("exit %d\nstderr: %s", res.code, res.stderr)
		}
		if !strings.HasPrefix(res.termination, "preflight: 1 problem(s): contract-unreadable") {
			t.Errorf("termination message %q", res.termination)
		}
	})

	t.Run("API server unreachable", func(t *testing.T) {
		w := newWorld(t, env, nil)
		dir := mountLike(t, map[string]string{"code-location.manifest.yaml": declarationYAML, "contract.yaml": w.subst(contractYAML)})
		down := rest.CopyConfig(env.Admin)
		down.Host = "https://127.0.0.1:1"
		res := runCLI(t, "preflight", "--dir", dir, "--contract", filepath.Join(dir, "contract.yaml"), "--kubeconfig", kubetest.WriteKubeconfig(t, down), "--api-retry", "2s")
		if res.code != 1 || !strings.Contains(res.stderr, "api-error dependsOn.secrets[0]: cannot get secret \"pgvector-pg-auth\"") ||
			!strings.Contains(res.stderr, "(connection refused: gave up after ") {
			t.Fatalf("exit %d\nstderr: %s", res.code, res.stderr)
		}
		if res.elapsed > 20*time.Second {
			t.Errorf("took %s against a closed port", res.elapsed)
		}
	})
}
