package sidecar

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/plugin"
	"github.com/codeloc/codeloc/render"

	"github.com/codeloc/codeloc/sidecar/cmpapi"
)

// timeoutBuffer ends server-side work this long before the request's
// deadline, so that the client still receives a meaningful error (as the
// stock cmp-server does).
const timeoutBuffer = 100 * time.Millisecond

// Config configures a Server.
type Config struct {
	// Plugin is the plugin.yaml the server announces (LoadPluginConfig).
	Plugin *PluginConfig
	// Contracts are the mounted cluster contracts.
	Contracts *plugin.Contracts
	// Logger receives one structured line per request (default: discard).
	Logger *slog.Logger
	// Metrics, when set, records renders.
	Metrics *Metrics
	// Limits bound what one request may unpack (zero fields: defaults).
	Limits Limits
}

// Server implements Argo CD's ConfigManagementPluginService in-process.
// It is safe for concurrent use.
type Server struct {
	cmpapi.UnimplementedConfigManagementPluginServiceServer

	cfg       *PluginConfig
	contracts *plugin.Contracts
	log       *slog.Logger
	metrics   *Metrics
	limits    Limits
	// slots holds one token per request held in memory (Limits.Concurrent).
	slots chan struct{}

	// beforeRender, when set (tests), runs before each render.
	beforeRender func(ctx context.Context)
}

var _ cmpapi.ConfigManagementPluginServiceServer = (*Server)(nil)

// New returns a server for cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Plugin == nil || cfg.Contracts == nil {
		return nil, errors.New("sidecar: Plugin and Contracts are required")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	limits := cfg.Limits.withDefaults()
	return &Server{cfg: cfg.Plugin, contracts: cfg.Contracts, log: log, metrics: cfg.Metrics, limits: limits,
		slots: make(chan struct{}, limits.Concurrent)}, nil
}

// slot is a request's turn among the Limits.Concurrent held in memory:
// taken before the repository is received, given back when both the call
// and its render are over (a render past its deadline still holds its
// copy of the repository until it ends).
type slot struct {
	refs atomic.Int32
	free func()
}

// take waits for a turn, until ctx ends.
func (s *Server) take(ctx context.Context) (*slot, error) {
	select {
	case s.slots <- struct{}{}:
		sl := &slot{free: func() { <-s.slots }}
		sl.refs.Store(1)
		return sl, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for one of the %d renders at once (--%s): %w", s.limits.Concurrent, FlagMaxConcurrent, ctx.Err())
	}
}

func (sl *slot) hold() { sl.refs.Add(1) }

func (sl *slot) done() {
	if sl.refs.Add(-1) == 0 {
		sl.free()
	}
}

// CheckPluginConfiguration answers the repo-server's pre-flight call.
func (s *Server) CheckPluginConfiguration(context.Context, *emptypb.Empty) (*cmpapi.CheckPluginConfigurationResponse, error) {
	return &cmpapi.CheckPluginConfigurationResponse{
		IsDiscoveryConfigured: s.cfg.Spec.Discover.IsDefined(),
		ProvideGitCreds:       s.cfg.Spec.ProvideGitCreds,
	}, nil
}

// MatchRepository reports whether the Application's path holds the
// discovery file. A miss (or a refused repository) says discovery is not
// enabled, so that an Application naming the plugin still reaches
// GenerateManifest and gets codeloc's precise message (file-missing, link
// out of the repository); discovery without a name skips the plugin.
func (s *Server) MatchRepository(stream cmpapi.ConfigManagementPluginService_MatchRepositoryServer) error {
	ctx, cancel := withEarlierDeadline(stream.Context(), timeoutBuffer)
	defer cancel()
	matched, err := scanRepo(ctx, stream, s.discoveryPattern(), s.limits)
	if errors.Is(err, errRepo) {
		// Not discovered; a named Application learns why from GenerateManifest.
		s.log.Warn("match repository: repository refused", "error", err.Error())
		return stream.SendAndClose(&cmpapi.RepositoryResponse{})
	}
	if err != nil {
		return streamError(ctx, err)
	}
	return stream.SendAndClose(&cmpapi.RepositoryResponse{IsSupported: matched, IsDiscoveryEnabled: matched})
}

// discoveryPattern is plugin.yaml's discovery rule, relative to the
// Application's path: fileName, else find.glob (without ** support).
func (s *Server) discoveryPattern() string {
	d := s.cfg.Spec.Discover
	if d.FileName != "" {
		return d.FileName
	}
	return d.Find.Glob
}

// GetParametersAnnouncement announces plugin.yaml's static parameters.
func (s *Server) GetParametersAnnouncement(stream cmpapi.ConfigManagementPluginService_GetParametersAnnouncementServer) error {
	if err := drain(stream); err != nil {
		return streamError(stream.Context(), err)
	}
	return stream.SendAndClose(&cmpapi.ParametersAnnouncementResponse{ParameterAnnouncements: s.cfg.Spec.Parameters.Static})
}

// GenerateManifest receives the repository and renders the Application.
func (s *Server) GenerateManifest(stream cmpapi.ConfigManagementPluginService_GenerateManifestServer) error {
	start := time.Now()
	if s.metrics != nil {
		s.metrics.inflight.Inc()
		defer s.metrics.inflight.Dec()
	}
	ctx, cancel := withEarlierDeadline(stream.Context(), timeoutBuffer)
	defer cancel()
	rec := &record{}
	sl, err := s.take(ctx)
	if err != nil {
		rec.fail(ctx, err)
		err = status.Error(statusCode(ctx, err), "codeloc: "+err.Error())
		s.finish(rec, time.Since(start), err)
		return err
	}
	defer sl.done()
	rec.slot = sl
	manifests, err := s.generate(ctx, stream, rec)
	if err == nil {
		if err = stream.SendAndClose(&cmpapi.ManifestResponse{Manifests: manifests}); err != nil {
			rec.fail(ctx, err)
		}
	}
	s.finish(rec, time.Since(start), err)
	return err
}

// record is what a request's log line and metrics say.
type record struct {
	app      plugin.App
	outcome  string
	codes    []string
	objects  int
	received time.Duration // receiving and unpacking the repository stream
	slot     *slot         // the request's turn; its render holds it too
}

// generate receives the repository into memory and renders it; errors
// are gRPC status errors. The repository's copy is garbage once it
// returns.
func (s *Server) generate(ctx context.Context, stream cmpapi.ConfigManagementPluginService_GenerateManifestServer, rec *record) ([]string, error) {
	start := time.Now()
	repo, err := s.receive(ctx, stream)
	rec.received = time.Since(start)
	if err != nil {
		rec.fail(ctx, err)
		return nil, streamError(ctx, err)
	}
	return s.renderRepo(ctx, repo, rec)
}

// renderRepo renders an unpacked repository and encodes the objects.
func (s *Server) renderRepo(ctx context.Context, repo *unpacked, rec *record) ([]string, error) {
	req, res, err := s.render(ctx, rec.slot, plugin.Source{FS: repo.fs, AppDir: repo.appDir, RepoRoot: memRepo, Environ: environ(repo.env), Contracts: s.contracts, Bounds: plugin.Bounds{YAML: s.limits.YAML()}})
	if req != nil {
		rec.app = req.App
	} else {
		rec.app = plugin.App{Name: envValue(repo.env, plugin.EnvAppName), Revision: envValue(repo.env, plugin.EnvAppRevision)}
	}
	var ps problem.Problems
	switch {
	case errors.As(err, &ps):
		return nil, rec.invalid(ps)
	case err != nil:
		rec.fail(ctx, err)
		return nil, status.Error(statusCode(ctx, err), "codeloc: "+err.Error())
	}
	manifests, err := res.JSONList()
	if err != nil {
		rec.fail(ctx, err)
		return nil, status.Error(codes.Internal, "codeloc: "+err.Error())
	}
	rec.outcome, rec.objects = OutcomeOK, len(manifests)
	// Warnings never reach Argo CD's error text (there is none on
	// success): the operator reads them in the sidecar's log.
	for _, w := range res.Warnings {
		s.log.Warn("render warning", "app", rec.app.Name, "problem", w.String())
	}
	return manifests, nil
}

// render runs plugin.Generate within the render budget (render.Within),
// returning early when ctx ends (the render itself cannot be interrupted:
// its result is then dropped). Past its budget the request is answered
// with one line; the render goes on (kustomize takes no context) and keeps
// its slot until it ends, so the renders in memory stay bounded.
func (s *Server) render(ctx context.Context, sl *slot, src plugin.Source) (*plugin.Request, *render.Result, error) {
	type result struct {
		req *plugin.Request
		res *render.Result
	}
	sl.hold()
	where := environValue(src.Environ, plugin.EnvAppSourcePath)
	r, err := render.Within(ctx, s.limits.RenderBudget(), where, func() (r result, err error) {
		defer sl.done()
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("render panic", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				r, err = result{}, fmt.Errorf("internal error: render panicked: %v", p)
			}
		}()
		if s.beforeRender != nil {
			s.beforeRender(ctx)
		}
		req, res, err := plugin.Generate(src)
		return result{req, res}, err
	})
	return r.req, r.res, err
}

// invalid records problems and returns them as an InvalidArgument error
// whose message is one problem per line.
func (r *record) invalid(problems problem.Problems) error {
	r.outcome = OutcomeInvalid
	for _, p := range problems {
		if !slices.Contains(r.codes, p.Code) {
			r.codes = append(r.codes, p.Code)
		}
	}
	return status.Error(codes.InvalidArgument, problems.Error())
}

// fail records an error that is not a problem of the input.
func (r *record) fail(ctx context.Context, err error) {
	switch {
	case ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		r.outcome, r.codes = OutcomeCancelled, []string{"cancelled"}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
			r.codes = []string{"deadline-exceeded"}
		}
	case errors.Is(err, errRepo):
		r.outcome, r.codes = OutcomeRefused, []string{"repo-refused"}
	default:
		r.outcome, r.codes = OutcomeError, []string{"internal"}
	}
}

// finish logs and measures a request.
func (s *Server) finish(rec *record, d time.Duration, err error) {
	s.metrics.observe(rec.outcome, d, rec.received, rec.codes)
	attrs := []any{
		"app", rec.app.Name, "namespace", rec.app.Namespace, "revision", rec.app.Revision,
		"path", rec.app.SourcePath, "repo", redactURL(rec.app.RepoURL),
		"duration_ms", millis(d), "receive_ms", millis(rec.received), "outcome", rec.outcome,
	}
	switch rec.outcome {
	case OutcomeOK:
		s.log.Info("render", append(attrs, "objects", rec.objects)...)
	case OutcomeInvalid:
		s.log.Info("render", append(attrs, "codes", rec.codes)...)
	default:
		s.log.Warn("render", append(attrs, "codes", rec.codes, "error", status.Convert(err).Message())...)
	}
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// streamError turns a receive error into a gRPC status.
func streamError(ctx context.Context, err error) error {
	if errors.Is(err, errRepo) {
		return status.Error(codes.InvalidArgument, "codeloc: "+err.Error())
	}
	return status.Error(statusCode(ctx, err), "codeloc: receiving the repository: "+err.Error())
}

func statusCode(ctx context.Context, err error) codes.Code {
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return codes.DeadlineExceeded
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return codes.Canceled
	}
	return codes.Internal
}

// redactURL drops credentials from a repository URL before it is logged.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}

// withEarlierDeadline is ctx with its deadline, if any, brought forward by
// buffer, so that an answer still reaches a caller that waits until the
// deadline (Argo CD's buffered_context.WithEarlierDeadline).
func withEarlierDeadline(ctx context.Context, buffer time.Duration) (context.Context, context.CancelFunc) {
	if deadline, ok := ctx.Deadline(); ok {
		return context.WithDeadline(ctx, deadline.Add(-buffer))
	}
	return ctx, func() {}
}
