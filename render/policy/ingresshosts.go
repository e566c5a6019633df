package policy

import (
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
)

// ingressHostRule holds an Ingress's hosts to those the code-location
// owns (the contract's policy.ingress): the ingress controller merges
// every Ingress's rules per host, so a path under another code-location's
// host, or a rule without host (every host), would take its traffic.
type ingressHostRule struct{}

// CodeIngressHost is ingressHostRule's code: stable, fixtures and scripts
// name it.
const CodeIngressHost = "ingress-host"

// Codes are the codes ingressHostRule emits.
func (ingressHostRule) Codes() []Code {
	return []Code{
		{CodeIngressHost, "An Ingress serves a host the code-location does not own (<code-location>.<domain> or <code-location>-….<domain> of the contract's policy.ingress.domains, or its policy.ingress.hosts), or every host (a rule without host): the controller merges rules per host."},
	}
}

func (ingressHostRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	var ps problem.Problems
	for _, o := range objs {
		if handledByPolicy(o) || o.GetKind() != "Ingress" || !strings.HasPrefix(o.GetApiVersion(), networkingv1.GroupName+"/") {
			continue
		}
		var ing networkingv1.Ingress
		if !decodeObject(o, &ing) {
			continue
		}
		for i, r := range ing.Spec.Rules {
			ps = append(ps, in.ingressHost(o, fmt.Sprintf("spec.rules[%d]", i), r.Host)...)
		}
		for i, t := range ing.Spec.TLS {
			for j, h := range t.Hosts {
				ps = append(ps, in.ingressHost(o, fmt.Sprintf("spec.tls[%d].hosts[%d]", i, j), h)...)
			}
		}
	}
	return ps
}

func (in *Context) ingressHost(o *yaml.RNode, field, host string) problem.Problems {
	cl := in.d.CodeLocation
	hint := fmt.Sprintf("serve %s.<domain> or %s-<name>.<domain> of the contract's policy.ingress.domains (%s), or ask the platform to list the host in policy.ingress.hosts.%s",
		cl, cl, strings.Join(in.c.Policy.Ingress.Domains, ", "), cl)
	if len(in.c.Policy.Ingress.Domains) == 0 {
		hint = fmt.Sprintf("ask the platform to set policy.ingress.domains, or to list the host in policy.ingress.hosts.%s", cl)
	}
	switch {
	case host == "" && strings.HasPrefix(field, "spec.rules"):
		return problem.Problems{in.problem(o, CodeIngressHost, field, "a rule without host serves its paths on every host the ingress controller serves, other code-locations' included", hint)}
	case host != "" && !in.c.Policy.Ingress.OwnsHost(cl, host):
		return problem.Problems{in.problem(o, CodeIngressHost, field+hostField(field),
			fmt.Sprintf("host %q is not one code-location %s owns: the controller merges every Ingress's rules for a host, so its paths would take another's traffic", oneLine(host), cl), hint)}
	}
	return nil
}

func hostField(field string) string {
	if strings.HasPrefix(field, "spec.rules") {
		return ".host"
	}
	return ""
}
