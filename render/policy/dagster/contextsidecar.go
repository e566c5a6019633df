package dagster

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/policy"
)

// contextSidecarRule refuses a container context whose
// run_k8s_config.pod_spec_config.containers adds containers to every run
// pod beside the run's own (dagster_k8s/job.py appends them): a run's Job
// succeeds when every container of its pod has ended, and a sidecar
// (a proxy, a log shipper) serves until it is stopped, so the run pod never
// completes. The Dagster chart copies a user deployment's sidecars into
// its container context.
type contextSidecarRule struct{}

// CodeContextSidecar is contextSidecarRule's code: stable, fixtures and
// scripts name it.
const CodeContextSidecar = "container-context-sidecar"

// Codes are the codes contextSidecarRule emits.
func (contextSidecarRule) Codes() []policy.Code {
	return []policy.Code{
		{Name: CodeContextSidecar, Doc: "A Dagster container context adds containers to every run pod (run_k8s_config.pod_spec_config.containers): a sidecar never ends, so the run pods never complete."},
	}
}

func (contextSidecarRule) Check(in *policy.Context, objs []*yaml.RNode) problem.Problems {
	var ps problem.Problems
	for _, c := range decodedContexts(in, objs) {
		if c.k.run.pod == nil {
			continue
		}
		for i, ct := range c.k.run.pod.Containers {
			ps = append(ps, c.problem(in, CodeContextSidecar, fmt.Sprintf("k8s.run_k8s_config.pod_spec_config.containers[%d]", i),
				fmt.Sprintf("adds container %q to every run pod beside the run's: a run pod completes when all its containers end, and a sidecar serves until it is stopped, so the run pods never complete", ct.Name),
				"remove it from the container context, keeping it in the code server's own pod spec; if the runs need it, make it a native sidecar, an init container with restartPolicy: Always in pod_spec_config.init_containers, which Kubernetes stops when the run ends"))
		}
	}
	return ps
}
