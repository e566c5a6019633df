package policy

import (
	"fmt"
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/node"
)

// ingressHostRule holds an Ingress's hosts, and a Gateway API route's
// hostnames, to those the code-location owns (the contract's
// policy.ingress): the controllers merge every rule per host, so a path
// under another code-location's host, or a rule without host (every
// host), would take its traffic.
type ingressHostRule struct{}

// CodeIngressHost is ingressHostRule's code: stable, fixtures and scripts
// name it.
const CodeIngressHost = "ingress-host"

// Codes are the codes ingressHostRule emits.
func (ingressHostRule) Codes() []Code {
	return []Code{
		{CodeIngressHost, "An Ingress (rules, TLS) or a Gateway API HTTPRoute, GRPCRoute or TLSRoute (hostnames) serves a host the code-location does not own (<code-location>.<domain> or <code-location>-….<domain> of the contract's policy.ingress.domains, or its policy.ingress.hosts), or every host (no host): the controllers merge rules per host."},
	}
}

func (ingressHostRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	var ps problem.Problems
	for _, o := range objs {
		if handledByPolicy(o) {
			continue
		}
		if slices.Contains(hostRoutes, o.GetKind()) && strings.HasPrefix(o.GetApiVersion(), gatewayGroup+"/") {
			ps = append(ps, in.routeHosts(o)...)
			continue
		}
		if o.GetKind() != "Ingress" || !strings.HasPrefix(o.GetApiVersion(), networkingv1.GroupName+"/") {
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

// hostRoutes are the Gateway API routes that claim hosts (spec.hostnames);
// the others route ports, whose listeners the platform owns.
var hostRoutes = []string{"HTTPRoute", "GRPCRoute", "TLSRoute"}

// routeHosts holds a route's hostnames as an Ingress's hosts: a route
// without hostnames takes every host of the listeners it attaches to.
func (in *Context) routeHosts(o *yaml.RNode) problem.Problems {
	var hosts []*yaml.RNode
	if spec, err := o.Pipe(yaml.Lookup("spec")); err == nil && spec != nil {
		hosts = node.Sequence(spec, "hostnames")
	}
	if len(hosts) == 0 {
		return problem.Problems{in.problem(o, CodeIngressHost, "spec", fmt.Sprintf("a %s without hostnames serves on every host of the Gateway listeners it attaches to, other code-locations' included", o.GetKind()),
			fmt.Sprintf("list its hostnames: %s.<domain> or %s-<name>.<domain> of the contract's policy.ingress.domains", in.d.CodeLocation, in.d.CodeLocation))}
	}
	var ps problem.Problems
	for i, h := range hosts {
		ps = append(ps, in.ingressHost(o, fmt.Sprintf("spec.hostnames[%d]", i), h.YNode().Value)...)
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
	case host == "":
		return problem.Problems{in.problem(o, CodeIngressHost, field, "names no host: its paths are served on every host the controller serves, other code-locations' included", hint)}
	case !in.c.Policy.Ingress.OwnsHost(cl, host):
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
