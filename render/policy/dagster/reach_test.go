package dagster

import (
	"strings"
	"testing"

	"github.com/codeloc/codeloc/render/policy/policytest"
)

// TestContextReach holds the run pods a container context describes to
// the reach checks: volumes, devices, cluster-level references,
// annotations.
func TestContextReach(t *testing.T) {
	const env = "DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT"
	const at = env + ": "
	tests := []struct {
		name, ctx string
		want      []string // prefixes of "code message", in order
	}{
		{"allowed volumes, the default scheduler", `{"k8s": {"scheduler_name": "default-scheduler", "volumes": [{"name": "t", "empty_dir": {}}], "run_k8s_config": {"pod_spec_config": {"volumes": [{"name": "d", "downwardAPI": {}}]}}}}`, nil},
		{"nfs among the context's volumes", `{"k8s": {"volumes": [{"name": "shared", "nfs": {"server": "nfs.example.com", "path": "/"}}]}}`,
			[]string{`volume-type ` + at + `k8s.volumes[0].nfs: volume "shared" is nfs: it mounts a network file system`}},
		{"gitRepo in pod_spec_config", `{"k8s": {"run_k8s_config": {"pod_spec_config": {"volumes": [{"name": "src", "git_repo": {"repository": "https://example.com/x.git"}}]}}}}`,
			[]string{`volume-type ` + at + `k8s.run_k8s_config.pod_spec_config.volumes[0].gitRepo: volume "src" is gitRepo`}},
		{"a GPU for the run pods", `{"k8s": {"resources": {"limits": {"nvidia.com/gpu": "1"}}}}`,
			[]string{`resource-extended ` + at + `k8s.resources.limits.nvidia.com/gpu: the run pods' container limits nvidia.com/gpu`}},
		{"a GPU in container_config", `{"k8s": {"run_k8s_config": {"container_config": {"resources": {"requests": {"nvidia.com/gpu": "1"}}}}}}`,
			[]string{`resource-extended ` + at + `k8s.run_k8s_config.container_config.resources.requests.nvidia.com/gpu: the run pods' container requests nvidia.com/gpu`}},
		{"the scheduler of the context", `{"k8s": {"scheduler_name": "volcano"}}`,
			[]string{`pod-cluster-ref ` + at + `k8s.scheduler_name: scheduler "volcano" is not the cluster's default-scheduler`}},
		{"priority and runtime classes of the run pods", `{"k8s": {"run_k8s_config": {"pod_spec_config": {"priority_class_name": "system-node-critical", "runtime_class_name": "kata"}}}}`,
			[]string{
				`pod-cluster-ref ` + at + `k8s.run_k8s_config.pod_spec_config.priorityClassName: PriorityClass "system-node-critical"`,
				`pod-cluster-ref ` + at + `k8s.run_k8s_config.pod_spec_config.runtimeClassName: RuntimeClass "kata"`,
			}},
		{"a shared ResourceClaim in server_k8s_config", `{"k8s": {"server_k8s_config": {"pod_spec_config": {"resource_claims": [{"name": "g", "resource_claim_name": "gpus"}]}}}}`,
			[]string{`resource-claim ` + at + `k8s.server_k8s_config.pod_spec_config.resourceClaims[0].resourceClaimName: claim "g" uses the ResourceClaim "gpus"`}},
		{"a denied annotation on the run pods", `{"k8s": {"run_k8s_config": {"pod_template_spec_metadata": {"annotations": {"nginx.ingress.kubernetes.io/server-snippet": "s3cr3t"}}}}}`,
			[]string{`policy-annotation-denied ` + at + `k8s.run_k8s_config.pod_template_spec_metadata.annotations.nginx.ingress.kubernetes.io/server-snippet: annotation nginx.ingress.kubernetes.io/server-snippet configures`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := consumeInstance(t, nil)
			got := policytest.Codes(check(t, containerContextRule{}, in, policytest.ParseObjects(t, contextPod(env, tt.ctx))))
			if len(got) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) || strings.Contains(got[i], "s3cr3t") {
					t.Errorf("problem %d:\n got %s\nwant %s...", i, got[i], tt.want[i])
				}
			}
		})
	}
}
