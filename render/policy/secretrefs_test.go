package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSecretsOutsidePods(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   []string // "code path: message"
	}{
		{name: "an Ingress serving a declared secret, and the default certificate", stream: `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: citation-web}
spec:
  tls:
    - {hosts: [citation.example.com], secretName: pgvector-pg-auth}
    - {hosts: [citation.example.org]}
`},
		{name: "an Ingress serving other secrets", stream: `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: citation-web}
spec:
  tls:
    - {hosts: [a.example.com], secretName: wildcard-tls}
    - {hosts: [b.example.com], secretName: dagster-postgresql-secret}
---
apiVersion: extensions/v1beta1
kind: Ingress
metadata: {name: citation-old}
spec:
  tls: [{secretName: mediawatch-tls}]
`, want: []string{
			`consume-secret Ingress/citation-web.spec.tls[0].secretName: Secret "wildcard-tls" is neither declared in dependsOn.secrets nor the Secret of a declared bucket`,
			`consume-secret Ingress/citation-web.spec.tls[1].secretName: Secret "dagster-postgresql-secret" is neither declared in dependsOn.secrets nor the Secret of a declared bucket`,
			`consume-secret Ingress/citation-old.spec.tls[0].secretName: Secret "mediawatch-tls" is neither declared in dependsOn.secrets nor the Secret of a declared bucket`,
		}},
		{name: "a ServiceAccount's secrets", stream: `apiVersion: v1
kind: ServiceAccount
metadata: {name: citation-dagster}
secrets:
  - {name: pgvector-pg-auth}
  - {name: dagster-token-x7k2p}
  - {name: argocd-secret, namespace: argocd}
`, want: []string{
			`consume-secret ServiceAccount/citation-dagster.secrets[1].name: Secret "dagster-token-x7k2p" is neither declared in dependsOn.secrets nor the Secret of a declared bucket`,
			`consume-secret ServiceAccount/citation-dagster.secrets[2].name: Secret "argocd-secret" is neither declared in dependsOn.secrets nor the Secret of a declared bucket`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := consumeInstance(t, nil)
			got := podRuleLines(check(t, consumptionRule{}, in, parseObjects(t, tt.stream)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
