package validate

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Reach is what the platform lets a code-location's objects reach beyond
// its own objects: cluster-level references, device classes, volume
// drivers, addresses and the writes its Roles may grant. The contract's
// policy section holds it inline; every list is empty by default (nothing
// beyond the code-location's own objects) except DeniedAnnotations and
// RunLaunching, whose defaults are the example contract's.
type Reach struct {
	// ExternalIPs are the CIDRs a Service's spec.externalIPs may fall in.
	ExternalIPs []string `json:"externalIPs,omitempty"`
	// CSIDrivers are the CSI drivers a pod may use as an inline volume.
	CSIDrivers []string `json:"csiDrivers,omitempty"`
	// ExtendedResources are the resources beyond cpu, memory and
	// ephemeral-storage a container may request (nvidia.com/gpu).
	ExtendedResources []string `json:"extendedResources,omitempty"`
	// ResourceClaimTemplates are the ResourceClaimTemplates (dynamic
	// resource allocation) a pod may claim from.
	ResourceClaimTemplates []string `json:"resourceClaimTemplates,omitempty"`
	// PriorityClasses are the PriorityClasses a pod may name.
	PriorityClasses []string `json:"priorityClasses,omitempty"`
	// RuntimeClasses are the RuntimeClasses a pod may name.
	RuntimeClasses []string `json:"runtimeClasses,omitempty"`
	// DeniedAnnotations are annotation key prefixes no object (nor pod
	// template) may set: annotations that configure shared controllers.
	DeniedAnnotations []string `json:"deniedAnnotations"`
	// RunLaunching are the writes a shipped Role may grant on objects it
	// does not ship, without resourceNames: what Dagster needs to launch
	// its runs and steps.
	RunLaunching []Grant `json:"runLaunching"`
	// Tolerations are the taints a code-location's pods may tolerate
	// (policy_placement.go): none by default, beyond the not-ready and
	// unreachable ones Kubernetes adds to every pod.
	Tolerations []Toleration `json:"tolerations,omitempty"`
	// NodeLabels are the node labels a code-location's pods may select
	// (nodeSelector, required node affinity): "key" for any value, or
	// "key=value".
	NodeLabels []string `json:"nodeLabels,omitempty"`
	// Ingress says which hosts a code-location's Ingresses may serve
	// (policy_ingress.go).
	Ingress IngressHosts `json:"ingress"`
}

// Grant is a set of verbs on a resource of an API group.
type Grant struct {
	Group    string   `json:"group"`
	Resource string   `json:"resource"`
	Verbs    []string `json:"verbs"`
}

// Allows reports whether g grants verb on group/resource.
func (g Grant) Allows(group, resource, verb string) bool {
	return g.Group == group && g.Resource == resource && slices.Contains(g.Verbs, verb)
}

// DefaultDeniedAnnotations are the ingress-nginx annotations that inject
// configuration into the shared controller, or make it read a Secret the
// declaration does not name.
var DefaultDeniedAnnotations = []string{
	"nginx.ingress.kubernetes.io/auth-secret",
	"nginx.ingress.kubernetes.io/auth-snippet",
	"nginx.ingress.kubernetes.io/auth-tls-secret",
	"nginx.ingress.kubernetes.io/configuration-snippet",
	"nginx.ingress.kubernetes.io/modsecurity-snippet",
	"nginx.ingress.kubernetes.io/proxy-ssl-secret",
	"nginx.ingress.kubernetes.io/server-snippet",
	"nginx.ingress.kubernetes.io/stream-snippet",
}

// DefaultRunLaunching is what Dagster's K8sRunLauncher and k8s_job_executor
// write: the Jobs of runs and steps, and their pods.
var DefaultRunLaunching = []Grant{
	{Group: "batch", Resource: "jobs", Verbs: []string{"create", "delete"}},
	{Group: "", Resource: "pods", Verbs: []string{"create", "delete"}},
}

// AllowsRunLaunching reports whether the contract lets a Role grant verb
// on group/resource without resourceNames.
func (r Reach) AllowsRunLaunching(group, resource, verb string) bool {
	return slices.ContainsFunc(r.RunLaunching, func(g Grant) bool { return g.Allows(group, resource, verb) })
}

// DeniedAnnotation returns the denied prefix key starts with, if any.
func (r Reach) DeniedAnnotation(key string) (string, bool) {
	for _, p := range r.DeniedAnnotations {
		if strings.HasPrefix(key, p) {
			return p, true
		}
	}
	return "", false
}

// AllowsExternalIP reports whether ip falls in one of the ExternalIPs CIDRs.
func (r Reach) AllowsExternalIP(ip string) bool {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	for _, c := range r.ExternalIPs {
		if p, err := netip.ParsePrefix(c); err == nil && p.Contains(a) {
			return true
		}
	}
	return false
}

// reachFields decodes the reach lists of the policy section.
func (c *Contract) reachFields(w *walker) []field {
	r := &c.Policy.Reach
	return append([]field{
		{"externalIPs", false, w.strList(&r.ExternalIPs)},
		{"csiDrivers", false, w.strList(&r.CSIDrivers)},
		{"extendedResources", false, w.strList(&r.ExtendedResources)},
		{"resourceClaimTemplates", false, w.strList(&r.ResourceClaimTemplates)},
		{"priorityClasses", false, w.strList(&r.PriorityClasses)},
		{"runtimeClasses", false, w.strList(&r.RuntimeClasses)},
		{"deniedAnnotations", false, func(n *yaml.Node, path string) {
			r.DeniedAnnotations = []string{} // listed: exactly these
			w.strList(&r.DeniedAnnotations)(n, path)
		}},
		{"runLaunching", false, func(n *yaml.Node, path string) {
			r.RunLaunching = []Grant{}
			w.list(n, path, func(item *yaml.Node, ip string) {
				var g Grant
				w.mapping(item, ip, []field{
					{"group", false, w.str(&g.Group)},
					{"resource", true, w.str(&g.Resource)},
					{"verbs", true, w.strList(&g.Verbs)},
				})
				r.RunLaunching = append(r.RunLaunching, g)
			})
		}},
	}, append(c.placementFields(w), c.ingressFields(w)...)...)
}

func (r *Reach) applyDefaults() {
	if r.DeniedAnnotations == nil {
		r.DeniedAnnotations = DefaultDeniedAnnotations
	}
	if r.RunLaunching == nil {
		r.RunLaunching = DefaultRunLaunching
	}
}

// writeVerbs are the verbs that change objects.
var writeVerbs = []string{"create", "update", "patch", "delete", "deletecollection"}

// reach checks the reach lists' entries.
func (k *contractChecker) reach() {
	k.placement()
	k.ingress()
	r := k.c.Policy.Reach
	for i, c := range r.ExternalIPs {
		if _, err := netip.ParsePrefix(c); err != nil {
			k.invalid(index("policy.externalIPs", i), fmt.Sprintf("%q is not a CIDR", c), "write an address range such as 192.0.2.0/24")
		}
	}
	k.names("policy.csiDrivers", r.CSIDrivers, "a CSI driver name such as secrets-store.csi.k8s.io", validation.IsDNS1123Subdomain)
	k.names("policy.extendedResources", r.ExtendedResources, "an extended resource such as nvidia.com/gpu", isExtendedResource)
	k.names("policy.resourceClaimTemplates", r.ResourceClaimTemplates, "a ResourceClaimTemplate name", validation.IsDNS1123Subdomain)
	k.names("policy.priorityClasses", r.PriorityClasses, "a PriorityClass name", validation.IsDNS1123Subdomain)
	k.names("policy.runtimeClasses", r.RuntimeClasses, "a RuntimeClass name", validation.IsDNS1123Subdomain)
	for i, p := range r.DeniedAnnotations {
		if p == "" || strings.ContainsAny(p, " \t") {
			k.invalid(index("policy.deniedAnnotations", i), fmt.Sprintf("%q is not an annotation key prefix", p), "write a key or its leading part, e.g. nginx.ingress.kubernetes.io/server-snippet")
		}
	}
	for i, g := range r.RunLaunching {
		at := index("policy.runLaunching", i)
		if g.Group != "" && len(validation.IsDNS1123Subdomain(g.Group)) > 0 {
			k.invalid(at+".group", fmt.Sprintf("%q is not an API group", g.Group), `write the group without version, e.g. batch; "" for the core group`)
		}
		if g.Resource == "" || strings.Contains(g.Resource, "*") {
			k.invalid(at+".resource", fmt.Sprintf("%q is not a resource", g.Resource), "write one plural resource, e.g. jobs")
		}
		for j, v := range g.Verbs {
			if !slices.Contains(writeVerbs, v) {
				k.invalid(index(at+".verbs", j), fmt.Sprintf("%q is not a write verb", v), "use "+strings.Join(writeVerbs, ", ")+": reads need no entry here")
			}
		}
	}
}

// names checks a list of names with the rule valid, each listed once.
func (k *contractChecker) names(list string, items []string, what string, valid func(string) []string) {
	seen := map[string]bool{}
	for i, v := range items {
		at := index(list, i)
		if len(valid(v)) > 0 {
			k.invalid(at, fmt.Sprintf("%q is not valid here", v), "write "+what)
		}
		if seen[v] {
			k.invalid(at, fmt.Sprintf("%q is listed twice", v), "list it once")
		}
		seen[v] = true
	}
}

// isExtendedResource says what is wrong with name as an extended resource:
// a qualified name with a domain outside kubernetes.io.
func isExtendedResource(name string) []string {
	if errs := validation.IsQualifiedName(name); len(errs) > 0 {
		return errs
	}
	domain, _, ok := strings.Cut(name, "/")
	if !ok || domain == "kubernetes.io" || strings.HasSuffix(domain, ".kubernetes.io") {
		return []string{"not an extended resource"}
	}
	return nil
}
