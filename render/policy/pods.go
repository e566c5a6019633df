package policy

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// podSpec returns the pod spec of a workload and its field path.
func podSpec(o *yaml.RNode) (*yaml.RNode, string) {
	var path []string
	switch o.GetKind() {
	case "Pod":
		path = []string{"spec"}
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "ReplicationController":
		path = []string{"spec", "template", "spec"}
	case "CronJob":
		path = []string{"spec", "jobTemplate", "spec", "template", "spec"}
	default:
		return nil, ""
	}
	n, err := o.Pipe(yaml.Lookup(path...))
	if err != nil || n == nil {
		return nil, ""
	}
	return n, strings.Join(path, ".")
}

// podTemplatePath is the path of a workload's pod template.
func podTemplatePath(kind string) []string {
	if kind == "CronJob" {
		return []string{"spec", "jobTemplate", "spec", "template"}
	}
	return []string{"spec", "template"}
}

// containerFields are the pod spec's lists of containers.
var containerFields = []string{"initContainers", "containers", "ephemeralContainers"}

// workloadPod is a workload's pod spec, decoded, and its field path.
type workloadPod struct {
	o    *yaml.RNode
	spec *corev1.PodSpec
	path string
}

// decodedPods are the pod specs of the objects the rules look at (not
// those scopeRule refuses), decoded once per render (podSpecOf).
func (in *Context) decodedPods(objs []*yaml.RNode) []workloadPod {
	var out []workloadPod
	for _, o := range objs {
		if handledByPolicy(o) {
			continue
		}
		n, path := podSpec(o)
		if n == nil {
			continue
		}
		if spec, ok, _ := in.podSpecOf(n); ok {
			out = append(out, workloadPod{o, spec, path})
		}
	}
	return out
}
