package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckQuantities(t *testing.T) {
	const negative = ": the API server refuses it, and codeloc's budget would subtract it from the other containers' requests"
	const refused = ": the API server refuses it"
	tests := []struct {
		name, objects string
		want          []string
	}{
		{name: "positive requests and limits, zero, a size limit", objects: `apiVersion: apps/v1
kind: Deployment
metadata: {name: citation-dagster}
spec:
  template:
    spec:
      containers:
        - name: app
          resources: {requests: {cpu: 250m, memory: 512Mi}, limits: {memory: 1Gi, cpu: "0"}}
      volumes:
        - {name: tmp, emptyDir: {sizeLimit: 64Mi}}
`},
		{name: "a negative request offsets the others in the budget", objects: requestsDeployment("citation-dagster", "1", "-2", "512Mi"), want: []string{
			"quantity-negative Deployment/citation-dagster.spec.template.spec.containers[0].resources.requests.cpu: -2 is negative" + negative,
		}},
		{name: "every container list, requests and limits, any resource", objects: `apiVersion: v1
kind: Pod
metadata: {name: citation-pod}
spec:
  initContainers:
    - name: init
      resources: {limits: {memory: -1Gi}}
  containers:
    - name: app
      resources: {requests: {cpu: 100m, memory: -64Mi, ephemeral-storage: -1, example.com/gpu: "-1"}}
  ephemeralContainers:
    - name: debug
      resources: {requests: {cpu: -0.5}}
  volumes:
    - {name: tmp, emptyDir: {sizeLimit: -1Gi}}
    - {name: ok, emptyDir: {}}
  overhead: {cpu: -10m}
`, want: []string{
			"quantity-negative Pod/citation-pod.spec.initContainers[0].resources.limits.memory: -1Gi is negative" + negative,
			"quantity-negative Pod/citation-pod.spec.containers[0].resources.requests.ephemeral-storage: -1 is negative" + negative,
			"quantity-negative Pod/citation-pod.spec.containers[0].resources.requests.example.com/gpu: -1 is negative" + negative,
			"quantity-negative Pod/citation-pod.spec.containers[0].resources.requests.memory: -64Mi is negative" + negative,
			"quantity-negative Pod/citation-pod.spec.ephemeralContainers[0].resources.requests.cpu: -500m is negative" + refused,
			"quantity-negative Pod/citation-pod.spec.volumes[0].emptyDir.sizeLimit: -1Gi is negative" + refused,
			"quantity-negative Pod/citation-pod.spec.overhead.cpu: -10m is negative" + refused,
		}},
		{name: "a CronJob's pod", objects: `apiVersion: batch/v1
kind: CronJob
metadata: {name: citation-nightly}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
            - {name: run, resources: {limits: {cpu: "-1000m"}}}
`, want: []string{
			"quantity-negative CronJob/citation-nightly.spec.jobTemplate.spec.template.spec.containers[0].resources.limits.cpu: -1 is negative" + negative,
		}},
		{name: "minus zero is zero", objects: requestsDeployment("citation-dagster", "1", "-0", "-0Mi")},
		{name: "not a quantity: wellFormedRule's", objects: requestsDeployment("citation-dagster", "1", "-lots", "512Mi")},
		{name: "a kind the cluster provides: scopeRule's", objects: `apiVersion: v1
kind: LimitRange
metadata: {name: citation-limits}
spec: {limits: [{type: Container, default: {cpu: -1}}]}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := podRuleInstance(t, nil)
			got := podRuleLines(check(t, quantityRule{}, in, parseObjects(t, tt.objects)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestQuantityHints: each kind of quantity says what to write instead.
func TestQuantityHints(t *testing.T) {
	objects := `apiVersion: v1
kind: Pod
metadata: {name: citation-pod}
spec:
  containers:
    - {name: app, resources: {requests: {cpu: -1}}}
  volumes:
    - {name: tmp, emptyDir: {sizeLimit: -1Gi}}
  overhead: {memory: -1Mi}
`
	var got []string
	for _, p := range check(t, quantityRule{}, podRuleInstance(t, nil), parseObjects(t, objects)) {
		got = append(got, p.Hint)
	}
	want := []string{
		"write a positive quantity (such as 250m or 512Mi), or leave the resource out",
		"write a positive size (such as 1Gi), or leave sizeLimit out",
		"leave overhead out: the RuntimeClass sets it",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hints (-want +got):\n%s", diff)
	}
}
