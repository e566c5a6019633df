package render_test

import (
	"context"
	"testing"
	"time"

	"github.com/codeloc/codeloc/internal/kubetest"
)

// TestServerSideDryRun sends every object of the golden render outputs to a
// real kube-apiserver with dryRun=All and strict field validation: schemas,
// RBAC rules and admission must accept each one (nothing is stored).
func TestServerSideDryRun(t *testing.T) {
	env := kubetest.Start(t)
	env.InstallCRDs(t, kubetest.CRDObjectBucketClaim)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := exampleContract(t)
	env.ApplyYAML(t, "", "apiVersion: v1\nkind: Namespace\nmetadata: {name: "+c.Namespace+"}\n")
	eachGolden(t, func(t *testing.T, data []byte) {
		objs, err := kubetest.ParseYAML(data)
		if err != nil {
			t.Fatal(err)
		}
		if err := env.DryRun(ctx, c.Namespace, objs...); err != nil {
			t.Error(err)
		}
	})
}
