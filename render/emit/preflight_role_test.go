package emit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/codeloc/codeloc/validate"
)

// TestPreflightRole checks the rules of the preflight's Role: get by
// resourceNames on exactly what the declaration names (the records of the
// required code-locations and the declared platform ConfigMaps in one
// configmaps rule, the declared platform ServiceAccounts), never a rule
// with empty resourceNames (it would grant every object), and list on
// pods and quotas.
func TestPreflightRole(t *testing.T) {
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	get := func(group, resource string, names ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: []string{"get"}, ResourceNames: names}
	}
	list := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods", "resourcequotas"}, Verbs: []string{"list"}}
	const head = "codeLocation: solo\nready: true\nrevision: abcdef1\ncontractVersion: 3\nresources: {cpu: 100m, memory: 64Mi}\n"
	cases := []struct {
		name      string
		dependsOn string
		want      []rbacv1.PolicyRule
	}{
		{name: "nothing declared", want: []rbacv1.PolicyRule{list}},
		{name: "the citation example",
			dependsOn: "codeLocations: [mediawatch]\n  database: [pgvector]\n  secrets: [pgvector-pg-auth]\n  buckets: [{name: atlas-datalake, size: 100Gi, storageClass: rook-ceph-datalake}]",
			want: []rbacv1.PolicyRule{
				get("", "secrets", "pgvector-pg-auth"),
				get("", "configmaps", "codeloc-mediawatch"),
				get("objectbucket.io", "objectbucketclaims", "atlas-datalake"),
				list,
			}},
		{name: "platform ConfigMaps only",
			dependsOn: "configMaps: [dagster-instance, dagster-pipeline-env]",
			want:      []rbacv1.PolicyRule{get("", "configmaps", "dagster-instance", "dagster-pipeline-env"), list}},
		{name: "records then platform ConfigMaps, one rule",
			dependsOn: "codeLocations: [mediawatch, atlas]\n  configMaps: [dagster-pipeline-env, dagster-instance]",
			want:      []rbacv1.PolicyRule{get("", "configmaps", "codeloc-mediawatch", "codeloc-atlas", "dagster-pipeline-env", "dagster-instance"), list}},
		{name: "a platform ConfigMap named like a record is listed once",
			dependsOn: "codeLocations: [mediawatch]\n  configMaps: [codeloc-mediawatch, dagster-instance]",
			want:      []rbacv1.PolicyRule{get("", "configmaps", "codeloc-mediawatch", "dagster-instance"), list}},
		{name: "platform ServiceAccounts",
			dependsOn: "serviceAccounts: [dagster]",
			want:      []rbacv1.PolicyRule{get("", "serviceaccounts", "dagster"), list}},
		{name: "everything",
			dependsOn: "codeLocations: [mediawatch]\n  secrets: [pgvector-pg-auth]\n  configMaps: [dagster-instance]\n  serviceAccounts: [dagster, dagster-runs]\n  buckets: [{name: atlas-datalake, size: 1Gi, storageClass: rook-ceph-datalake}]",
			want: []rbacv1.PolicyRule{
				get("", "secrets", "pgvector-pg-auth"),
				get("", "configmaps", "codeloc-mediawatch", "dagster-instance"),
				get("", "serviceaccounts", "dagster", "dagster-runs"),
				get("objectbucket.io", "objectbucketclaims", "atlas-datalake"),
				list,
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := head
			if tc.dependsOn != "" {
				src += "dependsOn:\n  " + tc.dependsOn + "\n"
			}
			d, problems := validate.ParseDeclaration(validate.ManifestFile, []byte(src))
			if len(problems) > 0 {
				t.Fatal(problems)
			}
			role := (&emitter{d: d, c: c}).preflightRole()
			if diff := cmp.Diff(tc.want, role.Rules); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
			for _, r := range role.Rules {
				if len(r.ResourceNames) == 0 && (len(r.Verbs) != 1 || r.Verbs[0] != "list") {
					t.Errorf("rule %v has no resourceNames: it would grant every object", r)
				}
			}
			if role.Name != "solo-preflight" || role.Namespace != c.Namespace {
				t.Errorf("Role %s/%s, want %s/solo-preflight", role.Namespace, role.Name, c.Namespace)
			}
		})
	}
}
