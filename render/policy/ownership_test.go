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
			got := codesAndPaths(ownershipRule{}.Check(in, kindsObjects(t, tt.stream)))
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
			" codeloc-<code-location> is the readiness record codeloc publishes for each code-location",
			"remove it: codeloc publishes each code-location's record itself"},
		{"Service", "codeloc-mediawatch", "codeloc-mediawatch is not citation nor citation-<name>: all code-locations share the namespace dagster",
			"prefix its name with citation-, or set namePrefix: citation- in the kustomization to rename every object and the references to it"},
	}
	for _, tt := range tests {
		t.Run(tt.kind+"/"+tt.name, func(t *testing.T) {
			in := kindsInstance(t, nil)
			ps := ownershipRule{}.Check(in, kindsObjects(t, "apiVersion: v1\nkind: "+tt.kind+"\nmetadata: {name: "+tt.name+"}\n"))
			if len(ps) != 1 || ps[0].Message != tt.msg || ps[0].Hint != tt.hint {
				t.Errorf("got %v, want one problem %q (%s)", ps, tt.msg, tt.hint)
			}
		})
	}
}
