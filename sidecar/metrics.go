package sidecar

import (
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Outcomes of a render, the outcome label of the metrics and logs.
const (
	OutcomeOK        = "ok"        // manifests returned
	OutcomeInvalid   = "invalid"   // the code-location or the request has problems
	OutcomeRefused   = "refused"   // the repository stream was refused
	OutcomeCancelled = "cancelled" // deadline exceeded or client gone
	OutcomeError     = "error"     // internal error
)

// Metrics are the sidecar's Prometheus metrics, on their own registry.
type Metrics struct {
	registry *prometheus.Registry
	duration *prometheus.HistogramVec
	receive  prometheus.Histogram
	failures *prometheus.CounterVec
	inflight prometheus.Gauge
	reloads  prometheus.Counter
}

// NewMetrics creates the metrics and a registry holding them and the Go
// runtime and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "codeloc_render_duration_seconds",
			Help:    "Duration of GenerateManifest requests, from the first byte received to the answer, by outcome.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"outcome"}),
		receive: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "codeloc_receive_duration_seconds",
			Help:    "Part of a GenerateManifest request spent receiving and unpacking the repository stream Argo CD uploads.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "codeloc_render_failures_total",
			Help: "Failed renders by error code (a render with several problem codes counts once per code).",
		}, []string{"code"}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "codeloc_renders_in_flight",
			Help: "GenerateManifest requests being served.",
		}),
		reloads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "codeloc_contract_loads_total",
			Help: "Cluster contract files read (the first load and each change).",
		}),
	}
	m.registry.MustRegister(m.duration, m.receive, m.failures, m.inflight, m.reloads,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// observe records one finished render: its whole duration and the part
// spent receiving the repository.
func (m *Metrics) observe(outcome string, total, received time.Duration, codes []string) {
	if m == nil {
		return
	}
	m.duration.WithLabelValues(outcome).Observe(total.Seconds())
	m.receive.Observe(received.Seconds())
	for _, c := range codes {
		m.failures.WithLabelValues(c).Inc()
	}
}

// Handler serves /metrics and /healthz (200 while serving, 503 once the
// server shuts down).
func (m *Metrics) Handler(serving *atomic.Bool) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		if !serving.Load() {
			http.Error(w, "shutting down", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	return mux
}
