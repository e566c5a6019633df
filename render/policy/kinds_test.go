package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/validate"
)

func TestCheckKinds(t *testing.T) {
	tests := []struct {
		name   string
		policy func(*validate.Policy)
		stream string
		want   []string
	}{
		{"default kinds pass", nil, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: citation-dagster}
---
apiVersion: v1
kind: Service
metadata: {name: citation-dagster}
spec: {ports: [{port: 3030}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: citation}
`, nil},
		{"DaemonSet refused by default", nil, `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: citation-agent}
`, []string{"policy-kind-not-allowed DaemonSet/citation-agent"}},
		{"DaemonSet allowed when listed", func(p *validate.Policy) {
			p.Kinds = append(p.Kinds, validate.GroupKind{Group: "apps", Kind: "DaemonSet"})
		}, `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: citation-agent}
`, nil},
		{"custom kind refused", nil, `
apiVersion: example.com/v1
kind: Widget
metadata: {name: citation-widget}
`, []string{"policy-kind-not-allowed Widget/citation-widget"}},
		{"same kind in another group refused", nil, `
apiVersion: extensions.example.com/v1
kind: Deployment
metadata: {name: citation-dagster}
`, []string{"policy-kind-not-allowed Deployment/citation-dagster"}},
		{"malformed apiVersion matches nothing", nil, `
apiVersion: a/b/c
kind: ConfigMap
metadata: {name: citation-x}
`, []string{"policy-kind-not-allowed ConfigMap/citation-x"}},
		{"policy and consumption kinds left to their rules", nil, `
apiVersion: v1
kind: Secret
metadata: {name: citation-s3}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: citation-admin}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: citation-cache}
`, nil},
		{"service types", nil, `
apiVersion: v1
kind: Service
metadata: {name: citation-np}
spec: {type: NodePort}
---
apiVersion: v1
kind: Service
metadata: {name: citation-lb}
spec: {type: LoadBalancer}
---
apiVersion: v1
kind: Service
metadata: {name: citation-ext}
spec: {type: ExternalName, externalName: example.com}
---
apiVersion: v1
kind: Service
metadata: {name: citation-ip}
spec: {type: ClusterIP}
`, []string{
			"policy-service-type Service/citation-ext.spec.type",
			"policy-service-type Service/citation-lb.spec.type",
			"policy-service-type Service/citation-np.spec.type",
		}},
		{"service type allowed when listed", func(p *validate.Policy) {
			p.ServiceTypes = []string{"ClusterIP", "LoadBalancer"}
		}, `
apiVersion: v1
kind: Service
metadata: {name: citation-lb}
spec: {type: LoadBalancer}
`, nil},
		{"no service type allowed at all", func(p *validate.Policy) { p.ServiceTypes = []string{} }, `
apiVersion: v1
kind: Service
metadata: {name: citation}
`, []string{"policy-service-type Service/citation.spec.type"}},
		{"Service kind not allowed: no type problem too", func(p *validate.Policy) {
			p.Kinds = []validate.GroupKind{{Group: "", Kind: "ConfigMap"}}
		}, `
apiVersion: v1
kind: Service
metadata: {name: citation}
spec: {type: NodePort}
`, []string{"policy-kind-not-allowed Service/citation"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := kindsInstance(t, tt.policy)
			got := codesAndPaths(check(t, kindRule{}, in, parseObjects(t, tt.stream)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckKindsMessages(t *testing.T) {
	in := kindsInstance(t, nil)
	ps := check(t, kindRule{}, in, parseObjects(t, `
apiVersion: example.com/v1
kind: Widget
metadata: {name: citation-widget}
---
apiVersion: v1
kind: Service
metadata: {name: citation-np}
spec: {type: NodePort}
`))
	want := []string{
		"kind Widget of apiVersion example.com/v1 is not in the contract's policy.kinds" +
			` (remove the object, or ask the platform to add {group: "example.com", kind: Widget} to the contract's policy.kinds)`,
		"type NodePort opens a port on every node; the contract's policy.serviceTypes allows ClusterIP" +
			" (use type ClusterIP and expose it through an Ingress, or ask the platform to add NodePort to the contract's policy.serviceTypes)",
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.Message+" ("+p.Hint+")")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}
