package validate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/validate"
)

// TestReady: only ready: false as written is refused, once, at the field;
// a missing or mistyped ready is a form problem and nothing more.
func TestReady(t *testing.T) {
	const rest = "revision: abcdef0\ncontractVersion: 3\nresources: {cpu: 1, memory: 1Gi}\n"
	tests := []struct {
		name  string
		ready string // the ready line, "" for none
		want  []string
	}{
		{"true", "ready: true\n", nil},
		{"True", "ready: True\n", nil},
		{"false", "ready: false\n", []string{"m.yaml:2:8: not-ready ready: the declaration says ready: false: this revision is not attested ready, so it is not deployed " +
			"(the running revision stays deployed; push a revision with ready: true once it is merged, tagged and tested)"}},
		{"FALSE", "ready:   FALSE\n", []string{"m.yaml:2:10: not-ready ready: the declaration says ready: false: this revision is not attested ready, so it is not deployed " +
			"(the running revision stays deployed; push a revision with ready: true once it is merged, tagged and tested)"}},
		{"quoted", "ready: \"false\"\n", []string{`m.yaml:2:8: wrong-type ready: expected a boolean, got string (write a boolean)`}},
		{"null", "ready:\n", []string{`m.yaml:2:7: wrong-type ready: expected a boolean, got null (write a boolean)`}},
		{"missing", "", []string{`m.yaml:1:1: required ready: required field is missing (add "ready")`}},
	}
	c := mustContract(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ps := validate.ParseDeclaration("m.yaml", []byte("codeLocation: a\n"+tt.ready+rest))
			if d == nil {
				t.Fatalf("no declaration: %v", ps)
			}
			ps = append(ps, validate.Check(d, c)...)
			var got []string
			for _, p := range ps {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
