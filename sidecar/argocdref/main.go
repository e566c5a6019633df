// Command argocdref runs Argo CD's own code where codeloc-sidecar's tests
// need it, in a process of its own: its module pins Argo CD v2.14 and the
// Kubernetes libraries of that release, which codeloc's module has left.
//
//	argocdref generate   JSON requests on stdin, one a line; for each, Argo CD's
//	                     repo-server function GenerateManifests (it finds the
//	                     plugin socket, tars the repo, streams it, reads the
//	                     answer) and one JSON answer a line on stdout.
//	argocdref stock DIR  Argo CD's stock cmp-server for DIR/plugin.yaml, on
//	                     ARGOCD_PLUGINSOCKFILEPATH; prints the socket, serves
//	                     until stdin closes.
//	argocdref application
//	                     a YAML stream of Applications on stdin, each decoded
//	                     strictly into Argo CD's Application type; prints them
//	                     as one JSON array, or fails on the first error.
//	argocdref splityaml  a YAML stream on stdin through gitops-engine's
//	                     SplitYAMLToString (what the stock cmp-server does with
//	                     a command's output); prints the JSON array.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/argoproj/argo-cd/v2/cmpserver"
	argoplugin "github.com/argoproj/argo-cd/v2/cmpserver/plugin"
	"github.com/argoproj/argo-cd/v2/pkg/apis/application/v1alpha1"
	repoapiclient "github.com/argoproj/argo-cd/v2/reposerver/apiclient"
	"github.com/argoproj/argo-cd/v2/reposerver/repository"
	"github.com/argoproj/argo-cd/v2/util/git"
	"github.com/argoproj/gitops-engine/pkg/utils/kube"
	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/api/resource"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

func main() {
	logrus.SetOutput(io.Discard) // Argo CD's code logs every request and failure
	if len(os.Args) < 2 {
		fail(fmt.Errorf("usage: argocdref generate | stock DIR [--no-discover]"))
	}
	var err error
	switch os.Args[1] {
	case "generate":
		err = serveGenerate(os.Stdin, os.Stdout)
	case "application":
		err = decodeApplications(os.Stdin, os.Stdout)
	case "splityaml":
		err = splitYAML(os.Stdin, os.Stdout)
	case "stock":
		if len(os.Args) < 3 {
			fail(fmt.Errorf("usage: argocdref stock DIR [--no-discover]"))
		}
		err = serveStock(os.Args[2], len(os.Args) > 3 && os.Args[3] == "--no-discover")
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "argocdref:", err)
	os.Exit(2)
}

// request is one GenerateManifests call; Cancel alone cancels call ID.
type request struct {
	ID           int64                                      `json:"id"`
	SockDir      string                                     `json:"sockDir"`
	Cancel       bool                                       `json:"cancel,omitempty"`
	DeadlineUnix int64                                      `json:"deadlineUnixNano,omitempty"`
	Repo         string                                     `json:"repo"`
	AppPath      string                                     `json:"appPath"`
	Path         string                                     `json:"path"`
	AppName      string                                     `json:"appName"`
	Namespace    string                                     `json:"namespace"`
	Plugin       string                                     `json:"plugin"`
	Params       v1alpha1.ApplicationSourcePluginParameters `json:"params,omitempty"`
	Env          v1alpha1.Env                               `json:"env,omitempty"`
	APIVersions  []string                                   `json:"apiVersions"`
	KubeVersion  string                                     `json:"kubeVersion"`
	GeneratePath bool                                       `json:"generatePath"`
	RepoURL      string                                     `json:"repoURL"`
	AppLabelKey  string                                     `json:"appLabelKey"`
}

// answer is a call's outcome.
type answer struct {
	ID         int64    `json:"id"`
	Manifests  []string `json:"manifests,omitempty"`
	SourceType string   `json:"sourceType,omitempty"`
	Error      string   `json:"error,omitempty"`
}

func serveGenerate(in io.Reader, out io.Writer) error {
	var mu sync.Mutex
	enc := json.NewEncoder(out)
	cancels := map[int64]context.CancelFunc{}
	var wg sync.WaitGroup
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var q request
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return err
		}
		mu.Lock()
		if q.Cancel {
			if c := cancels[q.ID]; c != nil {
				c()
			}
			mu.Unlock()
			continue
		}
		ctx, cancel := context.WithCancel(context.Background())
		if q.DeadlineUnix != 0 {
			ctx, cancel = context.WithDeadline(context.Background(), time.Unix(0, q.DeadlineUnix))
		}
		cancels[q.ID] = cancel
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			release := sockets.use(q.SockDir)
			a := generate(ctx, q)
			release()
			mu.Lock()
			defer mu.Unlock()
			cancel()
			delete(cancels, q.ID)
			_ = enc.Encode(a)
		}()
	}
	wg.Wait()
	return sc.Err()
}

func generate(ctx context.Context, q request) answer {
	mq := &repoapiclient.ManifestRequest{
		Repo:        &v1alpha1.Repository{Repo: q.RepoURL},
		Revision:    "main",
		AppLabelKey: q.AppLabelKey,
		AppName:     q.AppName,
		Namespace:   q.Namespace,
		ApplicationSource: &v1alpha1.ApplicationSource{
			RepoURL:        q.RepoURL,
			Path:           q.Path,
			TargetRevision: "main",
			Plugin:         &v1alpha1.ApplicationSourcePlugin{Name: q.Plugin, Env: q.Env, Parameters: q.Params},
		},
		KubeVersion: q.KubeVersion,
		ApiVersions: q.APIVersions,
	}
	var opts []repository.GenerateManifestOpt
	if q.GeneratePath {
		mq.AnnotationManifestGeneratePaths = "."
		opts = append(opts, repository.WithCMPUseManifestGeneratePaths(true))
	}
	res, err := repository.GenerateManifests(ctx, q.AppPath, q.Repo, "0123456789abcdef0123456789abcdef01234567", mq, false,
		&git.NoopCredsStore{}, resource.MustParse("0"), nil, opts...)
	if err != nil {
		return answer{ID: q.ID, Error: err.Error()}
	}
	return answer{ID: q.ID, Manifests: res.Manifests, SourceType: res.SourceType}
}

// serveStock runs Argo CD's cmp-server for dir/plugin.yaml until stdin
// closes; without discovery when noDiscover.
func serveStock(dir string, noDiscover bool) error {
	cfg, err := argoplugin.ReadPluginConfig(dir)
	if err != nil {
		return err
	}
	if noDiscover {
		cfg.Spec.Discover = argoplugin.Discover{}
	}
	srv, err := cmpserver.NewServer(argoplugin.CMPServerInitConstants{PluginConfig: *cfg})
	if err != nil {
		return err
	}
	g, err := srv.CreateGRPC()
	if err != nil {
		return err
	}
	socket := cfg.Address()
	lis, err := net.Listen("unix", socket)
	if err != nil {
		return err
	}
	go func() { _ = g.Serve(lis) }()
	fmt.Println(socket)
	_, _ = io.Copy(io.Discard, os.Stdin)
	g.Stop()
	return nil
}

// decodeApplications decodes each YAML document of in strictly into
// Argo CD's Application and writes them to out as a JSON array.
func decodeApplications(in io.Reader, out io.Writer) error {
	r := utilyaml.NewYAMLReader(bufio.NewReader(in))
	apps := []v1alpha1.Application{}
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if strings.TrimSpace(string(doc)) == "" {
			continue
		}
		var app v1alpha1.Application
		if err := yaml.UnmarshalStrict(doc, &app); err != nil {
			return fmt.Errorf("document %d: %w", len(apps)+1, err)
		}
		apps = append(apps, app)
	}
	return json.NewEncoder(out).Encode(apps)
}

// socketDirs lets calls share the process's ARGOCD_PLUGINSOCKFILEPATH,
// which GenerateManifests reads: a call with another folder waits until
// the calls using the current one have ended.
type socketDirs struct {
	mu     sync.Mutex
	cond   *sync.Cond
	dir    string
	active int
}

var sockets = func() *socketDirs { s := &socketDirs{}; s.cond = sync.NewCond(&s.mu); return s }()

func (s *socketDirs) use(dir string) (release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.active > 0 && s.dir != dir {
		s.cond.Wait()
	}
	if s.dir != dir {
		s.dir = dir
		os.Setenv("ARGOCD_PLUGINSOCKFILEPATH", dir)
	}
	s.active++
	return func() {
		s.mu.Lock()
		s.active--
		s.cond.Broadcast()
		s.mu.Unlock()
	}
}

// splitYAML writes gitops-engine's SplitYAMLToString of in as JSON.
func splitYAML(in io.Reader, out io.Writer) error {
	data, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	docs, err := kube.SplitYAMLToString(data)
	if err != nil {
		return err
	}
	return json.NewEncoder(out).Encode(docs)
}
