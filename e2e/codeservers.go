package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/codeloc/codeloc/internal/kubetest"
	"github.com/codeloc/codeloc/internal/names"
)

// codeServers plays the kubelet and kube-proxy for the code-locations'
// Dagster code servers. For each pod of the contract's namespace bound to
// a node whose container runs `dagster api grpc` or `dagster code-server
// start`, it runs that process from the virtualenv of .ci/dagster.sh with
// the container's args and env as Argo CD applied them (container context
// included), its ConfigMap volumes written to a folder, on an address of
// its own (the pod's IP, 127.B.2.x: the `--host` of the args is replaced by
// it, as a pod's own network namespace would expose only its IP). The
// image is a folder of testdata/dagster/images (<repository>/<tag>), the
// process's working directory. The pods of an image the e2e has no folder
// for (a scenario's copy of a fixture, the storm's) run no process of
// their own: they share one code server (see shared).
// Each Service gets an address (127.B.1.x) in hostsFile, `<service>.
// <namespace>.svc` (and .cluster.local), and a TCP proxy on each of its
// ports to a running pod its selector matches, at its targetPort. A
// process that exits while its pod exists is started again after
// restartDelay, as the kubelet restarts a container, unless a test holds
// it.
type codeServers struct {
	h         *harness
	hostsFile string

	mu       sync.Mutex
	pods     map[types.UID]*codeServer
	services map[string]*serviceProxy // by name
	nextPod  int
	nextSvc  int
	hold     map[string]bool // code-locations whose restarts a test holds
	imageMu  sync.Mutex
	// block is the second octet of every address of this harness
	// (127.block.1.x Services, 127.block.2+.x pods), drawn at random so
	// that two harnesses on one machine do not share addresses.
	block int
	exits []codeServerExit
	// shared is the one code server of every pod whose image the e2e has
	// no folder for, started with the first such pod and stopped with the
	// last (sharedRefs counts them): a `code-server start` per pod (two
	// Python processes) costs ~190 MiB and seconds of CPU, about 37 GiB
	// for .ci/e2e-scale.sh's 200 code-locations, and no scenario asks
	// Dagster about those code-locations beyond LOADED.
	shared     *codeServer
	sharedRefs int
}

// restartDelay is the kubelet's first restart back-off (10 s).
const restartDelay = 10 * time.Second

// codeServer is one pod's running code server.
type codeServer struct {
	pod          *corev1.Pod
	container    corev1.Container
	ip           string
	root         string
	codeLocation string

	// usesShared: the pod's image has no folder; its Service reaches
	// codeServers.shared and no process runs for the pod itself.
	usesShared bool

	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{}
	stopped bool
	starts  int
}

// codeServerExit is a code server process that ended while its pod lived.
type codeServerExit struct {
	Pod, CodeLocation string
	At                time.Time
	Err               string
}

func newCodeServers(h *harness) *codeServers {
	return &codeServers{h: h, hostsFile: filepath.Join(h.dir, "hosts"), pods: map[types.UID]*codeServer{},
		services: map[string]*serviceProxy{}, hold: map[string]bool{}, block: 10 + rand.IntN(240)}
}

// start writes the initial hosts file.
func (c *codeServers) start() error { return c.writeHosts() }

func (c *codeServers) loop(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			c.stopAll()
			return
		case <-time.After(500 * time.Millisecond):
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c.scan(ctx)
		cancel()
	}
}

// isCodeServer reports whether the container runs a Dagster code server.
func isCodeServer(ct corev1.Container) bool {
	argv := append(slices.Clone(ct.Command), ct.Args...)
	if len(argv) < 3 || path.Base(argv[0]) != "dagster" {
		return false
	}
	return argv[1] == "api" && argv[2] == "grpc" || argv[1] == "code-server" && argv[2] == "start"
}

func (c *codeServers) scan(ctx context.Context) {
	pods, err := c.h.kube.CoreV1().Pods(appNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	live := map[types.UID]bool{}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Labels[names.LabelJob] != "" || p.Spec.NodeName == "" || p.DeletionTimestamp != nil ||
			p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		idx := slices.IndexFunc(p.Spec.Containers, isCodeServer)
		if idx < 0 {
			continue
		}
		live[p.UID] = true
		c.mu.Lock()
		_, known := c.pods[p.UID]
		if !known {
			s := &codeServer{pod: p.DeepCopy(), container: p.Spec.Containers[idx],
				root: filepath.Join(c.h.dir, "pods", string(p.UID)), codeLocation: p.Labels[names.LabelCodeLocation]}
			c.pods[p.UID] = s
			if hasImageFolder(s.container.Image) {
				s.ip = c.podIP()
				go c.run(s)
			} else {
				s.usesShared = true
				c.acquireShared()
				c.noteShared(s)
			}
		}
		c.mu.Unlock()
	}
	c.mu.Lock()
	var gone []*codeServer
	released := 0
	for uid, s := range c.pods {
		if !live[uid] {
			delete(c.pods, uid)
			if s.usesShared {
				released++
			} else {
				gone = append(gone, s)
			}
		}
	}
	var sharedGone *codeServer
	if released > 0 {
		c.sharedRefs -= released
		if c.sharedRefs == 0 {
			sharedGone, c.shared = c.shared, nil
		}
	}
	c.mu.Unlock()
	if sharedGone != nil {
		gone = append(gone, sharedGone)
	}
	for _, s := range gone {
		s.stop()
	}
	c.syncServices(ctx)
}

// hasImageFolder reports whether the e2e has a folder for image
// (testdata/dagster/images/<repository>/<tag>).
func hasImageFolder(image string) bool {
	repo, tag := splitImage(image)
	_, err := os.Stat(filepath.Join(imagesDir, path.Base(repo), tag))
	return err == nil
}

// The shared code server: `dagster api grpc` of a generated module of one
// unexecutable asset (an AssetSpec: Dagster allows the same key in several
// code-locations when at most one of them can materialize it, and every
// code-location using the server shows it), its port, and the image name
// its folder under images/ is kept as.
const (
	sharedModule = "codeloc_e2e_shared.definitions"
	sharedPort   = "4000"
	sharedImage  = "codeloc-e2e-shared:generated"
)

// acquireShared counts one more pod using the shared code server and
// starts it if none runs; c.mu is held.
func (c *codeServers) acquireShared() {
	c.sharedRefs++
	if c.shared != nil {
		return
	}
	ip := c.podIP()
	name := fmt.Sprintf("shared-codeserver-%d", c.nextPod)
	c.shared = &codeServer{
		pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: appNS, UID: types.UID(name)}},
		container: corev1.Container{Name: "dagster", Image: sharedImage,
			Args: []string{"dagster", "api", "grpc", "-h", ip, "-p", sharedPort, "-m", sharedModule}},
		ip: ip, root: filepath.Join(c.h.dir, "pods", name),
	}
	go c.run(c.shared)
}

// noteShared writes in the pod's log which process serves it.
func (c *codeServers) noteShared(s *codeServer) {
	f, err := os.OpenFile(filepath.Join(c.h.logs, "pod-"+s.pod.Name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "e2e: image %s has no folder under %s: served by the shared code server %s (%s:%s, log pod-%s.log)\n",
		s.container.Image, imagesDir, c.shared.pod.Name, c.shared.ip, sharedPort, c.shared.pod.Name)
}

// podIP allocates the next pod address; c.mu is held.
func (c *codeServers) podIP() string {
	n := c.nextPod
	c.nextPod++
	return fmt.Sprintf("127.%d.%d.%d", c.block, 2+n/250, 1+n%250)
}

// run starts the pod's code server and starts it again after each exit,
// until the pod is gone.
func (c *codeServers) run(s *codeServer) {
	for {
		err := c.startOnce(s)
		if errors.Is(err, errNotYet) || apiUnavailable(err) {
			time.Sleep(2 * time.Second)
			if s.isStopped() {
				return
			}
			continue
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "e2e: code server of pod %s: %v\n", s.pod.Name, err)
			return
		}
		s.mu.Lock()
		exited := s.exited
		s.mu.Unlock()
		if exited == nil { // stopped before it started
			return
		}
		<-exited
		if s.isStopped() {
			return
		}
		c.mu.Lock()
		c.exits = append(c.exits, codeServerExit{Pod: s.pod.Name, CodeLocation: s.codeLocation, At: time.Now(), Err: fmt.Sprint(s.cmd.ProcessState)})
		c.mu.Unlock()
		time.Sleep(restartDelay)
		for c.held(s.codeLocation) && !s.isStopped() {
			time.Sleep(200 * time.Millisecond)
		}
		if s.isStopped() {
			return
		}
	}
}

func (s *codeServer) isStopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

// startOnce materializes the pod's inputs and starts the process.
func (c *codeServers) startOnce(s *codeServer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := os.MkdirAll(s.root, 0o755); err != nil {
		return err
	}
	mounts, err := c.h.jobs.materialize(ctx, s.pod, s.root)
	if err != nil {
		return err
	}
	env, err := c.environment(ctx, s)
	if err != nil {
		return err
	}
	for i, e := range env {
		k, v, _ := strings.Cut(e, "=")
		env[i] = k + "=" + rewriteArgs([]string{v}, s.container.VolumeMounts, mounts)[0]
	}
	argv := rewriteArgs(append(slices.Clone(s.container.Command), s.container.Args...), s.container.VolumeMounts, mounts)
	argv = withHost(argv, s.ip)
	workdir, err := c.image(s, argv)
	if err != nil {
		return err
	}
	logFile, err := os.OpenFile(filepath.Join(c.h.logs, "pod-"+s.pod.Name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(filepath.Join(c.h.tools.dagsterVenv, "bin", path.Base(argv[0])), argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = workdir, env, logFile, logFile
	// Its own group (`code-server start` runs a child server), killed with
	// the test binary: a test timeout's panic runs no cleanup, and an
	// orphaned server would keep its address for the next harness.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		logFile.Close()
		return nil
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return err
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	s.starts++
	fmt.Fprintf(logFile, "e2e: started %v in %s on %s (pid %d, start %d)\n", argv, workdir, s.ip, cmd.Process.Pid, s.starts)
	go func(exited chan struct{}) {
		_ = cmd.Wait()
		logFile.Close()
		close(exited)
	}(s.exited)
	return nil
}

// withHost replaces the host the server binds (-h/--host, default every
// interface) by the pod's address.
func withHost(argv []string, ip string) []string {
	out := slices.Clone(argv)
	for i, a := range out {
		switch {
		case (a == "-h" || a == "--host") && i+1 < len(out):
			out[i+1] = ip
			return out
		case strings.HasPrefix(a, "--host="):
			out[i] = "--host=" + ip
			return out
		}
	}
	return append(out, "--host", ip)
}

// environment is the container's env and envFrom resolved as the kubelet
// does, with HOME, TMPDIR, the virtualenv's PATH and the datalake folder.
func (c *codeServers) environment(ctx context.Context, s *codeServer) ([]string, error) {
	env := []string{"PATH=" + filepath.Join(c.h.tools.dagsterVenv, "bin") + ":" + os.Getenv("PATH"), "HOME=" + s.root, "TMPDIR=" + s.root,
		"PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1", "ATLAS_DATALAKE_DIR=" + c.h.datalakeDir()}
	kube := c.h.kube.CoreV1()
	for _, from := range s.container.EnvFrom {
		var data map[string]string
		switch {
		case from.ConfigMapRef != nil:
			cm, err := kube.ConfigMaps(s.pod.Namespace).Get(ctx, from.ConfigMapRef.Name, metav1.GetOptions{})
			if err != nil {
				return nil, notYet(err, "ConfigMap "+from.ConfigMapRef.Name)
			}
			data = cm.Data
		case from.SecretRef != nil:
			sec, err := kube.Secrets(s.pod.Namespace).Get(ctx, from.SecretRef.Name, metav1.GetOptions{})
			if err != nil {
				return nil, notYet(err, "Secret "+from.SecretRef.Name)
			}
			data = map[string]string{}
			for k, v := range sec.Data {
				data[k] = string(v)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(data)) {
			env = append(env, from.Prefix+k+"="+data[k])
		}
	}
	for _, e := range s.container.Env {
		v, err := c.envValue(ctx, s.pod.Namespace, e)
		if err != nil {
			return nil, err
		}
		env = append(env, e.Name+"="+v)
	}
	return env, nil
}

func notYet(err error, what string) error {
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("%w: %s: %w", errNotYet, what, err)
	}
	return err
}

func (c *codeServers) envValue(ctx context.Context, ns string, e corev1.EnvVar) (string, error) {
	if e.ValueFrom == nil || e.ValueFrom.ConfigMapKeyRef == nil {
		return c.h.jobs.envValue(ctx, ns, e)
	}
	ref := e.ValueFrom.ConfigMapKeyRef
	cm, err := c.h.kube.CoreV1().ConfigMaps(ns).Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return "", notYet(err, "ConfigMap "+ref.Name)
	}
	v, ok := cm.Data[ref.Key]
	if !ok {
		return "", fmt.Errorf("%w: key %s of ConfigMap %s", errNotYet, ref.Key, ref.Name)
	}
	return v, nil
}

// imagesDir holds the e2e's code-location images: <repository>/<tag>/.
const imagesDir = "testdata/dagster/images"

// image returns the folder the process runs in: the image's folder,
// copied once per image under the work directory (every container of an
// image sees the same path, as in a real image: the code server's
// working directory, which Dagster records in each run's origin, is the
// run worker's too), or a generated module for an image the e2e lacks.
func (c *codeServers) image(s *codeServer, argv []string) (string, error) {
	c.imageMu.Lock()
	defer c.imageMu.Unlock()
	repo, tag := splitImage(s.container.Image)
	dst := filepath.Join(c.h.dir, "images", path.Base(repo)+"_"+tag)
	if _, err := os.Stat(dst); err == nil {
		return dst, nil
	}
	src, err := filepath.Abs(filepath.Join(imagesDir, path.Base(repo), tag))
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(src); err == nil {
		return dst, copyTree(src, dst)
	}
	if s.container.Image == sharedImage {
		return dst, writeModule(dst, sharedModule, "# Generated by the e2e harness: the code server every pod of an image the e2e has no\n"+
			"# folder for shares (e2e/kubelet.md).\nimport dagster as dg\n\ndefs = dg.Definitions(assets=[dg.AssetSpec([\"e2e\", \"shared\"])])\n")
	}
	module := ""
	for i, a := range argv {
		if (a == "-m" || a == "--module-name") && i+1 < len(argv) {
			module = argv[i+1]
		}
	}
	if module == "" {
		return "", fmt.Errorf("image %s: no folder %s and no -m module in %v", s.container.Image, src, argv)
	}
	asset := strings.NewReplacer("-", "_", ".", "_").Replace(s.codeLocation)
	if asset == "" {
		asset = "hello"
	}
	return dst, writeModule(dst, module, fmt.Sprintf("# Generated by the e2e harness for image %s.\nimport dagster as dg\n\n\n@dg.asset(key_prefix=%q)\ndef %s_hello() -> int:\n    return 1\n\n\ndefs = dg.Definitions(assets=[%s_hello])\n",
		s.container.Image, asset, asset, asset))
}

// writeModule writes the Python module named module (a.b.c) under dir,
// with an __init__.py in each package folder.
func writeModule(dir, module, source string) error {
	pkg := filepath.Join(append([]string{dir}, strings.Split(module, ".")...)...)
	if err := os.MkdirAll(filepath.Dir(pkg), 0o755); err != nil {
		return err
	}
	for d := filepath.Dir(pkg); d != dir; d = filepath.Dir(d) {
		if err := os.WriteFile(filepath.Join(d, "__init__.py"), nil, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(pkg+".py", []byte(source), 0o644)
}

// splitImage splits registry/name:tag into registry/name and tag.
func splitImage(image string) (string, string) {
	i := strings.LastIndex(image, ":")
	if i < 0 || strings.Contains(image[i:], "/") {
		return image, "latest"
	}
	return image[:i], image[i+1:]
}

// stop ends the process (its group: SIGTERM, SIGKILL after 5 s).
func (s *codeServer) stop() {
	s.mu.Lock()
	s.stopped = true
	cmd, exited := s.cmd, s.exited
	s.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
}

// kill sends SIGKILL to the code server of the code-location's running
// pod (its process group), as an OOM kill would; it returns the pod.
func (c *codeServers) kill(codeLocation string) (string, error) {
	c.mu.Lock()
	var target *codeServer
	for _, s := range c.pods {
		if s.codeLocation == codeLocation {
			target = s
		}
	}
	c.mu.Unlock()
	if target == nil {
		return "", fmt.Errorf("no code server runs for %s", codeLocation)
	}
	if target.usesShared {
		return "", fmt.Errorf("%s's image has no folder: its pod %s uses the shared code server, which a kill would take from every code-location using it", codeLocation, target.pod.Name)
	}
	target.mu.Lock()
	cmd := target.cmd
	target.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return "", fmt.Errorf("the code server of %s is not started", codeLocation)
	}
	return target.pod.Name, syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// holdRestarts holds (or releases) the restarts of a code-location's
// code server: the kubelet's back-off, made as long as a test needs.
func (c *codeServers) holdRestarts(codeLocation string, hold bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hold[codeLocation] = hold
}

func (c *codeServers) held(codeLocation string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hold[codeLocation]
}

func (c *codeServers) stopAll() {
	c.mu.Lock()
	pods := slices.DeleteFunc(slices.Collect(maps.Values(c.pods)), func(s *codeServer) bool { return s.usesShared })
	if c.shared != nil {
		pods = append(pods, c.shared)
	}
	svcs := slices.Collect(maps.Values(c.services))
	c.pods, c.services, c.shared, c.sharedRefs = map[types.UID]*codeServer{}, map[string]*serviceProxy{}, nil, 0
	c.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range pods {
		wg.Add(1)
		go func() { defer wg.Done(); s.stop() }()
	}
	wg.Wait()
	for _, p := range svcs {
		p.close()
	}
}

// serviceProxy is kube-proxy for one Service: a listener on each port of
// its address, forwarding each connection to a running code server its
// selector matches.
type serviceProxy struct {
	name      string
	ip        string
	selector  map[string]string
	ports     []corev1.ServicePort
	listeners []net.Listener
}

func (p *serviceProxy) close() {
	for _, l := range p.listeners {
		_ = l.Close()
	}
}

// syncServices gives every Service of the namespace an address, a hosts
// line and its proxies, and removes those of Services gone.
func (c *codeServers) syncServices(ctx context.Context) {
	list, err := c.h.kube.CoreV1().Services(appNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	live := map[string]bool{}
	changed := false
	for _, svc := range list.Items {
		if len(svc.Spec.Selector) == 0 {
			continue
		}
		live[svc.Name] = true
		c.mu.Lock()
		p, ok := c.services[svc.Name]
		c.mu.Unlock()
		if ok && maps.Equal(p.selector, svc.Spec.Selector) && slices.EqualFunc(p.ports, svc.Spec.Ports, func(a, b corev1.ServicePort) bool {
			return a.Port == b.Port && a.TargetPort == b.TargetPort
		}) {
			continue
		}
		ip := ""
		if ok {
			p.close()
			ip = p.ip
		} else {
			c.mu.Lock()
			ip = fmt.Sprintf("127.%d.1.%d", c.block, 1+c.nextSvc%250)
			c.nextSvc++
			c.mu.Unlock()
		}
		np := &serviceProxy{name: svc.Name, ip: ip, selector: svc.Spec.Selector, ports: svc.Spec.Ports}
		for _, port := range svc.Spec.Ports {
			l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(int(port.Port))))
			if err != nil {
				fmt.Fprintf(os.Stderr, "e2e: service %s: %v\n", svc.Name, err)
				continue
			}
			np.listeners = append(np.listeners, l)
			go c.serve(l, np, port)
		}
		c.mu.Lock()
		c.services[svc.Name] = np
		c.mu.Unlock()
		changed = true
	}
	c.mu.Lock()
	for name, p := range c.services {
		if !live[name] {
			p.close()
			delete(c.services, name)
			changed = true
		}
	}
	c.mu.Unlock()
	if changed {
		_ = c.writeHosts()
	}
}

func (c *codeServers) serve(l net.Listener, p *serviceProxy, port corev1.ServicePort) {
	for {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		go c.forward(conn, p, port)
	}
}

// forward connects conn to a running code server of the Service (the
// newest pod), or closes it when there is none (no endpoint).
func (c *codeServers) forward(conn net.Conn, p *serviceProxy, port corev1.ServicePort) {
	defer conn.Close()
	addr := c.endpoint(p, port)
	if addr == "" {
		return
	}
	up, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, conn); done <- struct{}{} }()
	go func() { _, _ = io.Copy(conn, up); done <- struct{}{} }()
	<-done
}

// endpoint is ip:port of the newest running pod the Service selects.
func (c *codeServers) endpoint(p *serviceProxy, port corev1.ServicePort) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var best *codeServer
	sel := labels.SelectorFromSet(p.selector)
	for _, s := range c.pods {
		if s.isStopped() || !sel.Matches(labels.Set(s.pod.Labels)) {
			continue
		}
		if best == nil || s.pod.CreationTimestamp.After(best.pod.CreationTimestamp.Time) {
			best = s
		}
	}
	if best == nil {
		return ""
	}
	if best.usesShared {
		if c.shared == nil {
			return ""
		}
		return net.JoinHostPort(c.shared.ip, sharedPort)
	}
	target := port.TargetPort.IntValue()
	if port.TargetPort.Type == intstr.String { // a port name
		for _, cp := range best.container.Ports {
			if cp.Name == port.TargetPort.StrVal {
				target = int(cp.ContainerPort)
			}
		}
	}
	if target == 0 {
		target = int(port.Port)
	}
	return net.JoinHostPort(best.ip, strconv.Itoa(target))
}

// writeHosts rewrites the hosts file in place (the mount namespaces bind
// it by inode).
func (c *codeServers) writeHosts() error {
	c.mu.Lock()
	var b strings.Builder
	b.WriteString("127.0.0.1 localhost\n")
	for _, name := range slices.Sorted(maps.Keys(c.services)) {
		fmt.Fprintf(&b, "%s %s.%s.svc %s.%s.svc.cluster.local\n", c.services[name].ip, name, appNS, name, appNS)
	}
	c.mu.Unlock()
	f, err := os.OpenFile(c.hostsFile, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// memory returns the code-server processes running (each with its
// children: `code-server start` runs its server as a child) and their
// resident memory in bytes, from /proc.
func (c *codeServers) memory() (processes int, rss int64) {
	c.mu.Lock()
	var pids []int
	for _, s := range c.pods {
		if pid := s.pid(); pid > 0 {
			pids = append(pids, pid)
		}
	}
	if c.shared != nil {
		if pid := c.shared.pid(); pid > 0 {
			pids = append(pids, pid)
		}
	}
	c.mu.Unlock()
	for _, pid := range pids {
		if r := kubetest.TreeRSS(pid); r > 0 {
			processes++
			rss += r
		}
	}
	return processes, rss
}

// pid is the running process's id, 0 when none runs.
func (s *codeServer) pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil || s.cmd.Process == nil || s.stopped {
		return 0
	}
	select {
	case <-s.exited:
		return 0
	default:
		return s.cmd.Process.Pid
	}
}
