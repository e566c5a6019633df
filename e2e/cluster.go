package e2e

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

//go:embed testdata/kwok.yaml
var kwokConfig []byte

// Annotation KWOK's configuration selects the fake nodes with.
const kwokNodeAnnotation = "kwok.x-k8s.io/node"

// writeKubeconfig writes a kubeconfig for cfg whose context's namespace is
// ns (Argo CD takes its own namespace from there).
func writeKubeconfig(path string, cfg *rest.Config, ns string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["e2e"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["e2e"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "e2e", Namespace: ns}
	kc.CurrentContext = "e2e"
	return clientcmd.WriteToFile(*kc, path)
}

// startControllerManager runs the controllers the flow needs (Jobs,
// Deployments, ReplicaSets, garbage collection, node lifecycle, volume
// binding, namespaces) with the admin's credentials. The token controllers
// are off: the harness gets tokens from the TokenRequest API.
func (h *harness) startControllerManager(ctx context.Context) error {
	p, err := h.start("kube-controller-manager", h.tools.controllerManager, nil,
		"--kubeconfig="+h.kubeconfig, "--leader-elect=false", "--secure-port=0",
		"--controllers=*,-serviceaccount-token",
		"--use-service-account-credentials=false",
		// KWOK renews node leases; never evict pods in a test run.
		"--node-monitor-grace-period=5m", "--concurrent-gc-syncs=4",
		"--concurrent-job-syncs=10", "--concurrent-deployment-syncs=10", "--concurrent-replicaset-syncs=10",
	)
	if err != nil {
		return err
	}
	return p.WaitFor(ctx, time.Minute, func(ctx context.Context) bool {
		_, err := h.kube.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err == nil // the serviceaccount controller runs
	})
}

// startScheduler runs kube-scheduler: KWOK only manages pods bound to a node.
func (h *harness) startScheduler(ctx context.Context) error {
	_, err := h.start("kube-scheduler", h.tools.scheduler, nil,
		"--kubeconfig="+h.kubeconfig, "--leader-elect=false", "--secure-port=0")
	return err
}

// startKWOK runs KWOK with the Stages of testdata/kwok.yaml and creates
// the fake nodes, then waits until every node is Ready and untainted (the
// node lifecycle controller removes TaintNodesByCondition's taint).
func (h *harness) startKWOK(ctx context.Context, nodes int) error {
	cfg := filepath.Join(h.dir, "kwok.yaml")
	if err := os.WriteFile(cfg, kwokConfig, 0o644); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	p, err := h.start("kwok", h.tools.kwok, nil, "--kubeconfig="+h.kubeconfig, "--config="+cfg,
		"--server-address=127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return err
	}
	for i := range nodes {
		if err := h.createNode(ctx, fmt.Sprintf("kwok-node-%d", i)); err != nil {
			return err
		}
	}
	return p.WaitFor(ctx, 2*time.Minute, func(ctx context.Context) bool { return h.nodesReady(ctx, nodes) })
}

func (h *harness) createNode(ctx context.Context, name string) error {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{kwokNodeAnnotation: "fake"},
			Labels:      map[string]string{"type": "kwok", corev1.LabelHostname: name, corev1.LabelOSStable: "linux"},
		},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourceMemory: resource.MustParse("128Gi"),
			corev1.ResourcePods: resource.MustParse("250"),
		}},
	}
	_, err := h.kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// nodesReady reports whether want nodes are Ready and carry no taint.
func (h *harness) nodesReady(ctx context.Context, want int) bool {
	list, err := h.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false
	}
	ready := 0
	for _, n := range list.Items {
		if len(n.Spec.Taints) == 0 && nodeReady(n) {
			ready++
		}
	}
	return ready >= want
}

func nodeReady(n corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
