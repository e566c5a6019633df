// Package sidecarcmd is codeloc-sidecar's command: the flags (the request
// limits among them, each with its environment variable), logging and
// signals around package sidecar, the long-lived gRPC server on the plugin
// socket beside Argo CD's repo-server that renders each Application
// in-process. cmd/codeloc-sidecar only runs Root.
package sidecarcmd

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/codeloc/codeloc/internal/cli"
	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/sidecar"

	"github.com/codeloc/codeloc/sidecar/cmpapi"
)

const longFormat = `codeloc-sidecar runs beside Argo CD's repo-server as the codeloc Config
Management Plugin. It serves Argo CD's ConfigManagementPluginService on
<plugins dir>/<name>-<version>.sock (codeloc-v1.sock with the shipped
plugin.yaml) and renders each Application in-process: it validates
code-location.manifest.yaml against the cluster contract, builds the
kustomize root and returns the final manifests, or one line per problem.

The contract is required (no fallback to the example) and re-read when the
mounted file changes. Logs are JSON lines on stderr.

Environment:
  CODELOC_CONTRACT            the contract when --contract is not given
  ARGOCD_PLUGINSOCKFILEPATH   plugins socket folder (default ` + cmpapi.DefaultPluginSockFilePath + `)
  ARGOCD_GRPC_MAX_SIZE_MB     gRPC message size limit in MiB (default 100)
  ARGOCD_GRPC_KEEP_ALIVE_MIN  minimum client keepalive interval (default 10s)
Parameters an Application may set (spec.source.plugin.parameters):
  kustomize-root  kustomization folder, relative to the Application's path
  contract        which mounted contract to use when several are mounted

What one request may unpack is bounded while it streams in; a request over
a limit is refused with one line naming the flag that raises it. Each limit
is a flag, whose default its variable sets (sizes: 64Mi, 1Gi, 500M, bytes):
%s
The Go runtime's soft memory limit is set to 85%% of the container's memory
limit (cgroup) unless GOMEMLIMIT is set: near it the collector works harder,
so a heavy render slows the server down rather than getting it killed.

The PreSync Jobs it renders run codeloc-jobs from the same image.`

// long is the command's help: longFormat with the table of limits.
func long() string {
	var table strings.Builder
	l := sidecar.DefaultLimits()
	for _, s := range l.Settings() {
		fmt.Fprintf(&table, "  --%-19s %-35s %6s  %s\n", s.Flag, s.Env, sidecar.FormatLimit(*s.Value, s.Bytes), s.Usage)
	}
	return fmt.Sprintf(longFormat, table.String())
}

const defaultShutdownTimeout = 25 * time.Second

// Root is codeloc-sidecar's command tree: the server itself (serving
// until SIGTERM or SIGINT; cli.Run maps its outcome to exit 0 after a
// clean stop, 1 when serving failed, 2 on a usage error) and its version
// command. The server's logs go to logs.
func Root(logs io.Writer) *cobra.Command {
	root := newServerCmd(logs)
	root.AddCommand(cli.NewVersionCmd(names.BinarySidecar))
	return root
}

// newServerCmd is the server command; logs go to logs.
func newServerCmd(logs io.Writer) *cobra.Command {
	var o sidecar.Options
	var level string
	cmd := cli.NewRoot(names.BinarySidecar, "Serve codeloc as an Argo CD Config Management Plugin (repo-server sidecar)")
	cmd.Long = long()
	cmd.Version = names.Version()
	cmd.SetVersionTemplate(names.BinarySidecar + " {{.Version}}\n")
	cmd.Args = func(_ *cobra.Command, args []string) error {
		if len(args) > 0 {
			return cli.Usagef("unexpected argument %q (see --help)", args[0])
		}
		return nil
	}
	envErr := limitFlags(cmd.Flags(), &o.Limits)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if envErr != nil {
			return cli.Usagef("%w", envErr)
		}
		var l slog.Level
		if err := l.UnmarshalText([]byte(level)); err != nil {
			return cli.Usagef("--log-level: %w", err)
		}
		o.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: l}))
		return serve(cmd.Context(), o, logs)
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Contract, "contract", os.Getenv(names.EnvContract), "cluster contract: a file, or a folder of <name>.yaml contracts (a mounted ConfigMap), as `FILE|DIR` (default $"+names.EnvContract+")")
	fl.StringVar(&o.ConfigDir, "config-dir", cmpapi.DefaultPluginConfigFilePath, "folder `DIR` holding plugin.yaml: name, version, discovery and parameters")
	fl.StringVar(&o.MetricsAddr, "metrics-addr", "", "serve /metrics (Prometheus) and /healthz over HTTP on `ADDR`, e.g. :9095 (default: off)")
	fl.DurationVar(&o.ShutdownTimeout, "shutdown-timeout", defaultShutdownTimeout, "on SIGTERM, how long in-flight renders may finish")
	fl.StringVar(&level, "log-level", "info", "debug, info, warn or error")
	return cmd
}

// limitFlags registers one flag per limit, whose default comes from its
// environment variable, else sidecar.DefaultLimits; it returns the first
// environment variable that does not parse.
func limitFlags(fl *pflag.FlagSet, limits *sidecar.Limits) error {
	*limits = sidecar.DefaultLimits()
	var envErr error
	for _, s := range limits.Settings() {
		f := limitFlag{s}
		if v, ok := os.LookupEnv(s.Env); ok && v != "" {
			if err := f.Set(v); err != nil && envErr == nil {
				envErr = fmt.Errorf("%s: %w", s.Env, err)
			}
		}
		value := "N"
		if s.Bytes {
			value = "SIZE"
		}
		fl.Var(f, s.Flag, s.Usage+", as `"+value+"` ($"+s.Env+" sets the default)")
	}
	return envErr
}

// limitFlag is a limit as a flag: a size (64Mi, 1Gi, 500M, a byte count)
// or a count.
type limitFlag struct{ s sidecar.LimitSetting }

func (f limitFlag) String() string {
	if f.s.Value == nil {
		return ""
	}
	return sidecar.FormatLimit(*f.s.Value, f.s.Bytes)
}

func (f limitFlag) Set(v string) error {
	n, err := sidecar.ParseLimit(v, f.s.Bytes)
	if err != nil {
		return err
	}
	*f.s.Value = n
	return nil
}

func (f limitFlag) Type() string {
	if f.s.Bytes {
		return "size"
	}
	return "count"
}

// serve runs the server until SIGTERM or SIGINT.
func serve(parent context.Context, o sidecar.Options, logs io.Writer) error {
	// Argo CD's libraries log with logrus: keep their lines JSON too.
	logrus.SetOutput(logs)
	logrus.SetFormatter(&logrus.JSONFormatter{})
	if parent == nil {
		parent = context.Background()
	}
	ctx, stop := signal.NotifyContext(parent, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if limit, from := sidecar.ApplyMemoryLimit(); limit > 0 {
		o.Logger.Info("Go memory limit set from the container's", "bytes", limit, "share", sidecar.MemoryLimitShare, "from", from)
	} else if from != "" {
		o.Logger.Info("Go memory limit left to " + from)
	}
	if err := sidecar.Run(ctx, o); err != nil {
		o.Logger.Error(names.BinarySidecar+" failed", "error", err.Error())
		return cli.ExitError{Code: 1} // the log line says why
	}
	return nil
}
