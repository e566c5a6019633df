// Package argocdref builds and runs sidecar/argocdref, Argo CD's own code
// (repo-server GenerateManifests, the stock cmp-server, the Application
// type) in a module of its own, for the tests that compare codeloc with
// Argo CD. Tests only: no binary of codeloc imports it.
package argocdref

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvBinary names a prebuilt argocdref to use instead of building one.
const EnvBinary = "CODELOC_ARGOCDREF"

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// Binary returns the path of argocdref, built once per test process from
// sidecar/argocdref (its own go.mod) into a temporary folder.
func Binary(tb testing.TB) string {
	tb.Helper()
	buildOnce.Do(func() {
		if p := os.Getenv(EnvBinary); p != "" {
			built = p
			return
		}
		built, buildErr = build()
	})
	if buildErr != nil {
		tb.Fatal(buildErr)
	}
	return built
}

func build() (string, error) {
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "sidecar", "argocdref")
	dir, err := os.MkdirTemp("", "codeloc-argocdref-")
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "argocdref")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building sidecar/argocdref: %w\n%s", err, b)
	}
	return out, nil
}

// Applications decodes a YAML stream of Applications strictly into Argo
// CD's Application type and returns them re-encoded as JSON objects.
func Applications(tb testing.TB, yamlStream []byte) ([]json.RawMessage, error) {
	tb.Helper()
	cmd := exec.Command(Binary(tb), "application")
	cmd.Stdin = strings.NewReader(string(yamlStream))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var apps []json.RawMessage
	return apps, json.Unmarshal(out, &apps)
}

// SplitYAMLToString is gitops-engine's kube.SplitYAMLToString of data.
func SplitYAMLToString(tb testing.TB, data []byte) ([]string, error) {
	tb.Helper()
	cmd := exec.Command(Binary(tb), "splityaml")
	cmd.Stdin = strings.NewReader(string(data))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var docs []string
	return docs, json.Unmarshal(out, &docs)
}

// Stock runs Argo CD's stock cmp-server for configDir/plugin.yaml, on the
// socket folder of ARGOCD_PLUGINSOCKFILEPATH, with env added to the
// process's; it returns the socket and stops the server when the test
// ends.
func Stock(tb testing.TB, configDir string, noDiscover bool, env ...string) string {
	tb.Helper()
	args := []string{"stock", configDir}
	if noDiscover {
		args = append(args, "--no-discover")
	}
	cmd := exec.Command(Binary(tb), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		tb.Fatalf("argocdref stock did not start: %v", err)
	}
	return strings.TrimSpace(line)
}

// Request is one call of Argo CD's repo-server GenerateManifests: the
// repository on disk, the Application's source and what the controller
// sends with it.
type Request struct {
	SockDir      string        `json:"sockDir"`
	Repo         string        `json:"repo"`
	AppPath      string        `json:"appPath"`
	Path         string        `json:"path"`
	AppName      string        `json:"appName"`
	Namespace    string        `json:"namespace"`
	Plugin       string        `json:"plugin"`
	Params       []PluginParam `json:"params,omitempty"`
	Env          []EnvEntry    `json:"env,omitempty"`
	APIVersions  []string      `json:"apiVersions"`
	KubeVersion  string        `json:"kubeVersion"`
	GeneratePath bool          `json:"generatePath"`
	RepoURL      string        `json:"repoURL"`
	AppLabelKey  string        `json:"appLabelKey"`
}

// PluginParam is an Application's plugin parameter, with Argo CD's JSON
// names: a string, an array or a map.
type PluginParam struct {
	Name    string            `json:"name"`
	String_ *string           `json:"string,omitempty"` //nolint:revive // Argo CD's field name
	Array   []string          `json:"array,omitempty"`
	Map     map[string]string `json:"map,omitempty"`
}

// EnvEntry is an Application's plugin env entry.
type EnvEntry struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Response is GenerateManifests' answer.
type Response struct {
	Manifests  []string
	SourceType string
}

// wire is the pipe's message in both directions.
type wire struct {
	ID               int64 `json:"id"`
	Cancel           bool  `json:"cancel,omitempty"`
	DeadlineUnixNano int64 `json:"deadlineUnixNano,omitempty"`
	*Request
	Manifests  []string `json:"manifests,omitempty"`
	SourceType string   `json:"sourceType,omitempty"`
	Error      string   `json:"error,omitempty"`
}

// RepoServer is one `argocdref generate` process serving concurrent
// GenerateManifests calls.
type RepoServer struct {
	mu      sync.Mutex
	enc     *json.Encoder
	next    int64
	pending map[int64]chan wire
	dead    error
}

var (
	repoServerOnce sync.Once
	repoServer     *RepoServer
	repoServerErr  error
)

// Shared returns the process's one RepoServer, started on first use; it
// lives as long as the test binary.
func Shared(tb testing.TB) *RepoServer {
	tb.Helper()
	bin := Binary(tb)
	repoServerOnce.Do(func() { repoServer, repoServerErr = start(bin) })
	if repoServerErr != nil {
		tb.Fatal(repoServerErr)
	}
	return repoServer
}

func start(bin string) (*RepoServer, error) {
	cmd := exec.Command(bin, "generate")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &RepoServer{enc: json.NewEncoder(stdin), pending: map[int64]chan wire{}}
	go s.read(stdout)
	return s, nil
}

// read dispatches answers to their callers until the process ends.
func (s *RepoServer) read(r io.Reader) {
	dec := json.NewDecoder(r)
	for {
		var a wire
		if err := dec.Decode(&a); err != nil {
			s.mu.Lock()
			s.dead = fmt.Errorf("argocdref generate ended: %w", err)
			for id, ch := range s.pending {
				close(ch)
				delete(s.pending, id)
			}
			s.mu.Unlock()
			return
		}
		s.mu.Lock()
		ch := s.pending[a.ID]
		delete(s.pending, a.ID)
		s.mu.Unlock()
		if ch != nil {
			ch <- a
		}
	}
}

// Generate runs GenerateManifests for q under ctx (its deadline is sent;
// its cancellation cancels the call).
func (s *RepoServer) Generate(ctx context.Context, q Request) (*Response, error) {
	ch := make(chan wire, 1)
	s.mu.Lock()
	if s.dead != nil {
		s.mu.Unlock()
		return nil, s.dead
	}
	s.next++
	id := s.next
	s.pending[id] = ch
	w := wire{ID: id, Request: &q}
	if d, ok := ctx.Deadline(); ok {
		w.DeadlineUnixNano = d.UnixNano()
	}
	err := s.enc.Encode(w)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	select {
	case a, ok := <-ch:
		return answer(a, ok, s)
	case <-ctx.Done():
		s.mu.Lock()
		_ = s.enc.Encode(wire{ID: id, Cancel: true})
		s.mu.Unlock()
		select {
		case a, ok := <-ch:
			return answer(a, ok, s)
		case <-time.After(time.Minute):
			return nil, errors.New("argocdref generate did not answer a cancelled call in a minute")
		}
	}
}

func answer(a wire, ok bool, s *RepoServer) (*Response, error) {
	if !ok {
		s.mu.Lock()
		defer s.mu.Unlock()
		return nil, s.dead
	}
	if a.Error != "" {
		return nil, errors.New(a.Error)
	}
	return &Response{Manifests: a.Manifests, SourceType: a.SourceType}, nil
}
