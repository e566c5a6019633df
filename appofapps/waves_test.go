package appofapps

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlacements: every declaration under the root is placed, as
// `codeloc application` would wave it; the graph's problems come back.
func TestPlacements(t *testing.T) {
	got, problems, err := Placements(filepath.Join(graphs, "chain"))
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	want := map[string]Placement{
		"raw":     {Dir: "raw", Wave: 0, DependsOn: []string{}},
		"staging": {Dir: "staging", Wave: 1, DependsOn: []string{"raw"}},
		"marts":   {Dir: "marts", Wave: 2, DependsOn: []string{"staging"}},
	}
	if diff := cmp.Diff(want, got, cmp.Transformer("nilIsEmpty", func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	})); diff != "" {
		t.Errorf("placements (-want +got):\n%s", diff)
	}
	got, problems, err = Placements(filepath.Join(graphs, "cycle"))
	if err != nil || len(problems) != 1 || problems[0].Code != CodeDependencyCycle || len(got) != 0 {
		t.Errorf("cycle: %v, %v, %v; want one %s and nothing placed", got, err, problems, CodeDependencyCycle)
	}
	if _, _, err := Placements(filepath.Join(graphs, "nowhere")); err == nil {
		t.Error("a missing root is not an error")
	}
}
