package sidecar

import (
	"context"
	"strings"
	"testing"
)

// TestConditionText pins the whole error text Argo CD's repo-server code
// (repository.GenerateManifests) makes of a failed render, through the
// sidecar and through the stock cmp-server running `codeloc generate`: the
// text the Application's ComparisonError condition shows after the
// controller's own prefix. It must stay codeloc's lines: one per problem,
// no usage text, no timestamps, no prefix said twice.
func TestConditionText(t *testing.T) {
	const lines = "fixtures/invalid/policy-kinds/extra.yaml:1:1: policy-kind Secret/mediawatch-s3: a code-location may not ship a Secret (secrets are provided by the cluster: declare it in dependsOn.secrets)\n" +
		"fixtures/invalid/policy-kinds/extra.yaml:8:1: policy-kind ObjectBucketClaim/atlas-datalake: a code-location may not ship a ObjectBucketClaim (buckets are provisioned by the platform: declare the bucket in dependsOn.buckets and the cluster provides its claim)\n" +
		"fixtures/invalid/policy-kinds/extra.yaml:15:1: policy-kind Application/mediawatch-extra: a code-location may not ship a Application (the cluster creates Applications (app-of-apps): remove it)"
	want := map[string]string{
		"sidecar": "plugin sidecar failed. error generating manifests in cmp: rpc error: code = InvalidArgument desc = " + lines,
		"stock":   "plugin sidecar failed. error generating manifests in cmp: rpc error: code = Unknown desc = error generating manifests: `codeloc generate` failed exit status 1: " + lines,
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			b.start(t, exampleContract)
			_, err := generate(context.Background(), "invalid/policy-kinds", genOpts{})
			if err == nil {
				t.Fatal("no error")
			}
			got := normalize(err.Error())
			if got != want[b.name] {
				t.Errorf("condition text:\n got: %q\nwant: %q", got, want[b.name])
			}
			for _, bad := range []string{"Usage:", "codeloc: codeloc", "time="} {
				if strings.Contains(got, bad) {
					t.Errorf("condition text carries %q", bad)
				}
			}
		})
	}
}
