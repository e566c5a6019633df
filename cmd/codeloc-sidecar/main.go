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
	"os/signal"
	"runtime/debug"
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

The PreSync Jobs it renders run codeloc-jobs from the same image.
`

const defaultShutdownTimeout = 25 * time.Second

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses the command line and serves until SIGTERM or SIGINT.
func run(args []string, stdout, stderr io.Writer) int {
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
func versionString() string {
	if bi, ok := debug.ReadBuildInfo(); ok && version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}
