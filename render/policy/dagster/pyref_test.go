package dagster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/pyref"
	"github.com/codeloc/codeloc/render/policy"
	"github.com/codeloc/codeloc/render/policy/policytest"
)

// TestDagsterReadsContextsAsCodeloc runs Dagster's own reading of a
// container context (testdata/dagster_context.py: json.loads as `dagster
// api grpc` does, K8sContainerContext.create_from_config, then
// construct_dagster_k8s_job, the run's Job) on every container context of
// the fixtures, the render goldens, the fuzz seeds and corpus and the
// cases below, and compares it with codeloc's reading (parseContext,
// contextDecoder, runPod):
//
//   - what each accepts: a context Dagster refuses must be refused by
//     codeloc; one codeloc refuses and Dagster accepts must be an entry of
//     contextStricter, which says why codeloc is stricter;
//   - what a run pod gets from an accepted one: every Secret, ConfigMap,
//     ServiceAccount, image pull secret, scheduler and valueFrom env var of
//     Dagster's Job is one codeloc checks; its volumes, the volume mounts,
//     env names, labels, namespace, and the main container's resources and
//     securityContext are the same.
//
// Dagster is the virtualenv of .ci/dagster.sh (CODELOC_DAGSTER_VENV): the
// test skips without it, and fails without it under CI=true.
func TestDagsterReadsContextsAsCodeloc(t *testing.T) {
	python := pyref.Python(t)
	cases := contextCorpus(t)
	reqs := make([]pyref.Request, len(cases))
	for i, c := range cases {
		reqs[i] = pyref.Request{ID: c.id, Text: c.text}
	}
	start := time.Now()
	answers := pyref.Run[pyContextAnswer](t, python, filepath.Join("testdata", "dagster_context.py"), reqs)
	t.Logf("Dagster read %d container contexts in %s", len(cases), time.Since(start).Round(time.Millisecond))

	// codeloc's verdict is the container context rule's, as the fuzz test
	// runs it: citation's declaration, a Pod that sets the context.
	d, ct := contextFuzzInstance(t)
	loc := policytest.Locator("root")
	var agreeOK, agreeRefused, stricter, compared int
	reasons := map[string]int{}
	for i, c := range cases {
		a := answers[i]
		if a.ID != c.id {
			t.Fatalf("answer %d is for %q, not %q", i, a.ID, c.id)
		}
		in := policy.NewContext(d, ct, loc)
		var faults []contextFault
		for _, f := range (contextChecker{in, in.Binding(contextFuzzObjects(t, c.text))}).checkContext(c.text) {
			faults = append(faults, contextFault{f.Code, f.Path, f.Msg})
		}
		switch {
		case !a.OK && len(faults) == 0:
			t.Errorf("%s: Dagster refuses the context, codeloc accepts it\n  Dagster: %s\n  context: %s", c.id, pyref.Short(a.Error), pyref.Short(c.text))
		case !a.OK:
			agreeRefused++
		case len(faults) > 0:
			var unexplained []string
			for _, f := range faults {
				if why := stricterWhy(f); why == "" {
					unexplained = append(unexplained, f.Code+" "+f.Path+": "+f.Msg)
				} else {
					reasons[f.Code+": "+pyref.Short(why)[:60]]++
				}
			}
			if len(unexplained) > 0 {
				t.Errorf("%s: codeloc refuses a context Dagster accepts, not for a reason of contextStricter:\n  %s\n  context: %s", c.id, strings.Join(unexplained, "\n  "), pyref.Short(c.text))
				continue
			}
			stricter++
		default:
			agreeOK++
		}
		// The effective values of every context both read (the decoder
		// found no fault; the rule's own may hold it to the declaration).
		if m, fault := parseContext(c.text); a.OK && fault == nil {
			dec := &contextDecoder{}
			k := dec.decodeContext(m)
			if len(dec.faults) > 0 {
				continue
			}
			compared++
			for _, d := range compareEffective(c.text, k, a.Run) {
				t.Errorf("%s: %s\n  context: %s", c.id, d, pyref.Short(c.text))
			}
		}
	}
	t.Logf("%d contexts: %d accepted by both, %d refused by both, %d refused by codeloc only (contextStricter); effective values compared on %d", len(cases), agreeOK, agreeRefused, stricter, compared)
	for _, r := range slices.Sorted(maps.Keys(reasons)) {
		t.Logf("  codeloc stricter, %d× %s", reasons[r], r)
	}
}

// contextStricter are the refusals of codeloc's decoder that Dagster does
// not share, each with why codeloc refuses: a fault of a context Dagster
// accepts must match one (its code, and its path by the regexp).
var contextStricter = []struct {
	code, path, why string
}{
	{CodeContextField, `^k8s(\.run_k8s_config\.pod_template_spec_metadata)?\.labels\.`,
		"labels under dagster/ and codeloc.dev/ are how Dagster and admission tell whose a run pod is; a context that sets them could pass for another code-location"},
	{CodeContextField, `^k8s\.run_k8s_config\.(job_config\.spec|job_spec_config\.(template|parallelism|completions|selector|manual_selector|manualSelector))$`,
		"the Job's pod template and pod count: Dagster merges them under its own template (one pod per run), so what a context writes there either vanishes or multiplies run pods codeloc never sees; codeloc refuses it rather than guess which"},
	{CodeContextUnreadable, `.`,
		"{\"env\": NAME} and env_vars' KEY (without =VALUE) are read from the run launcher's environment when the run launches: the platform's values, which codeloc cannot know nor hold to the declaration (Dagster refuses them too when the launcher has no such variable, as in this test)"},
	{CodeContextInvalid, `^$`,
		"a context that is not a JSON object: Dagster takes a falsy one (0, false, null, \"\", []) for no context at all (create_from_config's `or {}`), codeloc for the mistake it is"},
	{CodeContextInvalid, `^(docker|ecs)$`,
		"a docker or ecs part is read by other run launchers only; the platform's is Kubernetes, so such a part is dead configuration that hides a mistake"},
	{CodeContextInvalid, `^k8s\.server_replica_count$`,
		"Dagster+ agents' code server replicas (dagster_k8s 0.29): the platform's code servers are codeloc's Deployments, whose replicas the manifest says; the key configures nothing here"},
	{CodeContextInvalid, `^k8s\.server_k8s_config\.service_spec_config$`,
		"Dagster+ agents' code server Service: the platform's code servers' Services are the manifest's own, which codeloc checks; the key configures nothing here"},
	{CodeContextInvalid, `.`,
		"a value of the wrong JSON type inside a Kubernetes object (a number for a string, a string for a boolean...): Dagster's Kubernetes client converts it with Python's str()/bool()/int() (\"false\" becomes True), codeloc reads the object as the API server would and refuses it"},
}

// stricterWhy is the reason of contextStricter for f, "" when none. The
// codes that are not the container context's own are codeloc's rules for
// every pod (what it consumes, Pod Security, images, requests, reach),
// which hold a run pod to the code-location's declaration: Dagster has no
// declaration to hold it to.
func stricterWhy(f contextFault) string {
	if !strings.HasPrefix(f.Code, "container-context-") {
		return "the run pods are held to the code-location's declaration and the contract, as its own pods are (" + f.Code + "); Dagster knows neither"
	}
	if f.Code == CodeContextNamespace {
		return "run pods run in the contract's namespace, where the declared objects are; Dagster launches in any"
	}
	for _, s := range contextStricter {
		if s.code == f.Code && regexp.MustCompile(s.path).MatchString(f.Path) {
			if s.code == CodeContextInvalid && s.path == "." && !strings.Contains(f.Msg, "does not decode") {
				continue // the type-conversion entry covers decoding errors only
			}
			return s.why
		}
	}
	return ""
}

type contextFault struct{ Code, Path, Msg string }

// pyEffective is what Dagster's Job gives the run pod from a context
// (testdata/dagster_context.py, effective).
type pyEffective struct {
	ServiceAccount  string            `json:"service_account"`
	PullSecrets     []string          `json:"pull_secrets"`
	EnvSecrets      []string          `json:"env_secrets"`
	EnvConfigMaps   []string          `json:"env_config_maps"`
	Env             []string          `json:"env"`
	EnvNames        []string          `json:"env_names"`
	Volumes         []string          `json:"volumes"`
	VolumeMounts    []string          `json:"volume_mounts"`
	Resources       json.RawMessage   `json:"resources"`
	SecurityContext json.RawMessage   `json:"security_context"`
	Labels          map[string]string `json:"labels"`
	SchedulerName   string            `json:"scheduler_name"`
	Namespace       string            `json:"namespace"`
}

type pyContextAnswer struct {
	ID    string       `json:"id"`
	OK    bool         `json:"ok"`
	Error string       `json:"error"`
	Run   *pyEffective `json:"run"`
}

// compareEffective lists how codeloc's reading of an accepted context
// differs from the run pod Dagster builds from it.
func compareEffective(text string, k *k8sContext, py *pyEffective) []string {
	if k == nil {
		k = &k8sContext{} // no k8s part: the run pod gets nothing of the context's but env_vars
	}
	var diffs []string
	// Names the run pod reads: each one Dagster puts in the pod is one
	// codeloc holds to the declaration. codeloc checks every name the
	// context writes, also one a later key overrides (run_k8s_config's
	// service_account_name over the top-level one).
	var run, server corev1.Container
	var runPod, serverPod corev1.PodSpec
	if k.run.container != nil {
		run = *k.run.container
	}
	if k.server.container != nil {
		server = *k.server.container
	}
	if k.run.pod != nil {
		runPod = *k.run.pod
	}
	if k.server.pod != nil {
		serverPod = *k.server.pod
	}
	checked := map[string][]string{
		"ServiceAccount":    {k.serviceAccount, runPod.ServiceAccountName, runPod.DeprecatedServiceAccount},
		"image pull secret": slices.Concat(k.pullSecrets, refNames(runPod.ImagePullSecrets)),
		"env Secret":        slices.Concat(k.envSecrets, envFromNames(run.EnvFrom, true)),
		"env ConfigMap":     slices.Concat(k.envConfigMaps, envFromNames(run.EnvFrom, false)),
		"scheduler":         {k.schedulerName, runPod.SchedulerName},
	}
	_ = server
	_ = serverPod
	gotNames := map[string][]string{
		"ServiceAccount":    {py.ServiceAccount},
		"image pull secret": py.PullSecrets,
		"env Secret":        py.EnvSecrets,
		"env ConfigMap":     py.EnvConfigMaps,
		"scheduler":         {py.SchedulerName},
	}
	for _, what := range slices.Sorted(maps.Keys(gotNames)) {
		for _, n := range gotNames[what] {
			if n != "" && !slices.Contains(checked[what], n) {
				diffs = append(diffs, fmt.Sprintf("Dagster's run pod reads %s %q, which codeloc does not see in the context", what, n))
			}
		}
	}
	// valueFrom env vars: each of Dagster's is one codeloc reads.
	goEnv := map[string]bool{}
	for _, e := range slices.Concat(k.env, run.Env) {
		if e.ValueFrom != nil {
			goEnv[canonical(e)] = true
		}
	}
	for _, s := range py.Env {
		var e corev1.EnvVar
		if err := json.Unmarshal([]byte(s), &e); err != nil || !goEnv[canonical(e)] {
			diffs = append(diffs, fmt.Sprintf("Dagster's run pod has env var %s, which codeloc does not read from the context", s))
		}
	}
	// What codeloc's run pod (runPod) holds to Pod Security, the requests
	// and the volume rules: the same as Dagster's.
	pod := k.runPod(k.run)
	main := pod.Containers[0]
	var pyRes corev1.ResourceRequirements
	if err := json.Unmarshal(py.Resources, &pyRes); err != nil {
		diffs = append(diffs, "Dagster's resources do not decode: "+err.Error())
	} else if !equality.Semantic.DeepEqual(nilEmpty(pyRes), nilEmpty(main.Resources)) {
		diffs = append(diffs, fmt.Sprintf("resources: Dagster's run container has %s, codeloc checks %s", canonical(pyRes), canonical(main.Resources)))
	}
	var pySC corev1.SecurityContext
	goSC := corev1.SecurityContext{}
	if k.securityContext != nil || (k.run.container != nil && k.run.container.SecurityContext != nil) {
		goSC = *main.SecurityContext
	}
	if err := json.Unmarshal(py.SecurityContext, &pySC); err != nil {
		diffs = append(diffs, "Dagster's securityContext does not decode: "+err.Error())
	} else if !equality.Semantic.DeepEqual(pySC, goSC) {
		diffs = append(diffs, fmt.Sprintf("securityContext: Dagster's run container has %s, codeloc checks %s", canonical(pySC), canonical(goSC)))
	}
	if got, want := canonicalSet[corev1.Volume](pod.Volumes), canonicalJSONSet[corev1.Volume](py.Volumes); !slices.Equal(got, want) {
		diffs = append(diffs, fmt.Sprintf("volumes: Dagster's run pod has %v, codeloc checks %v", want, got))
	}
	if got, want := canonicalSet[corev1.VolumeMount](goVolumeMounts(text, run)), canonicalJSONSet[corev1.VolumeMount](py.VolumeMounts); !slices.Equal(got, want) {
		diffs = append(diffs, fmt.Sprintf("volume mounts: Dagster's run container has %v, codeloc reads %v", want, got))
	}
	if got, want := goEnvNames(text, k, run), py.EnvNames; !slices.Equal(got, want) {
		diffs = append(diffs, fmt.Sprintf("env names: Dagster's run container has %v, codeloc reads %v", want, got))
	}
	labels := map[string]string{}
	for _, m := range []map[string]string{k.labels, k.run.labels} {
		for l, v := range m {
			labels[l] = v
		}
	}
	if py.Labels == nil {
		py.Labels = map[string]string{}
	}
	if canonical(labels) != canonical(py.Labels) {
		diffs = append(diffs, fmt.Sprintf("labels: Dagster's run Job and pod have %s, codeloc reads %s", canonical(py.Labels), canonical(labels)))
	}
	if k.namespace != py.Namespace {
		diffs = append(diffs, fmt.Sprintf("namespace: Dagster launches in %q, codeloc reads %q", py.Namespace, k.namespace))
	}
	return diffs
}

// goVolumeMounts are the volume mounts codeloc reads: the top-level
// volume_mounts, decoded as decodeK8s decodes them, and the run
// container's.
func goVolumeMounts(text string, run corev1.Container) []corev1.VolumeMount {
	m, _ := parseContext(text)
	k8s, _ := m["k8s"].(map[string]any)
	var mounts []corev1.VolumeMount
	(&contextDecoder{}).apiObject(k8s["volume_mounts"], "k8s.volume_mounts", &mounts)
	return append(mounts, run.VolumeMounts...)
}

// goEnvNames are the names of the env vars codeloc reads: env_vars (the
// shared and the k8s ones, KEY=VALUE or KEY, dagster/_core/utils.py:
// parse_env_var), env and the run container's env.
func goEnvNames(text string, k *k8sContext, run corev1.Container) []string {
	m, _ := parseContext(text)
	k8s, _ := m["k8s"].(map[string]any)
	names := map[string]bool{}
	for _, list := range []any{m["env_vars"], k8s["env_vars"]} {
		l, _ := list.([]any)
		for _, v := range l {
			if s, ok := v.(string); ok {
				name, _, _ := strings.Cut(s, "=")
				names[name] = true
			}
		}
	}
	for _, e := range slices.Concat(k.env, run.Env) {
		names[e.Name] = true
	}
	return slices.Sorted(maps.Keys(names))
}

func refNames(refs []corev1.LocalObjectReference) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Name)
	}
	return out
}

func envFromNames(from []corev1.EnvFromSource, secrets bool) []string {
	var out []string
	for _, f := range from {
		switch {
		case secrets && f.SecretRef != nil:
			out = append(out, f.SecretRef.Name)
		case !secrets && f.ConfigMapRef != nil:
			out = append(out, f.ConfigMapRef.Name)
		}
	}
	return out
}

// nilEmpty maps empty resource lists to nil, as JSON leaves them out.
func nilEmpty(r corev1.ResourceRequirements) corev1.ResourceRequirements {
	if len(r.Limits) == 0 {
		r.Limits = nil
	}
	if len(r.Requests) == 0 {
		r.Requests = nil
	}
	return r
}

// canonical is v's JSON through its Go type: Dagster's Kubernetes
// client and the Go API types write quantities and empty fields alike.
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func canonicalSet[T any](items []T) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, canonical(it))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// canonicalJSONSet decodes Dagster's objects (API field names) into T and
// writes them back as canonical does.
func canonicalJSONSet[T any](items []string) []string {
	out := []string{}
	for _, s := range items {
		var v T
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			out = append(out, "<does not decode: "+s+">")
			continue
		}
		out = append(out, canonical(v))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// contextCase is one container context's text and where it comes from.
type contextCase struct{ id, text string }

// contextCorpus is every container context the tests know: the fuzz
// seeds and corpus, the fixtures' and goldens', and contextReferenceCases.
func contextCorpus(t *testing.T) []contextCase {
	var out []contextCase
	seen := map[string]bool{}
	add := func(id, text string) {
		if !seen[text] {
			seen[text] = true
			out = append(out, contextCase{id, text})
		}
	}
	for i, s := range contextFuzzSeeds {
		add(fmt.Sprintf("seed[%d]", i), s)
	}
	for i, s := range contextReferenceCases {
		add(fmt.Sprintf("case[%d]", i), s)
	}
	corpus, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzContainerContext", "*"))
	for _, f := range corpus {
		if s, ok := fuzzString(t, f); ok {
			add(f, s)
		}
	}
	root := filepath.Join("..", "..", "..")
	for _, dir := range []string{"fixtures", filepath.Join("render", "testdata", "golden")} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			switch {
			case strings.HasSuffix(path, "container-context.json"):
				add(rel, string(data))
			case strings.HasSuffix(path, ".yaml") && !strings.Contains(path, "yaml-bomb") && !strings.Contains(path, "yaml-alias"):
				for _, s := range yamlContexts(data) {
					add(rel, s)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	files := 0
	for _, c := range out {
		if strings.HasPrefix(c.id, "fixtures") || strings.HasPrefix(c.id, "render") {
			files++
		}
	}
	t.Logf("container contexts: %d fuzz seeds, %d cases, %d corpus files, %d distinct ones of fixtures and goldens", len(contextFuzzSeeds), len(contextReferenceCases), len(corpus), files)
	if files < 3 {
		t.Fatalf("only %d container contexts found in fixtures and goldens", files)
	}
	return out
}

// yamlContexts are the container contexts a YAML file sets: an env var
// of contextEnvNames with a value, a ConfigMap key named like one or like
// container-context.json, and --container-context arguments. Files that
// are not YAML have none.
func yamlContexts(data []byte) []string {
	var out []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				if c.Kind == yaml.ScalarNode {
					if v, ok := strings.CutPrefix(c.Value, contextFlag+"="); ok {
						out = append(out, v)
					} else if c.Value == contextFlag && i+1 < len(n.Content) {
						out = append(out, n.Content[i+1].Value)
					}
				}
				walk(c)
			}
		case yaml.MappingNode:
			var name, value *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				switch {
				case k.Value == "name":
					name = v
				case k.Value == "value":
					value = v
				case v.Kind == yaml.ScalarNode && (strings.HasSuffix(k.Value, "container-context.json") || slices.Contains(contextEnvNames, k.Value)):
					out = append(out, v.Value)
				}
				walk(v)
			}
			if name != nil && value != nil && value.Kind == yaml.ScalarNode && slices.Contains(contextEnvNames, name.Value) && value.Value != "" {
				out = append(out, value.Value)
			}
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			return out
		}
		walk(&doc)
	}
}

// fuzzString reads a corpus file of a fuzz test taking one string.
func fuzzString(t *testing.T, path string) (string, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" {
		t.Fatalf("%s: not a fuzz corpus file of one value", path)
	}
	v, ok := strings.CutPrefix(lines[1], "string(")
	if !ok {
		t.Fatalf("%s: not a string: %s", path, lines[1])
	}
	var s string
	if _, err := fmt.Sscanf(strings.TrimSuffix(v, ")"), "%q", &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s, true
}

// contextReferenceCases are contexts the fixtures and seeds miss, each
// comparing one way Dagster merges or reads a field.
var contextReferenceCases = []string{
	// The top-level fields and run_k8s_config's are deep-merged into one
	// container (DEEP, Dagster's default) or key by key (SHALLOW).
	`{"k8s": {"resources": {"requests": {"cpu": "250m"}}, "run_k8s_config": {"container_config": {"resources": {"limits": {"memory": "1Gi"}}}}}}`,
	`{"k8s": {"resources": {"requests": {"cpu": "250m"}}, "run_k8s_config": {"container_config": {"resources": {"limits": {"memory": "1Gi"}}}, "merge_behavior": "SHALLOW"}}}`,
	`{"k8s": {"security_context": {"run_as_user": 1000}, "run_k8s_config": {"container_config": {"security_context": {"read_only_root_filesystem": true}}}}}`,
	`{"k8s": {"service_account_name": "a", "run_k8s_config": {"pod_spec_config": {"service_account_name": "b"}}}}`,
	`{"k8s": {"volumes": [{"name": "a", "empty_dir": {}}], "run_k8s_config": {"pod_spec_config": {"volumes": [{"name": "b", "emptyDir": {"size_limit": "1Gi"}}]}}}}`,
	`{"k8s": {"env_secrets": ["a"], "env_config_maps": ["b"], "run_k8s_config": {"container_config": {"env_from": [{"secret_ref": {"name": "c"}}, {"configMapRef": {"name": "d"}}]}}}}`,
	`{"k8s": {"labels": {"team": "data"}, "run_k8s_config": {"pod_template_spec_metadata": {"labels": {"tier": "batch"}}, "job_metadata": {"labels": {"job": "x"}}}}}`,
	`{"k8s": {"env_vars": ["A=1", "B"], "env": [{"name": "C", "value": "3"}]}, "env_vars": ["D=4"]}`,
	`{"k8s": {"image_pull_secrets": [{"name": "a"}], "run_k8s_config": {"pod_spec_config": {"imagePullSecrets": [{"name": "b"}]}}}}`,
	`{"k8s": {"volume_mounts": [{"name": "a", "mountPath": "/a", "readOnly": true}], "volumes": [{"name": "a", "emptyDir": {}}]}}`,
	`{"k8s": {"scheduler_name": "s1", "namespace": "dagster"}}`,
	`{"env_vars": ["X=1"]}`,
	`{}`,
	`{"k8s": {}}`,
	`{"k8s": null}`,
	`{"k8s": {"env_secrets": null, "resources": null, "service_account_name": null}}`,
	// Types Dagster's schema refuses, and JSON Python reads.
	`{"k8s": {"labels": []}}`,
	`{"k8s": {"volumes": [{}]}}`,
	`{"k8s": {"volumes": [{"name": null, "emptyDir": {}}]}}`,
	`{"k8s": {"env": [{"value": "x"}]}}`,
	`{"k8s": {"volume_mounts": [{"mount_path": "/a"}]}}`,
	`{"k8s": {"image_pull_secrets": [{}]}}`,
	`{"k8s": {"run_k8s_config": {"pod_spec_config": {"volumes": [{"emptyDir": {}}]}}}}`,
	`{"k8s": {"run_k8s_config": {"container_config": {"env": [{"value": "x"}]}}}}`,
	`{"k8s": {"run_k8s_config": {"pod_spec_config": {"containers": [{"image": "x"}]}}}}`,
	`{"k8s": {"run_k8s_config": {"container_config": {"volume_mounts": [{"name": "a"}]}}}}`,
	`{"k8s": {"image_pull_secrets": [{"name": "a", "x": 1}]}}`,
	`{"k8s": {"volume_mounts": [{"name": "a", "mount_path": "/a", "mountPath": "/b"}]}}`,
	`{"k8s": {"volumes": [{"name": "a", "emptyDir": {}, "empty_dir": {}}]}}`,
	`{"k8s": {"run_k8s_config": {"pod_spec_config": {"host_network": "false"}}}}`,
	`{"k8s": {"run_k8s_config": {"container_config": {"resources": {"limits": {"cpu": 2}}}}}}`,
	`{"k8s": {"env_secrets": ["a"]}, "k8s": {"env_secrets": ["b"]}}`,
	`{"k8s": {"namespace": NaN}}`,
	`0`, `null`, `[]`, `""`, `false`, `1`, `[{}]`, `"{}"`,
	`{"k8s": {"server_replica_count": 2}}`,
	`{"k8s": {"server_k8s_config": {"service_spec_config": {"type": "NodePort"}}}}`,
}
