package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Argo CD's application-controller is the one component every scenario
// waits on: the root app-of-apps's sync waits for each pruned Application,
// which only the controller finalizes. Once, in CI, it stopped processing
// at a removal (the last condition it wrote stayed, no later Application
// was ever created) and every later scenario failed with nothing to tell
// a crash from a hang. The harness now treats it as the kubelet treats the
// stock install's StatefulSet container, and reports what it saw.

// superviseController restarts the application-controller when it exits
// while the harness runs, as the kubelet does for a container with
// restartPolicy Always (first at once, then with its back-off from 10 s).
// Each exit is reported on stderr with the panic or the end of the log,
// which is kept in its own file, and counted: TestMain reports the count.
func (h *harness) superviseController(p *process) {
	select {
	case <-h.stopc:
		return
	case <-p.Done():
	}
	select {
	case <-h.stopc:
		return
	default:
	}
	n := h.controllerExits.Add(1)
	kept := strings.TrimSuffix(p.LogFile(), ".log") + fmt.Sprintf(".exit%d.log", n)
	if err := os.Rename(p.LogFile(), kept); err != nil {
		kept = p.LogFile()
	}
	h.say("e2e: argocd-application-controller exited (%v) at %s; restarting it as the kubelet would. %s says:\n%s\n",
		p.ExitErr(), time.Now().Format(time.TimeOnly), kept, indentLines(crashExcerpt(kept), "    "))
	select {
	case <-h.stopc:
		return
	case <-time.After(crashBackOff(n)):
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.startApplicationController(ctx); err != nil {
		h.say("e2e: argocd-application-controller did not start again: %v\n", err)
	}
}

// crashBackOff is the kubelet's delay before restart n: none for the
// first, then 10 s doubling up to 5 min.
func crashBackOff(n int64) time.Duration {
	if n <= 1 {
		return 0
	}
	return min(10*time.Second<<min(n-2, 5), 5*time.Minute)
}

// crashExcerpt returns what a log says of a crash: from its first "panic:"
// or "fatal error:" line, 40 lines; else its last 15 lines. Lines are cut
// at 400 bytes (the controller logs whole sync task lists on one line).
func crashExcerpt(file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	from, to := max(len(lines)-15, 0), len(lines)
	for i, l := range lines {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			from, to = i, min(i+40, len(lines))
			break
		}
	}
	excerpt := slices.Clone(lines[from:to])
	for i, l := range excerpt {
		if len(l) > 400 {
			excerpt[i] = l[:400] + " ..."
		}
	}
	return strings.Join(excerpt, "\n")
}

// say prints a line of the harness's own (stderr, or the test's writer).
func (h *harness) say(format string, args ...any) {
	var w io.Writer = os.Stderr
	if h.out != nil {
		w = h.out
	}
	fmt.Fprintf(w, format, args...)
}

func indentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// controllerDiagnosis says, for a wait that timed out, whether the
// controller exited during the run, and which of its goroutines have been
// stuck for minutes: the full goroutine dump (Argo CD's own pprof
// endpoint, enabled by profilerEnv) goes to the logs, a summary into the
// message.
func (h *harness) controllerDiagnosis(ctx context.Context) string {
	var b strings.Builder
	if n := h.controllerExits.Load(); n > 0 {
		fmt.Fprintf(&b, "; argocd-application-controller exited %d time(s) during the run (%d hung and killed) and was restarted", n, h.controllerHangs.Load())
	}
	h.mu.Lock()
	metrics := h.controllerMetrics
	h.mu.Unlock()
	if metrics == "" {
		return b.String()
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	dump, err := fetch(ctx, metrics+"/debug/pprof/goroutine?debug=2")
	if err != nil {
		fmt.Fprintf(&b, "; argocd-application-controller's goroutines unreadable: %v", err)
		return b.String()
	}
	file := h.keepGoroutines(dump)
	fmt.Fprintf(&b, "; argocd-application-controller's goroutines (all in %s): %s", file, summarizeStuck(string(dump)))
	return b.String()
}

// profilerEnv enables the pprof endpoints of an Argo CD component (they
// answer only when this file says "true").
func (h *harness) profilerEnv() (string, error) {
	file := filepath.Join(h.dir, "profiler.enabled")
	if err := os.WriteFile(file, []byte("true"), 0o644); err != nil {
		return "", err
	}
	return "ARGOCD_ENABLE_PROFILER_FILE_PATH=" + file, nil
}

// fetch GETs url and returns its body (up to 64 MiB); a status other than
// 200 is an error with the start of the body.
func fetch(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %.300s", resp.Status, strings.TrimSpace(string(body)))
	}
	return body, nil
}

// goroutineHeader is the first line of a goroutine in a debug=2 dump (or a
// crash's traceback, which adds gp= and m=): its state, and how long it
// has waited once that is a minute or more.
var goroutineHeader = regexp.MustCompile(`^goroutine \d+ [^\[]*\[([^,\]]+)(?:, (\d+) minutes)?`)

// summarizeStuck groups the goroutines of a debug=2 dump that have been
// stuck a minute or more by state and innermost Argo CD frame, most
// numerous first. Stuck: a worker busy with one item, or a goroutine
// waiting on a mutex or semaphore.
func summarizeStuck(dump string) string {
	type group struct {
		key     string
		count   int
		longest int // minutes
	}
	groups := map[string]*group{}
	total := 0
	for block := range strings.SplitSeq(dump, "\n\n") {
		m := goroutineHeader.FindStringSubmatch(block)
		if m == nil {
			continue
		}
		total++
		if m[2] == "" || !stuck(m[1], block) {
			continue
		}
		key := m[1] + " at " + innermostArgoCDFrame(block)
		g := groups[key]
		if g == nil {
			g = &group{key: key}
			groups[key] = g
		}
		minutes, _ := strconv.Atoi(m[2])
		g.count++
		g.longest = max(g.longest, minutes)
	}
	if len(groups) == 0 {
		return fmt.Sprintf("%d goroutines, none stuck for a minute or more", total)
	}
	list := make([]*group, 0, len(groups))
	for _, g := range groups {
		list = append(list, g)
	}
	slices.SortFunc(list, func(a, b *group) int { return b.count - a.count })
	var out []string
	for _, g := range list[:min(len(list), 6)] {
		out = append(out, fmt.Sprintf("%d stuck (up to %d min) in %s", g.count, g.longest, g.key))
	}
	return fmt.Sprintf("%d goroutines; %s", total, strings.Join(out, "; "))
}

// stuck: a goroutine in state, with this stack, that should not have
// stayed there for minutes.
func stuck(state, stack string) bool {
	// A worker (processAppOperationQueueItem, ...) waits for its next item
	// in the workqueue's Get, and is stuck anywhere else.
	if strings.Contains(stack, "QueueItem(") && !strings.Contains(stack, "workqueue.(*Typed[...]).Get(") {
		return true
	}
	return isLockWait(state)
}

// isLockWait: the state of a goroutine waiting on a mutex or semaphore
// (not on a sync.Cond or WaitGroup: the main goroutine and idle workers
// wait there for good).
func isLockWait(state string) bool {
	switch state {
	case "sync.Mutex.Lock", "sync.RWMutex.Lock", "sync.RWMutex.RLock", "semacquire":
		return true
	}
	return false
}

// watchController is the liveness check the stock install lacks
// (argoproj/argo-cd#1047): every so often (20 s in the harness) it reads
// the controller's goroutines and, when some have waited a minute or more
// on a lock of its cluster cache (the deadlock of argoproj/argo-cd#28928,
// still open for v3.6, seen after a wave of failed watches such as an API
// server restart: every Application freezes), it keeps the dump, says so
// on stderr and kills the controller for superviseController to restart,
// as an operator would.
func (h *harness) watchController(stop <-chan struct{}, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		h.mu.Lock()
		p, metrics := h.controller, h.controllerMetrics
		h.mu.Unlock()
		if p == nil || p.Exited() {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		dump, err := fetch(ctx, metrics+"/debug/pprof/goroutine?debug=2")
		cancel()
		if err != nil {
			continue
		}
		if why := cacheDeadlock(string(dump)); why != "" {
			file := h.keepGoroutines(dump)
			h.controllerHangs.Add(1)
			h.say("e2e: argocd-application-controller hung at %s: %s (argoproj/argo-cd#28928; all its goroutines in %s); killing it for the harness to restart\n",
				time.Now().Format(time.TimeOnly), why, file)
			p.Kill()
		}
	}
}

// cacheDeadlock says how a debug=2 dump shows goroutines that have waited
// a minute or more on a lock inside the cluster cache, "" when none has.
func cacheDeadlock(dump string) string {
	count, longest, frame := 0, -1, ""
	for block := range strings.SplitSeq(dump, "\n\n") {
		m := goroutineHeader.FindStringSubmatch(block)
		if m == nil || m[2] == "" || !isLockWait(m[1]) || !inClusterCache(block) {
			continue
		}
		count++
		if minutes, _ := strconv.Atoi(m[2]); minutes > longest {
			longest, frame = minutes, innermostArgoCDFrame(block)
		}
	}
	if count == 0 {
		return ""
	}
	return fmt.Sprintf("%d goroutine(s) waiting up to %d min on a cluster cache lock, at %s", count, longest, frame)
}

// inClusterCache: a goroutine's stack runs through the cluster cache:
// gitops-engine's pkg/cache (its own module before v3), or Argo CD's
// controller/cache above it.
func inClusterCache(stack string) bool {
	return strings.Contains(stack, "gitops-engine") && strings.Contains(stack, "/pkg/cache.") ||
		strings.Contains(stack, "/argo-cd/") && strings.Contains(stack, "/controller/cache.")
}

// keepGoroutines writes a goroutine dump of the controller into the logs
// and returns its path.
func (h *harness) keepGoroutines(dump []byte) string {
	file := filepath.Join(h.logs, fmt.Sprintf("argocd-application-controller.goroutines-%s.txt", time.Now().Format("150405")))
	_ = os.WriteFile(file, dump, 0o644)
	return file
}

// innermostArgoCDFrame is the first function of Argo CD (or its
// gitops-engine) in a goroutine's stack, the call it is stuck in.
func innermostArgoCDFrame(stack string) string {
	for l := range strings.SplitSeq(stack, "\n") {
		if strings.Contains(l, "argoproj") && !strings.HasPrefix(l, "\t") && !strings.HasPrefix(l, "goroutine ") {
			return l
		}
	}
	return "(no Argo CD frame)"
}
