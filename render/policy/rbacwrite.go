package policy

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
)

// The writes of a shipped Role. All code-locations share one namespace,
// so a write that is not limited to the code-location's own objects
// reaches the others': a Role may write
//
//   - what the contract's policy.runLaunching lists (Dagster launching its
//     run and step Jobs and pods), with or without resourceNames;
//   - else update, patch and delete (a subresource's writes, create
//     included, count as its parent's) on objects the kustomize root
//     ships, each named in resourceNames;
//
// and never RBAC objects nor ServiceAccounts. create and deletecollection
// of a resource cannot be limited by resourceNames: the API server knows
// no name when it authorizes them.

// shippedObjects are the names of the objects the kustomize root ships,
// by group and (plural) resource.
type shippedObjects map[schema.GroupResource][]string

// indexShipped indexes the objects that reach the cluster by the resource
// a Role names them with, each name once, in the order the root ships
// them. A set beside the lists keeps it linear in the objects (a list
// search per object was quadratic: 14 times the work for 4 times the
// objects, bench/bounded.sh).
func indexShipped(objs []*yaml.RNode) shippedObjects {
	shipped := shippedObjects{}
	seen := map[schema.GroupResource]map[string]bool{}
	for _, o := range objs {
		if handledByPolicy(o) {
			continue
		}
		gk := objectGroupKind(o)
		gr := resourceOf(gk.Group, gk.Kind)
		name := o.GetName()
		if seen[gr] == nil {
			seen[gr] = map[string]bool{}
		}
		if !seen[gr][name] {
			seen[gr][name] = true
			shipped[gr] = append(shipped[gr], name)
		}
	}
	return shipped
}

// resourceOf is the resource of kind in group: its lowercase plural, as
// Kubernetes names every built-in kind's resource (tested against a real
// API server's discovery).
func resourceOf(group, kind string) schema.GroupResource {
	plural, _ := meta.UnsafeGuessKindToResource(schema.GroupVersionKind{Group: group, Kind: kind})
	return plural.GroupResource()
}

// neverWritten are the resources a Role may not write even by name: a
// ServiceAccount that rewrites RBAC or ServiceAccounts at run time changes
// who may do what in the shared namespace outside what the render checked.
var neverWritten = map[schema.GroupResource]refusal{
	{Group: rbacv1.GroupName, Resource: "roles"}:               rewritesRoles,
	{Group: rbacv1.GroupName, Resource: "clusterroles"}:        rewritesRoles,
	{Group: rbacv1.GroupName, Resource: "rolebindings"}:        rewritesBindings,
	{Group: rbacv1.GroupName, Resource: "clusterrolebindings"}: rewritesBindings,
	{Resource: "serviceaccounts"}: {
		"rewrites ServiceAccounts at run time: their imagePullSecrets and token settings change what the pods running as them pull and mount, outside the declaration",
		"remove the write verbs: ship the ServiceAccounts as they must be in the kustomize root",
	},
}

const hintRBACInRender = "remove the write verbs: ship every Role and RoleBinding in the kustomize root, where the render checks them"

var (
	rewritesRoles = refusal{
		"rewrites Roles at run time: the API server lets it copy into them anything it already holds, and the render no longer says what its ServiceAccounts may do",
		hintRBACInRender,
	}
	rewritesBindings = refusal{
		"rewrites RoleBindings at run time: it can hand its grants to subjects the render never checked (other code-locations' ServiceAccounts, system:serviceaccounts, users)",
		hintRBACInRender,
	}
)

// writeGrant is one resource of one API group a rule grants write verbs on.
type writeGrant struct {
	at       string // the rule's field path
	resource int    // the index of the resource in the rule
	group    string
	res      string // resource or resource/subresource
	verbs    []string
	names    []string // the rule's resourceNames
}

// parent is the resource whose objects the grant writes: a subresource's
// writes are its parent's.
func (w writeGrant) parent() schema.GroupResource {
	base, _, _ := strings.Cut(w.res, "/")
	return schema.GroupResource{Group: w.group, Resource: base}
}

// String is the grant's resource as group/resource, the core group's
// resources bare.
func (w writeGrant) String() string {
	if w.group == "" {
		return w.res
	}
	return w.group + "/" + w.res
}

// podResources carry a pod spec: writing them writes the pods' secrets,
// ServiceAccount and images.
var podResources = map[schema.GroupResource]bool{
	{Resource: "pods"}: true, {Resource: "podtemplates"}: true, {Resource: "replicationcontrollers"}: true,
	{Group: "apps", Resource: "deployments"}: true, {Group: "apps", Resource: "statefulsets"}: true,
	{Group: "apps", Resource: "replicasets"}: true, {Group: "apps", Resource: "daemonsets"}: true,
	{Group: "batch", Resource: "jobs"}: true, {Group: "batch", Resource: "cronjobs"}: true,
}

// rewritesPods reports whether verb on w changes a pod spec: update or
// patch of an object that carries one (its /scale and /status do not).
func (w writeGrant) rewritesPods(verb string) bool {
	return (verb == "update" || verb == "patch") && !strings.Contains(w.res, "/") && podResources[w.parent()]
}

// unlimited reports whether resourceNames cannot limit verb on the grant:
// deletecollection, and create of a resource (create of a subresource
// names its parent object).
func (w writeGrant) unlimited(verb string) bool {
	return verb == "deletecollection" || verb == "create" && !strings.Contains(w.res, "/")
}

// checkWrites refuses the writes of a rule that reach objects the
// code-location does not ship. Groups, resources and verbs that
// checkGrants refuses are left to it.
func (in *Context) checkWrites(o *yaml.RNode, at string, rule rbacv1.PolicyRule, shipped shippedObjects) problem.Problems {
	var verbs []string
	for _, v := range rule.Verbs {
		if slices.Contains(rbacWriteVerbs, v) && !slices.Contains(verbs, v) {
			verbs = append(verbs, v)
		}
	}
	if len(verbs) == 0 {
		return nil
	}
	var ps problem.Problems
	for _, g := range rule.APIGroups {
		if g == rbacv1.APIGroupAll {
			continue
		}
		for j, res := range rule.Resources {
			if _, refused := resourceRefusal(res); refused || res != strings.ToLower(res) {
				continue
			}
			w := writeGrant{at: at, resource: j, group: g, res: res, verbs: verbs, names: rule.ResourceNames}
			ps = append(ps, in.checkWrite(o, w, shipped)...)
		}
	}
	return ps
}

// checkWrite sorts the verbs of w into what the contract allows, what no
// name can limit, what names no object and what names objects, and
// refuses the writes that reach beyond the shipped objects.
func (in *Context) checkWrite(o *yaml.RNode, w writeGrant, shipped shippedObjects) problem.Problems {
	field := fmt.Sprintf("%s.resources[%d]", w.at, w.resource)
	if r, never := neverWritten[w.parent()]; never {
		return problem.Problems{in.problem(o, CodeRBACWrite, field, fmt.Sprintf("grants %s on %s, which %s", verbList(w.verbs), w, r.why), r.hint)}
	}
	var unlimited, unnamed, named, respec []string
	for _, v := range w.verbs {
		switch {
		case in.runLaunching(w, v):
		case w.rewritesPods(v):
			respec = append(respec, v)
		case w.unlimited(v):
			unlimited = append(unlimited, v)
		case len(w.names) == 0:
			unnamed = append(unnamed, v)
		default:
			named = append(named, v)
		}
	}
	var ps problem.Problems
	if len(respec) > 0 {
		msg := fmt.Sprintf("grants %s on %s, which rewrites the pod spec the render checked: at run time its pods could mount any Secret or run as any ServiceAccount of the shared namespace", verbList(respec), w)
		hint := fmt.Sprintf("grant %s on %s/scale to change the replicas, or remove the write: the pod spec changes through a commit, where the render checks it", verbList(respec), w.parent().Resource)
		ps = append(ps, in.problem(o, CodeRBACWrite, field, msg, hint))
	}
	if len(unlimited) > 0 {
		msg := fmt.Sprintf("grants %s on %s, which resourceNames cannot limit (the API server knows no name when it authorizes them), so under any name in the shared namespace, other code-locations' included", verbList(unlimited), w)
		hint := "remove it and ship the objects in the kustomize root; if Dagster's run launching needs it, ask the platform to list " + grantEntry(w, unlimited) + " in policy.runLaunching"
		ps = append(ps, in.problem(o, CodeRBACWrite, field, msg, in.groupHint(w, shipped, hint)))
	}
	if len(unnamed) > 0 {
		msg := fmt.Sprintf("grants %s on %s without resourceNames, so on every one in the shared namespace, other code-locations' included", verbList(unnamed), w)
		hint := nameHint(w, shipped) + ", or ask the platform to list " + grantEntry(w, unnamed) + " in policy.runLaunching"
		ps = append(ps, in.problem(o, CodeRBACWrite, field, msg, in.groupHint(w, shipped, hint)))
	}
	if len(named) > 0 {
		ps = append(ps, in.checkNames(o, w, named, shipped)...)
	}
	return ps
}

// checkNames refuses each name of w that is not an object of w's resource
// the kustomize root ships.
func (in *Context) checkNames(o *yaml.RNode, w writeGrant, verbs []string, shipped shippedObjects) problem.Problems {
	var ps problem.Problems
	for k, name := range w.names {
		if slices.Contains(shipped[w.parent()], name) {
			continue
		}
		msg := fmt.Sprintf("grants %s on %s %s, which the kustomize root does not ship: it writes another code-location's object, or one the render never checked", verbList(verbs), w, name)
		ps = append(ps, in.problem(o, CodeRBACWrite, fmt.Sprintf("%s.resourceNames[%d]", w.at, k), msg, in.groupHint(w, shipped, nameHint(w, shipped))))
	}
	return ps
}

// runLaunching reports whether the contract's policy.runLaunching lets a
// Role grant verb on w, listed as w's resource or its parent's.
func (in *Context) runLaunching(w writeGrant, verb string) bool {
	p := in.c.Policy
	return p.AllowsRunLaunching(w.group, w.res, verb) || p.AllowsRunLaunching(w.group, w.parent().Resource, verb)
}

// groupHint is hint, unless w's resource is not in w's API group but in
// others, where the kustomize root ships it or policy.runLaunching lists
// it: a rule of several API groups grants each resource in each.
func (in *Context) groupHint(w writeGrant, shipped shippedObjects, hint string) string {
	gr := w.parent()
	if len(shipped[gr]) > 0 {
		return hint
	}
	var groups []string
	add := func(other schema.GroupResource) {
		if q := fmt.Sprintf("%q", other.Group); other.Resource == gr.Resource && other.Group != gr.Group && !slices.Contains(groups, q) {
			groups = append(groups, q)
		}
	}
	for other := range shipped {
		add(other)
	}
	for _, g := range in.c.Policy.RunLaunching {
		add(schema.GroupResource{Group: g.Group, Resource: g.Resource})
	}
	if len(groups) == 0 {
		return hint
	}
	slices.Sort(groups)
	return fmt.Sprintf("%s are in the API group %s, not %q: write one rule per API group", gr.Resource, strings.Join(groups, ", "), gr.Group)
}

// nameHint says which names the grant may list.
func nameHint(w writeGrant, shipped shippedObjects) string {
	gr := w.parent()
	if names := shipped[gr]; len(names) > 0 {
		return fmt.Sprintf("name in resourceNames only the %s the kustomize root ships (%s)", gr.Resource, strings.Join(names, ", "))
	}
	return fmt.Sprintf("remove the write verbs: the kustomize root ships no %s to name in resourceNames", gr.Resource)
}

// grantEntry is the policy.runLaunching entry that would allow verbs on w.
func grantEntry(w writeGrant, verbs []string) string {
	return fmt.Sprintf("{group: %q, resource: %s, verbs: [%s]}", w.group, w.res, strings.Join(verbs, ", "))
}

// verbList is verbs as prose: "create", "update and patch".
func verbList(verbs []string) string {
	if len(verbs) == 1 {
		return verbs[0]
	}
	return strings.Join(verbs[:len(verbs)-1], ", ") + " and " + verbs[len(verbs)-1]
}
