package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/codeloc/codeloc/internal/names"
)

// Annotations the harness sets on a Job pod once its command ran; the
// Stages of testdata/kwok.yaml turn them into the pod's final status.
const (
	annoExitCode = "e2e.codeloc.dev/exit-code"
	annoFailed   = "e2e.codeloc.dev/failed"
	annoMessage  = "e2e.codeloc.dev/message"
)

// jobRun is one Job pod the harness ran, for the scenarios' assertions.
type jobRun struct {
	Pod, Job, CodeLocation, Role string
	Start, End                   time.Time
	ExitCode                     int
	Message                      string
}

// jobRunner plays the kubelet for codeloc's Job pods: it runs their
// command (codeloc-jobs) as a local process with the pod's args, env and
// mounted ConfigMaps (a podRunner over the codeloc.dev/job label).
type jobRunner struct {
	*podRunner
	hooks map[string]func(pid int) // "<code-location>/<role>" → armStart's hook
}

func newJobRunner(h *harness) *jobRunner {
	r := &jobRunner{}
	r.podRunner = &podRunner{h: h, selector: names.LabelJob, every: 200 * time.Millisecond, started: map[types.UID]bool{},
		describe: func(p *corev1.Pod) jobRun {
			return jobRun{Pod: p.Name, Job: p.Labels["job-name"], CodeLocation: p.Labels[names.LabelCodeLocation], Role: p.Labels[names.LabelJob]}
		},
		exec: r.execute}
	return r
}

// apiUnavailable reports an error of an API server that is away (the
// fault scenarios restart it): the kubelet retries such a pod, and so
// does the runner.
func apiUnavailable(err error) bool {
	return err != nil && (utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err) ||
		errors.Is(err, context.DeadlineExceeded) || apierrors.IsServiceUnavailable(err) || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err))
}

// armStart makes the runner call hook with the process id right after it
// started the next pod of codeLocation's role, before it waits for it; a
// nil hook disarms.
func (r *jobRunner) armStart(codeLocation, role string, hook func(pid int)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hooks == nil {
		r.hooks = map[string]func(int){}
	}
	if hook == nil {
		delete(r.hooks, codeLocation+"/"+role)
		return
	}
	r.hooks[codeLocation+"/"+role] = hook
}

// takeHook returns and disarms the hook of pod's code-location and role.
func (r *jobRunner) takeHook(pod *corev1.Pod) func(int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := pod.Labels[names.LabelCodeLocation] + "/" + pod.Labels[names.LabelJob]
	hook := r.hooks[key]
	delete(r.hooks, key)
	return hook
}

// execute materializes the pod's inputs and runs its single container.
func (r *jobRunner) execute(ctx context.Context, pod *corev1.Pod) (int, string, error) {
	if len(pod.Spec.Containers) != 1 {
		return 0, "", fmt.Errorf("pod %s has %d containers, want 1", pod.Name, len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	if len(c.Command) != 1 || c.Command[0] != names.BinaryJobs {
		return 0, "", fmt.Errorf("pod %s runs %v, not %s", pod.Name, c.Command, names.BinaryJobs)
	}
	root := filepath.Join(r.h.dir, "pods", string(pod.UID))
	if err := os.MkdirAll(root, 0o755); err != nil { // a pod without volumes too (the reload)
		return 0, "", err
	}
	mounts, err := r.materialize(ctx, pod, root)
	if err != nil {
		return 0, "", err
	}
	env, err := r.environment(ctx, pod, c, root)
	if err != nil {
		return 0, "", err
	}
	term := filepath.Join(root, "termination-log")
	args := rewriteArgs(c.Args, c.VolumeMounts, mounts)
	args = append([]string{args[0], "--termination-log", term}, args[1:]...)
	return r.exec(ctx, pod, args, env, term)
}

// exec runs codeloc-jobs and returns its exit code and termination message.
func (r *jobRunner) exec(ctx context.Context, pod *corev1.Pod, args, env []string, term string) (int, string, error) {
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
	cmd := exec.CommandContext(ctx, filepath.Join(r.h.bin, names.BinaryJobs), args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, logFile, logFile
	// Killed with the test binary, as the code servers are: a reload hook
	// still retrying when the suite ends (the storm's last ones) would
	// otherwise run on for its --timeout against a webserver gone.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return 0, "", err
	}
	if hook := r.takeHook(pod); hook != nil {
		hook(cmd.Process.Pid)
	}
	err = cmd.Wait()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal()) // as a container runtime reports a killed container: 137 for SIGKILL
		}
	} else if err != nil {
		return 0, "", err
	}
	msg, _ := os.ReadFile(term)
	return code, strings.TrimSpace(string(msg)), nil
}

// materialize writes each ConfigMap volume's keys and creates each
// emptyDir under root; it returns volume name → local folder.
func (r *jobRunner) materialize(ctx context.Context, pod *corev1.Pod, root string) (map[string]string, error) {
	dirs := map[string]string{}
	for _, v := range pod.Spec.Volumes {
		dir := filepath.Join(root, "volumes", v.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		dirs[v.Name] = dir
		if v.ConfigMap == nil {
			continue
		}
		cm, err := r.h.kube.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, v.ConfigMap.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("%w: ConfigMap %s: %w", errNotYet, v.ConfigMap.Name, err)
		}
		if err != nil {
			return nil, err
		}
		for k, val := range cm.Data {
			if err := os.WriteFile(filepath.Join(dir, k), []byte(val), 0o644); err != nil {
				return nil, err
			}
		}
	}
	return dirs, nil
}

// rewriteArgs maps the container's mount paths in args to local folders.
func rewriteArgs(args []string, mounts []corev1.VolumeMount, dirs map[string]string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		for _, m := range mounts {
			if a == m.MountPath || strings.HasPrefix(a, m.MountPath+"/") {
				out[i] = dirs[m.Name] + strings.TrimPrefix(a, m.MountPath)
			}
		}
	}
	return out
}

// environment is the container's env (secretKeyRef resolved as the
// kubelet does), HOME and TMPDIR in the pod's folder, and KUBECONFIG with
// a token of the pod's ServiceAccount unless the pod opts out.
func (r *jobRunner) environment(ctx context.Context, pod *corev1.Pod, c corev1.Container, root string) ([]string, error) {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "TMPDIR=" + root}
	for _, e := range c.Env {
		v, err := r.envValue(ctx, pod.Namespace, e)
		if err != nil {
			return nil, err
		}
		env = append(env, e.Name+"="+v)
	}
	if pod.Spec.AutomountServiceAccountToken != nil && !*pod.Spec.AutomountServiceAccountToken {
		return env, nil
	}
	kc, err := r.serviceAccountKubeconfig(ctx, pod, root)
	if err != nil {
		return nil, err
	}
	return append(env, "KUBECONFIG="+kc), nil
}

func (r *jobRunner) envValue(ctx context.Context, ns string, e corev1.EnvVar) (string, error) {
	if e.ValueFrom == nil {
		return e.Value, nil
	}
	ref := e.ValueFrom.SecretKeyRef
	if ref == nil {
		return "", fmt.Errorf("env %s: only value and secretKeyRef are supported", e.Name)
	}
	s, err := r.h.kube.CoreV1().Secrets(ns).Get(ctx, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", fmt.Errorf("%w: secret %s", errNotYet, ref.Name)
	}
	if err != nil {
		return "", err
	}
	v, ok := s.Data[ref.Key]
	if !ok {
		return "", fmt.Errorf("%w: key %s of secret %s", errNotYet, ref.Key, ref.Name)
	}
	return string(v), nil
}

// serviceAccountKubeconfig asks the TokenRequest API for a token of the
// pod's ServiceAccount and writes a kubeconfig holding it.
func (r *jobRunner) serviceAccountKubeconfig(ctx context.Context, pod *corev1.Pod, root string) (string, error) {
	sa := pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	exp := int64(3600)
	tr, err := r.h.kube.CoreV1().ServiceAccounts(pod.Namespace).CreateToken(ctx, sa,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if apierrors.IsNotFound(err) {
		return "", fmt.Errorf("%w: service account %s: %w", errNotYet, sa, err)
	}
	if err != nil {
		return "", fmt.Errorf("token for service account %s: %w", sa, err)
	}
	path := filepath.Join(root, "kubeconfig")
	return path, writeKubeconfig(path, r.h.env.TokenConfig(tr.Status.Token), pod.Namespace)
}
