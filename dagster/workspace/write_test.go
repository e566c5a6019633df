package workspace

import (
	"slices"
	"strings"
	"testing"
)

// TestMarshal: sorted by name whatever the order, Dagster's schema passed,
// no location giving load_from: [], every problem at once.
func TestMarshal(t *testing.T) {
	locs := []Location{
		{Name: "mediawatch", Host: "mediawatch.dagster.svc", Port: 3030},
		{Name: "citation", Host: "citation.dagster.svc", Port: 3030},
		{Name: "alpha", Host: "alpha.dagster.svc", Port: 4100},
	}
	want := `load_from:
- grpc_server:
    host: alpha.dagster.svc
    location_name: alpha
    port: 4100
- grpc_server:
    host: citation.dagster.svc
    location_name: citation
    port: 3030
- grpc_server:
    host: mediawatch.dagster.svc
    location_name: mediawatch
    port: 3030
`
	for i := range locs {
		rotated := append(slices.Clone(locs[i:]), locs[:i]...)
		got, err := Marshal(rotated)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Fatalf("order %d:\n%s\nwant:\n%s", i, got, want)
		}
		if err := Check(got); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := Marshal(nil); err != nil || string(got) != "load_from: []\n" {
		t.Errorf("no location: %q, %v", got, err)
	}
	_, err := Marshal([]Location{
		{Name: "citation", Host: "citation.dagster.svc", Port: 4000},
		{Name: "citation", Host: "other.dagster.svc", Port: 4001},
		{Name: "b", Host: "b.svc", Port: 0},
	})
	for _, w := range []string{`code-location "citation" is given twice`, `code-location "b": port 0 is not a TCP port`} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("want %q in %v", w, err)
		}
	}
}
