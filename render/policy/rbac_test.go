package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/validate"
)

// rbacShipped is what the RoleBindings of the cases below may bind.
const rbacShipped = `
apiVersion: v1
kind: ServiceAccount
metadata: {name: citation-dagster}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: citation-dagster}
rules:
  - apiGroups: [""]
    resources: [pods, pods/log, configmaps]
    verbs: [get, list, watch]
  - apiGroups: [batch]
    resources: [jobs]
    verbs: [create, delete]
---
`

func TestCheckRBAC(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   []string
	}{
		{"own Role bound to own ServiceAccount", `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: citation-dagster}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: citation-dagster}
subjects:
  - {kind: ServiceAccount, name: citation-dagster}
  - {kind: ServiceAccount, name: citation-dagster, namespace: dagster}
`, nil},
		{"ClusterRole refused", `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: citation-admin}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
subjects: [{kind: ServiceAccount, name: citation-dagster}]
`, []string{"rbac-role-ref RoleBinding/citation-admin.roleRef.kind"}},
		{"Role not shipped refused", `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: citation-preflight-too}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: citation-preflight}
subjects: [{kind: ServiceAccount, name: citation-dagster}]
`, []string{"rbac-role-ref RoleBinding/citation-preflight-too.roleRef.name"}},
		{"roleRef in another group refused", `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: citation-x}
roleRef: {apiGroup: example.com, kind: Role, name: citation-dagster}
subjects: [{kind: ServiceAccount, name: citation-dagster}]
`, []string{"rbac-role-ref RoleBinding/citation-x.roleRef.apiGroup"}},
		{"subjects other than own ServiceAccounts refused", `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: citation-people}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: citation-dagster}
subjects:
  - {apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}
  - {apiGroup: rbac.authorization.k8s.io, kind: Group, name: "system:serviceaccounts"}
  - {kind: ServiceAccount, name: citation-dagster, namespace: kube-system}
  - {kind: ServiceAccount, name: mediawatch-dagster}
  - {kind: ServiceAccount, name: citation-preflight}
  - {kind: ServiceAccount, name: default}
  - {apiGroup: example.com, kind: ServiceAccount, name: citation-dagster}
`, []string{
			"rbac-subject RoleBinding/citation-people.subjects[0].kind",
			"rbac-subject RoleBinding/citation-people.subjects[1].kind",
			"rbac-subject RoleBinding/citation-people.subjects[2].namespace",
			"rbac-subject RoleBinding/citation-people.subjects[3].name",
			"rbac-subject RoleBinding/citation-people.subjects[4].name",
			"rbac-subject RoleBinding/citation-people.subjects[5].name",
			"rbac-subject RoleBinding/citation-people.subjects[6].apiGroup",
		}},
		{"Role grants refused", `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: citation-wide}
rules:
  - apiGroups: [""]
    resources: [configmaps, secrets]
    verbs: [get]
  - apiGroups: ["*"]
    resources: ["*"]
    verbs: ["*"]
  - apiGroups: [""]
    resources: [pods/exec, pods/attach, pods/ephemeralcontainers, serviceaccounts/token, "*/scale", secrets/status]
    verbs: [create, impersonate, escalate, bind]
  - nonResourceURLs: [/healthz]
    verbs: [get]
`, []string{
			"rbac-rule Role/citation-wide.rules[0].resources[1]",
			"rbac-rule Role/citation-wide.rules[1].apiGroups[0]",
			"rbac-rule Role/citation-wide.rules[1].resources[0]",
			"rbac-rule Role/citation-wide.rules[1].verbs[0]",
			"rbac-rule Role/citation-wide.rules[2].resources[0]",
			"rbac-rule Role/citation-wide.rules[2].resources[1]",
			"rbac-rule Role/citation-wide.rules[2].resources[2]",
			"rbac-rule Role/citation-wide.rules[2].resources[3]",
			"rbac-rule Role/citation-wide.rules[2].resources[4]",
			"rbac-rule Role/citation-wide.rules[2].resources[5]",
			"rbac-rule Role/citation-wide.rules[2].verbs[1]",
			"rbac-rule Role/citation-wide.rules[2].verbs[2]",
			"rbac-rule Role/citation-wide.rules[2].verbs[3]",
			"rbac-rule Role/citation-wide.rules[3].nonResourceURLs",
		}},
		{"a Role-named kind of another group is no RBAC", `
apiVersion: example.com/v1
kind: Role
metadata: {name: citation-game}
rules: [{resources: [secrets]}]
`, nil},
		{"a roleRef spelled in another case is read as the API server reads it", `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: citation-case}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
roleref: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: citation-dagster}
subjects: [{kind: ServiceAccount, name: citation-dagster}]
`, []string{"rbac-role-ref RoleBinding/citation-case.roleRef.kind"}},
		{"malformed object left to wellFormedRule", `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: citation-bad}
roleRef: [admin]
`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := kindsInstance(t, nil)
			got := codesAndPaths(check(t, rbacRule{}, in, parseObjects(t, rbacShipped+tt.stream)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckRBACMessages(t *testing.T) {
	in := kindsInstance(t, nil)
	ps := check(t, rbacRule{}, in, parseObjects(t, rbacShipped+`
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: citation-admin}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: citation-reader}
rules: [{apiGroups: [""], resources: [secrets], verbs: [get]}]
`))
	want := []string{
		"binds the ClusterRole admin: its rules reach every object of the shared namespace, other code-locations' included",
		`resource "secrets" grants every Secret of the shared namespace, other code-locations' included`,
		"binds User alice: a code-location binds its own ServiceAccounts only",
	}
	var got []string
	for _, p := range ps.Sorted() {
		got = append(got, p.Message)
		if p.Hint == "" {
			t.Errorf("%s: no hint", p.Path)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

// rbacWriteShipped are the objects the Roles of the write cases may name.
const rbacWriteShipped = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: citation-web}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: citation-settings}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: citation-dagster}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: citation}
---
`

func TestCheckRBACWrites(t *testing.T) {
	onlyConfigMapCreate := func(p *validate.Policy) {
		p.RunLaunching = []validate.Grant{{Group: "", Resource: "configmaps", Verbs: []string{"create", "update"}}}
	}
	tests := []struct {
		name   string
		policy func(*validate.Policy)
		rules  string
		want   []string
	}{
		{"own objects written by name", nil, `
  - apiGroups: [apps]
    resources: [deployments, deployments/scale, deployments/status]
    resourceNames: [citation-web]
    verbs: [get, delete]
  - apiGroups: [apps]
    resources: [deployments/scale, deployments/status]
    resourceNames: [citation-web]
    verbs: [update, patch]
  - apiGroups: [""]
    resources: [configmaps]
    resourceNames: [citation-settings]
    verbs: [update, patch]
  - apiGroups: [networking.k8s.io]
    resources: [networkpolicies]
    resourceNames: [citation]
    verbs: [patch]
`, nil},
		{"reads stay allowed", nil, `
  - apiGroups: ["", apps, rbac.authorization.k8s.io]
    resources: [configmaps, pods, pods/log, deployments, roles, rolebindings, serviceaccounts, persistentvolumeclaims]
    verbs: [get, list, watch]
`, nil},
		{"run launching under the default contract", nil, `
  - apiGroups: [batch]
    resources: [jobs, jobs/status]
    verbs: [get, list, watch, create, delete]
  - apiGroups: [""]
    resources: [pods]
    verbs: [create, delete]
`, nil},
		{"patch deployments without resourceNames", nil, `
  - apiGroups: [apps]
    resources: [deployments]
    verbs: [get, patch, patch]
`, []string{"rbac-write Role/citation-writer.rules[0].resources[0]"}},
		{"deployments of another code-location", nil, `
  - apiGroups: [apps]
    resources: [deployments/scale, deployments/status]
    resourceNames: [citation-web, mediawatch-dagster]
    verbs: [update]
`, []string{
			"rbac-write Role/citation-writer.rules[0].resourceNames[1]",
			"rbac-write Role/citation-writer.rules[0].resourceNames[1]",
		}},
		{"configmaps named as another's record", nil, `
  - apiGroups: [""]
    resources: [configmaps]
    resourceNames: [codeloc-mediawatch, codeloc-citation, citation-web]
    verbs: [update, patch]
`, []string{
			"rbac-write Role/citation-writer.rules[0].resourceNames[0]",
			"rbac-write Role/citation-writer.rules[0].resourceNames[1]",
			"rbac-write Role/citation-writer.rules[0].resourceNames[2]",
		}},
		{"objects codeloc emits are not shipped", nil, `
  - apiGroups: [""]
    resources: [persistentvolumeclaims]
    resourceNames: [citation-data]
    verbs: [delete]
`, []string{"rbac-write Role/citation-writer.rules[0].resourceNames[0]"}},
		{"create and deletecollection cannot be limited", nil, `
  - apiGroups: [""]
    resources: [configmaps]
    resourceNames: [citation-settings]
    verbs: [create, update, deletecollection]
  - apiGroups: [""]
    resources: [pods]
    verbs: [create, delete, deletecollection]
`, []string{
			"rbac-write Role/citation-writer.rules[0].resources[0]",
			"rbac-write Role/citation-writer.rules[1].resources[0]",
		}},
		{"a subresource's create is its parent's write", nil, `
  - apiGroups: [apps]
    resources: [deployments/scale]
    verbs: [create]
  - apiGroups: [apps]
    resources: [deployments/scale]
    resourceNames: [citation-web]
    verbs: [create]
`, []string{"rbac-write Role/citation-writer.rules[0].resources[0]"}},
		{"RBAC and ServiceAccounts never written", nil, `
  - apiGroups: [rbac.authorization.k8s.io]
    resources: [roles, rolebindings]
    resourceNames: [citation-dagster]
    verbs: [get, update, patch]
  - apiGroups: [""]
    resources: [serviceaccounts]
    resourceNames: [citation-dagster]
    verbs: [update]
`, []string{
			"rbac-write Role/citation-writer.rules[0].resources[0]",
			"rbac-write Role/citation-writer.rules[0].resources[1]",
			"rbac-write Role/citation-writer.rules[1].resources[0]",
		}},
		{"escalation through its own Role", nil, `
  - apiGroups: [rbac.authorization.k8s.io]
    resources: [roles, clusterrolebindings]
    resourceNames: [citation-writer]
    verbs: [patch]
`, []string{
			"rbac-write Role/citation-writer.rules[0].resources[0]",
			"rbac-write Role/citation-writer.rules[0].resources[1]",
		}},
		{"tunnels, proxies, evictions and nodes", nil, `
  - apiGroups: [""]
    resources: [pods/portforward, services/proxy, pods/proxy, pods/eviction, pods/binding, bindings, nodes, nodes/proxy]
    verbs: [get, create]
`, []string{
			"rbac-rule Role/citation-writer.rules[0].resources[0]",
			"rbac-rule Role/citation-writer.rules[0].resources[1]",
			"rbac-rule Role/citation-writer.rules[0].resources[2]",
			"rbac-rule Role/citation-writer.rules[0].resources[3]",
			"rbac-rule Role/citation-writer.rules[0].resources[4]",
			"rbac-rule Role/citation-writer.rules[0].resources[5]",
			"rbac-rule Role/citation-writer.rules[0].resources[6]",
			"rbac-rule Role/citation-writer.rules[0].resources[7]",
		}},
		{"pod specs are not rewritten, even by name", nil, `
  - apiGroups: [apps]
    resources: [deployments, statefulsets]
    resourceNames: [citation-web]
    verbs: [update, patch]
  - apiGroups: [batch]
    resources: [cronjobs, jobs]
    resourceNames: [citation-web]
    verbs: [patch]
  - apiGroups: [""]
    resources: [pods]
    resourceNames: [citation-web]
    verbs: [patch]
`, []string{
			"rbac-write Role/citation-writer.rules[0].resources[0]",
			"rbac-write Role/citation-writer.rules[0].resources[1]",
			"rbac-write Role/citation-writer.rules[1].resources[0]",
			"rbac-write Role/citation-writer.rules[1].resources[1]",
			"rbac-write Role/citation-writer.rules[2].resources[0]",
		}},
		{"each API group of a rule is written", nil, `
  - apiGroups: ["", apps]
    resources: [deployments]
    resourceNames: [citation-web]
    verbs: [delete]
`, []string{"rbac-write Role/citation-writer.rules[0].resourceNames[0]"}},
		{"run launching in one rule of two API groups", nil, `
  - apiGroups: ["", batch]
    resources: [pods, jobs]
    verbs: [create, delete]
`, []string{
			"rbac-write Role/citation-writer.rules[0].resources[0]",
			"rbac-write Role/citation-writer.rules[0].resources[0]",
			"rbac-write Role/citation-writer.rules[0].resources[1]",
			"rbac-write Role/citation-writer.rules[0].resources[1]",
		}},
		{"unknown verbs and capitals grant nothing", nil, `
  - apiGroups: [""]
    resources: [ConfigMaps, Secrets]
    verbs: [Create, PATCH, use, "", " get", Escalate]
`, []string{
			"rbac-unknown Role/citation-writer.rules[0].resources[0]",
			"rbac-unknown Role/citation-writer.rules[0].resources[1]",
			"rbac-unknown Role/citation-writer.rules[0].verbs[0]",
			"rbac-unknown Role/citation-writer.rules[0].verbs[1]",
			"rbac-unknown Role/citation-writer.rules[0].verbs[2]",
			"rbac-unknown Role/citation-writer.rules[0].verbs[3]",
			"rbac-unknown Role/citation-writer.rules[0].verbs[4]",
			"rbac-unknown Role/citation-writer.rules[0].verbs[5]",
		}},
		{"a wildcard verb is refused once", nil, `
  - apiGroups: [""]
    resources: [configmaps]
    verbs: ["*"]
`, []string{"rbac-rule Role/citation-writer.rules[0].verbs[0]"}},
		{"a custom contract's run launching", onlyConfigMapCreate, `
  - apiGroups: [""]
    resources: [configmaps]
    verbs: [create, update]
  - apiGroups: [batch]
    resources: [jobs]
    verbs: [create]
`, []string{"rbac-write Role/citation-writer.rules[1].resources[0]"}},
		{"run launching never writes RBAC", func(p *validate.Policy) {
			p.RunLaunching = []validate.Grant{{Group: "rbac.authorization.k8s.io", Resource: "roles", Verbs: []string{"create"}}}
		}, `
  - apiGroups: [rbac.authorization.k8s.io]
    resources: [roles]
    verbs: [create]
`, []string{"rbac-write Role/citation-writer.rules[0].resources[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := kindsInstance(t, tt.policy)
			role := "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: citation-writer}\nrules:" + tt.rules
			got := codesAndPaths(check(t, rbacRule{}, in, parseObjects(t, rbacWriteShipped+role)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckRBACWriteMessages(t *testing.T) {
	in := kindsInstance(t, nil)
	ps := check(t, rbacRule{}, in, parseObjects(t, rbacWriteShipped+`
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: citation-writer}
rules:
  - apiGroups: [apps]
    resources: [deployments]
    verbs: [update, patch]
  - apiGroups: [""]
    resources: [configmaps]
    resourceNames: [codeloc-mediawatch]
    verbs: [create, patch]
  - apiGroups: [""]
    resources: [persistentvolumeclaims]
    resourceNames: [citation-data]
    verbs: [delete]
  - apiGroups: [rbac.authorization.k8s.io]
    resources: [rolebindings]
    verbs: [update]
  - apiGroups: [""]
    resources: [configmaps]
    verbs: [Patch]
  - apiGroups: [batch, ""]
    resources: [jobs]
    verbs: [create]
`))
	type line struct{ Path, Message, Hint string }
	want := []line{
		{"Role/citation-writer.rules[4].verbs[0]",
			`verb "Patch" is not one of get, list, watch, create, update, patch, delete, deletecollection: RBAC compares verbs exactly, so it grants nothing codeloc can judge`,
			`write "patch"`},
		{"Role/citation-writer.rules[0].resources[0]",
			"grants update and patch on apps/deployments, which rewrites the pod spec the render checked: at run time its pods could mount any Secret or run as any ServiceAccount of the shared namespace",
			"grant update and patch on deployments/scale to change the replicas, or remove the write: the pod spec changes through a commit, where the render checks it"},
		{"Role/citation-writer.rules[1].resourceNames[0]",
			"grants patch on configmaps codeloc-mediawatch, which the kustomize root does not ship: it writes another code-location's object, or one the render never checked",
			"name in resourceNames only the configmaps the kustomize root ships (citation-settings)"},
		{"Role/citation-writer.rules[1].resources[0]",
			"grants create on configmaps, which resourceNames cannot limit (the API server knows no name when it authorizes them), so under any name in the shared namespace, other code-locations' included",
			`remove it and ship the objects in the kustomize root; if Dagster's run launching needs it, ask the platform to list {group: "", resource: configmaps, verbs: [create]} in policy.runLaunching`},
		{"Role/citation-writer.rules[2].resourceNames[0]",
			"grants delete on persistentvolumeclaims citation-data, which the kustomize root does not ship: it writes another code-location's object, or one the render never checked",
			"remove the write verbs: the kustomize root ships no persistentvolumeclaims to name in resourceNames"},
		{"Role/citation-writer.rules[3].resources[0]",
			"grants update on rbac.authorization.k8s.io/rolebindings, which rewrites RoleBindings at run time: it can hand its grants to subjects the render never checked (other code-locations' ServiceAccounts, system:serviceaccounts, users)",
			hintRBACInRender},
		{"Role/citation-writer.rules[5].resources[0]",
			"grants create on jobs, which resourceNames cannot limit (the API server knows no name when it authorizes them), so under any name in the shared namespace, other code-locations' included",
			`jobs are in the API group "batch", not "": write one rule per API group`},
	}
	var got []line
	for _, p := range ps.Sorted() {
		got = append(got, line{p.Path, p.Message, p.Hint})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}
