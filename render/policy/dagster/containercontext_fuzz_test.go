package dagster

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/policy"
	"github.com/codeloc/codeloc/render/policy/policytest"
	"github.com/codeloc/codeloc/validate"
)

// contextFuzzBudget bounds the check of one fuzzed container context: past
// it the input is a finding (unbounded work on a small input), as a panic
// is. Reading a context is linear in its size; the bound is far above it.
const contextFuzzBudget = 10 * time.Second

// contextFuzzSeeds are container contexts of the shapes Dagster documents
// (dagster_k8s/container_context.py: K8sContainerContext's fields;
// dagster_k8s/job.py: run_k8s_config's and server_k8s_config's keys; the
// Dagster+ dagster_cloud.yaml container_context example), written either
// way Dagster reads Kubernetes fields (snake_case and camelCase), and a
// few that Dagster refuses.
var contextFuzzSeeds = []string{
	// What the Dagster chart's user deployments copy into the context:
	// a mount of no volume, the code server's claim, a sidecar.
	`{"k8s": {"volume_mounts": [{"name": "dagster-instance", "mountPath": "/opt/dagster/dagster_home"}], "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "citation-data"}}], "run_k8s_config": {"pod_spec_config": {"containers": [{"name": "proxy", "image": "registry:80/citation-dagster:a3f9c1d"}]}}}}`,
	`{"k8s": {"env_secrets": ["pgvector-pg-auth"], "env_config_maps": ["dagster-pipeline-env"], "env_vars": ["FOO=bar", "BAR"], "service_account_name": "dagster", "namespace": "dagster", "image_pull_policy": "Always", "image_pull_secrets": [{"name": "regcred"}], "labels": {"team": "data"}, "scheduler_name": "default-scheduler"}, "env_vars": ["A=b"]}`,
	`{"k8s": {"volume_mounts": [{"mount_path": "/opt/dagster/test_mount_path/volume_mounted_file.yaml", "name": "test-volume", "sub_path": "volume_mounted_file.yaml"}], "volumes": [{"name": "test-volume", "config_map": {"name": "test-volume-configmap"}}, {"name": "s", "secret": {"secret_name": "argocd-secret"}}, {"name": "tmp", "emptyDir": {"sizeLimit": "1Gi"}}]}}`,
	`{"k8s": {"resources": {"requests": {"cpu": "250m", "memory": "64Mi"}, "limits": {"cpu": "500m", "memory": "2560Mi"}}, "security_context": {"run_as_user": 1000, "allow_privilege_escalation": false, "capabilities": {"drop": ["ALL"]}}}}`,
	`{"k8s": {"env": [{"name": "T", "value_from": {"secret_key_ref": {"name": "pgvector-pg-auth", "key": "password"}}}, {"name": "P", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}}`,
	`{"k8s": {"run_k8s_config": {"container_config": {"image": "registry:80/citation-dagster:a3f9c1d", "resources": {"limits": {"memory": "4Gi"}}, "volume_mounts": [{"name": "volume1", "mount_path": "foo/bar", "sub_path": "file.txt"}], "env_from": [{"config_map_ref": {"name": "x"}}]}, "pod_template_spec_metadata": {"annotations": {"cluster-autoscaler.kubernetes.io/safe-to-evict": "true"}, "labels": {"dagster/code-location": "x"}}, "pod_spec_config": {"volumes": [{"name": "volume1", "secret": {"secret_name": "volume_secret_name"}}], "affinity": {"node_affinity": {"required_during_scheduling_ignored_during_execution": {"node_selector_terms": [{"match_expressions": [{"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}]}]}}}, "host_network": true, "hostIPC": true}, "job_spec_config": {"ttl_seconds_after_finished": 7200, "template": {}}, "job_metadata": {"annotations": {"mykey": "myvalue"}}, "job_config": {"spec": {"parallelism": 2}}, "merge_behavior": "DEEP"}}}`,
	`{"k8s": {"server_k8s_config": {"container_config": {"resources": {"limits": {"cpu": "100m", "memory": "128Mi"}}}, "pod_spec_config": {"node_selector": {"disktype": "ssd"}, "hostPID": true}, "deployment_metadata": {"annotations": {"a": "b"}}, "service_metadata": {"labels": {"c": "d"}}, "merge_behavior": "SHALLOW"}}}`,
	`{"k8s": {"service_account_name": {"env": "SA"}, "namespace": ["x"], "env_secrets": "one", "merge_behavior": "MERGE", "resources": {"requests": {"cpu": "a lot"}}}}`,
	`{"k8s": {"run_k8s_config": {"pod_spec_config": {"host_network": false, "hostNetwork": true, "host_netwrok": 1, "containers": [{"name": "side", "image": "docker.io/library/python:latest", "securityContext": {"privileged": true}}]}}}}`,
	`{"docker": {"env_vars": ["X=1"]}, "ecs": {}}`,
	`{"k8s": {"env_secret": ["a"]}} {}`,
	`[{"k8s": null}]`,
	`{"k8s": {"labels": {"a": 1}, "volumes": [{"name": "e", "ephemeral": {"volume_claim_template": {"spec": {"access_modes": ["ReadWriteOnce"]}}}}]}}`,
	`{"k8s": {"env_secrets": ["a",`,
	"{\"k8s\": {\"labels\": {\"x\\ny\": \"z\"}, \"env_secrets\": [\"\\u2028\"]}}",
}

// contextFuzzInstance is citation's declaration
// (policytest.ConsumeDeclaration, with a platform ConfigMap and
// ServiceAccount) against the example contract.
func contextFuzzInstance(f testing.TB) (*validate.Declaration, *validate.Contract) {
	d := policytest.Declaration(f, func(s string) string {
		return s + "  configMaps: [dagster-pipeline-env]\n  serviceAccounts: [dagster]\n"
	})
	return d, policytest.ExampleContract(f, nil)
}

// contextFuzzObjects is a shipped ConfigMap and a Pod of citation whose
// container hands the run pods text as its container context, through
// the literal env var: the bytes set on the node, not through YAML.
func contextFuzzObjects(t *testing.T, text string) []*yaml.RNode {
	objs, err := kio.FromBytes([]byte(policytest.ConsumePod(`  containers: [{name: dagster, image: registry:80/citation-dagster:a3f9c1d, env: [{name: DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT, value: x}]}]`)))
	if err != nil {
		t.Fatal(err)
	}
	v, err := objs[0].Pipe(yaml.Lookup("spec", "containers", "0", "env", "0", "value"))
	if err != nil || v == nil {
		t.Fatalf("the env var's value: %v", err)
	}
	v.YNode().Value = text
	return objs
}

// FuzzContainerContext reads the fuzzer's bytes as the container context
// a Dagster code server hands its run pods
// (DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT), both as the decoder sees the
// text and through containerContextRule on a Pod that sets it. Any input
// yields documented problems of one line each, the same twice over, within
// the budget; never a panic.
//
//	go test ./render/policy/dagster -run '^$' -fuzz '^FuzzContainerContext$' -fuzztime 60s
func FuzzContainerContext(f *testing.F) {
	for _, s := range contextFuzzSeeds {
		f.Add(s)
	}
	d, c := contextFuzzInstance(f)
	loc := policytest.Locator("root")
	f.Fuzz(func(t *testing.T, text string) {
		type result struct {
			faults   []policy.Fault
			problems problem.Problems
		}
		objs := contextFuzzObjects(t, text)
		done := make(chan result, 1)
		go func() {
			in := policy.NewContext(d, c, loc)
			faults := contextChecker{in, in.Binding(objs)}.checkContext(text)
			done <- result{faults, check(t, containerContextRule{}, in, objs)}
		}()
		var r result
		select {
		case r = <-done:
		case <-time.After(contextFuzzBudget):
			t.Fatalf("checking a container context of %d bytes outlasted %s", len(text), contextFuzzBudget)
		}
		for _, f := range r.faults {
			if _, ok := emittedDocs[f.Code]; !ok {
				t.Fatalf("undocumented code %q: %s %s", f.Code, f.Path, f.Msg)
			}
			if f.Msg == "" || f.Hint == "" {
				t.Fatalf("a fault without a message or a hint: %+v", f)
			}
		}
		var lines []string
		for _, p := range r.problems {
			if _, ok := emittedDocs[p.Code]; !ok {
				t.Fatalf("undocumented code %q: %s", p.Code, p)
			}
			s := p.String()
			if strings.ContainsAny(s, "\n\r") {
				t.Fatalf("a problem on more than one line: %q", s)
			}
			lines = append(lines, s)
		}
		// The Pod hands the decoder the same text when the text survives
		// the YAML-to-JSON decoding of the pod spec (valid UTF-8) and is
		// set (an empty value is unset for click): one problem per fault.
		if utf8.ValidString(text) && text != "" && len(r.problems) != len(r.faults) {
			t.Fatalf("the rule reports %d problems, the decoder %d faults", len(r.problems), len(r.faults))
		}
		// Map order must not leak into the answer: Argo CD caches it.
		again := check(t, containerContextRule{}, policy.NewContext(d, c, loc), contextFuzzObjects(t, text))
		var second []string
		for _, p := range again {
			second = append(second, p.String())
		}
		if !slices.Equal(lines, second) {
			t.Fatalf("two checks of one context differ:\n%s\n--\n%s", strings.Join(lines, "\n"), strings.Join(second, "\n"))
		}
		// The rules on the run pods a context builds read the same decoded
		// context: one line each, with a hint, and no panic.
		for _, r := range []policy.Rule{contextMountRule{}, contextClaimRule{}, contextSidecarRule{}} {
			for _, p := range check(t, r, policy.NewContext(d, c, loc), objs) {
				if s := p.String(); strings.ContainsAny(s, "\n\r") || p.Hint == "" {
					t.Fatalf("%s: a problem on more than one line or without a hint: %q", p.Code, s)
				}
			}
		}
	})
}
