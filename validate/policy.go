package validate

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/codeloc/codeloc/validate/sqllint"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Policy is what the platform lets a code-location's objects be: the
// contract's `policy` section. Every field has a safe default (see
// applyDefaults), which the example contract spells out.
type Policy struct {
	// PodSecurity is the Pod Security Standards level every pod spec must
	// pass: baseline or restricted.
	PodSecurity string `json:"podSecurity"`
	// Registries are registries images may come from besides Registry.
	Registries []string `json:"registries,omitempty"`
	// ServiceTypes are the Service types a code-location may ship.
	ServiceTypes []string `json:"serviceTypes"`
	// Kinds are the namespaced kinds a code-location may ship.
	Kinds []GroupKind `json:"kinds"`
	// Reach is what the objects may reach beyond their own.
	Reach `json:",inline"`
	// Migrations gives each rule of the migrations' lint (package sqllint)
	// its severity: error, warning or off. Rules left out keep their
	// default.
	Migrations map[string]sqllint.Severity `json:"migrations,omitempty"`
}

// GroupKind names a kind in an API group ("" is the core group).
type GroupKind struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
}

// String is "Kind" for the core group, else "Kind.group".
func (gk GroupKind) String() string {
	if gk.Group == "" {
		return gk.Kind
	}
	return gk.Kind + "." + gk.Group
}

// Pod Security Standards levels.
const (
	PodSecurityBaseline   = "baseline"
	PodSecurityRestricted = "restricted"
)

// ServiceTypes Kubernetes knows.
var serviceTypes = []string{"ClusterIP", "NodePort", "LoadBalancer", "ExternalName"}

// DefaultServiceTypes are the Service types allowed by default: NodePort,
// LoadBalancer and ExternalName consume cluster-level ports or addresses, so
// only the platform may allow them.
var DefaultServiceTypes = []string{"ClusterIP"}

// DefaultKinds are the usual workload, configuration, networking and
// autoscaling kinds. DaemonSet is not among them: it takes capacity on
// every node.
var DefaultKinds = []GroupKind{
	{"", "ConfigMap"}, {"", "Pod"}, {"", "Service"}, {"", "ServiceAccount"},
	{"apps", "Deployment"}, {"apps", "StatefulSet"},
	{"autoscaling", "HorizontalPodAutoscaler"},
	{"batch", "CronJob"}, {"batch", "Job"},
	{"networking.k8s.io", "Ingress"}, {"networking.k8s.io", "NetworkPolicy"},
	{"policy", "PodDisruptionBudget"},
	{"rbac.authorization.k8s.io", "Role"}, {"rbac.authorization.k8s.io", "RoleBinding"},
}

// AllowsKind reports whether the policy lets a code-location ship objects
// of group (the apiVersion's group, "" for core) and kind.
func (p Policy) AllowsKind(group, kind string) bool {
	return slices.Contains(p.Kinds, GroupKind{group, kind})
}

// AllowsServiceType reports whether a Service of type t may be shipped
// (an unset type is ClusterIP).
func (p Policy) AllowsServiceType(t string) bool {
	if t == "" {
		t = "ClusterIP"
	}
	return slices.Contains(p.ServiceTypes, t)
}

// policyFields decodes the contract's policy section.
func (c *Contract) policyFields(w *walker) []field {
	return []field{{"policy", false, func(n *yaml.Node, path string) {
		w.mapping(n, path, append([]field{
			{"podSecurity", false, w.str(&c.Policy.PodSecurity)},
			{"registries", false, w.strList(&c.Policy.Registries)},
			{"serviceTypes", false, w.strList(&c.Policy.ServiceTypes)},
			{"kinds", false, func(n *yaml.Node, path string) {
				c.Policy.Kinds = []GroupKind{} // listed: exactly these
				w.list(n, path, func(item *yaml.Node, ip string) {
					var gk GroupKind
					w.mapping(item, ip, []field{
						{"group", false, w.str(&gk.Group)},
						{"kind", true, w.str(&gk.Kind)},
					})
					c.Policy.Kinds = append(c.Policy.Kinds, gk)
				})
			}},
			{"migrations", false, c.migrationRules(w)},
		}, c.reachFields(w)...))
	}}}
}

// migrationRules decodes policy.migrations: a severity per known rule.
func (c *Contract) migrationRules(w *walker) func(*yaml.Node, string) {
	return func(n *yaml.Node, path string) {
		c.Policy.Migrations = sqllint.Defaults()
		fields := make([]field, len(sqllint.Rules))
		for i, r := range sqllint.Rules {
			fields[i] = field{r.Code, false, func(n *yaml.Node, path string) {
				var v string
				w.str(&v)(n, path)
				if v == "" {
					return
				}
				if !slices.Contains(sqllint.Severities, sqllint.Severity(v)) {
					w.add(n, CodeContractInvalid, path, fmt.Sprintf("%q is not a severity", v), "use error, warning or off")
					return
				}
				c.Policy.Migrations[r.Code] = sqllint.Severity(v)
			}}
		}
		w.mapping(n, path, fields)
	}
}

// applyPolicyDefaults fills what the contract leaves out.
func (c *Contract) applyPolicyDefaults() {
	if c.Policy.Migrations == nil {
		c.Policy.Migrations = sqllint.Defaults()
	}
	if c.Policy.PodSecurity == "" {
		c.Policy.PodSecurity = PodSecurityBaseline
	}
	if c.Policy.ServiceTypes == nil {
		c.Policy.ServiceTypes = DefaultServiceTypes
	}
	if c.Policy.Kinds == nil {
		c.Policy.Kinds = DefaultKinds
	}
	c.Policy.applyDefaults()
}

var kindPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`) })

// policy checks the policy section's values.
func (k *contractChecker) policy() {
	p := k.c.Policy
	if p.PodSecurity != PodSecurityBaseline && p.PodSecurity != PodSecurityRestricted {
		k.invalid("policy.podSecurity", fmt.Sprintf("%q is not a Pod Security Standards level", p.PodSecurity), "use baseline or restricted")
	}
	for i, r := range p.Registries {
		k.registry(index("policy.registries", i), r)
	}
	for i, t := range p.ServiceTypes {
		if !slices.Contains(serviceTypes, t) {
			k.invalid(index("policy.serviceTypes", i), fmt.Sprintf("%q is not a Service type", t), "use one of "+strings.Join(serviceTypes, ", "))
		}
	}
	seen := map[GroupKind]bool{}
	for i, gk := range p.Kinds {
		at := index("policy.kinds", i)
		if gk.Group != "" && len(validation.IsDNS1123Subdomain(gk.Group)) > 0 {
			k.invalid(at+".group", fmt.Sprintf("%q is not an API group", gk.Group), `write the apiVersion's group without version, e.g. apps; "" for the core group`)
		}
		if gk.Kind != "" && !kindPattern().MatchString(gk.Kind) {
			k.invalid(at+".kind", fmt.Sprintf("%q is not a kind", gk.Kind), "write the kind as in the objects, e.g. Deployment")
		}
		if seen[gk] {
			k.invalid(at, fmt.Sprintf("%s is listed twice", gk), "list it once")
		}
		seen[gk] = true
	}
	k.reach()
}
