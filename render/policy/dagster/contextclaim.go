package dagster

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/policy"
)

// contextClaimRule refuses a container context that hands its run pods
// the code-location's claim <codeLocation>-data: codeloc makes it
// ReadWriteOnce on the contract's block storage, attached to one node at a
// time, so a run pod scheduled on another node than the code server waits
// on a Multi-Attach error and the run never starts. The Dagster chart
// copies every volume of a user deployment into its container context,
// the code server's claim included.
type contextClaimRule struct{}

// CodeContextRWOClaim is contextClaimRule's code: stable, fixtures and
// scripts name it.
const CodeContextRWOClaim = "container-context-rwo-claim"

// Codes are the codes contextClaimRule emits.
func (contextClaimRule) Codes() []policy.Code {
	return []policy.Code{
		{Name: CodeContextRWOClaim, Doc: "A Dagster container context hands its run pods the code-location's ReadWriteOnce block claim <codeLocation>-data: a run pod on another node than the code server fails to attach it (Multi-Attach) and never starts."},
	}
}

func (contextClaimRule) Check(in *policy.Context, objs []*yaml.RNode) problem.Problems {
	d := in.Declaration()
	if !d.Resources.Disk.Set {
		return nil // any claim is consume-volume-claim's
	}
	data := names.DataClaimName(d.CodeLocation)
	var ps problem.Problems
	for _, c := range decodedContexts(in, objs) {
		for _, v := range runPodVolumesAt(c.k) {
			if pvc := v.v.PersistentVolumeClaim; pvc == nil || pvc.ClaimName != data {
				continue
			}
			ps = append(ps, c.problem(in, CodeContextRWOClaim, v.field+".persistentVolumeClaim.claimName",
				fmt.Sprintf("hands every run pod the claim %s, ReadWriteOnce block storage (%s) attached to one node at a time: a run pod on another node than the code server fails with a Multi-Attach error", data, in.Contract().BlockStorage.StorageClass),
				fmt.Sprintf("keep volume %s off the container context, in the code server's own pod spec only; share what runs read or write through a declared bucket (dependsOn.buckets), or a ReadWriteMany claim the platform provides", v.v.Name)))
		}
	}
	return ps
}
