package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/codeloc/codeloc/internal/kubetest"
)

// envFigures names a file the storm appends its figures to (one JSON
// object a line), for .ci/e2e-scale.sh to compare the two plugin servers.
const envFigures = "E2E_FIGURES"

// figures are what a storm measured, for one kind of plugin server beside
// one or more repo-servers: renders merged across the plugin servers.
type figures struct {
	ArgoCD        string  `json:"argocd"` // version under test
	Plugin        string  `json:"plugin"`
	RepoServers   int     `json:"repoServers"` // each with its plugin server
	CodeLocations int     `json:"codeLocations"`
	Nodes         int     `json:"nodes"`
	What          string  `json:"what"` // "deploy" or "hard refresh"
	Seconds       float64 `json:"seconds"`
	Renders       int     `json:"renders"`
	RendersPerSec float64 `json:"rendersPerSec"`
	P50ms         float64 `json:"p50ms"`
	P99ms         float64 `json:"p99ms"`
	MaxMs         float64 `json:"maxMs"`
	// Without the stream: the call less its receive_ms, which only
	// codeloc-sidecar logs (the stock server times the whole call).
	RenderP50ms float64 `json:"renderP50ms,omitempty"`
	RenderP99ms float64 `json:"renderP99ms,omitempty"`
	// Peak RSS of each plugin server and its children, sampled: the
	// largest, the sum of all, and each (the first repo-server's first).
	PeakRSSMiB          float64   `json:"peakRssMiB"`
	PeakRSSSumMiB       float64   `json:"peakRssSumMiB"`
	PeakRSSPerServerMiB []float64 `json:"peakRssPerServerMiB"`
	RendersPerServer    []int     `json:"rendersPerServer"`
}

func (f figures) String() string {
	s := fmt.Sprintf("%s of %d code-locations with %s on Argo CD v%s: %.1f s; %d renders, %.1f renders/s, p50 %.1f ms, p99 %.1f ms, max %.1f ms",
		f.What, f.CodeLocations, f.Plugin, f.ArgoCD, f.Seconds, f.Renders, f.RendersPerSec, f.P50ms, f.P99ms, f.MaxMs)
	if f.RenderP99ms > 0 {
		s += fmt.Sprintf(" (without receiving the repository: p50 %.1f ms, p99 %.1f ms)", f.RenderP50ms, f.RenderP99ms)
	}
	if f.RepoServers <= 1 {
		return s + fmt.Sprintf("; peak RSS %.1f MiB", f.PeakRSSMiB)
	}
	return s + fmt.Sprintf("; %d repo-servers: renders per plugin server %v, peak RSS per server %.1f MiB (max %.1f, sum %.1f)",
		f.RepoServers, f.RendersPerServer, f.PeakRSSPerServerMiB, f.PeakRSSMiB, f.PeakRSSSumMiB)
}

// measure watches the plugin servers while a storm runs: it samples their
// memory and, at done, reads the renders each logged since start.
type measure struct {
	h       *harness
	start   time.Time
	servers []*process
	offsets []int64 // of each plugin server's log at start
	stop    chan struct{}
	wg      sync.WaitGroup
	peaks   []int64 // bytes, each server's
}

func (h *harness) startMeasure() *measure {
	servers := h.pluginServers()
	m := &measure{h: h, start: time.Now(), servers: servers, offsets: make([]int64, len(servers)),
		stop: make(chan struct{}), peaks: make([]int64, len(servers))}
	for i, p := range servers {
		if fi, err := os.Stat(p.LogFile()); err == nil {
			m.offsets[i] = fi.Size()
		}
	}
	m.wg.Add(1)
	go m.sample()
	return m
}

func (m *measure) sample() {
	defer m.wg.Done()
	for {
		for i, p := range m.servers {
			if rss := kubetest.TreeRSS(p.Pid()); rss > m.peaks[i] {
				m.peaks[i] = rss
			}
		}
		select {
		case <-m.stop:
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// done stops sampling and returns the figures of the window.
func (m *measure) done(what string, codeLocations int) (figures, error) {
	elapsed := time.Since(m.start)
	close(m.stop)
	m.wg.Wait()
	calls, perServer, err := m.calls()
	if err != nil {
		return figures{}, err
	}
	f := figures{
		ArgoCD: m.h.tools.argocdVersion, Plugin: m.h.pluginServerName(), RepoServers: len(m.servers),
		CodeLocations: codeLocations, Nodes: nodeCount(), What: what, Seconds: elapsed.Seconds(), RendersPerServer: perServer,
	}
	m.addRSS(&f)
	addTimes(&f, calls, elapsed)
	return f, nil
}

// calls are the render calls every plugin server logged in the window,
// and how many each one logged.
func (m *measure) calls() ([]call, []int, error) {
	var all []call
	perServer := make([]int, len(m.servers))
	for i, p := range m.servers {
		calls, err := renderCalls(p.LogFile(), m.offsets[i], m.h.pluginKind)
		if err != nil {
			return nil, nil, err
		}
		all = append(all, calls...)
		perServer[i] = len(calls)
	}
	return all, perServer, nil
}

func (m *measure) addRSS(f *figures) {
	for _, peak := range m.peaks {
		mib := float64(peak) / (1 << 20)
		f.PeakRSSPerServerMiB = append(f.PeakRSSPerServerMiB, mib)
		f.PeakRSSMiB = max(f.PeakRSSMiB, mib)
		f.PeakRSSSumMiB += mib
	}
}

// addTimes sets the counts, rates and quantiles of calls.
func addTimes(f *figures, calls []call, elapsed time.Duration) {
	var durations, renders []float64
	for _, c := range calls {
		durations = append(durations, c.ms)
		if c.split {
			renders = append(renders, c.ms-c.receiveMs)
		}
	}
	f.Renders = len(durations)
	if len(durations) > 0 {
		slices.Sort(durations)
		f.RendersPerSec = float64(len(durations)) / elapsed.Seconds()
		f.P50ms, f.P99ms = quantile(durations, 0.50), quantile(durations, 0.99)
		f.MaxMs = durations[len(durations)-1]
	}
	if len(renders) > 0 {
		slices.Sort(renders)
		f.RenderP50ms, f.RenderP99ms = quantile(renders, 0.50), quantile(renders, 0.99)
	}
}

// quantile of sorted values, nearest rank.
func quantile(sorted []float64, q float64) float64 {
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// call is one GenerateManifest call a plugin server logged: its duration
// (ms) and, when split, the part spent receiving the repository.
type call struct {
	ms, receiveMs float64
	split         bool
}

// renderCalls reads the GenerateManifest calls the plugin server logged
// after offset. codeloc-sidecar logs each render as JSON ("msg":"render",
// "duration_ms", "receive_ms"); argocd-cmp-server logs each gRPC call with
// grpc-middleware's interceptor ("grpc.method", "grpc.time_ms").
// Both durations time the whole call, stream received included.
func renderCalls(log string, offset int64, kind string) ([]call, error) {
	f, err := os.Open(log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, err
	}
	var out []call
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		if c, ok := renderCall(sc.Bytes(), kind); ok {
			out = append(out, c)
		}
	}
	return out, sc.Err()
}

func renderCall(line []byte, kind string) (call, bool) {
	var rec map[string]any
	if json.Unmarshal(line, &rec) != nil {
		return call{}, false
	}
	if kind == pluginStock {
		// The end of a call carries its code; from 3.x its start is logged
		// too ("started call"), with a time_ms of its own.
		ms, ok := millis(rec["grpc.time_ms"])
		return call{ms: ms}, ok && rec["grpc.method"] == "GenerateManifest" && rec["grpc.code"] != nil
	}
	ms, ok := rec["duration_ms"].(float64)
	received, split := rec["receive_ms"].(float64)
	return call{ms: ms, receiveMs: received, split: split}, ok && rec["msg"] == "render"
}

// millis reads grpc.time_ms: a number from go-grpc-middleware v1's
// interceptor (Argo CD 2.x), a string ("81.306") from v2's (Argo CD 3.x).
func millis(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case string:
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil
	}
	return 0, false
}

// saveFigures appends f to $E2E_FIGURES when set.
func saveFigures(f figures) error {
	path := os.Getenv(envFigures)
	if path == "" {
		return nil
	}
	out, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	line, err := json.Marshal(f)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%s\n", line)
	return err
}
