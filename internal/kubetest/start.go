package kubetest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// Bounds of the start sequence.
const (
	etcdReadyTimeout      = 20 * time.Second
	apiserverReadyTimeout = 90 * time.Second
	startAttempts         = 3 // ports are picked free, but may be taken before use
)

// AdminUser and AdminGroup identify the static-token admin.
const (
	AdminUser  = "kubetest-admin"
	AdminGroup = "system:masters"
)

// errPortRace marks a start that failed because a port was taken meanwhile.
var errPortRace = errors.New("port taken meanwhile")

func (e *Env) start(ctx context.Context, bins Binaries) error {
	token, err := e.writeCredentials()
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		err = e.startOnce(ctx, bins, token, attempt)
		if err == nil || !errors.Is(err, errPortRace) || attempt == startAttempts {
			return err
		}
		e.apiserver.Stop()
		e.etcd.Stop()
	}
}

func (e *Env) startOnce(ctx context.Context, bins Binaries, token string, attempt int) error {
	ports, err := FreePorts(3)
	if err != nil {
		return err
	}
	etcdURL, host := localURL("http", ports[0]), localURL("https", ports[2])
	if err := e.launchEtcd(bins.Etcd, etcdURL, localURL("http", ports[1]), attempt); err != nil {
		return err
	}
	// The apiserver starts alongside etcd (it retries until etcd answers):
	// this saves etcd's start time.
	certDir := filepath.Join(e.Dir, "certs-"+strconv.Itoa(attempt))
	if err := e.launchAPIServer(bins.APIServer, etcdURL, ports[2], certDir); err != nil {
		return err
	}
	if err := e.waitEtcd(ctx, etcdURL); err != nil {
		return err
	}
	if err := e.waitAPIServer(ctx, host, token); err != nil {
		return err
	}
	return e.connect(host, token, filepath.Join(certDir, "apiserver.crt"))
}

func (e *Env) launchEtcd(bin, clientURL, peerURL string, attempt int) error {
	data := filepath.Join(e.Dir, "etcd-"+strconv.Itoa(attempt))
	p, err := StartProcess("etcd", bin, filepath.Join(e.Dir, "etcd.log"), nil,
		"--name=kubetest", "--data-dir="+data, "--unsafe-no-fsync",
		"--listen-client-urls="+clientURL, "--advertise-client-urls="+clientURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=kubetest="+peerURL, "--log-level=warn",
	)
	e.etcd = p
	return err
}

func (e *Env) waitEtcd(ctx context.Context, clientURL string) error {
	err := e.etcd.WaitFor(ctx, etcdReadyTimeout, func(ctx context.Context) bool {
		return httpOK(ctx, http.DefaultClient, clientURL+"/health", "")
	})
	if err != nil && e.etcd.Exited() && e.etcd.logMentionsPortInUse() {
		return fmt.Errorf("%w: %w", errPortRace, err)
	}
	return err
}

// apiserverLaunch is what launchAPIServer was given.
type apiserverLaunch struct {
	bin, etcdURL, certDir, log string
	port                       int
}

func (e *Env) launchAPIServer(bin, etcdURL string, port int, certDir string) error {
	return e.launchAPIServerWith(apiserverLaunch{bin: bin, etcdURL: etcdURL, port: port, certDir: certDir,
		log: filepath.Join(e.Dir, "kube-apiserver.log")})
}

// launchAPIServerWith starts kube-apiserver. Its serving certificate is
// generated into certDir on the first start and read from there on the
// next: a restart serves the same one.
func (e *Env) launchAPIServerWith(l apiserverLaunch) error {
	bin, etcdURL, port, certDir := l.bin, l.etcdURL, l.port, l.certDir
	e.launch = l
	saKey := filepath.Join(e.Dir, "sa.key")
	p, err := StartProcess("kube-apiserver", bin, l.log, nil,
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port), "--cert-dir="+certDir,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+saKey, "--service-account-signing-key-file="+saKey,
		"--authorization-mode=RBAC", "--token-auth-file="+filepath.Join(e.Dir, "tokens.csv"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--disable-admission-plugins=ServiceAccount",
		"--endpoint-reconciler-type=none",
		"--profiling=false",
	)
	e.apiserver = p
	return err
}

func (e *Env) waitAPIServer(ctx context.Context, host, token string) error {
	// The serving certificate is generated at start: trust it only once read.
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	defer tr.CloseIdleConnections()
	insecure := &http.Client{Transport: tr}
	p := e.apiserver
	err := p.WaitFor(ctx, apiserverReadyTimeout, func(ctx context.Context) bool {
		return httpOK(ctx, insecure, host+"/readyz", token)
	})
	if err != nil && p.Exited() && p.logMentionsPortInUse() {
		return fmt.Errorf("%w: %w", errPortRace, err)
	}
	return err
}

// connect builds the admin config, trusting the apiserver's self-signed
// certificate, and the admin clients.
func (e *Env) connect(host, token, certFile string) error {
	ca, err := os.ReadFile(certFile)
	if err != nil {
		return e.apiserver.failure(fmt.Errorf("read serving certificate: %w", err))
	}
	e.Admin = &rest.Config{
		Host:            host,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: ca},
		QPS:             -1, // no client-side throttling in tests
		Timeout:         30 * time.Second,
	}
	if e.dyn, err = dynamic.NewForConfig(e.Admin); err != nil {
		return err
	}
	e.mapper, err = newMapper(e.Admin)
	return err
}

// writeCredentials writes the static token file and the service-account
// signing key, and returns the admin token.
func (e *Env) writeCredentials() (string, error) {
	raw := make([]byte, 16)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	token := hex.EncodeToString(raw)
	line := fmt.Sprintf("%s,%s,%s,%q\n", token, AdminUser, AdminUser, AdminGroup)
	if err := os.WriteFile(filepath.Join(e.Dir, "tokens.csv"), []byte(line), 0o600); err != nil {
		return "", err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return "", err
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
	return token, os.WriteFile(filepath.Join(e.Dir, "sa.key"), pemKey, 0o600)
}

// httpOK reports whether GET url answers 200 within a short time.
func httpOK(ctx context.Context, c *http.Client, url, token string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
