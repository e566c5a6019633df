package dagster

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/policy"
)

// contextMountRule refuses a container context whose run pods would mount
// a volume they do not have: Dagster puts every volume_mounts entry into
// the run pod's containers and the context's volumes (with the run
// launcher's, the contract's dagster.runLauncher.volumes) into its pod,
// and the API server refuses a Job whose mount names no volume of its pod:
// every run of the code-location fails to launch.
type contextMountRule struct{}

// CodeContextMount is contextMountRule's code: stable, fixtures and
// scripts name it.
const CodeContextMount = "container-context-mount"

// Codes are the codes contextMountRule emits.
func (contextMountRule) Codes() []policy.Code {
	return []policy.Code{
		{Name: CodeContextMount, Doc: "A Dagster container context's volume_mounts entry names no volume of the context (volumes, run_k8s_config.pod_spec_config.volumes) nor of the platform's run launcher (the contract's dagster.runLauncher.volumes): the API server refuses every run Job."},
	}
}

func (contextMountRule) Check(in *policy.Context, objs []*yaml.RNode) problem.Problems {
	launcher := in.Contract().Dagster.RunLauncher
	var ps problem.Problems
	for _, c := range decodedContexts(in, objs) {
		volumes := map[string]bool{}
		var have []string
		for _, v := range runPodVolumesAt(c.k) {
			volumes[v.v.Name] = true
			have = append(have, v.v.Name)
		}
		for _, v := range launcher.Volumes {
			have = append(have, v.Name+" (the run launcher's)")
		}
		for _, m := range runPodMounts(c.k) {
			if volumes[m.name] || launcher.HasVolume(m.name) {
				continue
			}
			ps = append(ps, c.problem(in, CodeContextMount, m.field,
				fmt.Sprintf("mounts volume %q, which the run pods do not have: the API server refuses every run's Job", m.name),
				fmt.Sprintf("add a volume named %s to the context's volumes, or mount one the run pods have: %s", m.name, listOrNone(have))))
		}
	}
	return ps
}

// runPodVolumeAt is a run pod's volume and its field in the context.
type runPodVolumeAt struct {
	v     corev1.Volume
	field string
}

// runPodVolumesAt are the volumes a context puts into its run pods, each
// at its field: its volumes and run_k8s_config's pod_spec_config volumes
// (dagster_k8s/job.py).
func runPodVolumesAt(k *k8sContext) []runPodVolumeAt {
	var out []runPodVolumeAt
	for i, v := range k.volumes {
		out = append(out, runPodVolumeAt{v, fmt.Sprintf("k8s.volumes[%d]", i)})
	}
	if k.run.pod != nil {
		for i, v := range k.run.pod.Volumes {
			out = append(out, runPodVolumeAt{v, fmt.Sprintf("k8s.run_k8s_config.pod_spec_config.volumes[%d]", i)})
		}
	}
	return out
}

// runPodMounts are the volume mounts of a context's run pods, each at its
// field: the top level's and container_config's (the run's container),
// and those of pod_spec_config's containers and init containers.
func runPodMounts(k *k8sContext) []fieldName {
	var out []fieldName
	add := func(mounts []corev1.VolumeMount, path string) {
		for i, m := range mounts {
			out = append(out, fieldName{fmt.Sprintf("%s[%d].name", path, i), m.Name})
		}
	}
	add(k.volumeMounts, "k8s.volume_mounts")
	if c := k.run.container; c != nil {
		add(c.VolumeMounts, "k8s.run_k8s_config.container_config.volume_mounts")
	}
	if p := k.run.pod; p != nil {
		for i, c := range p.InitContainers {
			add(c.VolumeMounts, fmt.Sprintf("k8s.run_k8s_config.pod_spec_config.init_containers[%d].volume_mounts", i))
		}
		for i, c := range p.Containers {
			add(c.VolumeMounts, fmt.Sprintf("k8s.run_k8s_config.pod_spec_config.containers[%d].volume_mounts", i))
		}
	}
	return out
}

// listOrNone is names in a hint, "none" when there are none.
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
