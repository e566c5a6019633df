package preflight

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// platformKind is one kind of platform object a code-location declares it
// reads or runs as: the objects themselves belong to the platform (the
// Dagster chart creates them), the contract offers them by name.
type platformKind struct {
	kind     string // "ConfigMap", as messages name it
	path     string // the declaration's list: "dependsOn.configMaps"
	contract string // the contract's list: "configMaps"
	gvr      schema.GroupVersionResource
	code     string
	effect   string // what happens to the pods without it
	declared func(*validate.Declaration) []string
	offered  func(*validate.Contract) []validate.Provided
}

// platformKinds are checked in this order.
var platformKinds = []platformKind{
	{
		kind: "ConfigMap", path: "dependsOn.configMaps", contract: "configMaps",
		gvr: configMapsGVR, code: CodeConfigMapMissing,
		effect:   "the pods that read it would not start",
		declared: func(d *validate.Declaration) []string { return d.DependsOn.ConfigMaps },
		offered:  func(c *validate.Contract) []validate.Provided { return c.ConfigMaps },
	},
	{
		kind: "ServiceAccount", path: "dependsOn.serviceAccounts", contract: "serviceAccounts",
		gvr: serviceAccountsGVR, code: CodeServiceAccountMissing,
		effect:   "the pods that run as it could not be created",
		declared: func(d *validate.Declaration) []string { return d.DependsOn.ServiceAccounts },
		offered:  func(c *validate.Contract) []validate.Provided { return c.ServiceAccounts },
	},
}

// platformObjects checks that every declared platform ConfigMap
// (dependsOn.configMaps) and ServiceAccount (dependsOn.serviceAccounts)
// exists in the namespace. Only their metadata is read
// (PartialObjectMetadata), as for secrets: a ConfigMap's data never
// leaves the apiserver, and the Role grants get on these names alone.
func (ck *checker) platformObjects(ctx context.Context) result {
	var r result
	ns := ck.con.Namespace
	for _, k := range platformKinds {
		for i, name := range k.declared(ck.decl) {
			if name == "" {
				continue // reported by the render-time checks
			}
			path := index(k.path, i)
			_, err := ck.c.getMetadata(ctx, k.gvr, ns, name)
			switch {
			case err == nil:
				r.pass("%s %s: present", k.kind, name)
			case objectNotFound(err):
				r.fail(problem.Problem{Code: k.code, Path: path,
					Message: fmt.Sprintf("%s %q does not exist in namespace %q: %s", k.kind, name, ns, k.effect),
					Hint:    ck.platformHint(k, name)})
			default:
				r.fail(apiProblem(path, fmt.Sprintf("get %s %q in namespace %q", k.kind, name, ns), err))
			}
		}
	}
	return r
}

// platformHint says who provides a missing platform object: the platform,
// which offers it in the contract, through the Dagster chart.
func (ck *checker) platformHint(k platformKind, name string) string {
	offer := "it is in the contract's " + k.contract
	for _, p := range k.offered(ck.con) {
		if p.Name == name && p.Description != "" {
			offer = fmt.Sprintf("the contract's %s: %s", k.contract, p.Description)
		}
	}
	return fmt.Sprintf("the platform provides it (%s) and the Dagster chart creates it: have the platform install or repair its Dagster release in this namespace, then let the sync retry", offer)
}
