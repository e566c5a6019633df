package policy

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/validate"
)

// ownershipRule refuses objects whose name is not the code-location's
// name nor starts with it and '-': every code-location deploys into the
// one namespace of the contract, so a name outside its own space would
// fight another code-location's object, or forge one (a readiness record
// codeloc-<other> read by the dependents' preflights).
type ownershipRule struct{}

func (ownershipRule) Check(in *Context, objs []*yaml.RNode) validate.Problems {
	var ps validate.Problems
	for _, o := range objs {
		if ownedName(in.d.CodeLocation, o.GetName()) || !in.ownershipApplies(o) {
			continue
		}
		ps = append(ps, in.nameNotOwned(o))
	}
	return ps
}

func (in *Context) nameNotOwned(o *yaml.RNode) validate.Problem {
	cl, name := in.d.CodeLocation, o.GetName()
	msg := fmt.Sprintf("%s is not %s nor %s-<name>: all code-locations share the namespace %s", name, cl, cl, in.c.Namespace)
	hint := fmt.Sprintf("prefix its name with %s-, or set namePrefix: %s- in the kustomization to rename every object and the references to it", cl, cl)
	if o.GetKind() == "ConfigMap" && strings.HasPrefix(name, names.RecordName("")) {
		msg += fmt.Sprintf("; %s<code-location> is the readiness record codeloc publishes for each code-location", names.RecordName(""))
		hint = "remove it: codeloc publishes each code-location's record itself"
	}
	return in.problem(o, CodeNameOwner, "metadata.name", msg, hint)
}

// ownedName reports whether name belongs to code-location cl.
func ownedName(cl, name string) bool {
	return name == cl || strings.HasPrefix(name, cl+"-")
}

// ownershipApplies reports whether o is left to this rule: objects that
// scopeRule or the consumption rule refuse whole (a Secret, a cluster-scoped
// kind, a PersistentVolumeClaim) must go whatever their name, and an object
// named like this code-location's record is refused by checkConflicts as
// every name codeloc emits (the record is the only one outside <cl>-…).
func (in *Context) ownershipApplies(o *yaml.RNode) bool {
	switch {
	case handledByPolicy(o), o.GetKind() == "PersistentVolumeClaim":
		return false
	case o.GetKind() == "ConfigMap" && o.GetName() == names.RecordName(in.d.CodeLocation):
		return false
	}
	return true
}
