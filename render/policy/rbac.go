package policy

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/apijson"
	"github.com/codeloc/codeloc/render/node"
	"github.com/codeloc/codeloc/validate"
)

// rbacRule keeps the code-location's RBAC inside its own objects: a
// RoleBinding binds a Role the render ships to ServiceAccounts the render
// ships, and a shipped Role grants nothing that reaches beyond them in the
// shared namespace (Secrets, wildcards, privilege escalation, other pods'
// processes, writes on objects it does not ship: see rbacwrite.go).
// ClusterRoles and ClusterRoleBindings are cluster-scoped: scopeRule
// refuses them.
type rbacRule struct{}

// Codes of rbacRule: stable, contracts, fixtures and scripts name them.
const (
	CodeRBACRoleRef = "rbac-role-ref"
	CodeRBACSubject = "rbac-subject"
	CodeRBACRule    = "rbac-rule"
	CodeRBACWrite   = "rbac-write"
	CodeRBACUnknown = "rbac-unknown"
)

// Codes are the codes rbacRule emits.
func (rbacRule) Codes() []Code {
	return []Code{
		{CodeRBACRoleRef, "A RoleBinding binds a ClusterRole, or a Role the render does not ship."},
		{CodeRBACSubject, "A RoleBinding binds a subject other than a ServiceAccount the render ships."},
		{CodeRBACRule, "A shipped Role grants secrets, wildcards, escalate, bind, impersonate, serviceaccounts/token, nodes, or a pods/services subresource that enters, tunnels to, evicts or binds other pods (exec, attach, ephemeralcontainers, portforward, proxy, eviction, binding)."},
		{CodeRBACWrite, "A shipped Role writes what the code-location does not ship: create or deletecollection (no name limits them), update/patch/delete without resourceNames or naming objects the render does not ship, or any write on Roles, RoleBindings and ServiceAccounts; policy.runLaunching lists the exceptions."},
		{CodeRBACUnknown, "A shipped Role lists a verb Kubernetes does not authorize with (verbs are lowercase and compared exactly) or a resource with capitals: it grants nothing codeloc can judge."},
	}
}

func (rbacRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	roles, accounts := shippedNames(objs, rbacv1.GroupName, "Role"), shippedNames(objs, "", "ServiceAccount")
	shipped := indexShipped(objs)
	var ps problem.Problems
	for _, o := range objs {
		if handledByPolicy(o) || objectGroupKind(o).Group != rbacv1.GroupName {
			continue
		}
		switch o.GetKind() {
		case "Role":
			var r rbacv1.Role
			if decodeObject(o, &r) {
				ps = append(ps, in.checkRole(o, r.Rules, shipped)...)
			}
		case "RoleBinding":
			var b rbacv1.RoleBinding
			if decodeObject(o, &b) {
				ps = append(ps, in.checkRoleRef(o, b.RoleRef, roles)...)
				ps = append(ps, in.checkSubjects(o, b.Subjects, accounts)...)
			}
		}
	}
	return ps
}

// shippedNames is the set of names of the objects of group and kind.
func shippedNames(objs []*yaml.RNode, group, kind string) map[string]bool {
	set := map[string]bool{}
	for _, o := range objs {
		if objectGroupKind(o) == (validate.GroupKind{Group: group, Kind: kind}) {
			set[o.GetName()] = true
		}
	}
	return set
}

// decodeObject decodes o into v, an API type, as the API server does (field
// names case-sensitive: encoding/json would read a "roleref" key as
// roleRef, which the API server drops) and with the decoder, and so the
// per-type tables, the pod specs were decoded with. An object that does not
// decode is malformed, which wellFormedRule reports.
func decodeObject(o *yaml.RNode, v any) bool {
	data, err := node.JSON(o.YNode())
	return err == nil && apijson.Decode(data, v) == nil
}

func (in *Context) checkRoleRef(o *yaml.RNode, ref rbacv1.RoleRef, roles map[string]bool) problem.Problems {
	const hint = "ship a Role with the rules the ServiceAccounts need, and set roleRef to its kind Role, apiGroup rbac.authorization.k8s.io and name"
	var field, msg string
	switch {
	case ref.Kind == "ClusterRole":
		field, msg = "roleRef.kind", fmt.Sprintf("binds the ClusterRole %s: its rules reach every object of the shared namespace, other code-locations' included", ref.Name)
	case ref.Kind != "Role":
		field, msg = "roleRef.kind", fmt.Sprintf("roleRef kind %q is not Role", ref.Kind)
	case ref.APIGroup != rbacv1.GroupName:
		field, msg = "roleRef.apiGroup", fmt.Sprintf("roleRef apiGroup %q is not %s", ref.APIGroup, rbacv1.GroupName)
	case !roles[ref.Name]:
		field, msg = "roleRef.name", fmt.Sprintf("binds Role %s, which the kustomize root does not ship", ref.Name)
	default:
		return nil
	}
	return problem.Problems{in.problem(o, CodeRBACRoleRef, field, msg, hint)}
}

func (in *Context) checkSubjects(o *yaml.RNode, subjects []rbacv1.Subject, accounts map[string]bool) problem.Problems {
	const hint = "bind only ServiceAccounts the kustomize root ships, in the code-location's namespace; people get access through the platform"
	var ps problem.Problems
	for i, s := range subjects {
		at := fmt.Sprintf("subjects[%d]", i)
		var field, msg string
		switch {
		case s.Kind != rbacv1.ServiceAccountKind:
			field, msg = at+".kind", fmt.Sprintf("binds %s %s: a code-location binds its own ServiceAccounts only", s.Kind, s.Name)
		case s.APIGroup != "":
			field, msg = at+".apiGroup", fmt.Sprintf("a ServiceAccount subject's apiGroup is \"\", not %q", s.APIGroup)
		case s.Namespace != "" && s.Namespace != in.c.Namespace:
			field, msg = at+".namespace", fmt.Sprintf("binds ServiceAccount %s of the namespace %s, not of the code-location's namespace %s", s.Name, s.Namespace, in.c.Namespace)
		case !accounts[s.Name]:
			field, msg = at+".name", fmt.Sprintf("binds ServiceAccount %s, which the kustomize root does not ship", s.Name)
		default:
			continue
		}
		ps = append(ps, in.problem(o, CodeRBACSubject, field, msg, hint))
	}
	return ps
}

// refusal is why a shipped Role may not make a grant, and what to do.
type refusal struct{ why, hint string }

const (
	hintNoEntry     = "remove it: a code-location does not enter pods, its own or another's; read their logs through pods/log"
	hintNoTunnel    = "remove it: reach another code-location's pods through its Service, as the network policies allow"
	hintNoEscalate  = "remove it: a code-location's ServiceAccounts act as themselves, with exactly what their Roles list"
	hintListByName  = "list by name the API groups, resources and verbs the ServiceAccounts need"
	hintNoSecretAPI = "remove it: the pods get the declared secrets through secretKeyRef, envFrom or a secret volume, never through the API"
	hintNoScheduler = "remove it: Dagster deletes the Jobs and pods it launched (policy.runLaunching); placing pods is the scheduler's"
)

// The grants a shipped Role may not make, whatever the verb: each reaches
// past the code-location's own objects in the namespace all code-locations
// share. A resource's subresources are refused with it when the map holds
// the resource alone (secrets, nodes).
var (
	forbiddenResources = map[string]refusal{
		"secrets":                  {"grants every Secret of the shared namespace, other code-locations' included", hintNoSecretAPI},
		"serviceaccounts/token":    {"mints tokens for any ServiceAccount of the namespace, other code-locations' included", "remove it: a pod gets its own ServiceAccount's token mounted"},
		"pods/exec":                {"runs commands in any pod of the namespace, other code-locations' included", hintNoEntry},
		"pods/attach":              {"attaches to the processes of any pod of the namespace, as pods/exec does", hintNoEntry},
		"pods/ephemeralcontainers": {"adds a container to any pod of the namespace, as pods/exec does", hintNoEntry},
		"pods/portforward":         {"opens a tunnel to any port of any pod of the namespace through the API server, past the network policies", hintNoTunnel},
		"pods/proxy":               {"proxies requests to any pod of the namespace through the API server, past the network policies", hintNoTunnel},
		"services/proxy":           {"proxies requests to any Service of the namespace through the API server, past the network policies", hintNoTunnel},
		"pods/eviction":            {"evicts any pod of the namespace, other code-locations' included", hintNoScheduler},
		"pods/binding":             {"binds any pending pod of the namespace to a node of its choosing", hintNoScheduler},
		"bindings":                 {"binds any pending pod of the namespace to a node of its choosing", hintNoScheduler},
		"nodes":                    {"names nodes: they are cluster-scoped, so a Role grants nothing on them, and nodes/proxy reaches the kubelets, which run commands in any pod of their node", "remove it: nodes belong to the platform"},
	}
	forbiddenVerbs = map[string]refusal{
		"escalate":    {"lets the holder write Roles that grant more than it holds", hintNoEscalate},
		"bind":        {"lets the holder bind Roles and ClusterRoles it does not hold, admin included", hintNoEscalate},
		"impersonate": {"lets the holder act as other users and ServiceAccounts", hintNoEscalate},
	}
)

// Verbs Kubernetes authorizes on resources: the API server's request verbs,
// which RBAC compares exactly (case-sensitively). A Role may grant the
// reads, and the writes under the rules of rbacwrite.go.
var (
	rbacReadVerbs  = []string{"get", "list", "watch"}
	rbacWriteVerbs = []string{"create", "update", "patch", "delete", "deletecollection"}
)

func (in *Context) checkRole(o *yaml.RNode, rules []rbacv1.PolicyRule, shipped shippedObjects) problem.Problems {
	var ps problem.Problems
	for i, rule := range rules {
		at := fmt.Sprintf("rules[%d]", i)
		ps = append(ps, in.checkGrants(o, at, rule)...)
		ps = append(ps, in.checkWrites(o, at, rule, shipped)...)
	}
	return ps
}

// checkGrants refuses the groups, resources and verbs a rule may not grant
// whatever else it says, and those that grant nothing (rbac-unknown).
func (in *Context) checkGrants(o *yaml.RNode, at string, rule rbacv1.PolicyRule) problem.Problems {
	var ps problem.Problems
	refuse := func(field, what string, r refusal) {
		ps = append(ps, in.problem(o, CodeRBACRule, field, what+" "+r.why, r.hint))
	}
	for j, g := range rule.APIGroups {
		if g == rbacv1.APIGroupAll {
			refuse(fmt.Sprintf("%s.apiGroups[%d]", at, j), `apiGroups "*"`, refusal{"grants every API group, those installed later included", hintListByName})
		}
	}
	for j, res := range rule.Resources {
		field := fmt.Sprintf("%s.resources[%d]", at, j)
		if r, bad := resourceRefusal(res); bad {
			refuse(field, fmt.Sprintf("resource %q", res), r)
		} else if res != strings.ToLower(res) {
			ps = append(ps, in.unknownResource(o, field, res))
		}
	}
	for j, v := range rule.Verbs {
		field := fmt.Sprintf("%s.verbs[%d]", at, j)
		if r, bad := verbRefusal(v); bad {
			refuse(field, fmt.Sprintf("verb %q", v), r)
		} else if !knownVerb(v) {
			ps = append(ps, in.unknownVerb(o, field, v))
		}
	}
	if len(rule.NonResourceURLs) > 0 {
		refuse(at+".nonResourceURLs", "nonResourceURLs", refusal{"are granted by ClusterRoles only: the API server refuses them in a Role", "remove them; ask the platform for cluster-wide needs"})
	}
	return ps
}

// resourceRefusal says why a Role may not grant res (a resource, or
// resource/subresource), if it may not.
func resourceRefusal(res string) (refusal, bool) {
	if strings.Contains(res, rbacv1.ResourceAll) {
		return refusal{"is a wildcard: it grants every resource it matches, those added later included", hintListByName}, true
	}
	if base, _, _ := strings.Cut(res, "/"); base == "secrets" || base == "nodes" {
		res = base
	}
	r, bad := forbiddenResources[res]
	return r, bad
}

// verbRefusal says why a Role may not grant verb, if it may not.
func verbRefusal(verb string) (refusal, bool) {
	if verb == rbacv1.VerbAll {
		return refusal{"grants every verb, escalate, bind and impersonate included", hintListByName}, true
	}
	r, bad := forbiddenVerbs[verb]
	return r, bad
}

// knownVerb reports whether verb is one a Role may grant: a read or a write.
func knownVerb(verb string) bool {
	return slices.Contains(rbacReadVerbs, verb) || slices.Contains(rbacWriteVerbs, verb)
}

// unknownVerb refuses a verb Kubernetes does not authorize requests with:
// it grants nothing on the API server's resources (verbs are compared
// exactly), and what an aggregated API or a webhook authorizer makes of it
// codeloc cannot judge.
func (in *Context) unknownVerb(o *yaml.RNode, field, verb string) problem.Problem {
	msg := fmt.Sprintf("verb %q is not one of %s: RBAC compares verbs exactly, so it grants nothing codeloc can judge", verb, strings.Join(slices.Concat(rbacReadVerbs, rbacWriteVerbs), ", "))
	hint := "remove it, or write the verb the ServiceAccounts need in lowercase"
	if lower := strings.ToLower(strings.TrimSpace(verb)); knownVerb(lower) {
		hint = fmt.Sprintf("write %q", lower)
	} else if _, bad := verbRefusal(lower); bad {
		hint = fmt.Sprintf("remove it: %q is refused too", lower)
	}
	return in.problem(o, CodeRBACUnknown, field, msg, hint)
}

// unknownResource refuses a resource written with capitals: Kubernetes
// resources are lowercase plurals, compared exactly, so it grants nothing.
func (in *Context) unknownResource(o *yaml.RNode, field, res string) problem.Problem {
	msg := fmt.Sprintf("resource %q matches no request: Kubernetes resources are lowercase plurals, compared exactly", res)
	lower := strings.ToLower(res)
	hint := fmt.Sprintf("write %q", lower)
	if _, bad := resourceRefusal(lower); bad {
		hint = fmt.Sprintf("remove it: %q is refused too", lower)
	}
	return in.problem(o, CodeRBACUnknown, field, msg, hint)
}
