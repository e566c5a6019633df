package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// podRunner plays the kubelet for the pods one label selects: at every
// poll it starts, once, each pod bound to a node and still pending; exec
// runs it as a local process; the outcome is recorded (runs) and
// annotated on the pod, which KWOK's Stages turn into its final status.
// codeloc's Job pods (jobRunner) and Dagster's run workers (runWorkers)
// are two of them.
type podRunner struct {
	h        *harness
	ns       string // "" every namespace
	selector string
	every    time.Duration
	describe func(*corev1.Pod) jobRun // the run's pod, Job, code-location and role
	exec     func(context.Context, *corev1.Pod) (int, string, error)

	mu      sync.Mutex
	started map[types.UID]bool
	runs    []jobRun
}

// loop looks for new pods until stop closes.
func (r *podRunner) loop(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-time.After(r.every):
		}
		r.scan()
	}
}

func (r *podRunner) scan() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pods, err := r.h.kube.CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{LabelSelector: r.selector})
	if err != nil {
		return
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Spec.NodeName == "" || p.Status.Phase != corev1.PodPending || p.DeletionTimestamp != nil || p.Annotations[annoExitCode] != "" {
			continue
		}
		r.mu.Lock()
		seen := r.started[p.UID]
		r.started[p.UID] = true
		r.mu.Unlock()
		if !seen {
			go r.run(p.DeepCopy())
		}
	}
}

// errNotYet: the pod cannot start yet (a Secret it reads is missing); the
// kubelet would retry, and so does the runner.
var errNotYet = errors.New("pod cannot start yet")

// run executes one pod and annotates it with the outcome.
func (r *podRunner) run(pod *corev1.Pod) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run := r.describe(pod)
	run.Start = time.Now()
	code, msg, err := r.exec(ctx, pod)
	if errors.Is(err, errNotYet) || apiUnavailable(err) {
		time.Sleep(2 * time.Second)
		r.mu.Lock()
		delete(r.started, pod.UID)
		r.mu.Unlock()
		return
	}
	if err != nil {
		code, msg = 127, "e2e harness: "+err.Error()
	}
	run.End, run.ExitCode, run.Message = time.Now(), code, msg
	r.mu.Lock()
	r.runs = append(r.runs, run)
	r.mu.Unlock()
	// The kubelet reports a container's end however long the API server
	// is away: so does the runner, until the pod's context ends.
	for r.annotate(ctx, pod, code, msg) != nil && ctx.Err() == nil {
		time.Sleep(time.Second)
	}
}

// annotate hands the outcome to KWOK's Stages.
func (r *podRunner) annotate(ctx context.Context, pod *corev1.Pod, code int, msg string) error {
	anno := map[string]any{annoExitCode: strconv.Itoa(code)}
	if code != 0 {
		anno[annoFailed], anno[annoMessage] = "true", msg
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": anno}})
	_, err := r.h.kube.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// snapshot returns the runs so far.
func (r *podRunner) snapshot() []jobRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]jobRun(nil), r.runs...)
}
