package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckOwnership(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   []string
	}{
		{"own names pass", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: citation-dagster}
---
apiVersion: v1
kind: Service
metadata: {name: citation}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: citation-dagster-config-7g2h9k5b4c}
`, nil},
		{"shared name refused", `
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
`, []string{"policy-name-owner ConfigMap/settings.metadata.name"}},
		{"another code-location's name refused", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: mediawatch-api}
`, []string{"policy-name-owner Deployment/mediawatch-api.metadata.name"}},
		{"prefix without the dash refused", `
apiVersion: v1
kind: ServiceAccount
metadata: {name: citationx}
`, []string{"policy-name-owner ServiceAccount/citationx.metadata.name"}},
		{"another code-location's record refused", `
apiVersion: v1
kind: ConfigMap
metadata: {name: codeloc-mediawatch}
`, []string{"policy-name-owner ConfigMap/codeloc-mediawatch.metadata.name"}},
		{"own record left to checkConflicts", `
apiVersion: v1
kind: ConfigMap
metadata: {name: codeloc-citation}
`, nil},
		{"own record's name on another kind refused", `
apiVersion: v1
kind: Service
metadata: {name: codeloc-citation}
`, []string{"policy-name-owner Service/codeloc-citation.metadata.name"}},
		{"objects refused whole left to their rules", `
apiVersion: v1
kind: Secret
metadata: {name: pgvector-pg-auth}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: admin}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: cache}
`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := kindsInstance(t, nil)
			got := codesAndPaths(check(t, ownershipRule{}, in, parseObjects(t, tt.stream)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckOwnershipMessages(t *testing.T) {
	tests := []struct{ kind, name, msg, hint string }{
		{"ConfigMap", "settings", "settings is not citation nor citation-<name>: all code-locations share the namespace dagster",
			"prefix its name with citation-, or set namePrefix: citation- in the kustomization to rename every object and the references to it"},
		{"ConfigMap", "codeloc-mediawatch", "codeloc-mediawatch is not citation nor citation-<name>: all code-locations share the namespace dagster;" +
			" codeloc-mediawatch is codeloc's readiness record (the ConfigMap dependents' preflights read) of code-location mediawatch",
			"remove it: codeloc emits it itself, for code-location mediawatch"},
		{"Service", "codeloc-mediawatch", "codeloc-mediawatch is not citation nor citation-<name>: all code-locations share the namespace dagster;" +
			" codeloc-mediawatch is codeloc's readiness record (the ConfigMap dependents' preflights read) of code-location mediawatch",
			"prefix its name with citation-, or set namePrefix: citation- in the kustomization to rename every object and the references to it"},
		{"ServiceAccount", "mediawatch-preflight", "mediawatch-preflight is not citation nor citation-<name>: all code-locations share the namespace dagster;" +
			" mediawatch-preflight is codeloc's preflight pod, ServiceAccount, Role, RoleBinding and inputs ConfigMap of code-location mediawatch",
			"remove it: codeloc emits it itself, for code-location mediawatch"},
		{"ConfigMap", "app-of-apps", "app-of-apps is not citation nor citation-<name>: all code-locations share the namespace dagster;" +
			" app-of-apps is the root Application of the app-of-apps",
			"prefix its name with citation-, or set namePrefix: citation- in the kustomization to rename every object and the references to it"},
	}
	for _, tt := range tests {
		t.Run(tt.kind+"/"+tt.name, func(t *testing.T) {
			in := kindsInstance(t, nil)
			ps := check(t, ownershipRule{}, in, parseObjects(t, "apiVersion: v1\nkind: "+tt.kind+"\nmetadata: {name: "+tt.name+"}\n"))
			if len(ps) != 1 || ps[0].Message != tt.msg || ps[0].Hint != tt.hint {
				t.Errorf("got %v, want one problem %q (%s)", ps, tt.msg, tt.hint)
			}
		})
	}
}

// TestCheckReservedNames: a name of the code-location's own that codeloc
// emits for some code-location is refused, once, by the rule that says
// most: policy-name-reserved, or Conflicts for what codeloc emits here with
// the kind, or ownership for names outside the code-location's.
func TestCheckReservedNames(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   []string
	}{
		{"another code-location's names inside citation's", `
apiVersion: v1
kind: ServiceAccount
metadata: {name: citation-x-preflight}
---
apiVersion: batch/v1
kind: Job
metadata: {name: citation-x-migrate}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: citation-x-migrations-0123456789}
---
apiVersion: v1
kind: Pod
metadata: {name: citation-foo-reload}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: citation-foo-admission}
`, []string{
			"policy-name-reserved ConfigMap/citation-foo-admission.metadata.name",
			"policy-name-reserved ConfigMap/citation-x-migrations-0123456789.metadata.name",
			"policy-name-reserved Job/citation-x-migrate.metadata.name",
			"policy-name-reserved Pod/citation-foo-reload.metadata.name",
			"policy-name-reserved ServiceAccount/citation-x-preflight.metadata.name",
		}},
		{"this code-location's reserved names on other kinds", `
apiVersion: v1
kind: Service
metadata: {name: citation-preflight}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: citation-data}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: citation-migrate}
---
apiVersion: example.com/v1
kind: Job
metadata: {name: citation-reload}
`, []string{
			"policy-name-reserved ConfigMap/citation-data.metadata.name",
			"policy-name-reserved Deployment/citation-migrate.metadata.name",
			"policy-name-reserved Job/citation-reload.metadata.name",
			"policy-name-reserved Service/citation-preflight.metadata.name",
		}},
		{"what codeloc emits here left to Conflicts", `
apiVersion: v1
kind: Pod
metadata: {name: citation-preflight}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: citation-preflight}
---
apiVersion: batch/v1
kind: Job
metadata: {name: citation-migrate}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: citation-migrations-0123456789}
---
apiVersion: v1
kind: Pod
metadata: {name: citation-reload}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: citation-admission}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: codeloc-citation}
`, nil},
		{"names outside citation's left to ownership", `
apiVersion: v1
kind: ConfigMap
metadata: {name: mediawatch-data}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: codeloc-x-preflight}
`, []string{
			"policy-name-owner ConfigMap/codeloc-x-preflight.metadata.name",
			"policy-name-owner ConfigMap/mediawatch-data.metadata.name",
		}},
		{"objects refused whole left to their rules", `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: citation-x-data}
---
apiVersion: v1
kind: Secret
metadata: {name: citation-x-preflight}
`, nil},
		{"names that only look alike pass", `
apiVersion: v1
kind: ConfigMap
metadata: {name: citation-preflight-settings}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: citation-database}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: citation-migrations-v2}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: citation-metadata}
`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := kindsInstance(t, nil)
			objs := parseObjects(t, tt.stream)
			got := codesAndPaths(append(check(t, ownershipRule{}, in, objs), check(t, reservedNameRule{}, in, objs)...))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReservedNameMessage(t *testing.T) {
	in := kindsInstance(t, nil)
	ps := check(t, reservedNameRule{}, in, parseObjects(t, "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: citation-x-preflight}\n"))
	want := "root/kustomization.yaml: policy-name-reserved ServiceAccount/citation-x-preflight.metadata.name: citation-x-preflight is named like" +
		" codeloc's preflight pod, ServiceAccount, Role, RoleBinding and inputs ConfigMap of code-location citation-x: codeloc keeps that name, whatever the kind" +
		" (rename it: no name may end with -preflight, -migrate, -reload, -data, -admission, -migrations-<hash> (codeloc emits these for every code-location))"
	if len(ps) != 1 || ps[0].String() != want {
		t.Errorf("got %v\nwant %s", ps, want)
	}
}

// TestConflicts: what codeloc emits for this code-location, or would emit
// under another declaration or contract, with the kind, is refused.
func TestConflicts(t *testing.T) {
	in := kindsInstance(t, nil)
	atlas := parseObjects(t, `
apiVersion: v1
kind: Pod
metadata: {name: citation-preflight}
---
apiVersion: batch/v1
kind: Job
metadata: {name: citation-migrate}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: citation-migrations-0123456789}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: codeloc-citation}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: citation-settings}
`)
	emitted := parseObjects(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: citation-preflight}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: codeloc-citation}\n")
	var got []string
	for _, p := range Conflicts(in, atlas, emitted).Sorted() {
		got = append(got, p.Code+" "+p.Path+": "+p.Message)
	}
	want := []string{
		"policy-name-conflict ConfigMap/citation-migrations-0123456789.metadata.name: ConfigMap/citation-migrations-0123456789 is named like codeloc's migrations ConfigMap of code-location citation, which codeloc emits",
		"policy-name-conflict ConfigMap/codeloc-citation.metadata.name: ConfigMap/codeloc-citation is emitted by codeloc",
		"policy-name-conflict Job/citation-migrate.metadata.name: Job/citation-migrate is named like codeloc's migration Job of code-location citation, which codeloc emits",
		"policy-name-conflict Pod/citation-preflight.metadata.name: Pod/citation-preflight is emitted by codeloc",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}
