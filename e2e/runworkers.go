package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Labels dagster-k8s puts on a run worker's Job and pod
// (dagster_k8s/launcher.py _launch_k8s_job_with_args, job.py).
const (
	labelRunID        = "dagster/run-id"
	labelRunComponent = "app.kubernetes.io/component=run_worker"
)

// runWorkers plays the kubelet for the run worker pods the real
// K8sRunLauncher creates (Job dagster-run-<id>): once a pod is bound, it
// runs its container's command (`dagster api execute_run ...`) from the
// virtualenv, in the image's folder, with the pod's env, envFrom and
// ConfigMap volumes (the instance's dagster.yaml at DAGSTER_HOME), then
// records the exit code on the pod for KWOK's Stages, as for codeloc's
// Job pods.
type runWorkers struct {
	*podRunner
}

func newRunWorkers(h *harness) *runWorkers {
	r := &runWorkers{}
	r.podRunner = &podRunner{h: h, ns: appNS, selector: labelRunComponent, every: 500 * time.Millisecond, started: map[types.UID]bool{},
		describe: func(p *corev1.Pod) jobRun {
			return jobRun{Pod: p.Name, Job: p.Labels["job-name"], CodeLocation: p.Labels["dagster/code-location"], Role: "run"}
		},
		exec: r.execute}
	return r
}

func (r *runWorkers) execute(ctx context.Context, pod *corev1.Pod) (int, string, error) {
	if len(pod.Spec.Containers) != 1 {
		return 0, "", fmt.Errorf("run pod %s has %d containers, want 1", pod.Name, len(pod.Spec.Containers))
	}
	cs := r.h.codeServers
	s := &codeServer{pod: pod, container: pod.Spec.Containers[0], root: filepath.Join(r.h.dir, "pods", string(pod.UID)),
		codeLocation: pod.Labels["dagster/code-location"]}
	if err := os.MkdirAll(s.root, 0o755); err != nil {
		return 0, "", err
	}
	mounts, err := r.h.jobs.materialize(ctx, pod, s.root)
	if err != nil {
		return 0, "", err
	}
	env, err := cs.environment(ctx, s)
	if err != nil {
		return 0, "", err
	}
	for i, e := range env {
		k, v, _ := strings.Cut(e, "=")
		env[i] = k + "=" + rewriteArgs([]string{v}, s.container.VolumeMounts, mounts)[0]
	}
	argv := append(slices.Clone(s.container.Command), s.container.Args...)
	if len(argv) == 0 || path.Base(argv[0]) != "dagster" {
		return 0, "", fmt.Errorf("run pod %s runs %v, not dagster", pod.Name, argv)
	}
	workdir, err := cs.image(s, argv)
	if err != nil {
		return 0, "", err
	}
	if d := pod.Spec.ActiveDeadlineSeconds; d != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(*d)*time.Second)
		defer cancel()
	}
	logFile, err := os.Create(filepath.Join(r.h.logs, "pod-"+pod.Name+".log"))
	if err != nil {
		return 0, "", err
	}
	defer logFile.Close()
	// The run worker reaches the code-locations' Services by name, like the
	// webserver: the same hosts file.
	args := append(inHosts(cs.hostsFile), filepath.Join(r.h.tools.dagsterVenv, "bin", "dagster"))
	cmd := exec.CommandContext(ctx, "unshare", append(args, argv[1:]...)...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = workdir, env, logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	err = cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		return 0, "", err
	}
	return code, "", nil
}

// lastRunWorker is the latest run worker pod of a run.
func (r *runWorkers) lastRunWorker(runID string) (jobRun, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.runs) - 1; i >= 0; i-- {
		if strings.HasPrefix(r.runs[i].Job, "dagster-run-"+runID) || strings.HasPrefix(r.runs[i].Pod, "dagster-run-"+runID) {
			return r.runs[i], true
		}
	}
	return jobRun{}, false
}

// startDaemon starts dagster-daemon (the QueuedRunCoordinator's dequeuer,
// run monitoring) with the webserver's instance and workspace, in the same
// kind of mount namespace.
func (h *harness) startDaemon(ctx context.Context) error {
	p, err := h.start("dagster-daemon", "unshare", h.dagsterEnv(), append(inHosts(h.codeServers.hostsFile),
		filepath.Join(h.tools.dagsterVenv, "bin", "dagster-daemon"), "run", "-w", h.dagster.workspace)...)
	if err != nil {
		return err
	}
	h.dagster.daemon = p
	return nil
}
