package dagster

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/third_party/forked/golang/expansion"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/internal/pyref"
)

// TestCLITablesAreDagsters holds cliCommands to the click commands of the
// Dagster .ci/dagster.sh installs (testdata/dagster_cli.py tables): every
// option, its spellings, flag or value, envvar and type, and the auto
// envvar prefix.
func TestCLITablesAreDagsters(t *testing.T) {
	python := pyref.Python(t)
	out, err := exec.Command(python, filepath.Join("testdata", "dagster_cli.py"), "tables").Output()
	if err != nil {
		t.Fatalf("dagster_cli.py tables: %v", err)
	}
	type opt struct {
		Param string   `json:"param"`
		Opts  []string `json:"opts"`
		Flag  bool     `json:"flag"`
		Env   string   `json:"env"`
		Kind  string   `json:"kind"`
	}
	type command struct {
		Name    string `json:"name"`
		AutoEnv string `json:"autoEnv"`
		Options []opt  `json:"options"`
	}
	var want []command
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	var got []command
	for _, c := range cliCommands {
		g := command{Name: c.name, AutoEnv: c.autoEnv()}
		for _, o := range c.options {
			g.Options = append(g.Options, opt{o.param, o.opts, o.flag, o.env, o.kind})
		}
		got = append(got, g)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("cliCommands differ from Dagster's click commands (-Dagster +codeloc):\n%s", d)
	}
}

// cliCase is a container whose command line the kubelet, a real shell and
// Dagster's click read.
type cliCase struct {
	name, container string
}

var cliCases = []cliCase{
	{"exec form", `{command: [dagster, api, grpc, -h, 0.0.0.0, -p, "3030"]}`},
	{"split between command and args", `{command: [dagster], args: [api, grpc, --port=3030, --host, 0.0.0.0]}`},
	{"repeated: the last wins", `{command: [dagster, api, grpc, -p, "3030", -h, 0.0.0.0, --location-name, a, -p, "4040", --location-name, b]}`},
	{"port only in the auto env name", `{command: [dagster, code-server, start, -h, 0.0.0.0], env: [{name: DAGSTER_CLI_CODE_SERVER_START_PORT, value: "4000"}]}`},
	{"own env name before the auto one", `{command: [dagster, code-server, start], env: [{name: DAGSTER_CLI_CODE_SERVER_START_PORT, value: "2"}, {name: DAGSTER_CODE_SERVER_PORT, value: "1"}, {name: DAGSTER_CLI_CODE_SERVER_START_HOST, value: 0.0.0.0}]}`},
	{"empty own env: the auto one", `{command: [dagster, api, grpc], env: [{name: DAGSTER_GRPC_PORT, value: ""}, {name: DAGSTER_CLI_API_GRPC_PORT, value: "7"}]}`},
	{"api grpc does not read code-server's names", `{command: [dagster, api, grpc, -p, "1"], env: [{name: DAGSTER_CODE_SERVER_HOST, value: 0.0.0.0}, {name: DAGSTER_CLI_CODE_SERVER_START_CONTAINER_CONTEXT, value: "{}"}]}`},
	{"context by auto name of code-server start", `{command: [dagster, code-server, start, -p, "1"], env: [{name: DAGSTER_CLI_CODE_SERVER_START_CONTAINER_CONTEXT, value: '{"k8s": {"namespace": "x"}}'}]}`},
	{"sh -c exec", `{command: [sh, -c, "exec dagster api grpc -h 0.0.0.0 -p 3030 --container-context '{\"k8s\": {}}'"]}`},
	{"sh -c with variables", `{command: [sh, -c, 'dagster api grpc -p $PORT -h "$HOST" --location-name ${NAME}'], env: [{name: PORT, value: "3030"}, {name: HOST, value: 0.0.0.0}, {name: NAME, value: a b}]}`},
	{"sh -c export before", `{command: [sh, -c, 'export DAGSTER_GRPC_PORT=5000; dagster api grpc -h 0.0.0.0']}`},
	{"sh -c prefix assignment", `{command: [/bin/sh, -c, 'DAGSTER_CONTAINER_CONTEXT="{}" dagster code-server start -p 1 -h 0.0.0.0']}`},
	{"prefix assignment is not seen by the same line's expansions", `{command: [sh, -c, 'P=9 dagster api grpc -p "$P" -h 0.0.0.0'], env: [{name: P, value: "8"}]}`},
	{"sh -c unset", `{command: [sh, -c, 'unset DAGSTER_GRPC_PORT; dagster api grpc -h 0.0.0.0'], env: [{name: DAGSTER_GRPC_PORT, value: "1"}]}`},
	{"bash -ec, cd and &&", `{command: [bash, -ec, "cd /tmp && dagster api grpc -h 0.0.0.0 -p 3030 2>&1 | cat"]}`},
	{"quotes and escapes", `{command: [sh, -c, "dagster api grpc --location-name \"a \\\"b\\\" c\" -p 1 -h 'x y'"]}`},
	{"line continuation and comment", "{command: [sh, -c, \"# serve\\ndagster api grpc \\\\\\n  -p 1 \\\\\\n  -h 0.0.0.0\"]}"},
	{"env wrapper", `{command: [env, DAGSTER_GRPC_HOST=0.0.0.0, dagster, api, grpc, -p, "3030"]}`},
	{"env -u", `{command: [env, -u, DAGSTER_GRPC_PORT, dagster, api, grpc, -h, 0.0.0.0], env: [{name: DAGSTER_GRPC_PORT, value: "1"}, {name: DAGSTER_CLI_API_GRPC_PORT, value: "2"}]}`},
	{"kubelet expansion", `{command: [dagster, api, grpc, -p, "$(P)", --location-name, "$$(P)", -h, "$(H)"], env: [{name: P, value: "3030"}, {name: H, value: "$(X)"}, {name: X, value: 0.0.0.0}]}`},
	{"kubelet expansion of a later variable in env", `{command: [dagster, api, grpc, -p, "1", -h, "$(H)"], env: [{name: H, value: "$(X)"}, {name: X, value: 0.0.0.0}]}`},
	{"kubelet expansion of an env value", `{command: [dagster, api, grpc, -p, "1"], env: [{name: X, value: 0.0.0.0}, {name: DAGSTER_GRPC_HOST, value: "$(X)"}]}`},
	{"short options glued", `{command: [dagster, api, grpc, -p3030, -h0.0.0.0, -n4]}`},
	{"short option with =", `{command: [dagster, api, grpc, -p=3030, -h, 0.0.0.0]}`},
	{"a short option's value is the next word", `{command: [dagster, api, grpc, -hp, "3030"]}`},
	{"unknown option", `{command: [dagster, api, grpc, --portt, "1"]}`},
	{"no abbreviation", `{command: [dagster, api, grpc, --po, "1"]}`},
	{"extra argument", `{command: [dagster, api, grpc, -p, "1", serve]}`},
	{"double dash", `{command: [dagster, api, grpc, -p, "1", --, -h]}`},
	{"help", `{command: [dagster, code-server, start, -p, "1", --help]}`},
	{"flag with a value", `{command: [dagster, api, grpc, --heartbeat=1]}`},
	{"flag env not a boolean", `{command: [dagster, api, grpc, -p, "1"], env: [{name: DAGSTER_LAZY_LOAD_USER_CODE, value: maybe}]}`},
	{"flag env a boolean", `{command: [dagster, api, grpc, -p, "1"], env: [{name: DAGSTER_LAZY_LOAD_USER_CODE, value: " Yes"}]}`},
	{"choice in capitals", `{command: [dagster, api, grpc, -p, "1", --log-level, DEBUG]}`},
	{"not a choice", `{command: [dagster, api, grpc, -p, "1", --log-level, verbose]}`},
	{"python's int", `{command: [dagster, api, grpc, -p, "3_030", -n, " +2 "]}`},
	{"not python's int", `{command: [dagster, api, grpc, -p, "3__030"]}`},
	{"port from env not an int", `{command: [dagster, api, grpc], env: [{name: DAGSTER_GRPC_PORT, value: "80a"}]}`},
	{"underscore alias", `{command: [dagster, api, grpc, --max_workers, "2", -p, "1"]}`},
	{"value that looks like an option", `{command: [dagster, api, grpc, --location-name, -p, -p, "1"]}`},
	{"missing value", `{command: [dagster, api, grpc, -p]}`},
	{"image twice", `{command: [dagster, api, grpc, --container-image=a:1, --container-image, "b:2"]}`},
	{"image from env", `{command: [dagster, code-server, start], env: [{name: DAGSTER_CLI_CODE_SERVER_START_CONTAINER_IMAGE, value: "c:3"}, {name: DAGSTER_CURRENT_IMAGE, value: "d:4"}]}`},
	{"unset variable expands to nothing", `{command: [sh, -c, 'dagster api grpc $NOPE -p 1']}`},
	{"split unquoted value", `{command: [sh, -c, 'dagster api grpc $OPTS'], env: [{name: OPTS, value: " -p 3030  -h 0.0.0.0 "}]}`},
	{"semicolon and two commands", `{command: [sh, -c, "echo start; dagster code-server start -p 5 -h 0.0.0.0"]}`},
}

// cliResult is what a code server's command line resolves to.
type cliResult struct {
	Command string            `json:"command,omitempty"`
	Params  map[string]string `json:"params,omitempty"`
	Refused bool              `json:"refused,omitempty"`
}

// TestCommandLinesAsDagster runs each case as the cluster would: the
// kubelet's expansion (Kubernetes' own expansion package), the command
// run for real (a real sh or bash for shell lines) with Dagster's own CLI
// installed as `dagster` (testdata/dagster_cli.py), and compares what
// click resolves — or refuses — with codeloc's reading of the same
// container (invocations).
func TestCommandLinesAsDagster(t *testing.T) {
	bin := fakeDagster(t)
	for _, c := range cliCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // a Dagster import each: about 0.8 s
			var ct corev1.Container
			if err := sigsyaml.UnmarshalStrict([]byte(c.container), &ct); err != nil {
				t.Fatal(err)
			}
			compareWithDagster(t, &ct, bin)
		})
	}
}

// fakeDagster is a folder holding `dagster`: Dagster's own CLI parsing
// its argv and environment (testdata/dagster_cli.py), not running.
func fakeDagster(t *testing.T) string {
	t.Helper()
	python := pyref.Python(t)
	bin := t.TempDir()
	script, err := filepath.Abs(filepath.Join("testdata", "dagster_cli.py"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "dagster"), []byte("#!/bin/sh\nexec "+python+" "+script+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// compareWithDagster runs ct as the kubelet would and compares what
// Dagster's click resolves with codeloc's reading of ct; it returns
// click's results.
func compareWithDagster(t *testing.T, ct *corev1.Container, bin string) []cliResult {
	t.Helper()
	want := runAsKubelet(t, ct, bin)
	var got []cliResult
	for _, inv := range invocations(ct, "c", nil) {
		got = append(got, codelocResult(inv))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("codeloc reads the command line unlike the kubelet, the shell and Dagster's click (-Dagster +codeloc):\n%s\ncommand %q args %q env %v", d, ct.Command, ct.Args, ct.Env)
	}
	return want
}

// codelocResult is an invocation as cliResult: click's params are the
// effective values; a refusal hides them.
func codelocResult(inv invocation) cliResult {
	r := cliResult{Command: inv.cmd.name}
	if inv.parse.refused != "" || inv.parse.unreadable != "" || len(inv.parse.given[paramHelp]) > 0 {
		return cliResult{Refused: true}
	}
	r.Params = map[string]string{}
	for _, p := range []string{paramPort, paramSocket, paramHost, paramLocation, paramContext, paramImage} {
		if o := inv.value(p); o.field != "" {
			r.Params[p] = o.value
			if p == paramPort {
				n, _ := pythonInt(o.value)
				r.Params[p] = fmt.Sprint(n)
			}
		} else if p == paramHost {
			r.Params[p] = "localhost" // click's default, which serverSettings names
		}
	}
	return r
}

// runAsKubelet builds the container's environment and argv as the kubelet
// does (literal values only) and runs it with the fake dagster first on
// PATH: one result per `dagster` run.
func runAsKubelet(t *testing.T, ct *corev1.Container, bin string) []cliResult {
	t.Helper()
	vars := map[string]string{}
	var env []string
	for _, e := range ct.Env {
		v := expansion.Expand(e.Value, expansion.MappingFuncFor(vars))
		vars[e.Name] = v
	}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	mapping := expansion.MappingFuncFor(vars)
	var argv []string
	for _, a := range append(append([]string{}, ct.Command...), ct.Args...) {
		argv = append(argv, expansion.Expand(a, mapping))
	}
	out := filepath.Join(t.TempDir(), "out.jsonl")
	prog := argv[0]
	if prog == "dagster" {
		prog = filepath.Join(bin, "dagster")
	} else if p, err := exec.LookPath(prog); err == nil {
		prog = p
	}
	cmd := exec.Command(prog, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Env = append(env, "PATH="+bin+":/usr/bin:/bin", "CODELOC_CLIREF_OUT="+out)
	cmd.Dir = t.TempDir()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Logf("%v: %v\n%s", argv, err, b)
	}
	f, err := os.Open(out)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var results []cliResult
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var a struct {
			Command string             `json:"command"`
			Params  map[string]*string `json:"params"`
			Error   string             `json:"error"`
			Exit    *int               `json:"exit"`
		}
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		if a.Error != "" || a.Exit != nil {
			t.Logf("click: %s", a.Error)
			results = append(results, cliResult{Refused: true})
			continue
		}
		r := cliResult{Command: a.Command, Params: map[string]string{}}
		for k, v := range a.Params {
			if v != nil {
				r.Params[k] = *v
			}
		}
		results = append(results, r)
	}
	return results
}
