package policy

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// kindRule refuses objects whose group and kind the contract's
// policy.kinds does not list (custom kinds, cluster-scoped ones that
// kustomize's scope table does not know, DaemonSet by default), and
// Services of a type policy.serviceTypes does not list.
type kindRule struct{}

// Codes of kindRule: stable, contracts, fixtures and scripts name them.
const (
	CodeKindNotAllowed = "policy-kind-not-allowed"
	CodeServiceType    = "policy-service-type"
)

// Codes are the codes kindRule emits.
func (kindRule) Codes() []Code {
	return []Code{
		{CodeKindNotAllowed, "An object's kind is not in the contract's policy.kinds."},
		{CodeServiceType, "A Service's type is not in the contract's policy.serviceTypes (NodePort, LoadBalancer and ExternalName take cluster-wide resources)."},
	}
}

func (kindRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	var ps problem.Problems
	for _, o := range objs {
		// A PersistentVolumeClaim is refused as block storage by the
		// consumption rule, whatever the kinds say.
		if handledByPolicy(o) || o.GetKind() == "PersistentVolumeClaim" {
			continue
		}
		gk := objectGroupKind(o)
		if !in.c.Policy.AllowsKind(gk.Group, gk.Kind) {
			ps = append(ps, in.kindNotAllowed(o, gk))
			continue
		}
		if gk == (validate.GroupKind{Kind: "Service"}) {
			ps = append(ps, in.checkServiceType(o)...)
		}
	}
	return ps
}

// objectGroupKind is o's API group (the apiVersion without its version, "" for
// the core group) and kind.
func objectGroupKind(o *yaml.RNode) validate.GroupKind {
	gv, err := schema.ParseGroupVersion(o.GetApiVersion())
	if err != nil {
		// Not group/version: keep it whole, so that it matches no entry.
		return validate.GroupKind{Group: o.GetApiVersion(), Kind: o.GetKind()}
	}
	return validate.GroupKind{Group: gv.Group, Kind: o.GetKind()}
}

func (in *Context) kindNotAllowed(o *yaml.RNode, gk validate.GroupKind) problem.Problem {
	msg := fmt.Sprintf("kind %s of apiVersion %s is not in the contract's policy.kinds", gk.Kind, o.GetApiVersion())
	if gk == (validate.GroupKind{Group: "apps", Kind: "DaemonSet"}) {
		msg += ": a DaemonSet runs a pod on every node"
	}
	return in.problem(o, CodeKindNotAllowed, "", msg,
		fmt.Sprintf("remove the object, or ask the platform to add {group: %q, kind: %s} to the contract's policy.kinds", gk.Group, gk.Kind))
}

// serviceTypeCosts say, for each type the contract may not allow, what it
// takes and what to use instead.
var serviceTypeCosts = map[string]struct{ takes, instead string }{
	"NodePort":     {"opens a port on every node", "use type ClusterIP and expose it through an Ingress"},
	"LoadBalancer": {"takes an address outside the cluster", "use type ClusterIP and expose it through an Ingress"},
	"ExternalName": {"points a name of the cluster's DNS at an outside host", "reach the outside host by its own name from the pods"},
}

func (in *Context) checkServiceType(o *yaml.RNode) problem.Problems {
	t := ""
	if n, err := o.Pipe(yaml.Lookup("spec", "type")); err == nil && n != nil {
		t = yaml.GetValue(n)
	}
	if in.c.Policy.AllowsServiceType(t) {
		return nil
	}
	if t == "" {
		t = "ClusterIP"
	}
	st, known := serviceTypeCosts[t]
	if !known {
		st.takes, st.instead = "is not a type the platform hands out", "use type ClusterIP"
	}
	return problem.Problems{in.problem(o, CodeServiceType, "spec.type",
		fmt.Sprintf("type %s %s; the contract's policy.serviceTypes allows %s", t, st.takes, listOrNone(in.c.Policy.ServiceTypes)),
		fmt.Sprintf("%s, or ask the platform to add %s to the contract's policy.serviceTypes", st.instead, t))}
}

func listOrNone(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}
