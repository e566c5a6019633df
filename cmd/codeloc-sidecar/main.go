// Command codeloc-sidecar serves codeloc as an Argo CD Config Management
// Plugin beside the repo-server: a long-lived gRPC server on the plugin
// socket that renders each Application in-process.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/argoproj/argo-cd/v2/common"
	"github.com/sirupsen/logrus"

	"github.com/codeloc/codeloc/plugin"
	"github.com/codeloc/codeloc/sidecar"
)

// version is set at link time: -ldflags "-X main.version=v0.1.0".
var version = "dev"

const usage = `Usage: codeloc-sidecar [flags]
       codeloc-sidecar COMMAND [args]   (runs codeloc COMMAND [args])

codeloc-sidecar runs beside Argo CD's repo-server as the codeloc Config
Management Plugin. It serves Argo CD's ConfigManagementPluginService on
<plugins dir>/<name>-<version>.sock (codeloc-v1.sock with the shipped
plugin.yaml) and renders each Application in-process: it validates
code-location.manifest.yaml against the cluster contract, builds the
kustomize root and returns the final manifests, or one line per problem.

Flags:
  --contract FILE|DIR     cluster contract: a file, or a folder of <name>.yaml
                          contracts (a mounted ConfigMap); required, no
                          fallback to the example. Default $CODELOC_CONTRACT.
                          Re-read when the mounted file changes.
  --config-dir DIR        folder holding plugin.yaml: name, version, discovery
                          and parameters (default %s)
  --work-dir DIR          per-request folders go under DIR/codeloc-sidecar
                          (default $TMPDIR, else /tmp)
  --metrics-addr ADDR     serve /metrics (Prometheus) and /healthz over HTTP on
                          ADDR, e.g. :9095 (default: off)
  --shutdown-timeout DUR  on SIGTERM, how long in-flight renders may finish
                          (default %s)
  --log-level LEVEL       debug, info, warn or error (default info); logs are
                          JSON lines on stderr
  --version               print the version and exit

Environment:
  CODELOC_CONTRACT            the contract when --contract is not given
  ARGOCD_PLUGINSOCKFILEPATH   plugins socket folder (default %s)
  ARGOCD_GRPC_MAX_SIZE_MB     gRPC message size limit in MiB (default 100)
  ARGOCD_GRPC_KEEP_ALIVE_MIN  minimum client keepalive interval (default 10s)
  TMPDIR                      default work dir

Parameters an Application may set (spec.source.plugin.parameters):
  kustomize-root  kustomization folder, relative to the Application's path
  contract        which mounted contract to use when several are mounted

Given a command instead of flags (preflight, migrate, generate, version...),
codeloc-sidecar executes the codeloc binary next to it with the same
arguments: the image's entrypoint is the sidecar, and the PreSync Jobs it
renders pass only arguments.
`

const defaultShutdownTimeout = 25 * time.Second

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// execCodeloc replaces the process with codeloc (a variable for tests).
var execCodeloc = func(path string, argv []string) error {
	return syscall.Exec(path, argv, os.Environ())
}

// run parses the command line and serves until SIGTERM or SIGINT.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		path, err := codelocPath()
		if err == nil {
			err = execCodeloc(path, append([]string{"codeloc"}, args...))
		}
		fmt.Fprintln(stderr, "codeloc-sidecar: running codeloc:", err)
		return 2
	}
	o, level, showVersion, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "codeloc-sidecar:", err)
		return 2
	}
	if showVersion {
		fmt.Fprintln(stdout, "codeloc-sidecar", versionString())
		return 0
	}
	o.Logger = slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level}))
	// Argo CD's libraries log with logrus: keep their lines JSON too.
	logrus.SetOutput(stderr)
	logrus.SetFormatter(&logrus.JSONFormatter{})
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := sidecar.Run(ctx, o); err != nil {
		o.Logger.Error("codeloc-sidecar failed", "error", err.Error())
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (sidecar.Options, slog.Level, bool, error) {
	fs := flag.NewFlagSet("codeloc-sidecar", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, usage, common.DefaultPluginConfigFilePath, defaultShutdownTimeout, common.DefaultPluginSockFilePath)
	}
	var o sidecar.Options
	var level string
	var showVersion bool
	fs.StringVar(&o.Contract, "contract", os.Getenv(plugin.EnvContract), "")
	fs.StringVar(&o.ConfigDir, "config-dir", common.DefaultPluginConfigFilePath, "")
	fs.StringVar(&o.WorkDir, "work-dir", os.TempDir(), "")
	fs.StringVar(&o.MetricsAddr, "metrics-addr", "", "")
	fs.DurationVar(&o.ShutdownTimeout, "shutdown-timeout", defaultShutdownTimeout, "")
	fs.StringVar(&level, "log-level", "info", "")
	fs.BoolVar(&showVersion, "version", false, "")
	if err := fs.Parse(args); err != nil {
		return o, 0, false, err
	}
	if fs.NArg() > 0 {
		return o, 0, false, fmt.Errorf("unexpected argument %q (see --help)", fs.Arg(0))
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return o, 0, false, fmt.Errorf("--log-level: %w", err)
	}
	return o, l, showVersion, nil
}

// codelocPath finds the codeloc binary: next to this one, else on PATH.
func codelocPath() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "codeloc")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return exec.LookPath("codeloc")
}

func versionString() string {
	if bi, ok := debug.ReadBuildInfo(); ok && version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}
