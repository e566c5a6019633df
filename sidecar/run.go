package sidecar

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/plugin"

	"github.com/codeloc/codeloc/sidecar/cmpapi"
)

// Options configure Run.
type Options struct {
	// Contract is the cluster contract file or folder (required).
	Contract string
	// ConfigDir holds plugin.yaml.
	ConfigDir string
	// MetricsAddr, when set, serves /metrics and /healthz over HTTP.
	MetricsAddr string
	// ShutdownTimeout bounds how long in-flight requests may finish after
	// the context ends; then they are cut.
	ShutdownTimeout time.Duration
	// Logger receives structured logs (default: JSON on stderr).
	Logger *slog.Logger
	// Limits bound what one request may unpack (zero fields: defaults).
	Limits Limits
	// Ready, when set, is called with the socket path once it is served.
	Ready func(socket string)

	// beforeRender, when set (tests), runs before each render.
	beforeRender func(ctx context.Context)
}

// Run serves the plugin on <plugin socket dir>/<name>[-<version>].sock
// (ARGOCD_PLUGINSOCKFILEPATH, default /home/argocd/cmp-server/plugins) until
// ctx ends, then stops gracefully: health turns NOT_SERVING, in-flight
// requests finish (up to ShutdownTimeout), the socket is removed. Each
// request is unpacked in memory: the server creates no file but its
// socket.
func Run(ctx context.Context, o Options) error {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	srv, err := newServer(o, log)
	if err != nil {
		return err
	}
	socket := srv.cfg.Address()
	lis, err := listen(socket)
	if err != nil {
		return err
	}
	defer os.Remove(socket)
	g, healthSrv := srv.GRPCServer()
	var serving atomic.Bool
	serving.Store(true)
	errc := make(chan error, 2)
	go func() { errc <- g.Serve(lis) }()
	httpSrv, err := serveMetrics(o.MetricsAddr, srv.metrics.Handler(&serving), errc)
	if err != nil {
		g.Stop()
		return err
	}
	log.Info(names.BinarySidecar+" serving", "socket", socket, "plugin", pluginName(srv.cfg.Metadata.Name, srv.cfg.Spec.Version),
		"contract", o.Contract, "metrics", o.MetricsAddr, "max_message_bytes", cmpapi.MaxGRPCMessageSize, "limits", srv.limits)
	if o.Ready != nil {
		o.Ready(socket)
	}
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	serving.Store(false)
	healthSrv.Shutdown()
	stopGracefully(g, o.ShutdownTimeout, log)
	stopMetrics(httpSrv)
	log.Info(names.BinarySidecar+" stopped", "socket", socket)
	return err
}

// newServer checks the options, reads plugin.yaml and watches the
// contracts: the server Run serves.
func newServer(o Options, log *slog.Logger) (*Server, error) {
	if o.Contract == "" {
		return nil, fmt.Errorf("no cluster contract: pass --contract FILE|DIR or set %s (there is no fallback to the example contract)", names.EnvContract)
	}
	if _, err := os.Stat(o.Contract); err != nil {
		return nil, fmt.Errorf("cluster contract: %w", err)
	}
	cfg, err := LoadPluginConfig(o.ConfigDir)
	if err != nil {
		return nil, err
	}
	metrics := NewMetrics()
	contracts := plugin.NewContracts(o.Contract)
	contracts.OnLoad = func(file string, problems problem.Problems) {
		metrics.reloads.Inc()
		if len(problems) > 0 {
			log.Error("contract loaded with problems", "file", file, "problems", problems.Error())
			return
		}
		log.Info("contract loaded", "file", file)
	}
	checkContracts(contracts, log)
	srv, err := New(Config{Plugin: cfg, Contracts: contracts, Logger: log, Metrics: metrics, Limits: o.Limits})
	if err != nil {
		return nil, err
	}
	srv.beforeRender = o.beforeRender
	return srv, nil
}

// serveMetrics serves /metrics and /healthz on addr ("" = off); a serving
// error is sent on errc.
func serveMetrics(addr string, h http.Handler, errc chan<- error) (*http.Server, error) {
	if addr == "" {
		return nil, nil
	}
	hl, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	httpSrv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := httpSrv.Serve(hl); !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("metrics: %w", err)
		}
	}()
	return httpSrv, nil
}

// stopMetrics stops the metrics server, if any, within a second.
func stopMetrics(httpSrv *http.Server) {
	if httpSrv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = httpSrv.Shutdown(ctx)
}

// GRPCServer returns a gRPC server serving s and the health service, with
// Argo CD's message size limits (ARGOCD_GRPC_MAX_SIZE_MB, default 100 MiB)
// and keepalive policy, as the stock cmp-server.
func (s *Server) GRPCServer() (*grpc.Server, *health.Server) {
	g := grpc.NewServer(
		grpc.MaxRecvMsgSize(cmpapi.MaxGRPCMessageSize),
		grpc.MaxSendMsgSize(cmpapi.MaxGRPCMessageSize),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: cmpapi.KeepAliveEnforcementMinimum()}),
		grpc.ChainUnaryInterceptor(s.recoverUnary),
		grpc.ChainStreamInterceptor(s.recoverStream),
	)
	cmpapi.RegisterConfigManagementPluginServiceServer(g, s)
	h := health.NewServer()
	grpc_health_v1.RegisterHealthServer(g, h)
	return g, h
}

// recoverUnary and recoverStream turn a handler panic into an Internal
// error instead of a crash of the sidecar.
func (s *Server) recoverUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	defer s.recoverPanic(info.FullMethod, &err)
	return handler(ctx, req)
}

func (s *Server) recoverStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
	defer s.recoverPanic(info.FullMethod, &err)
	return handler(srv, ss)
}

func (s *Server) recoverPanic(method string, err *error) {
	if r := recover(); r != nil {
		s.log.Error("handler panic", "method", method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		*err = status.Errorf(codes.Internal, "codeloc: internal error in %s", method)
	}
}

// stopGracefully lets in-flight requests finish, for at most timeout
// (0 = no bound).
func stopGracefully(g *grpc.Server, timeout time.Duration, log *slog.Logger) {
	done := make(chan struct{})
	go func() {
		g.GracefulStop()
		close(done)
	}()
	if timeout <= 0 {
		<-done
		return
	}
	select {
	case <-done:
	case <-time.After(timeout):
		log.Warn("shutdown timeout: cutting in-flight requests", "timeout", timeout.String())
		g.Stop()
		<-done
	}
}

// listen replaces a stale socket (as the stock server does) and listens.
func listen(socket string) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(socket), 0o755); err != nil {
		return nil, fmt.Errorf("plugin socket folder: %w", err)
	}
	_ = os.Remove(socket)
	lis, err := net.Listen("unix", socket)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", socket, err)
	}
	return lis, nil
}

// checkContracts loads every mounted contract once at start, so that a bad
// contract shows in the logs before the first render.
func checkContracts(c *plugin.Contracts, log *slog.Logger) {
	list, err := c.Names()
	if err != nil || len(list) == 0 {
		log.Error("no cluster contract found", "path", c.Path(), "error", fmt.Sprint(err))
		return
	}
	for _, n := range list {
		c.Load(n)
	}
}

func pluginName(name, version string) string {
	if version == "" {
		return name
	}
	return name + "-" + version
}
