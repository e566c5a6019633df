package dagster

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/codeloc/codeloc/render/policy"
	"github.com/codeloc/codeloc/render/policy/policytest"
	"github.com/codeloc/codeloc/validate"
)

// TestRunPodRules runs the rules that judge the run pods a container
// context builds: their mounts, the code-location's block claim, sidecars.
func TestRunPodRules(t *testing.T) {
	const env = "DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT"
	launcherVolume := func(c *validate.Contract) {
		c.Dagster.RunLauncher.Volumes = []corev1.Volume{{Name: "platform-ca", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "dagster-instance"}}}}}
	}
	noDisk := func(s string) string { return strings.Replace(s, ", disk: 20Gi", "", 1) }
	tests := []struct {
		name, ctx string
		rule      policy.Rule
		decl      func(string) string
		tune      func(*validate.Contract)
		want      []string // prefixes of "code message", in order
	}{
		{"mount of a context volume", `{"k8s": {"volumes": [{"name": "tmp", "empty_dir": {}}], "volume_mounts": [{"name": "tmp", "mount_path": "/tmp"}]}}`, contextMountRule{}, nil, nil, nil},
		{"mount of a pod_spec_config volume", `{"k8s": {"run_k8s_config": {"pod_spec_config": {"volumes": [{"name": "tmp", "emptyDir": {}}]}, "container_config": {"volume_mounts": [{"name": "tmp", "mount_path": "/tmp"}]}}}}`, contextMountRule{}, nil, nil, nil},
		{"mount of the run launcher's volume", `{"k8s": {"volume_mounts": [{"name": "platform-ca", "mount_path": "/ca"}]}}`, contextMountRule{}, nil, launcherVolume, nil},
		{"mount of no volume", `{"k8s": {"volumes": [{"name": "tmp", "empty_dir": {}}], "volume_mounts": [{"name": "data", "mount_path": "/data"}]}}`, contextMountRule{}, nil, nil,
			[]string{`container-context-mount DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.volume_mounts[0].name: mounts volume "data", which the run pods do not have`}},
		{"mount of the launcher's volume, which this contract has not", `{"k8s": {"volume_mounts": [{"name": "platform-ca", "mount_path": "/ca"}]}}`, contextMountRule{}, nil, nil,
			[]string{`container-context-mount DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.volume_mounts[0].name: mounts volume "platform-ca"`}},
		{"mounts of no volume in container_config and a pod_spec_config container", `{"k8s": {"run_k8s_config": {"container_config": {"volume_mounts": [{"name": "a", "mount_path": "/a"}]}, "pod_spec_config": {"init_containers": [{"name": "i", "volume_mounts": [{"name": "b", "mount_path": "/b"}]}]}}}}`, contextMountRule{}, nil, nil,
			[]string{`container-context-mount DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config.container_config.volume_mounts[0].name: mounts volume "a"`,
				`container-context-mount DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config.pod_spec_config.init_containers[0].volume_mounts[0].name: mounts volume "b"`}},
		{"the code-location's claim", `{"k8s": {"volumes": [{"name": "data", "persistent_volume_claim": {"claim_name": "citation-data"}}], "volume_mounts": [{"name": "data", "mount_path": "/data"}]}}`, contextClaimRule{}, nil, nil,
			[]string{`container-context-rwo-claim DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.volumes[0].persistentVolumeClaim.claimName: hands every run pod the claim citation-data, ReadWriteOnce block storage (rook-ceph-block)`}},
		{"the code-location's claim in pod_spec_config", `{"k8s": {"run_k8s_config": {"pod_spec_config": {"volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "citation-data", "readOnly": true}}]}}}}`, contextClaimRule{}, nil, nil,
			[]string{`container-context-rwo-claim DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config.pod_spec_config.volumes[0].persistentVolumeClaim.claimName: hands every run pod the claim citation-data`}},
		{"a claim without resources.disk is consume-volume-claim's", `{"k8s": {"volumes": [{"name": "data", "persistent_volume_claim": {"claim_name": "citation-data"}}]}}`, contextClaimRule{}, noDisk, nil, nil},
		{"an emptyDir", `{"k8s": {"volumes": [{"name": "data", "empty_dir": {"size_limit": "1Gi"}}]}}`, contextClaimRule{}, nil, nil, nil},
		{"a sidecar", `{"k8s": {"run_k8s_config": {"pod_spec_config": {"containers": [{"name": "proxy", "image": "registry:80/citation-dagster:a3f9c1d"}]}}}}`, contextSidecarRule{}, nil, nil,
			[]string{`container-context-sidecar DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT: k8s.run_k8s_config.pod_spec_config.containers[0]: adds container "proxy" to every run pod`}},
		{"a native sidecar", `{"k8s": {"run_k8s_config": {"pod_spec_config": {"init_containers": [{"name": "proxy", "image": "registry:80/citation-dagster:a3f9c1d", "restart_policy": "Always"}]}}}}`, contextSidecarRule{}, nil, nil, nil},
		{"the code server's own pods", `{"k8s": {"server_k8s_config": {"pod_spec_config": {"containers": [{"name": "proxy", "image": "registry:80/citation-dagster:a3f9c1d"}]}}}}`, contextSidecarRule{}, nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := policy.NewContext(policytest.Declaration(t, tt.decl), policytest.ExampleContract(t, tt.tune), policytest.Locator("root"))
			got := policytest.Codes(check(t, tt.rule, in, policytest.ParseObjects(t, contextPod(env, tt.ctx))))
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
