package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/validate"
)

// scopingDeployment is citation's Deployment, the target the autoscalers
// and backends of the cases may name.
const scopingDeployment = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: citation}
spec:
  selector: {matchLabels: {app: citation}}
  template: {metadata: {labels: {app: citation}}}
---
apiVersion: v1
kind: Service
metadata: {name: citation}
spec: {selector: {app: citation}, ports: [{name: grpc, port: 3030}]}
---
`

func TestCheckScoping(t *testing.T) {
	tests := []struct {
		name   string
		policy func(*validate.Policy)
		stream string
		want   []string
	}{
		{"pods labelled as another code-location's run pods", nil, `
apiVersion: v1
kind: Pod
metadata: {name: citation-a, labels: {dagster/code-location: mediawatch}}
spec: {containers: [{name: c, image: x}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: citation-b}
spec:
  schedule: "0 0 * * *"
  jobTemplate:
    spec:
      template:
        metadata: {labels: {dagster/code-location: citation-other}}
        spec: {restartPolicy: Never, containers: [{name: c, image: x}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: citation-c, labels: {dagster/code-location: mediawatch}}
spec:
  selector: {matchLabels: {app: c}}
  template:
    metadata: {labels: {app: c, dagster/code-location: citation}}
    spec: {containers: [{name: c, image: x}]}
`, []string{
			"scope-pod-label CronJob/citation-b.spec.jobTemplate.spec.template.metadata.labels.dagster/code-location",
			"scope-pod-label Pod/citation-a.metadata.labels.dagster/code-location",
		}},
		{"own selectors, targets and backends pass", nil, `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: citation-deny}
spec: {podSelector: {}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: citation}
spec:
  maxUnavailable: 0
  selector:
    matchLabels: {app: citation, codeloc.dev/code-location: citation, dagster/code-location: citation}
    matchExpressions:
      - {key: codeloc.dev/code-location, operator: In, values: [citation]}
      - {key: dagster/code-location, operator: Exists}
      - {key: app, operator: NotIn, values: [mediawatch]}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: citation}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: citation}, maxReplicas: 2}
---
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: citation-v1}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: citation}, maxReplicas: 2}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: citation}
spec:
  ingressClassName: nginx
  defaultBackend: {service: {name: citation, port: {number: 3030}}}
  rules:
    - host: citation.example.com
      http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: citation, port: {name: grpc}}}}]}
    - host: rules-without-http.example.com
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: citation}
spec:
  parentRefs: [{name: platform-gateway, namespace: gateways}]
  rules:
    - backendRefs: [{name: citation, port: 3030}, {name: citation, namespace: dagster, port: 3030}]
---
apiVersion: v1
kind: Service
metadata: {name: citation-manual}
spec: {ports: [{port: 80}]}
`, nil},
		{"Service selecting another code-location's pods", nil, `
apiVersion: v1
kind: Service
metadata: {name: citation-spy}
spec: {selector: {app: mediawatch, codeloc.dev/code-location: mediawatch}}
---
apiVersion: v1
kind: Service
metadata: {name: citation-runs}
spec: {selector: {dagster/code-location: mediawatch}}
`, []string{
			"scope-selector Service/citation-runs.spec.selector.dagster/code-location",
			"scope-selector Service/citation-spy.spec.selector.codeloc.dev/code-location",
		}},
		{"expressions that reach beyond", nil, `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: citation}
spec:
  maxUnavailable: 0
  selector:
    matchExpressions:
      - {key: codeloc.dev/code-location, operator: NotIn, values: [citation]}
      - {key: codeloc.dev/code-location, operator: DoesNotExist}
      - {key: dagster/code-location, operator: In, values: [citation, mediawatch]}
      - {key: dagster/code-location, operator: In, values: []}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: citation-deny}
spec:
  podSelector: {matchLabels: {codeloc.dev/code-location: ""}}
`, []string{
			"scope-selector NetworkPolicy/citation-deny.spec.podSelector.matchLabels.codeloc.dev/code-location",
			"scope-selector PodDisruptionBudget/citation.spec.selector.matchExpressions[0]",
			"scope-selector PodDisruptionBudget/citation.spec.selector.matchExpressions[1]",
			"scope-selector PodDisruptionBudget/citation.spec.selector.matchExpressions[2]",
			"scope-selector PodDisruptionBudget/citation.spec.selector.matchExpressions[3]",
		}},
		{"workload selectors, left alone but checked", nil, `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: citation-db}
spec:
  selector: {matchLabels: {codeloc.dev/code-location: mediawatch}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: citation-nightly}
spec:
  jobTemplate:
    spec:
      selector: {matchExpressions: [{key: codeloc.dev/code-location, operator: NotIn, values: [citation]}]}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: citation-rc}
spec: {selector: {dagster/code-location: mediawatch}}
`, []string{
			"scope-selector CronJob/citation-nightly.spec.jobTemplate.spec.selector.matchExpressions[0]",
			"scope-selector ReplicationController/citation-rc.spec.selector.dagster/code-location",
			"scope-selector StatefulSet/citation-db.spec.selector.matchLabels.codeloc.dev/code-location",
		}},
		{"NetworkPolicy peers left alone", nil, `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: citation-from-mediawatch}
spec:
  podSelector: {}
  ingress: [{from: [{podSelector: {matchLabels: {codeloc.dev/code-location: mediawatch}}}]}]
`, nil},
		{"autoscalers of objects the render does not ship", nil, `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: citation-other}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: mediawatch}, maxReplicas: 1}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: citation-group}
spec: {scaleTargetRef: {apiVersion: example.com/v1, kind: Deployment, name: citation}, maxReplicas: 1}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: citation-noversion}
spec: {scaleTargetRef: {kind: Deployment, name: citation}, maxReplicas: 1}
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: citation-keda}
spec: {scaleTargetRef: {name: mediawatch}}
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: citation-keda-own}
spec: {scaleTargetRef: {name: citation}}
---
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {name: citation-vpa}
spec: {targetRef: {apiVersion: apps/v1, kind: Deployment, name: mediawatch}}
`, []string{
			"scope-target HorizontalPodAutoscaler/citation-group.spec.scaleTargetRef",
			"scope-target HorizontalPodAutoscaler/citation-noversion.spec.scaleTargetRef",
			"scope-target HorizontalPodAutoscaler/citation-other.spec.scaleTargetRef",
			"scope-target ScaledObject/citation-keda.spec.scaleTargetRef",
			"scope-target VerticalPodAutoscaler/citation-vpa.spec.targetRef",
		}},
		{"Ingress backends the render does not ship", nil, `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: citation}
spec:
  defaultBackend: {resource: {apiGroup: k8s.example.com, kind: StorageBucket, name: static}}
  rules:
    - http:
        paths:
          - {path: /, pathType: Prefix, backend: {service: {name: citation, port: {number: 3030}}}}
          - {path: /m, pathType: Prefix, backend: {service: {name: mediawatch, port: {number: 3030}}}}
          - {path: /d, pathType: Prefix, backend: {service: {name: dagster-webserver, port: {number: 80}}}}
          - {path: /r, pathType: Prefix, backend: {resource: {kind: Service, name: citation}}}
`, []string{
			"scope-target Ingress/citation.spec.defaultBackend.resource",
			"scope-target Ingress/citation.spec.rules[0].http.paths[1].backend.service.name",
			"scope-target Ingress/citation.spec.rules[0].http.paths[2].backend.service.name",
		}},
		{"route backends the render does not ship", nil, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: citation}
spec:
  rules:
    - backendRefs:
        - {name: mediawatch, port: 3030}
        - {name: citation, namespace: argocd, port: 3030}
        - {name: citation, port: 3030, filters: [{type: RequestMirror, requestMirror: {backendRef: {name: mediawatch, port: 3030}}}]}
      filters: [{type: RequestMirror, requestMirror: {backendRef: {name: dagster-webserver, port: 80}}}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: citation-tcp}
spec: {rules: [{backendRefs: [{group: "", kind: Service, name: mediawatch, port: 5432}]}]}
`, []string{
			"scope-target HTTPRoute/citation.spec.rules[0].backendRefs[0].name",
			"scope-target HTTPRoute/citation.spec.rules[0].backendRefs[1].namespace",
			"scope-target HTTPRoute/citation.spec.rules[0].backendRefs[2].filters[0].requestMirror.backendRef.name",
			"scope-target HTTPRoute/citation.spec.rules[0].filters[0].requestMirror.backendRef.name",
			"scope-target TCPRoute/citation-tcp.spec.rules[0].backendRefs[0].name",
		}},
		{"external IPs refused by default", nil, `
apiVersion: v1
kind: Service
metadata: {name: citation-ext}
spec: {externalIPs: [192.0.2.7, 10.96.0.10], ports: [{port: 443}]}
`, []string{
			"policy-external-ip Service/citation-ext.spec.externalIPs[0]",
			"policy-external-ip Service/citation-ext.spec.externalIPs[1]",
		}},
		{"external IPs within the contract's CIDRs", func(p *validate.Policy) { p.ExternalIPs = []string{"192.0.2.0/24"} }, `
apiVersion: v1
kind: Service
metadata: {name: citation-ext}
spec: {externalIPs: [192.0.2.7, 198.51.100.1, not-an-ip], ports: [{port: 443}]}
`, []string{
			"policy-external-ip Service/citation-ext.spec.externalIPs[1]",
			"policy-external-ip Service/citation-ext.spec.externalIPs[2]",
		}},
		{"objects scopeRule refuses are left to it", nil, `
apiVersion: v1
kind: Secret
metadata: {name: citation-s}
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: citation}
`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := kindsInstance(t, tt.policy)
			got := codesAndPaths(check(t, scopingRule{}, in, parseObjects(t, scopingDeployment+tt.stream)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckScopingMessages(t *testing.T) {
	in := kindsInstance(t, nil)
	ps := check(t, scopingRule{}, in, parseObjects(t, scopingDeployment+`
apiVersion: v1
kind: Service
metadata: {name: citation-spy}
spec: {selector: {codeloc.dev/code-location: mediawatch}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: citation-x}
spec: {selector: {matchExpressions: [{key: dagster/code-location, operator: NotIn, values: [citation]}]}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: citation}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: mediawatch}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: citation}
spec: {defaultBackend: {service: {name: mediawatch, port: {number: 3030}}}}
---
apiVersion: v1
kind: Service
metadata: {name: citation-ext}
spec: {externalIPs: [203.0.113.10]}
`))
	want := []string{
		"selects the pods labelled codeloc.dev/code-location=mediawatch: they are not code-location citation's" +
			" (remove it: codeloc adds codeloc.dev/code-location=citation to this selector, so that it selects the code-location's own pods only)",
		"selects the pods whose dagster/code-location is not in [citation]: other code-locations' pods" +
			" (select the workload's own pods by their own labels: codeloc labels its pod template codeloc.dev/code-location=citation)",
		`scales Deployment mediawatch (apiVersion "apps/v1"), which the kustomize root does not ship: another code-location's or the platform's` +
			" (target a Deployment or StatefulSet of this kustomize root by its apiVersion (apps/v1), kind and name)",
		"routes to Service mediawatch, which the kustomize root does not ship: another code-location's or the platform's" +
			" (route to a Service of this kustomize root; another code-location publishes its own Services)",
		`external IP "203.0.113.10": every node of the cluster takes the traffic to it, whatever its namespace; the contract's policy.externalIPs allows none` +
			" (remove it and publish the Service through an Ingress, or ask the platform to add a CIDR holding the address to the contract's policy.externalIPs)",
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.Message+" ("+p.Hint+")")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestApplyScopesSelectors(t *testing.T) {
	tests := []struct {
		name, object string
		path         []string
		want         string // the YAML at path after Apply; "" when absent
	}{
		{"Service selector gets the label", `
apiVersion: v1
kind: Service
metadata: {name: citation}
spec: {selector: {app: citation}}`, []string{"spec", "selector"}, "{app: citation, codeloc.dev/code-location: citation}"},
		{"Service without selector stays without", `
apiVersion: v1
kind: Service
metadata: {name: citation-manual}
spec: {ports: [{port: 80}]}`, []string{"spec", "selector"}, ""},
		{"Service with an empty selector stays empty", `
apiVersion: v1
kind: Service
metadata: {name: citation-manual}
spec: {selector: {}}`, []string{"spec", "selector"}, "{}"},
		{"Service selector already on the own label", `
apiVersion: v1
kind: Service
metadata: {name: citation}
spec: {selector: {codeloc.dev/code-location: citation}}`, []string{"spec", "selector"}, "{codeloc.dev/code-location: citation}"},
		{"NetworkPolicy podSelector {} becomes the code-location's pods", `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: citation-deny}
spec: {podSelector: {}, ingress: [{from: [{podSelector: {}}]}]}`, []string{"spec"}, "{podSelector: {matchLabels: {codeloc.dev/code-location: citation}}, ingress: [{from: [{podSelector: {}}]}]}"},
		{"NetworkPolicy without spec", `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: citation-deny}`, []string{"spec", "podSelector"}, "matchLabels:\n  codeloc.dev/code-location: citation"},
		{"NetworkPolicy null podSelector and matchLabels", `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: citation-deny}
spec:
  podSelector:
    matchLabels: ~
    matchExpressions: [{key: app, operator: Exists}]`, []string{"spec", "podSelector"}, "matchLabels:\n  codeloc.dev/code-location: citation\nmatchExpressions: [{key: app, operator: Exists}]"},
		{"NetworkPolicy null podSelector", `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: citation-deny}
spec: {podSelector: null}`, []string{"spec", "podSelector"}, "matchLabels:\n  codeloc.dev/code-location: citation"},
		{"PodDisruptionBudget null selector selects no pod: left", `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: citation}
spec: {maxUnavailable: 0, selector: null}`, []string{"spec", "selector"}, "null"},
		{"PodDisruptionBudget selector", `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: citation}
spec:
  maxUnavailable: 0
  selector:
    matchExpressions: [{key: app, operator: In, values: [citation]}]`, []string{"spec", "selector"}, "matchExpressions: [{key: app, operator: In, values: [citation]}]\nmatchLabels:\n  codeloc.dev/code-location: citation"},
		{"PodDisruptionBudget empty selector (every pod, in policy/v1)", `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: citation}
spec: {maxUnavailable: 0, selector: {}}`, []string{"spec", "selector"}, "{matchLabels: {codeloc.dev/code-location: citation}}"},
		{"PodDisruptionBudget without selector selects no pod: left", `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: citation}
spec: {maxUnavailable: 0}`, []string{"spec", "selector"}, ""},
		{"policy/v1beta1 empty selector selects no pod: left", `
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: citation}
spec: {maxUnavailable: 0, selector: {}}`, []string{"spec", "selector"}, "{}"},
		{"workload selector left alone", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: citation}
spec:
  selector: {matchLabels: {app: citation}}
  template: {metadata: {labels: {app: citation}}, spec: {containers: []}}`, []string{"spec", "selector"}, "{matchLabels: {app: citation}}"},
		{"a Service of another group is not a Service", `
apiVersion: example.com/v1
kind: Service
metadata: {name: citation}
spec: {selector: {app: citation}}`, []string{"spec", "selector"}, "{app: citation}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := kindsInstance(t, nil)
			objs := parseObjects(t, tt.object)
			if ps := Apply(in, objs); len(ps) > 0 {
				t.Fatal(ps)
			}
			n, err := objs[0].Pipe(yaml.Lookup(tt.path...))
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if n != nil {
				got = strings.TrimSpace(n.MustString())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", strings.Join(tt.path, "."), diff)
			}
		})
	}
}
