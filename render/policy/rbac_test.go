package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
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
			got := codesAndPaths(rbacRule{}.Check(in, kindsObjects(t, rbacShipped+tt.stream)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckRBACMessages(t *testing.T) {
	in := kindsInstance(t, nil)
	ps := rbacRule{}.Check(in, kindsObjects(t, rbacShipped+`
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
