package rules

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/render/policy"
	"github.com/codeloc/codeloc/render/policy/policytest"
)

// TestFactsDoNotDependOnRuleOrder runs Check with the rule list in its
// order and reversed: the secret keys the pods and the run pods of their
// container contexts read, and the code server's location, are facts
// gathered before the rules, so both orders give the same.
func TestFactsDoNotDependOnRuleOrder(t *testing.T) {
	ctx := `{"k8s": {"run_k8s_config": {"container_config": {"env": [{"name": "T", "valueFrom": {"secretKeyRef": {"name": "pgvector-pg-auth", "key": "token"}}}]}}}}`
	stream := policytest.ConsumePod(fmt.Sprintf(`  containers:
    - name: dagster
      image: registry:80/citation-dagster:a3f9c1d
      command: [dagster, api, grpc, -h, 0.0.0.0, -p, "3030"]
      env:
        - {name: P, valueFrom: {secretKeyRef: {name: pgvector-pg-auth, key: password}}}
        - {name: DAGSTER_CLI_API_GRPC_CONTAINER_CONTEXT, value: %q}`, ctx)) + `apiVersion: v1
kind: Service
metadata: {name: citation}
spec: {selector: {codeloc.dev/code-location: citation}, ports: [{name: grpc, port: 3030}]}
`
	wantKeys := map[string][]string{"pgvector-pg-auth": {"password", "token"}}
	reversed := slices.Clone(Rules)
	slices.Reverse(reversed)
	for name, rules := range map[string][]policy.Rule{"in order": Rules, "reversed": reversed} {
		t.Run(name, func(t *testing.T) {
			saved := Rules
			Rules = rules
			defer func() { Rules = saved }()
			in := consumeInstance(t, nil)
			Check(in, policytest.ParseObjects(t, stream))
			if diff := cmp.Diff(wantKeys, in.SecretKeys()); diff != "" {
				t.Errorf("secret keys (-want +got):\n%s", diff)
			}
			if loc := in.GRPCLocation(); loc == nil || loc.Host != "citation.dagster.svc" || loc.Port != 3030 {
				t.Errorf("location %+v, want citation.dagster.svc:3030", loc)
			}
		})
	}
}

// consumeInstance is policytest.ConsumeDeclaration (edited by edit)
// rendered against the example contract.
func consumeInstance(t testing.TB, edit func(string) string) *policy.Context {
	t.Helper()
	return policy.NewContext(policytest.Declaration(t, edit), policytest.ExampleContract(t, nil), policytest.Locator("root"))
}
