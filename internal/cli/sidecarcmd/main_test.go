package sidecarcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/codeloc/codeloc/sidecar"
	"github.com/codeloc/codeloc/validate"
)

func TestUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--help"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--contract FILE|DIR", "--config-dir DIR", "--metrics-addr ADDR", "--shutdown-timeout",
		"CODELOC_CONTRACT", "ARGOCD_PLUGINSOCKFILEPATH", "ARGOCD_GRPC_MAX_SIZE_MB", "/home/argocd/cmp-server/config", "kustomize-root",
		"--max-repo-bytes SIZE", "--max-expanded-bytes SIZE", "--max-entries N", "--max-depth N", "--max-file-bytes SIZE", "--max-concurrent N",
		"CODELOC_SIDECAR_MAX_REPO_BYTES", "CODELOC_SIDECAR_MAX_EXPANDED_BYTES", "CODELOC_SIDECAR_MAX_ENTRIES", "CODELOC_SIDECAR_MAX_DEPTH",
		"CODELOC_SIDECAR_MAX_FILE_BYTES", "CODELOC_SIDECAR_MAX_CONCURRENT", "(default 64Mi)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("--help does not mention %q", want)
		}
	}
}

func TestCommandLineErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		code int
		want string
	}{
		{"no contract", []string{"--config-dir", "../../.."}, nil, 1, "no cluster contract: pass --contract FILE|DIR or set CODELOC_CONTRACT"},
		{"contract missing", []string{"--contract", "/nonexistent", "--config-dir", "../../.."}, nil, 1, "cluster contract: stat /nonexistent"},
		{"no plugin.yaml", []string{"--contract", "sidecarcmd.go", "--config-dir", t.TempDir()}, nil, 1, "plugin configuration"},
		{"bad level", []string{"--log-level", "loud"}, nil, 2, "--log-level"},
		{"stray argument", []string{"--contract", "x", "extra"}, nil, 2, `unexpected argument "extra"`},
		{"bad size", []string{"--max-repo-bytes", "lots"}, nil, 2, `invalid argument "lots" for "--max-repo-bytes" flag: "lots" is not a positive size`},
		{"zero count", []string{"--max-entries", "0"}, nil, 2, `"0" is not a positive whole number`},
		{"bad size in the environment", nil, map[string]string{"CODELOC_SIDECAR_MAX_FILE_BYTES": "-1Mi"}, 2,
			`CODELOC_SIDECAR_MAX_FILE_BYTES: "-1Mi" is not a positive size`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CODELOC_CONTRACT", "")
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			if code := run(tt.args, &stdout, &stderr); code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q does not carry %q", stderr.String(), tt.want)
			}
		})
	}
}

// TestSIGTERM serves, then sends SIGTERM to the process: run returns 0 and
// the socket is gone.
func TestSIGTERM(t *testing.T) {
	socks := t.TempDir()
	t.Setenv("ARGOCD_PLUGINSOCKFILEPATH", socks)
	contract := filepath.Join(t.TempDir(), "contract.yaml")
	if err := os.WriteFile(contract, validate.ExampleContract, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"--contract", contract, "--config-dir", "../../.."}, &stdout, &stderr)
	}()
	socket := filepath.Join(socks, "codeloc-v1.sock")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(socket); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no socket; stderr:\n%s", stderr.String())
		}
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still serving 10s after SIGTERM")
	}
	if _, err := os.Stat(socket); !os.IsNotExist(err) {
		t.Errorf("socket left: %v", err)
	}
}

// TestLimitFlags checks that flags, else the environment, else the
// defaults set the limits the server gets.
func TestLimitFlags(t *testing.T) {
	t.Setenv("CODELOC_SIDECAR_MAX_ENTRIES", "20000")
	t.Setenv("CODELOC_SIDECAR_MAX_REPO_BYTES", "128Mi")
	t.Setenv("CODELOC_SIDECAR_MAX_CONCURRENT", "8")
	t.Setenv("CODELOC_MAX_YAML_ALIAS_NODES", "5000")
	var o sidecar.Options
	fl := pflag.NewFlagSet("test", pflag.ContinueOnError)
	if err := limitFlags(fl, &o.Limits); err != nil {
		t.Fatal(err)
	}
	if err := fl.Parse([]string{"--max-repo-bytes", "1Gi", "--max-depth=12", "--max-file-bytes", "1000000", "--max-yaml-depth", "64"}); err != nil {
		t.Fatal(err)
	}
	want := sidecar.Limits{RepoBytes: 1 << 30, ExpandedBytes: 64 << 20, Entries: 20000, Depth: 12, FileBytes: 1000000, Concurrent: 8,
		YAMLBytes: 16 << 20, YAMLAliasNodes: 5000, YAMLDepth: 64, RenderSeconds: 45}
	if o.Limits != want {
		t.Errorf("limits %+v, want %+v", o.Limits, want)
	}
}
