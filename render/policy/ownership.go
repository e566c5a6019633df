package policy

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
)

// ownershipRule refuses objects whose name is not the code-location's
// name nor starts with it and '-': every code-location deploys into the
// one namespace of the contract, so a name outside its own space would
// fight another code-location's object, or forge one (a readiness record
// codeloc-<other> read by the dependents' preflights).
type ownershipRule struct{}

// Codes of ownershipRule: stable, contracts, fixtures and scripts name them.
const (
	CodeNameOwner = "policy-name-owner"
)

// Codes are the codes ownershipRule emits.
func (ownershipRule) Codes() []Code {
	return []Code{
		{CodeNameOwner, "An object's name is not the code-location's name nor starts with it and '-': all code-locations share one namespace."},
	}
}

func (ownershipRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	var ps problem.Problems
	for _, o := range objs {
		if names.Owns(in.d.CodeLocation, o.GetName()) || !in.ownershipApplies(o) {
			continue
		}
		ps = append(ps, in.nameNotOwned(o))
	}
	return ps
}

func (in *Context) nameNotOwned(o *yaml.RNode) problem.Problem {
	cl, name := in.d.CodeLocation, o.GetName()
	msg := fmt.Sprintf("%s is not %s nor %s-<name>: all code-locations share the namespace %s", name, cl, cl, in.c.Namespace)
	hint := fmt.Sprintf("prefix its name with %s-, or set namePrefix: %s- in the kustomization to rename every object and the references to it", cl, cl)
	if in.contextNames[name] {
		// namePrefix would rename the object, not the container context's
		// JSON that names it: the run pods would name an object gone.
		hint = fmt.Sprintf("name it %s-%s where it is written, in the object and in the Dagster container context that names it: with the Dagster chart, fullnameOverride: %s names the chart's objects %s or %s-<name> in both; kustomize's namePrefix would not rename it inside the context's JSON", cl, name, cl, cl, cl)
	}
	if r, ok := names.Reserved(name); ok {
		msg += fmt.Sprintf("; %s is %s", name, r.Why())
		if gk := objectGroupKind(o); r.Emits(gk.Group, gk.Kind) {
			hint = fmt.Sprintf("remove it: codeloc emits it itself, for code-location %s", r.CodeLocation)
		}
	}
	return in.problem(o, CodeNameOwner, "metadata.name", msg, hint)
}

// ownershipApplies reports whether o is left to the naming rules: objects
// that scopeRule or the consumption rule refuse whole (a Secret, a
// cluster-scoped kind, a PersistentVolumeClaim) must go whatever their
// name, and an object named like one codeloc emits for this code-location
// with its kind (its record, the only one outside <cl>-…, its preflight
// objects…) is refused by Conflicts with every name codeloc emits.
func (in *Context) ownershipApplies(o *yaml.RNode) bool {
	switch {
	case handledByPolicy(o), o.GetKind() == "PersistentVolumeClaim":
		return false
	case in.emittedHere(o):
		return false
	}
	return true
}

// emittedHere reports whether o has the name and kind of an object codeloc
// emits, or may emit, for this code-location.
func (in *Context) emittedHere(o *yaml.RNode) bool {
	r, ok := names.Reserved(o.GetName())
	gk := objectGroupKind(o)
	return ok && r.CodeLocation == in.d.CodeLocation && r.Emits(gk.Group, gk.Kind)
}

// reservedNameRule refuses an object whose name, though the
// code-location's own, is one codeloc emits for some code-location:
// <cl>-x-preflight is the preflight of a code-location <cl>-x, <cl>-data a
// name codeloc keeps for the block volume claim. Objects outside the
// code-location's names are ownershipRule's, and an object named like one
// codeloc emits for this code-location with its kind is Conflicts'.
type reservedNameRule struct{}

// Codes of reservedNameRule: stable, contracts, fixtures and scripts name them.
const (
	CodeNameReserved = "policy-name-reserved"
)

// Codes are the codes reservedNameRule emits.
func (reservedNameRule) Codes() []Code {
	return []Code{
		{CodeNameReserved, "An object's name, though the code-location's own, is one codeloc emits for some code-location (ending with -preflight, -migrate, -migrations-<hash>, -reload, -data or -admission), on another kind than codeloc's or for another code-location (<cl>-x-preflight is the preflight of code-location <cl>-x)."},
	}
}

func (reservedNameRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	var ps problem.Problems
	for _, o := range objs {
		name := o.GetName()
		r, reserved := names.Reserved(name)
		if !reserved || !names.Owns(in.d.CodeLocation, name) || !in.ownershipApplies(o) {
			continue
		}
		ps = append(ps, in.problem(o, CodeNameReserved, "metadata.name",
			fmt.Sprintf("%s is named like %s: codeloc keeps that name, whatever the kind", name, r.Why()),
			fmt.Sprintf("rename it: no name may end with %s (codeloc emits these for every code-location)", strings.Join(names.ReservedSuffixes(), ", "))))
	}
	return ps
}
