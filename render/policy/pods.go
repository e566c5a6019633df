package policy

import (
	"strings"

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
