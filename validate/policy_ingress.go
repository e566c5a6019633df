package validate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// IngressHosts says which hosts a code-location's Ingresses may serve.
// The ingress controller merges the rules of every Ingress per host, so
// a path under another code-location's host would take its traffic: a
// host is owned like a name.
type IngressHosts struct {
	// Domains are the domains under which code-location <cl> owns the
	// hosts <cl>.<domain> and <cl>-<anything>.<domain>.
	Domains []string `json:"domains,omitempty"`
	// Hosts are further hosts, by code-location.
	Hosts map[string][]string `json:"hosts,omitempty"`
}

// ingressFields decodes policy.ingress.
func (c *Contract) ingressFields(w *walker) []field {
	r := &c.Policy.Ingress
	return []field{{"ingress", false, func(n *yaml.Node, path string) {
		w.mapping(n, path, []field{
			{"domains", false, w.strList(&r.Domains)},
			{"hosts", false, func(n *yaml.Node, path string) {
				if !w.kind(n, path, yaml.MappingNode) {
					return
				}
				r.Hosts = map[string][]string{}
				for i := 0; i+1 < len(n.Content); i += 2 {
					var hosts []string
					w.strList(&hosts)(n.Content[i+1], join(path, n.Content[i].Value))
					r.Hosts[n.Content[i].Value] = hosts
				}
			}},
		})
	}}}
}

// ingress checks policy.ingress: domains and hosts are DNS names.
func (k *contractChecker) ingress() {
	r := k.c.Policy.Ingress
	for i, d := range r.Domains {
		if errs := validation.IsDNS1123Subdomain(d); len(errs) > 0 {
			k.invalid(index("policy.ingress.domains", i), fmt.Sprintf("%q is not a DNS domain: %s", d, strings.Join(errs, "; ")), "write a domain such as apps.example.com")
		}
	}
	for _, cl := range slices.Sorted(maps.Keys(r.Hosts)) {
		for i, h := range r.Hosts[cl] {
			if errs := validation.IsDNS1123Subdomain(h); len(errs) > 0 {
				k.invalid(index("policy.ingress.hosts."+cl, i), fmt.Sprintf("%q is not a host name: %s", h, strings.Join(errs, "; ")), "write a host such as reports.example.com, without a wildcard")
			}
		}
	}
}

// OwnsHost reports whether code-location cl may serve host: <cl>.<domain>
// or <cl>-….<domain> of a listed domain, or one of its listed hosts.
func (h IngressHosts) OwnsHost(cl, host string) bool {
	host = strings.ToLower(host)
	if slices.Contains(h.Hosts[cl], host) {
		return true
	}
	first, rest, ok := strings.Cut(host, ".")
	if !ok || (first != cl && !strings.HasPrefix(first, cl+"-")) {
		return false
	}
	return slices.Contains(h.Domains, rest)
}
