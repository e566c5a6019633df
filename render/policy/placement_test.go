package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPlacementRule(t *testing.T) {
	cronJob := `apiVersion: batch/v1
kind: CronJob
metadata: {name: citation-nightly}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          nodeName: node-7
          containers: [{name: run, image: registry:80/citation-dagster:a3f9c1d}]
`
	for _, tc := range []struct {
		name, stream string
		want         []string
	}{
		{"no node named", consumePod("  containers: [{name: a, image: x}]"), nil},
		{"a Pod names its node", consumePod("  nodeName: control-plane-1\n  containers: [{name: a, image: x}]"),
			[]string{"placement-node-name Pod/citation-pod.spec.nodeName"}},
		{"an empty nodeName leaves it to the scheduler", consumePod("  nodeName: \"\"\n  containers: [{name: a, image: x}]"), nil},
		{"a CronJob's pod template names its node", cronJob,
			[]string{"placement-node-name CronJob/citation-nightly.spec.jobTemplate.spec.template.spec.nodeName"}},
		{"a refused kind is left to scopeRule", "apiVersion: v1\nkind: Node\nmetadata: {name: citation-n}\nspec: {nodeName: x}\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := codesAndPaths(check(t, placementRule{}, kindsInstance(t, nil), parseObjects(t, tc.stream)))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
