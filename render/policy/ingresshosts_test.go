package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/validate"
)

func TestIngressHostRule(t *testing.T) {
	ingress := func(spec string) string {
		return "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: citation-web}\nspec:\n" + spec + "\n"
	}
	backend := "{service: {name: citation, port: {number: 80}}}"
	withHosts := func(p *validate.Policy) {
		p.Ingress = validate.IngressHosts{Domains: []string{"apps.example.com"}, Hosts: map[string][]string{"citation": {"cite.example.org"}}}
	}
	for _, tc := range []struct {
		name, stream string
		policy       func(*validate.Policy)
		want         []string
	}{
		{"its own hosts", ingress("  rules:\n    - {host: citation.apps.example.com, http: {paths: [{path: /, pathType: Prefix, backend: " + backend + "}]}}\n    - {host: Citation-api.apps.example.com}\n    - {host: cite.example.org}\n  tls: [{hosts: [citation.apps.example.com]}]"), withHosts, nil},
		{"another code-location's host", ingress("  rules:\n    - {host: mediawatch.apps.example.com, http: {paths: [{path: /admin, pathType: Prefix, backend: " + backend + "}]}}"), withHosts,
			[]string{"ingress-host Ingress/citation-web.spec.rules[0].host"}},
		{"a name that only starts like it", ingress("  rules:\n    - {host: citationx.apps.example.com}\n    - {host: citation.example.com}\n    - {host: citation.apps.example.com.evil.net}"), withHosts,
			[]string{"ingress-host Ingress/citation-web.spec.rules[0].host", "ingress-host Ingress/citation-web.spec.rules[1].host", "ingress-host Ingress/citation-web.spec.rules[2].host"}},
		{"every host", ingress("  rules:\n    - {http: {paths: [{path: /, pathType: Prefix, backend: " + backend + "}]}}"), withHosts,
			[]string{"ingress-host Ingress/citation-web.spec.rules[0]"}},
		{"a wildcard in TLS", ingress("  tls: [{hosts: ['*.apps.example.com']}]"), withHosts, []string{"ingress-host Ingress/citation-web.spec.tls[0].hosts[0]"}},
		{"no domain in the contract", ingress("  rules:\n    - {host: citation.apps.example.com}"), func(p *validate.Policy) { p.Ingress = validate.IngressHosts{} },
			[]string{"ingress-host Ingress/citation-web.spec.rules[0].host"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := codesAndPaths(check(t, ingressHostRule{}, kindsInstance(t, tc.policy), parseObjects(t, tc.stream)))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRouteHostnames(t *testing.T) {
	route := func(kind, spec string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: citation-web}\nspec:\n  parentRefs: [{name: platform}]\n" + spec
	}
	withDomain := func(p *validate.Policy) { p.Ingress = validate.IngressHosts{Domains: []string{"apps.example.com"}} }
	for _, tc := range []struct {
		name, stream string
		want         []string
	}{
		{"its own hostnames", route("HTTPRoute", "  hostnames: [citation.apps.example.com, citation-api.apps.example.com]\n"), nil},
		{"another's hostname", route("GRPCRoute", "  hostnames: [mediawatch.apps.example.com]\n"), []string{"ingress-host GRPCRoute/citation-web.spec.hostnames[0]"}},
		{"no hostnames: every listener's host", route("HTTPRoute", ""), []string{"ingress-host HTTPRoute/citation-web.spec"}},
		{"an empty hostname", route("TLSRoute", "  hostnames: ['']\n"), []string{"ingress-host TLSRoute/citation-web.spec.hostnames[0]"}},
		{"a port route claims no host", route("TCPRoute", ""), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := codesAndPaths(check(t, ingressHostRule{}, kindsInstance(t, withDomain), parseObjects(t, tc.stream)))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
