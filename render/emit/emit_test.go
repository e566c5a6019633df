package emit

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	psaapi "k8s.io/pod-security-admission/api"
	psa "k8s.io/pod-security-admission/policy"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/render/node"
	"github.com/codeloc/codeloc/validate"
)

// TestEmittedPodsPassRestricted evaluates the pods codeloc emits
// (preflight, migrate) at the Pod Security Standards' restricted level
// with Kubernetes' own checks: they run in every namespace, hardened ones
// included.
func TestEmittedPodsPassRestricted(t *testing.T) {
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	eval, err := psa.NewEvaluator(psa.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	lv := psaapi.LevelVersion{Level: psaapi.LevelRestricted, Version: psaapi.LatestVersion()}
	for _, fx := range []string{"citation", "mediawatch"} {
		d, problems := validate.LoadDeclaration(filepath.Join("..", "..", "fixtures", fx))
		if len(problems) > 0 {
			t.Fatal(problems)
		}
		objs, err := Objects(Input{Declaration: d, Contract: c})
		if err != nil {
			t.Fatal(err)
		}
		pods := 0
		for _, o := range objs {
			path := map[string][]string{"Pod": {"spec"}, "Job": {"spec", "template", "spec"}}[o.GetKind()]
			if path == nil {
				continue
			}
			pods++
			spec, err := o.Pipe(yaml.Lookup(path...))
			if err != nil || spec == nil {
				t.Fatalf("%s: no pod spec", node.Ref(o))
			}
			data, err := node.JSON(spec.YNode())
			if err != nil {
				t.Fatal(err)
			}
			var pod corev1.PodSpec
			if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &pod); err != nil {
				t.Fatalf("%s: %v", node.Ref(o), err)
			}
			for _, r := range eval.EvaluatePod(lv, &metav1.ObjectMeta{}, &pod) {
				if !r.Allowed {
					t.Errorf("%s/%s: %s (%s)", fx, node.Ref(o), r.ForbiddenReason, r.ForbiddenDetail)
				}
			}
		}
		if want := 1 + min(len(d.Migrations), 1); pods != want {
			t.Errorf("%s: %d emitted pods, want %d", fx, pods, want)
		}
	}
}

// TestMigrateJobTimeouts: the Job's --lock-timeout and --statement-timeout
// carry the contract's database.migrations, in a form its flags (Go
// durations) read back exactly.
func TestMigrateJobTimeouts(t *testing.T) {
	d, problems := validate.LoadDeclaration(filepath.Join("..", "..", "fixtures", "citation"))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	tests := []struct {
		lock, stmt string // in the contract
		want       []string
	}{
		{"5s", "5m", []string{"--lock-timeout", "5s", "--statement-timeout", "300s"}},
		{"250ms", "0", []string{"--lock-timeout", "250ms", "--statement-timeout", "0"}},
		{"1m30s", "1500ms", []string{"--lock-timeout", "90s", "--statement-timeout", "1500ms"}},
	}
	for _, tt := range tests {
		raw := bytes.Replace(validate.ExampleContract, []byte("lockTimeout: 5s\n    statementTimeout: 5m\n"),
			[]byte("lockTimeout: "+tt.lock+"\n    statementTimeout: "+tt.stmt+"\n"), 1)
		c, problems := validate.ParseContract("contract.yaml", raw)
		if len(problems) > 0 {
			t.Fatal(problems)
		}
		args := (&emitter{d: d, c: c}).migrateJob("cm").Spec.Template.Spec.Containers[0].Args
		i := slices.Index(args, "--lock-timeout")
		if i < 0 || !slices.Equal(args[i:i+4], tt.want) {
			t.Errorf("%s/%s: args %q, want %q", tt.lock, tt.stmt, args, tt.want)
			continue
		}
		for j, want := range []time.Duration{c.DB.Migrations.LockTimeout, c.DB.Migrations.StatementTimeout} {
			if got, err := time.ParseDuration(args[i+1+2*j]); err != nil || got != want {
				t.Errorf("%s reads back as %v (%v), want %v", args[i+1+2*j], got, err, want)
			}
		}
	}
}
