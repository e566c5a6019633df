package dagster

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/codeloc/codeloc/render/policy"
	"github.com/codeloc/codeloc/render/policy/policytest"
	"github.com/codeloc/codeloc/validate"
)

// contextPod is a Pod of citation whose one container hands the run pods
// the container context ctx (a JSON text) through env.
func contextPod(env, ctx string) string {
	return policytest.ConsumePod(fmt.Sprintf("  containers: [{name: dagster, image: registry:80/citation-dagster:a3f9c1d, env: [{name: %s, value: %q}]}]", env, ctx))
}

func TestContainerContext(t *testing.T) {
	const env = "DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT"
	withPlatform := func(s string) string {
		return s + "  configMaps: [dagster-pipeline-env]\n  serviceAccounts: [dagster]\n"
	}
	tests := []struct {
		name, ctx string
		decl      func(string) string
		want      []string // prefixes of "code message", in order
	}{
		{"declared objects pass", `{"k8s": {"env_secrets": ["pgvector-pg-auth"], "env_config_maps": ["dagster-pipeline-env"], "service_account_name": "dagster", "namespace": "dagster", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}, "env_vars": ["A=b"]}`, withPlatform, nil},
		{"camelCase keys pass", `{"k8s": {"volumes": [{"name": "i", "configMap": {"name": "dagster-pipeline-env"}}], "run_k8s_config": {"pod_spec_config": {"securityContext": {"runAsNonRoot": true}}}}}`, withPlatform, nil},
		{"another code-location's secret", `{"k8s": {"env_secrets": ["mediawatch-token"]}}`, nil,
			[]string{`consume-secret DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.env_secrets[0]: Secret "mediawatch-token"`}},
		{"argocd-secret as a volume", `{"k8s": {"volumes": [{"name": "x", "secret": {"secret_name": "argocd-secret"}}]}}`, nil,
			[]string{`consume-secret DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.volumes[0].secret.secretName: Secret "argocd-secret"`}},
		{"the platform's account, undeclared", `{"k8s": {"service_account_name": "dagster"}}`, nil,
			[]string{`consume-service-account DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.service_account_name: ServiceAccount "dagster" is the platform's`}},
		{"a platform ConfigMap, undeclared", `{"k8s": {"env_config_maps": ["dagster-instance"]}}`, nil,
			[]string{`consume-configmap DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.env_config_maps[0]: ConfigMap "dagster-instance" is the platform's`}},
		{"pull secret", `{"k8s": {"image_pull_secrets": [{"name": "regcred"}]}}`, nil,
			[]string{`consume-secret DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.image_pull_secrets[0].name: Secret "regcred"`}},
		{"env valueFrom in container_config", `{"k8s": {"run_k8s_config": {"container_config": {"env": [{"name": "T", "value_from": {"secret_key_ref": {"name": "other", "key": "k"}}}]}}}}`, nil,
			[]string{`consume-secret DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config.container_config.env[0].valueFrom.secretKeyRef.name: Secret "other"`}},
		{"16 cpu", `{"k8s": {"resources": {"requests": {"cpu": "16"}}}}`, nil,
			[]string{`requests-over-declared DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.resources: a run pod requests 16 cpu, more than the declared resources.cpu 500m`}},
		// Dagster deep-merges the top-level resources and security_context
		// into run_k8s_config's container_config (merge_behavior DEEP, its
		// default); SHALLOW replaces them whole (TestDagsterReadsContextsAsCodeloc).
		{"native sidecars add to the requests, as the scheduler counts them", `{"k8s": {"resources": {"requests": {"cpu": "300m"}}, "run_k8s_config": {"pod_spec_config": {"init_containers": [{"name": "proxy", "image": "registry:80/citation-dagster:a3f9c1d", "restart_policy": "Always", "resources": {"requests": {"cpu": "400m"}}}]}}}}`, nil,
			[]string{`requests-over-declared DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.resources: a run pod requests 700m cpu, more than the declared resources.cpu 500m`}},
		{"run pods placed on the control plane", `{"k8s": {"run_k8s_config": {"pod_spec_config": {"tolerations": [{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists"}], "node_selector": {"node-role.kubernetes.io/control-plane": ""}, "node_name": "cp-1"}}}}`, nil,
			[]string{`placement-node-name DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config.pod_spec_config.nodeName: binds the pod to node "cp-1"`,
				`placement-toleration DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config.pod_spec_config.tolerations[0]: tolerates taint node-role.kubernetes.io/control-plane`,
				`placement-node-selector DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config.pod_spec_config.nodeSelector.node-role.kubernetes.io/control-plane: selects nodes by node-role.kubernetes.io/control-plane=`}},
		{"an init container's image", `{"k8s": {"run_k8s_config": {"pod_spec_config": {"init_containers": [{"name": "fetch", "image": "docker.io/library/busybox:1"}]}}}}`, nil,
			[]string{`policy-image-registry DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config.pod_spec_config.init_containers[0].image: image "docker.io/library/busybox:1" does not come from registry:80`}},
		{"top-level requests merge into container_config resources", `{"k8s": {"resources": {"requests": {"cpu": "16"}}, "run_k8s_config": {"container_config": {"resources": {"limits": {"memory": "64Mi"}}}}}}`, nil,
			[]string{`requests-over-declared DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.resources: a run pod requests 16 cpu`}},
		{"SHALLOW: container_config resources replace the top-level ones", `{"k8s": {"resources": {"requests": {"memory": "1Gi"}}, "run_k8s_config": {"merge_behavior": "SHALLOW", "container_config": {"resources": {"limits": {"memory": "4Gi"}}}}}}`, nil,
			[]string{`requests-over-declared DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.resources: a run pod requests 4Gi memory`}},
		{"top-level security_context merges into container_config's", `{"k8s": {"security_context": {"privileged": true}, "run_k8s_config": {"container_config": {"security_context": {"run_as_user": 1000}}}}}`, nil,
			[]string{`pod-security DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config: the pods it launches violate PodSecurity "baseline:latest": privileged (container "dagster"`}},
		{"env_vars KEY copies the launcher's environment", `{"k8s": {"env_vars": ["A=1", "AWS_SECRET_ACCESS_KEY"]}}`, nil,
			[]string{`container-context-unreadable DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.env_vars[1]: AWS_SECRET_ACCESS_KEY takes its value from the environment of the process that launches the run`}},
		{"a volume without a name", `{"k8s": {"volumes": [{"emptyDir": {}}]}}`, nil,
			[]string{`container-context-invalid DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.volumes[0].name: Volume needs name (name): the API requires it`}},
		{"a volume mount without a path, in container_config", `{"k8s": {"run_k8s_config": {"container_config": {"volume_mounts": [{"name": "a"}]}}}}`, nil,
			[]string{`container-context-invalid DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config.container_config.volume_mounts[0].mount_path: VolumeMount needs mount_path (mountPath)`}},
		{"host_network", `{"k8s": {"run_k8s_config": {"pod_spec_config": {"host_network": true}}}}`, nil,
			[]string{`pod-security DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config: the pods it launches violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)`}},
		{"host_ipc, an acronym the Python client spells host_ipc", `{"k8s": {"run_k8s_config": {"pod_spec_config": {"host_ipc": true}}}}`, nil,
			[]string{`pod-security DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config: the pods it launches violate PodSecurity "baseline:latest": host namespaces (hostIPC=true)`}},
		{"privileged security_context", `{"k8s": {"security_context": {"privileged": true}}}`, nil,
			[]string{`pod-security DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config: the pods it launches violate PodSecurity "baseline:latest": privileged (container "dagster"`}},
		{"server_k8s_config is held too", `{"k8s": {"server_k8s_config": {"pod_spec_config": {"hostPID": true}}}}`, nil,
			[]string{`pod-security DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.server_k8s_config: the pods it launches violate PodSecurity "baseline:latest": host namespaces (hostPID=true)`}},
		{"another namespace", `{"k8s": {"namespace": "argocd"}}`, nil,
			[]string{`container-context-namespace DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.namespace: launches the run pods in namespace "argocd"`}},
		{"image from elsewhere", `{"k8s": {"run_k8s_config": {"container_config": {"image": "docker.io/library/python:latest"}}}}`, nil,
			[]string{`policy-image-registry DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config.container_config.image: image "docker.io/library/python:latest" does not come from registry:80`}},
		{"own image, stale revision", `{"k8s": {"run_k8s_config": {"container_config": {"image": "registry:80/citation-dagster:b4e5f6a"}}}}`, nil,
			[]string{`policy-image-revision DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config.container_config.image: image "registry:80/citation-dagster:b4e5f6a" has b4e5f6a, not the declared revision a3f9c1d`}},
		{"reserved label", `{"k8s": {"labels": {"dagster/code-location": "mediawatch"}}}`, nil,
			[]string{`container-context-field DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.labels.dagster/code-location: sets label dagster/code-location`}},
		{"the Job's template", `{"k8s": {"run_k8s_config": {"job_spec_config": {"template": {"spec": {"containers": []}}}}}}`, nil,
			[]string{`container-context-field DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config.job_spec_config.template: sets the run's pods`}},
		{"a label of the wrong type", `{"k8s": {"labels": {"a": 1}}}`, nil,
			[]string{`container-context-invalid DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.labels: does not decode: a value is a JSON number, not string`}},
		{"unknown key of the k8s shape", `{"k8s": {"env_secret": ["a"]}}`, nil,
			[]string{`container-context-invalid DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.env_secret: is not a field`}},
		{"unknown key of an API object", `{"k8s": {"run_k8s_config": {"pod_spec_config": {"host_netwrok": true}}}}`, nil,
			[]string{`container-context-invalid DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config.pod_spec_config.host_netwrok: PodSpec has no field "host_netwrok"`}},
		{"both spellings of one field", `{"k8s": {"run_k8s_config": {"pod_spec_config": {"host_network": false, "hostNetwork": true}}}}`, nil,
			[]string{`container-context-invalid DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config.pod_spec_config.host_network: "hostNetwork" and "host_network" are the same field`,
				`pod-security DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config: the pods it launches violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)`}},
		{"wrong type", `{"k8s": {"env_secrets": "pgvector-pg-auth"}}`, nil,
			[]string{`container-context-invalid DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.env_secrets: is a JSON string, not a list`}},
		{"a value read at run time", `{"k8s": {"service_account_name": {"env": "SA"}}}`, nil,
			[]string{`container-context-unreadable DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.service_account_name: is read from an environment variable`}},
		{"malformed JSON names the byte", `{"k8s": {"env_secrets": ["a"],, }}`, nil,
			[]string{`container-context-invalid DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: not JSON at byte 31: invalid character ','`}},
		{"cut short", `{"k8s": {`, nil,
			[]string{`container-context-invalid DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: not JSON: it ends at byte 9`}},
		{"trailing data", `{"k8s": {}} {}`, nil,
			[]string{`container-context-invalid DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: not JSON: data after the JSON value`}},
		{"not an object", `["k8s"]`, nil,
			[]string{`container-context-invalid DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: is a JSON list, not an object`}},
		{"another launcher", `{"ecs": {}}`, nil,
			[]string{`container-context-invalid DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: ecs: is not read by Dagster's Kubernetes run launcher`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := consumeInstance(t, tt.decl)
			got := policytest.Codes(check(t, containerContextRule{}, in, policytest.ParseObjects(t, contextPod(env, tt.ctx))))
			if len(got) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("problem %d:\n got %s\nwant %s...", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestPassEnv: a bare env_vars entry copies the launching process's
// variable into the run pods; only the names the contract lists in
// dagster.runLauncher.passEnv may be copied, at the top level or in k8s.
func TestPassEnv(t *testing.T) {
	const ctx = `{"env_vars": ["AWS_REGION", "DAGSTER_PG_PASSWORD"], "k8s": {"env_vars": ["AWS_REGION=eu", "AWS_REGION"]}}`
	for _, tt := range []struct {
		name    string
		passEnv []string
		want    []string
	}{
		{"none listed", nil, []string{"env_vars[0]: AWS_REGION", "env_vars[1]: DAGSTER_PG_PASSWORD", "k8s.env_vars[1]: AWS_REGION"}},
		{"AWS_REGION listed", []string{"AWS_REGION"}, []string{"env_vars[1]: DAGSTER_PG_PASSWORD"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := policytest.ExampleContract(t, func(c *validate.Contract) { c.Dagster.RunLauncher.PassEnv = tt.passEnv })
			in := policy.NewContext(policytest.Declaration(t, nil), c, policytest.Locator("root"))
			var got []string
			for _, p := range check(t, containerContextRule{}, in, policytest.ParseObjects(t, contextPod("DAGSTER_CONTAINER_CONTEXT", ctx))) {
				_, after, _ := strings.Cut(p.Message, "DAGSTER_CONTAINER_CONTEXT: ")
				got = append(got, strings.Join(strings.SplitN(after, " ", 3)[:2], " "))
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("faults (-want +got):\n%s", d)
			}
		})
	}
}

func TestContainerContextSources(t *testing.T) {
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: citation-run}\ndata:\n  ctx: '{\"k8s\": {\"env_secrets\": [\"other\"]}}'\n  DAGSTER_CONTAINER_CONTEXT: '{\"k8s\": {\"namespace\": \"x\"}}'\n---\n"
	tests := []struct {
		name, container string
		want            []string
	}{
		{"from a shipped ConfigMap's key", `{name: d, env: [{name: DAGSTER_CONTAINER_CONTEXT, valueFrom: {configMapKeyRef: {name: citation-run, key: ctx}}}]}`,
			[]string{`consume-secret DAGSTER_CONTAINER_CONTEXT (ConfigMap citation-run, key ctx): k8s.env_secrets[0]`}},
		{"a missing key", `{name: d, env: [{name: DAGSTER_CONTAINER_CONTEXT, valueFrom: {configMapKeyRef: {name: citation-run, key: nope}}}]}`,
			[]string{`container-context-unreadable DAGSTER_CONTAINER_CONTEXT (ConfigMap citation-run, key nope): codeloc cannot read`}},
		{"from a Secret", `{name: d, env: [{name: DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT, valueFrom: {secretKeyRef: {name: pgvector-pg-auth, key: ctx}}}]}`,
			[]string{`container-context-unreadable DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: codeloc cannot read this container context: it comes from Secret pgvector-pg-auth`}},
		{"from an unshipped ConfigMap", `{name: d, env: [{name: DAGSTER_CONTAINER_CONTEXT, valueFrom: {configMapKeyRef: {name: elsewhere, key: ctx}}}]}`,
			[]string{`container-context-unreadable DAGSTER_CONTAINER_CONTEXT: codeloc cannot read this container context: it comes from ConfigMap elsewhere`}},
		{"by envFrom", `{name: d, envFrom: [{configMapRef: {name: citation-run}}]}`,
			[]string{`container-context-namespace DAGSTER_CONTAINER_CONTEXT (ConfigMap citation-run, key DAGSTER_CONTAINER_CONTEXT): k8s.namespace`}},
		{"on the command line", `{name: d, args: [dagster, api, grpc, --container-context, '{"k8s": {"namespace": "y"}}']}`,
			[]string{`container-context-namespace --container-context: k8s.namespace`}},
		{"with =", `{name: d, args: ['--container-context={"k8s": {"namespace": "y"}}']}`,
			[]string{`container-context-namespace --container-context: k8s.namespace`}},
		{"empty is unset", `{name: d, env: [{name: DAGSTER_CONTAINER_CONTEXT, value: ""}]}`, nil},
		// Every name and spelling Dagster's CLI reads (issue 32, item 1).
		{"code-server start's auto env name", `{name: d, args: [dagster, code-server, start], env: [{name: DAGSTER_CLI_CODE_SERVER_START_CONTAINER_CONTEXT, value: '{"k8s": {"namespace": "z"}}'}]}`,
			[]string{`container-context-namespace DAGSTER_CLI_CODE_SERVER_START_CONTAINER_CONTEXT: k8s.namespace`}},
		{"the flag in command, its value in args", `{name: d, command: [dagster, api, grpc, --container-context], args: ['{"k8s": {"namespace": "y"}}']}`,
			[]string{`container-context-namespace --container-context: k8s.namespace`}},
		{"inside a shell line", `{name: d, command: [sh, -c, "exec dagster api grpc -p 1 --container-context '{\"k8s\": {\"namespace\": \"y\"}}'"]}`,
			[]string{`container-context-namespace --container-context: k8s.namespace`}},
		{"a shell's prefix assignment", `{name: d, command: [bash, -c, "DAGSTER_CONTAINER_CONTEXT='{\"k8s\": {\"namespace\": \"y\"}}' dagster code-server start -p 1"]}`,
			[]string{`container-context-namespace DAGSTER_CONTAINER_CONTEXT (set by the shell line): k8s.namespace`}},
		{"a shell's export", `{name: d, command: [sh, -c, "export DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT=$CTX; dagster api grpc -p 1"], env: [{name: CTX, value: '{"k8s":{"namespace":"y"}}'}]}`,
			[]string{`container-context-namespace DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT (set by the shell line): k8s.namespace`}},
		{"the kubelet expands $(VAR) into a label key", `{name: d, env: [{name: K, value: dagster/code-location}, {name: DAGSTER_CONTAINER_CONTEXT, value: '{"k8s": {"labels": {"$(K)": "mediawatch"}}}'}]}`,
			[]string{`container-context-field DAGSTER_CONTAINER_CONTEXT: k8s.labels.dagster/code-location: sets label dagster/code-location`}},
		{"the kubelet expands $(VAR) in args", `{name: d, args: [dagster, api, grpc, --container-context, "$(C)"], env: [{name: C, value: '{"k8s": {"namespace": "y"}}'}]}`,
			[]string{`container-context-namespace --container-context: k8s.namespace`}},
		{"$$(VAR) is not expanded", `{name: d, env: [{name: K, value: dagster/code-location}, {name: DAGSTER_CONTAINER_CONTEXT, value: '{"k8s": {"labels": {"$$(K)": "x"}}}'}]}`, nil},
		{"a Secret expanded into the flag", `{name: d, args: [dagster, api, grpc, "--container-context=$(C)"], env: [{name: C, valueFrom: {secretKeyRef: {name: pgvector-pg-auth, key: c}}}]}`,
			[]string{`container-context-unreadable --container-context: codeloc cannot read this container context: it holds a value codeloc cannot read`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := consumeInstance(t, nil)
			got := policytest.Codes(check(t, containerContextRule{}, in, policytest.ParseObjects(t, cm+policytest.ConsumePod("  containers: ["+tt.container+"]"))))
			if len(got) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("problem %d:\n got %s\nwant %s...", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestPythonName(t *testing.T) {
	for json, py := range map[string]string{
		"hostNetwork": "host_network", "hostIPC": "host_ipc", "hostPID": "host_pid", "targetWWNs": "target_ww_ns",
		"externalIPs": "external_i_ps", "diskURI": "disk_uri", "volumeID": "volume_id", "setHostnameAsFQDN": "set_hostname_as_fqdn",
		"exec": "_exec", "readOnlyRootFilesystem": "read_only_root_filesystem", "seLinuxOptions": "se_linux_options",
	} {
		if got := pythonName(json); got != py {
			t.Errorf("pythonName(%s) = %s, want %s", json, got, py)
		}
	}
}

// TestPythonNameIsUnderscore holds pythonName to the Python client
// generator's underscore() as regexps, on every JSON name of the API types
// a container context reaches and on random names (capitals, digits, -, _,
// non-ASCII letters and bytes).
func TestPythonNameIsUnderscore(t *testing.T) {
	acronym, word := regexp.MustCompile(`([A-Z]+)([A-Z][a-z])`), regexp.MustCompile(`([a-z\d])([A-Z])`)
	underscore := func(s string) string {
		if pyKeywords[s] {
			return "_" + s
		}
		s = word.ReplaceAllString(acronym.ReplaceAllString(s, "${1}_${2}"), "${1}_${2}")
		return strings.ToLower(strings.ReplaceAll(s, "-", "_"))
	}
	names := apiJSONNames(reflect.TypeFor[batchv1.Job](), map[reflect.Type]bool{})
	rng := rand.New(rand.NewPCG(34, 4))
	const alphabet = "aAbBzZ09-_xXYé\xff"
	for range 20000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		names = append(names, string(b))
	}
	if len(names) < 20000+500 {
		t.Fatalf("only %d API names", len(names)-20000)
	}
	for _, n := range names {
		if got, want := pythonName(n), underscore(n); got != want {
			t.Errorf("pythonName(%q) = %q, underscore() gives %q", n, got, want)
		}
	}
}

// apiJSONNames are the JSON field names of t and of every struct it reaches.
func apiJSONNames(t reflect.Type, seen map[reflect.Type]bool) []string {
	t = indirect(t)
	if seen[t] {
		return nil
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Slice, reflect.Map, reflect.Array:
		return apiJSONNames(t.Elem(), seen)
	case reflect.Struct:
	default:
		return nil
	}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
		names = append(names, apiJSONNames(f.Type, seen)...)
	}
	return names
}

func TestAPIKeysEveryPodField(t *testing.T) {
	// Every field of a pod spec, written the Python client's way, is read
	// into the API field: none is dropped where Pod Security would miss it.
	fields := fieldsOf(reflect.TypeFor[corev1.PodSpec]())
	for key, f := range fields.byKey {
		if _, p := rootKeys(map[string]any{key: nil}, reflect.TypeFor[corev1.PodSpec](), "pod"); len(p) > 0 {
			t.Errorf("%s (%s): %v", key, f.json, p)
		}
	}
	norm, _ := rootKeys(map[string]any{"host_ipc": true, "security_context": map[string]any{"run_as_user": 0}}, reflect.TypeFor[corev1.PodSpec](), "pod")
	want := map[string]any{"hostIPC": true, "securityContext": map[string]any{"runAsUser": 0}}
	if diff := cmp.Diff(want, norm); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCodeServer(t *testing.T) {
	const svc = "apiVersion: v1\nkind: Service\nmetadata: {name: citation}\nspec:\n  selector: {app: c}\n  ports: [{name: grpc, port: 3030, targetPort: grpc}]\n---\n"
	pod := func(container string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: citation-server, labels: {app: c}}\nspec:\n  containers: [" + container + "]\n---\n"
	}
	const image = "image: registry:80/citation-dagster:a3f9c1d"
	tests := []struct {
		name, objs string
		want       []string
		location   string
	}{
		{"chart shape", svc + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, 0.0.0.0, -p, "3030"], ports: [{name: grpc, containerPort: 3030}]}`), nil, "citation.dagster.svc:3030"},
		{"code-server start, --port=, a shell line", svc + pod(`{name: d, `+image+`, command: [sh, -c, "exec dagster code-server start --host 0.0.0.0 --port=3030 -m x"], ports: [{name: grpc, containerPort: 3030}]}`), nil, "citation.dagster.svc:3030"},
		{"port from env", svc + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, "::"], env: [{name: DAGSTER_GRPC_PORT, value: "3030"}], ports: [{name: grpc, containerPort: 3030}]}`), nil, "citation.dagster.svc:3030"},
		{"[::] and a port from a shipped ConfigMap", svc + "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: citation-env}\ndata: {DAGSTER_GRPC_PORT: \"3030\"}\n---\n" + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, "[::]"], envFrom: [{configMapRef: {name: citation-env}}], ports: [{name: grpc, containerPort: 3030}]}`), nil, "citation.dagster.svc:3030"},
		{"env wins over envFrom", svc + "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: citation-env}\ndata: {DAGSTER_GRPC_PORT: \"4000\"}\n---\n" + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, 0.0.0.0], env: [{name: DAGSTER_GRPC_PORT, value: "3030"}], envFrom: [{configMapRef: {name: citation-env}}], ports: [{name: grpc, containerPort: 3030}]}`), nil, "citation.dagster.svc:3030"},
		{"an empty bracket host", svc + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, "[]", -p, "3030"], ports: [{name: grpc, containerPort: 3030}]}`),
			[]string{"dagster-grpc-host the code server listens on []"}, ""},
		{"localhost by default", svc + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -p, "3030"], ports: [{name: grpc, containerPort: 3030}]}`),
			[]string{"dagster-grpc-host the code server listens on localhost (the default)"}, ""},
		{"a socket", svc + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -s, /tmp/s]}`), []string{"dagster-grpc-port the code server serves on a Unix socket"}, ""},
		{"no port", svc + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, 0.0.0.0]}`), []string{"dagster-grpc-port the code server (dagster api grpc) sets no --port"}, ""},
		{"port from a secret", svc + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, 0.0.0.0], env: [{name: DAGSTER_GRPC_PORT, valueFrom: {secretKeyRef: {name: pgvector-pg-auth, key: p}}}]}`),
			[]string{"dagster-grpc-port the code server's port comes from elsewhere"}, ""},
		{"a Service selecting on the code-location's label, which Apply adds to the pods", strings.Replace(svc, "{app: c}", "{codeloc.dev/code-location: citation}", 1) + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, 0.0.0.0, -p, "3030"], ports: [{name: grpc, containerPort: 3030}]}`), nil, "citation.dagster.svc:3030"},
		{"no Service", pod(`{name: d, ` + image + `, args: [dagster, api, grpc, -h, 0.0.0.0, -p, "3030"]}`), []string{"dagster-grpc-service no Service of the render selects"}, ""},
		{"port unreached", svc + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, 0.0.0.0, -p, "4000"], ports: [{name: grpc, containerPort: 3030}]}`),
			[]string{"dagster-grpc-service Service citation selects the code server's pods but none of its ports reaches port 4000"}, ""},
		{"two Services, one named after the code-location", svc + strings.ReplaceAll(svc, "{name: citation}", "{name: citation-b}") + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, 0.0.0.0, -p, "3030"], ports: [{name: grpc, containerPort: 3030}]}`), nil, "citation.dagster.svc:3030"},
		{"two Services, neither", strings.ReplaceAll(svc, "{name: citation}", "{name: citation-a}") + strings.ReplaceAll(svc, "{name: citation}", "{name: citation-b}") + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, 0.0.0.0, -p, "3030"], ports: [{name: grpc, containerPort: 3030}]}`),
			[]string{"dagster-grpc-service Services citation-a, citation-b all reach the code server"}, ""},
		{"another location name", svc + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, 0.0.0.0, -p, "3030", --location-name, mediawatch], ports: [{name: grpc, containerPort: 3030}]}`),
			[]string{`dagster-location-name the code server calls its location "mediawatch"`}, ""},
		{"two code servers", svc + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, 0.0.0.0, -p, "3030"], ports: [{name: grpc, containerPort: 3030}]}, {name: e, `+image+`, args: [dagster, code-server, start, -p, "3031"]}`),
			[]string{"dagster-code-servers runs a second Dagster code server (dagster code-server start)"}, ""},
		{"a stale DAGSTER_CURRENT_IMAGE", svc + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, 0.0.0.0, -p, "3030"], ports: [{name: grpc, containerPort: 3030}], env: [{name: DAGSTER_CURRENT_IMAGE, value: "registry:80/citation-dagster:0000000"}]}`),
			[]string{`dagster-image DAGSTER_CURRENT_IMAGE is "registry:80/citation-dagster:0000000", not the container's image "registry:80/citation-dagster:a3f9c1d"`}, "citation.dagster.svc:3030"},
		{"--container-image from elsewhere", svc + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, 0.0.0.0, -p, "3030", --container-image, "x:1"], ports: [{name: grpc, containerPort: 3030}]}`),
			[]string{`dagster-image --container-image is "x:1"`}, "citation.dagster.svc:3030"},
		// The command line as Dagster's CLI reads it (issue 32, item 1).
		{"port only in code-server start's auto env name", svc + pod(`{name: d, `+image+`, args: [dagster, code-server, start, -h, 0.0.0.0], env: [{name: DAGSTER_CLI_CODE_SERVER_START_PORT, value: "3030"}], ports: [{name: grpc, containerPort: 3030}]}`), nil, "citation.dagster.svc:3030"},
		// env -i empties the environment (the reference test cannot run it: PATH goes too).
		{"env -i clears the container's env", svc + pod(`{name: d, `+image+`, command: [env, -i, DAGSTER_GRPC_HOST=0.0.0.0, sh, -c, "dagster api grpc -p 3030"], env: [{name: DAGSTER_LOCATION_NAME, value: mediawatch}], ports: [{name: grpc, containerPort: 3030}]}`), nil, "citation.dagster.svc:3030"},
		{"the last --port wins", svc + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, 0.0.0.0, -p, "3030", -p, "4000"], ports: [{name: grpc, containerPort: 3030}]}`),
			[]string{"dagster-grpc-service Service citation selects the code server's pods but none of its ports reaches port 4000"}, ""},
		{"command and args are one line", svc + pod(`{name: d, `+image+`, command: [dagster, api, grpc, -h, 0.0.0.0, --location-name], args: [mediawatch, -p, "3030"], ports: [{name: grpc, containerPort: 3030}]}`),
			[]string{`dagster-location-name the code server calls its location "mediawatch"`}, ""},
		{"the host from a shell variable", svc + pod(`{name: d, `+image+`, command: [sh, -c, 'dagster api grpc -h "$H" -p 3030'], env: [{name: H, value: 127.0.0.1}], ports: [{name: grpc, containerPort: 3030}]}`),
			[]string{"dagster-grpc-host the code server listens on 127.0.0.1"}, ""},
		{"the port from a Secret by $(VAR)", svc + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, 0.0.0.0, -p, "$(P)"], env: [{name: P, valueFrom: {secretKeyRef: {name: pgvector-pg-auth, key: p}}}]}`),
			[]string{"dagster-grpc-port the code server's port comes from elsewhere"}, ""},
		{"options from a Secret split by the shell", svc + pod(`{name: d, `+image+`, command: [sh, -c, "dagster api grpc -p 3030 $OPTS"], env: [{name: OPTS, valueFrom: {secretKeyRef: {name: pgvector-pg-auth, key: o}}}]}`),
			[]string{`dagster-command-line codeloc cannot read the code server's command line (dagster api grpc) as Dagster's CLI does: "$OPTS" holds an unquoted shell expansion`}, ""},
		{"an option click does not know", svc + pod(`{name: d, `+image+`, args: [dagster, api, grpc, -h, 0.0.0.0, --portt, "3030"]}`),
			[]string{"dagster-command-line Dagster's CLI refuses the code server's command line (dagster api grpc): No such option: --portt"}, ""},
		{"a second code server in a native sidecar", svc + "apiVersion: v1\nkind: Pod\nmetadata: {name: citation-server, labels: {app: c}}\nspec:\n  initContainers: [{name: side, " + image + ", restartPolicy: Always, command: [sh, -c, 'dagster code-server start -h 0.0.0.0 -p 3031']}]\n  containers: [{name: d, " + image + ", args: [dagster, api, grpc, -h, 0.0.0.0, -p, \"3030\"], ports: [{name: grpc, containerPort: 3030}]}]\n",
			[]string{"dagster-code-servers runs a second Dagster code server (dagster api grpc)"}, ""},
		{"the image by code-server start's auto env name", svc + pod(`{name: d, `+image+`, args: [dagster, code-server, start, -h, 0.0.0.0, -p, "3030"], ports: [{name: grpc, containerPort: 3030}], env: [{name: DAGSTER_CLI_CODE_SERVER_START_CONTAINER_IMAGE, value: "x:1"}]}`),
			[]string{`dagster-image DAGSTER_CLI_CODE_SERVER_START_CONTAINER_IMAGE is "x:1"`}, "citation.dagster.svc:3030"},
		{"DAGSTER_CURRENT_IMAGE from a secret", pod(`{name: d, ` + image + `, env: [{name: DAGSTER_CURRENT_IMAGE, valueFrom: {secretKeyRef: {name: pgvector-pg-auth, key: i}}}]}`),
			[]string{`dagster-image DAGSTER_CURRENT_IMAGE: codeloc cannot read the image`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := consumeInstance(t, nil)
			got := policytest.Codes(check(t, dagsterRule{}, in, policytest.ParseObjects(t, tt.objs)))
			if len(got) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("problem %d:\n got %s\nwant %s...", i, got[i], tt.want[i])
				}
			}
			loc := ""
			if g := in.GRPCLocation(); g != nil {
				loc = fmt.Sprintf("%s:%d", g.Host, g.Port)
			}
			if loc != tt.location {
				t.Errorf("location %q, want %q", loc, tt.location)
			}
		})
	}
}
