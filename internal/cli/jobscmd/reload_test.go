package jobscmd

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/codeloc/codeloc/internal/cli"
	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/reload"
)

// fakeWebserver answers the reload mutation as Dagster's webserver does
// (see reload's tests for the schema it follows): answers in order, the
// last one again, each a status and a body.
func fakeWebserver(t *testing.T, answers ...[2]string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := min(int(n.Add(1))-1, len(answers)-1)
		var body struct {
			Query     string            `json:"query"`
			Variables map[string]string `json:"variables"`
		}
		data, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.URL.Path != "/graphql" || r.Header.Get("Content-Type") != "application/json" ||
			json.Unmarshal(data, &body) != nil || !strings.Contains(body.Query, "reloadRepositoryLocation(repositoryLocationName: $repositoryLocationName)") ||
			body.Variables["repositoryLocationName"] != "citation" {
			t.Errorf("unexpected request %s %s %s: %s", r.Method, r.URL.Path, r.Header.Get("Content-Type"), data)
		}
		w.Header().Set("Content-Type", "application/json")
		status := http.StatusOK
		if answers[i][0] == "500" {
			status = http.StatusInternalServerError
		}
		w.WriteHeader(status)
		io.WriteString(w, answers[i][1])
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

const (
	reloadedBody = `{"data":{"reloadRepositoryLocation":{"__typename":"WorkspaceLocationEntry","name":"citation","loadStatus":"LOADED",` +
		`"locationOrLoadError":{"__typename":"RepositoryLocation","name":"citation","repositories":[{"name":"__repository__"}]}}}}`
	loadErrorBody = `{"data":{"reloadRepositoryLocation":{"__typename":"WorkspaceLocationEntry","name":"citation","loadStatus":"LOADED",` +
		`"locationOrLoadError":{"__typename":"PythonError","message":"dagster._core.errors.DagsterImportError: Encountered ImportError: ` +
		"`No module named 'citation'`" + ` while importing module citation.\nIf relative imports are failing, try setting --working-directory.\n","cause":null}}}}`
	unauthorizedBody = `{"data":{"reloadRepositoryLocation":{"__typename":"UnauthorizedError","message":"Authorization failed"}}}`
)

var durations = regexp.MustCompile(`, [0-9.hmsµn]+\)`)

func TestReloadCommand(t *testing.T) {
	tests := []struct {
		name    string
		answers [][2]string
		extra   []string
		code    int
		out     string // stdout, or stderr on failure; durations as D
		sent    int32
	}{{
		name:    "reloaded",
		answers: [][2]string{{"200", reloadedBody}},
		out:     "reload citation: ok (LOADED, 1 repository; 1 attempt, D)",
		sent:    1,
	}, {
		name:    "500 then reloaded",
		answers: [][2]string{{"500", "{\"data\":null,\"errors\":[{\"message\":\"boom\"}]}"}, {"200", reloadedBody}},
		out:     "reload citation: ok (LOADED, 1 repository; 2 attempts, D)",
		sent:    2,
	}, {
		name:    "the code server failed to load",
		answers: [][2]string{{"200", loadErrorBody}},
		extra:   []string{"--attempts", "2"},
		code:    cli.ExitInvalid,
		out:     "reload citation: FAILED (2 attempts, D): reload-load-error: Dagster could not load the code-location: dagster._core.errors.DagsterImportError: Encountered ImportError: `No module named 'citation'` while importing module citation. (see the code server's logs; the webserver shows the whole error)",
		sent:    2,
	}, {
		name:    "unauthorized: not retried",
		answers: [][2]string{{"200", unauthorizedBody}},
		code:    cli.ExitInvalid,
		out:     "reload citation: FAILED (1 attempt, D): reload-unauthorized: Authorization failed (the webserver must not run with --read-only, and must let this client reload locations)",
		sent:    1,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, sent := fakeWebserver(t, tt.answers...)
			tlog := filepath.Join(t.TempDir(), "termination-log")
			args := append([]string{"reload", "--webserver-url", srv.URL, "--location", "citation", "--termination-log", tlog}, tt.extra...)
			code, stdout, stderr := runCLI(t, args...)
			got, other := stdout, stderr
			if tt.code != 0 {
				got, other = stderr, stdout
			}
			if code != tt.code || other != "" || durations.ReplaceAllString(got, ", D)") != tt.out+"\n" {
				t.Errorf("exit %d, stdout %q, stderr %q;\nwant exit %d and the line %q", code, stdout, stderr, tt.code, tt.out)
			}
			if term := readFile(t, tlog); term != got {
				t.Errorf("termination message %q, want the line %q", term, got)
			}
			if n := sent.Load(); n != tt.sent {
				t.Errorf("%d requests, want %d", n, tt.sent)
			}
		})
	}
}

func TestReloadUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	tlog := filepath.Join(t.TempDir(), "termination-log")
	t.Setenv(names.EnvDagsterWebserverURL, "http://"+addr) // the URL from the environment
	code, stdout, stderr := runCLI(t, "reload", "--location", "citation", "--attempts", "1", "--termination-log", tlog)
	want := `reload citation: FAILED (1 attempt, D): reload-unreachable: Post "http://` + addr + `/graphql": dial tcp ` + addr + ": connect: connection refused"
	if code != cli.ExitInvalid || stdout != "" || !strings.HasPrefix(durations.ReplaceAllString(stderr, ", D)"), want) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and one line starting %q", code, stdout, stderr, want)
	}
	if readFile(t, tlog) != stderr {
		t.Errorf("termination message differs from the line")
	}
}

func TestReloadUsageErrors(t *testing.T) {
	t.Setenv(names.EnvDagsterWebserverURL, "")
	tests := []struct {
		name string
		args []string
		want string // stderr
	}{
		{"no location", []string{"--webserver-url", "http://dagster"}, "codeloc-jobs: required flag(s) \"location\" not set\n"},
		{"no URL", []string{"--location", "citation"}, "codeloc-jobs: --webserver-url is empty and $CODELOC_DAGSTER_WEBSERVER_URL is not set\n"},
		{"bad URL", []string{"--webserver-url", "dagster:80", "--location", "citation"},
			"codeloc-jobs: --webserver-url: \"dagster:80\" is not an http(s) URL of the Dagster webserver (for example http://dagster-dagster-webserver.dagster.svc:80)\n"},
		{"empty location", []string{"--webserver-url", "http://dagster", "--location", ""}, "codeloc-jobs: --location \"\" is not a location name\n"},
		{"bad attempts", []string{"--webserver-url", "http://dagster", "--location", "citation", "--attempts", "0"}, "codeloc-jobs: --attempts 0 is outside 1-100\n"},
		{"bad timeout", []string{"--webserver-url", "http://dagster", "--location", "citation", "--timeout", "0s"}, "codeloc-jobs: --timeout must be positive\n"},
		{"argument", []string{"--webserver-url", "http://dagster", "--location", "citation", "extra"}, "codeloc-jobs: unknown command \"extra\" for \"codeloc-jobs reload\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tlog := filepath.Join(t.TempDir(), "termination-log")
			var stdout, stderr bytes.Buffer
			code := run(append(append([]string{"reload"}, tt.args...), "--termination-log", tlog), &stdout, &stderr)
			if code != cli.ExitUsage || stdout.String() != "" || stderr.String() != tt.want {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, stderr %q", code, stdout.String(), stderr.String(), tt.want)
			}
		})
	}
}

// TestReloadDefaults: the command's defaults are the package's.
func TestReloadDefaults(t *testing.T) {
	fl := newReloadCmd().Flags()
	if a, _ := fl.GetInt("attempts"); a != reload.DefaultAttempts {
		t.Errorf("--attempts default %d, want %d", a, reload.DefaultAttempts)
	}
	if d, _ := fl.GetDuration("request-timeout"); d != reload.DefaultRequestTimeout {
		t.Errorf("--request-timeout default %s, want %s", d, reload.DefaultRequestTimeout)
	}
}
