package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/validate"
)

func TestCheckAnnotations(t *testing.T) {
	const secretValue = "more_set_headers \"X-Token: s3cr3t\""
	tests := []struct {
		name     string
		contract func(*validate.Contract)
		objects  string
		want     []string
	}{
		{name: "an Ingress's snippets and secret annotations, never their values", objects: `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: citation-web
  annotations:
    nginx.ingress.kubernetes.io/configuration-snippet: '` + secretValue + `'
    nginx.ingress.kubernetes.io/auth-secret: other-basic-auth
    nginx.ingress.kubernetes.io/proxy-body-size: 8m
    nginx.ingress.kubernetes.io/Server-Snippet: x
spec:
  rules: [{host: citation.example.com}]
`, want: []string{
			"policy-annotation-denied Ingress/citation-web.metadata.annotations.nginx.ingress.kubernetes.io/configuration-snippet: annotation nginx.ingress.kubernetes.io/configuration-snippet configures a controller every code-location shares: the contract's policy.deniedAnnotations lists it",
			"policy-annotation-denied Ingress/citation-web.metadata.annotations.nginx.ingress.kubernetes.io/auth-secret: annotation nginx.ingress.kubernetes.io/auth-secret configures a controller every code-location shares: the contract's policy.deniedAnnotations lists it",
			"policy-annotation-denied Ingress/citation-web.metadata.annotations.nginx.ingress.kubernetes.io/Server-Snippet: annotation nginx.ingress.kubernetes.io/Server-Snippet configures a controller every code-location shares: the contract's policy.deniedAnnotations lists it",
		}},

		{name: "pod templates and a CronJob's Job template", objects: `apiVersion: batch/v1
kind: CronJob
metadata: {name: citation-refresh}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    metadata:
      annotations: {nginx.ingress.kubernetes.io/server-snippet: x}
    spec:
      template:
        metadata:
          annotations: {nginx.ingress.kubernetes.io/stream-snippet: x, prometheus.io/scrape: "true"}
        spec:
          containers: [{name: refresh, image: x}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: citation-web}
spec:
  template:
    metadata:
      annotations: {nginx.ingress.kubernetes.io/auth-snippet: x}
    spec:
      containers: [{name: web, image: x}]
`, want: []string{
			"policy-annotation-denied CronJob/citation-refresh.spec.jobTemplate.metadata.annotations.nginx.ingress.kubernetes.io/server-snippet: annotation nginx.ingress.kubernetes.io/server-snippet configures a controller every code-location shares: the contract's policy.deniedAnnotations lists it",
			"policy-annotation-denied CronJob/citation-refresh.spec.jobTemplate.spec.template.metadata.annotations.nginx.ingress.kubernetes.io/stream-snippet: annotation nginx.ingress.kubernetes.io/stream-snippet configures a controller every code-location shares: the contract's policy.deniedAnnotations lists it",
			"policy-annotation-denied Deployment/citation-web.spec.template.metadata.annotations.nginx.ingress.kubernetes.io/auth-snippet: annotation nginx.ingress.kubernetes.io/auth-snippet configures a controller every code-location shares: the contract's policy.deniedAnnotations lists it",
		}},

		{name: "a prefix of the contract, a kind the cluster provides left alone",
			contract: func(c *validate.Contract) { c.Policy.DeniedAnnotations = []string{"traefik.ingress.kubernetes.io/"} },
			objects: `apiVersion: v1
kind: Service
metadata:
  name: citation-web
  annotations: {traefik.ingress.kubernetes.io/service.sticky.cookie: "true", nginx.ingress.kubernetes.io/server-snippet: x}
---
apiVersion: v1
kind: Secret
metadata:
  name: citation-secret
  annotations: {traefik.ingress.kubernetes.io/x: y}
`, want: []string{
				"policy-annotation-denied Service/citation-web.metadata.annotations.traefik.ingress.kubernetes.io/service.sticky.cookie: annotation traefik.ingress.kubernetes.io/service.sticky.cookie configures a controller every code-location shares: the contract's policy.deniedAnnotations denies the prefix traefik.ingress.kubernetes.io/",
			}},

		{name: "an empty list denies nothing",
			contract: func(c *validate.Contract) { c.Policy.DeniedAnnotations = []string{} },
			objects: `apiVersion: v1
kind: ConfigMap
metadata:
  name: citation-config
  annotations: {nginx.ingress.kubernetes.io/server-snippet: x}
`},

		{name: "annotations through an alias", objects: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: citation-web
  annotations: &a {nginx.ingress.kubernetes.io/server-snippet: x}
spec:
  template:
    metadata: {annotations: *a}
    spec:
      containers: [{name: web, image: x}]
`, want: []string{
			"policy-annotation-denied Deployment/citation-web.metadata.annotations.nginx.ingress.kubernetes.io/server-snippet: annotation nginx.ingress.kubernetes.io/server-snippet configures a controller every code-location shares: the contract's policy.deniedAnnotations lists it",
			"policy-annotation-denied Deployment/citation-web.spec.template.metadata.annotations.nginx.ingress.kubernetes.io/server-snippet: annotation nginx.ingress.kubernetes.io/server-snippet configures a controller every code-location shares: the contract's policy.deniedAnnotations lists it",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := podRuleInstance(t, tt.contract)
			ps := check(t, annotationRule{}, in, parseObjects(t, tt.objects))
			if diff := cmp.Diff(tt.want, podRuleLines(ps)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			for _, p := range ps {
				if strings.Contains(p.Message+p.Hint, "s3cr3t") {
					t.Errorf("a problem prints the annotation's value: %s", p.Message)
				}
			}
		})
	}
}

func TestDeniedAnnotationCase(t *testing.T) {
	in := podRuleInstance(t, func(c *validate.Contract) { c.Policy.DeniedAnnotations = []string{"Example.com/Inject"} })
	for key, denied := range map[string]bool{"example.com/inject-x": true, "EXAMPLE.com/Inject": true, "example.com/other": false} {
		if got := in.deniedAnnotation(key, "metadata.annotations."+key) != nil; got != denied {
			t.Errorf("%s: denied %v, want %v", key, got, denied)
		}
	}
}
