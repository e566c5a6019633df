package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

// requestsDeployment is a Deployment of replicas ("" leaves it unset)
// whose one container requests cpu and memory ("" leaves one out).
func requestsDeployment(name, replicas, cpu, memory string) string {
	doc := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + "}\nspec:\n"
	if replicas != "" {
		doc += "  replicas: " + replicas + "\n"
	}
	doc += "  template:\n    spec:\n      containers:\n        - name: app\n          image: registry:80/citation-dagster:a3f9c1d\n"
	return doc + "          resources:\n            requests: {" + requestsList(cpu, memory) + "}\n"
}

func requestsList(cpu, memory string) string {
	var l []string
	if cpu != "" {
		l = append(l, "cpu: "+cpu)
	}
	if memory != "" {
		l = append(l, "memory: "+memory)
	}
	return strings.Join(l, ", ")
}

// requestsJob is a Job whose one container requests cpu and memory.
func requestsJob(name, cpu, memory string) string {
	return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: " + name + "}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n" +
		"      containers:\n        - name: run\n          image: registry:80/citation-dagster:a3f9c1d\n" +
		"          resources: {requests: {" + requestsList(cpu, memory) + "}}\n"
}

func requestsHPA(name, target string, maxReplicas int) string {
	return fmt.Sprintf("apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: %s}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: %s}\n  minReplicas: 1\n  maxReplicas: %d\n", name, target, maxReplicas)
}

func TestCheckRequests(t *testing.T) {
	const dagster = "Deployment/citation-dagster.spec.template.spec"
	join := func(docs ...string) string { return strings.Join(docs, "---\n") }
	tests := []struct {
		name, objects string
		want          []string
	}{
		{name: "two replicas within the declared 500m and 1Gi", objects: requestsDeployment("citation-dagster", "2", "250m", "512Mi")},
		{name: "3 × 2 cpu", objects: requestsDeployment("citation-dagster", "3", "2", "256Mi"), want: []string{
			"requests-over-declared " + dagster + ": pods request 6 cpu in all (Deployment/citation-dagster: 3 × 2), more than the declared resources.cpu 500m",
		}},
		{name: "unset replicas is 1; both over", objects: requestsDeployment("citation-dagster", "", "600m", "1.5Gi"), want: []string{
			"requests-over-declared " + dagster + ": pods request 600m cpu in all (Deployment/citation-dagster: 1 × 600m), more than the declared resources.cpu 500m",
			"requests-over-declared " + dagster + ": pods request 1536Mi memory in all (Deployment/citation-dagster: 1 × 1536Mi), more than the declared resources.memory 1Gi",
		}},
		{name: "workloads add up, named largest first, at the largest", objects: join(
			requestsDeployment("citation-a", "1", "100m", "128Mi"),
			requestsDeployment("citation-b", "2", "200m", "128Mi"),
			"apiVersion: v1\nkind: Pod\nmetadata: {name: citation-c}\nspec:\n  containers:\n    - {name: c, image: registry:80/busybox:1.36, resources: {requests: {cpu: 50m, memory: 1Mi}}}\n",
		), want: []string{
			"requests-over-declared Deployment/citation-b.spec.template.spec: pods request 550m cpu in all (Deployment/citation-b: 2 × 200m, Deployment/citation-a: 1 × 100m, Pod/citation-c: 1 × 50m), more than the declared resources.cpu 500m",
		}},
		{name: "an HPA counts at maxReplicas", objects: join(requestsDeployment("citation-dagster", "1", "200m", "256Mi"), requestsHPA("citation-dagster", "citation-dagster", 4)), want: []string{
			"requests-over-declared " + dagster + ": pods request 800m cpu in all (Deployment/citation-dagster: 4 × 200m at HorizontalPodAutoscaler/citation-dagster's maxReplicas), more than the declared resources.cpu 500m",
		}},
		{name: "an HPA of another workload does not count", objects: join(requestsDeployment("citation-dagster", "1", "200m", "256Mi"), requestsHPA("citation-x", "citation-other", 4))},
		{name: "replicas 0", objects: requestsDeployment("citation-dagster", "0", "4", "4Gi")},
		{name: "missing requests, per container; a Job may omit them", objects: `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: citation-db}
spec:
  template:
    spec:
      initContainers:
        - {name: init, image: registry:80/busybox:1.36, resources: {requests: {memory: 64Mi}}}
      containers:
        - {name: db, image: registry:80/busybox:1.36}
        - {name: ok, image: registry:80/busybox:1.36, resources: {requests: {cpu: 10m, memory: 10Mi}}}
        - {name: zero, image: registry:80/busybox:1.36, resources: {requests: {cpu: "0", memory: 10Mi}}}
        - {name: limits, image: registry:80/busybox:1.36, resources: {limits: {cpu: 10m, memory: 10Mi}}}
      ephemeralContainers:
        - {name: debug, image: registry:80/busybox:1.36}
---
` + requestsJob("citation-seed", "", ""), want: []string{
			`requests-missing StatefulSet/citation-db.spec.template.spec.initContainers[0].resources.requests: container "init" requests no cpu`,
			`requests-missing StatefulSet/citation-db.spec.template.spec.containers[0].resources.requests: container "db" requests no cpu and no memory`,
			`requests-missing StatefulSet/citation-db.spec.template.spec.containers[2].resources.requests: container "zero" requests no cpu`,
		}},
		{name: "a value that is no quantity is wellFormedRule's", objects: requestsDeployment("citation-dagster", "1", "lots", "1Mi")},
		{name: "a Job pod over the declared amounts; Jobs are not summed", objects: join(
			requestsDeployment("citation-dagster", "1", "400m", "512Mi"),
			requestsJob("citation-seed", "2", "512Mi"),
			requestsJob("citation-small", "400m", "512Mi"),
		), want: []string{
			"requests-over-declared Job/citation-seed.spec.template.spec: a pod of this Job requests 2 cpu, more than the declared resources.cpu 500m",
		}},
		{name: "a CronJob pod", objects: `apiVersion: batch/v1
kind: CronJob
metadata: {name: citation-refresh}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
            - {name: run, image: registry:80/busybox:1.36, resources: {requests: {cpu: 100m, memory: 2Gi}}}
`, want: []string{
			"requests-over-declared CronJob/citation-refresh.spec.jobTemplate.spec.template.spec: a pod of this CronJob requests 2Gi memory, more than the declared resources.memory 1Gi",
		}},
		{name: "pod-level requests budget containers that request none", objects: `apiVersion: apps/v1
kind: Deployment
metadata: {name: citation-dagster}
spec:
  template:
    spec:
      resources: {requests: {cpu: 300m, memory: 256Mi}}
      containers:
        - {name: app, image: registry:80/citation-dagster:a3f9c1d}
        - {name: log, image: registry:80/busybox:1.36}
`},
		{name: "pod-level requests replace the containers' sum, over the declared", objects: `apiVersion: apps/v1
kind: Deployment
metadata: {name: citation-dagster}
spec:
  replicas: 2
  template:
    spec:
      resources: {requests: {cpu: "2"}, limits: {memory: 2Gi}}
      containers:
        - {name: app, image: registry:80/citation-dagster:a3f9c1d, resources: {requests: {cpu: 10m}}}
`, want: []string{
			"requests-over-declared " + dagster + ": pods request 4 cpu in all (Deployment/citation-dagster: 2 × 2), more than the declared resources.cpu 500m",
			"requests-over-declared " + dagster + ": pods request 4Gi memory in all (Deployment/citation-dagster: 2 × 2Gi), more than the declared resources.memory 1Gi",
		}},
		{name: "parallel Job pods add up, as many as completions allow", objects: join(
			strings.Replace(requestsJob("citation-fan", "200m", "256Mi"), "spec:\n", "spec:\n  parallelism: 4\n", 1),
			strings.Replace(requestsJob("citation-two", "200m", "256Mi"), "spec:\n", "spec:\n  parallelism: 10\n  completions: 2\n", 1),
		), want: []string{
			"requests-over-declared Job/citation-fan.spec.parallelism: runs 4 pods at once (parallelism), 800m cpu together, more than the declared resources.cpu 500m",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := podRuleInstance(t, nil)
			got := podRuleLines(check(t, requestRule{}, in, parseObjects(t, tt.objects)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequestsListsFiveWorkloads(t *testing.T) {
	var docs []string
	for i := range 7 {
		docs = append(docs, requestsDeployment(fmt.Sprintf("citation-%d", i), "1", fmt.Sprintf("%dm", 100+i), "1Mi"))
	}
	in := podRuleInstance(t, nil)
	got := podRuleLines(check(t, requestRule{}, in, parseObjects(t, strings.Join(docs, "---\n"))))
	want := []string{"requests-over-declared Deployment/citation-6.spec.template.spec: pods request 721m cpu in all (" +
		"Deployment/citation-6: 1 × 106m, Deployment/citation-5: 1 × 105m, Deployment/citation-4: 1 × 104m, " +
		"Deployment/citation-3: 1 × 103m, Deployment/citation-2: 1 × 102m, and 2 more), more than the declared resources.cpu 500m"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestRequestsHints(t *testing.T) {
	in := podRuleInstance(t, nil)
	tests := []struct{ objects, want string }{
		{requestsDeployment("citation-dagster", "3", "1", "1Mi"), "lower the replicas or the containers' cpu requests to fit 500m, or declare resources.cpu: 3"},
		{requestsDeployment("citation-dagster", "3", "2", "1Mi"), "lower the replicas or the containers' cpu requests to fit 500m: the cluster's budget allows a code-location at most 4 cpu"},
		{requestsJob("citation-seed", "1", "1Mi"), "lower its containers' cpu requests to 500m in all, or declare resources.cpu: 1"},
		{requestsJob("citation-seed", "1m", "17Gi"), "lower its containers' memory requests to 1Gi in all: the cluster's budget allows a code-location at most 16Gi memory"},
		{requestsDeployment("citation-dagster", "1", "", "1Mi"), "set resources.requests.cpu and resources.requests.memory, above 0, on every container: the declaration's resources.cpu and resources.memory are what the pods request in all"},
	}
	for _, tt := range tests {
		ps := check(t, requestRule{}, in, parseObjects(t, tt.objects))
		if len(ps) != 1 || ps[0].Hint != tt.want {
			t.Errorf("problems %v, want one with hint %q", ps, tt.want)
		}
	}
}

// TestPodRequest follows Kubernetes' effective request of a pod (KEP-753).
func TestPodRequest(t *testing.T) {
	c := func(name, cpu, extra string) string {
		return fmt.Sprintf("    - {name: %s, image: x, %sresources: {requests: {cpu: %s, memory: 1Mi}}}\n", name, extra, cpu)
	}
	const always = "restartPolicy: Always, "
	tests := []struct {
		name, init, containers, want string
	}{
		{"containers add up", "", c("a", "100m", "") + c("b", "200m", ""), "300m"},
		{"an init container needing more wins", c("i", "1", ""), c("a", "100m", "") + c("b", "200m", ""), "1"},
		{"init containers run one at a time", c("i", "200m", "") + c("j", "250m", ""), c("a", "100m", ""), "250m"},
		{"a sidecar adds to the containers", c("s", "50m", always), c("a", "100m", ""), "150m"},
		{"an init container runs beside the sidecars before it", c("s", "50m", always) + c("i", "500m", "") + c("t", "25m", always), c("a", "100m", ""), "550m"},
		{"a limit alone is the request", "", "    - {name: a, image: x, resources: {limits: {cpu: 300m}}}\n", "300m"},
		{"nothing requested", "", "    - {name: a, image: x}\n", "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := "initContainers:\n" + tt.init + "containers:\n" + tt.containers
			if tt.init == "" {
				spec = "containers:\n" + tt.containers
			}
			objs := parseObjects(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  "+strings.ReplaceAll(strings.TrimSuffix(spec, "\n"), "\n", "\n  ")+"\n")
			pod, _ := podSpec(objs[0])
			got := podRequest(pod)[corev1.ResourceCPU]
			if got.String() != tt.want {
				t.Errorf("cpu %s, want %s", got.String(), tt.want)
			}
		})
	}
}
