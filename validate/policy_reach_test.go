package validate_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/validate"
)

func TestReachDefaults(t *testing.T) {
	base := strings.Split(string(validate.ExampleContract), "\npolicy:\n")[0] + "\n"
	c, ps := validate.ParseContract("c.yaml", []byte(base))
	if len(ps) > 0 {
		t.Fatalf("contract without policy: %v", ps)
	}
	if diff := cmp.Diff(validate.DefaultDeniedAnnotations, c.Policy.DeniedAnnotations); diff != "" {
		t.Errorf("deniedAnnotations default (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(validate.DefaultRunLaunching, c.Policy.RunLaunching); diff != "" {
		t.Errorf("runLaunching default (-want +got):\n%s", diff)
	}
	example := mustContract(t)
	// The one value with no default: the platform's own domain.
	example.Policy.Ingress.Domains = nil
	if diff := cmp.Diff(c.Policy.Reach, example.Policy.Reach); diff != "" {
		t.Errorf("the example contract spells out the defaults (-defaults +example):\n%s", diff)
	}
	for _, tt := range []struct {
		group, resource, verb string
		want                  bool
	}{
		{"batch", "jobs", "create", true},
		{"", "pods", "delete", true},
		{"", "pods", "patch", false},
		{"", "configmaps", "create", false},
		{"apps", "jobs", "create", false},
	} {
		if got := c.Policy.AllowsRunLaunching(tt.group, tt.resource, tt.verb); got != tt.want {
			t.Errorf("AllowsRunLaunching(%q, %q, %q) = %v", tt.group, tt.resource, tt.verb, got)
		}
	}
	if p, ok := c.Policy.DeniedAnnotation("nginx.ingress.kubernetes.io/server-snippet"); !ok || p == "" {
		t.Errorf("server-snippet not denied")
	}
	if _, ok := c.Policy.DeniedAnnotation("nginx.ingress.kubernetes.io/rewrite-target"); ok {
		t.Errorf("rewrite-target denied")
	}
}

func TestReachEntries(t *testing.T) {
	base := strings.Split(string(validate.ExampleContract), "\npolicy:\n")[0] + "\npolicy:\n"
	for _, tt := range []struct {
		name, policy string
		want         []string // codes and paths
	}{
		{"allowed", "  externalIPs: [192.0.2.0/24]\n  csiDrivers: [secrets-store.csi.k8s.io]\n  extendedResources: [nvidia.com/gpu]\n  priorityClasses: [batch-low]\n", nil},
		{"bad cidr", "  externalIPs: [192.0.2.1]\n", []string{"contract-invalid policy.externalIPs[0]"}},
		{"kubernetes.io resource", "  extendedResources: [kubernetes.io/gpu, cpu]\n", []string{"contract-invalid policy.extendedResources[0]", "contract-invalid policy.extendedResources[1]"}},
		{"twice", "  priorityClasses: [a, a]\n", []string{"contract-invalid policy.priorityClasses[1]"}},
		{"read verb", "  runLaunching:\n    - {group: batch, resource: jobs, verbs: [get]}\n", []string{"contract-invalid policy.runLaunching[0].verbs[0]"}},
		{"wildcard resource", "  runLaunching:\n    - {resource: '*', verbs: [create]}\n", []string{"contract-invalid policy.runLaunching[0].resource"}},
		{"missing verbs", "  runLaunching:\n    - {resource: pods}\n", []string{"required policy.runLaunching[0].verbs"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, ps := validate.ParseContract("c.yaml", []byte(base+tt.policy))
			var got []string
			for _, p := range ps {
				got = append(got, p.Code+" "+p.Path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s\n%v", diff, ps)
			}
			if tt.want == nil && !c.Policy.AllowsExternalIP("192.0.2.7") {
				t.Errorf("192.0.2.7 not allowed by %v", c.Policy.ExternalIPs)
			}
		})
	}
}
