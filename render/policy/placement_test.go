package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/validate"
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
	pod := func(spec string) string { return consumePod(spec + "\n  containers: [{name: a, image: x}]") }
	listed := func(p *validate.Policy) {
		p.Tolerations = []validate.Toleration{{Key: "dedicated", Value: "data", Effect: "NoSchedule"}, {Key: "gpu"}}
		p.NodeLabels = []string{"topology.kubernetes.io/zone", "dedicated=data"}
	}
	for _, tc := range []struct {
		name, stream string
		policy       func(*validate.Policy)
		want         []string
	}{
		{"the control-plane's taint", pod("  tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}]"), listed,
			[]string{"placement-toleration Pod/citation-pod.spec.tolerations[0]"}},
		{"every taint", pod("  tolerations: [{operator: Exists}]"), listed, []string{"placement-toleration Pod/citation-pod.spec.tolerations[0]"}},
		{"Kubernetes' own not-ready toleration", pod("  tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}]"), nil, nil},
		{"a listed taint, value and effect", pod("  tolerations: [{key: dedicated, value: data, effect: NoSchedule}, {key: gpu, operator: Exists}]"), listed, nil},
		{"a listed taint, any value asked where one is listed", pod("  tolerations: [{key: dedicated, operator: Exists, effect: NoSchedule}]"), listed,
			[]string{"placement-toleration Pod/citation-pod.spec.tolerations[0]"}},
		{"a listed taint, every effect where one is listed", pod("  tolerations: [{key: dedicated, value: data}]"), listed,
			[]string{"placement-toleration Pod/citation-pod.spec.tolerations[0]"}},
		{"nothing listed", pod("  tolerations: [{key: dedicated, value: data, effect: NoSchedule}]"), nil,
			[]string{"placement-toleration Pod/citation-pod.spec.tolerations[0]"}},
		{"nodeSelector, listed and not", pod("  nodeSelector: {topology.kubernetes.io/zone: a, dedicated: data, node-role.kubernetes.io/control-plane: \"\"}"), listed,
			[]string{"placement-node-selector Pod/citation-pod.spec.nodeSelector.node-role.kubernetes.io/control-plane"}},
		{"nodeSelector, another value", pod("  nodeSelector: {dedicated: finance}"), listed, []string{"placement-node-selector Pod/citation-pod.spec.nodeSelector.dedicated"}},
		{"required node affinity", pod(`  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - {key: topology.kubernetes.io/zone, operator: In, values: [a, b]}
              - {key: team, operator: Exists}
              - {key: dedicated, operator: NotIn, values: [finance]}
            matchFields: [{key: metadata.name, operator: In, values: [control-plane-1]}]
      preferredDuringSchedulingIgnoredDuringExecution:
        - {weight: 1, preference: {matchExpressions: [{key: team, operator: In, values: [x]}]}}`), listed,
			[]string{"placement-node-name Pod/citation-pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0]",
				"placement-node-selector Pod/citation-pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1]"}},
		{"anti-affinity on another code-location's pods", pod(`  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        - {topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {codeloc.dev/code-location: mediawatch}}}
        - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {codeloc.dev/code-location: citation, app: x}}}
        - {topologyKey: kubernetes.io/hostname, labelSelector: {matchExpressions: [{key: codeloc.dev/code-location, operator: In, values: [citation]}]}}
        - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}
        - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {codeloc.dev/code-location: citation}}, namespaceSelector: {}}
      preferredDuringSchedulingIgnoredDuringExecution:
        - {weight: 1, podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}}`), nil,
			[]string{"placement-pod-spread Pod/citation-pod.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]",
				"placement-pod-spread Pod/citation-pod.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[3]",
				"placement-pod-spread Pod/citation-pod.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[4]"}},
		{"topology spread", pod(`  topologySpreadConstraints:
    - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}
    - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: web}}}
    - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {codeloc.dev/code-location: citation}}}`), nil,
			[]string{"placement-pod-spread Pod/citation-pod.spec.topologySpreadConstraints[0]"}},
		{"no node named", consumePod("  containers: [{name: a, image: x}]"), nil, nil},
		{"a Pod names its node", consumePod("  nodeName: control-plane-1\n  containers: [{name: a, image: x}]"), nil,
			[]string{"placement-node-name Pod/citation-pod.spec.nodeName"}},
		{"an empty nodeName leaves it to the scheduler", consumePod("  nodeName: \"\"\n  containers: [{name: a, image: x}]"), nil, nil},
		{"a CronJob's pod template names its node", cronJob, nil,
			[]string{"placement-node-name CronJob/citation-nightly.spec.jobTemplate.spec.template.spec.nodeName"}},
		{"a refused kind is left to scopeRule", "apiVersion: v1\nkind: Node\nmetadata: {name: citation-n}\nspec: {nodeName: x}\n", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := codesAndPaths(check(t, placementRule{}, kindsInstance(t, tc.policy), parseObjects(t, tc.stream)))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
