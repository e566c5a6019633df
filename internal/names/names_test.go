package names

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestIsRevision(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"a3f9c1d", true},
		{strings.Repeat("0", 40), true},
		{"a3f9c1", false},                // 6 digits
		{strings.Repeat("a", 41), false}, // 41 digits
		{"A3F9C1D", false},               // upper case
		{"a3f9c1g", false},               // not hex
		{"", false},
	} {
		if got := IsRevision(tt.in); got != tt.want {
			t.Errorf("IsRevision(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestIsMigrationName(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"001-researchers-hnsw.sql", true},
		{"0042-x.y_z.sql", true},
		{"01-short.sql", false},
		{"001-Upper.sql", false},
		{"001-x.SQL", false},
		{"sub/001-x.sql", false},
		{"../001-x.sql", false},
	} {
		if got := IsMigrationName(tt.in); got != tt.want {
			t.Errorf("IsMigrationName(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestTruncateUTF8(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc"},
		{"éé", 3, "é"}, // never half a character
		{"€", 2, ""},
	} {
		got := TruncateUTF8(tt.in, tt.max)
		if got != tt.want || !utf8.ValidString(got) {
			t.Errorf("TruncateUTF8(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestDerivedNames(t *testing.T) {
	if got := RecordName("mediawatch"); got != "codeloc-mediawatch" {
		t.Errorf("RecordName = %q", got)
	}
	if PluginFullName != "codeloc-v1" {
		t.Errorf("PluginFullName = %q", PluginFullName)
	}
	for _, n := range []string{PreflightName("x"), MigrateName("x"), DataClaimName("x")} {
		if !strings.HasPrefix(n, "x-") {
			t.Errorf("%q is not owned by code-location x", n)
		}
	}
}

// TestTrackingID pins Argo CD's annotation tracking format, as Argo CD
// 3.x sets it on a record (util/argo/resource_tracking.go).
func TestTrackingID(t *testing.T) {
	if got, want := TrackingID("mediawatch", "", "ConfigMap", "dagster", RecordName("mediawatch")), "mediawatch:/ConfigMap:dagster/codeloc-mediawatch"; got != want {
		t.Errorf("TrackingID = %q, want %q", got, want)
	}
	if got, want := TrackingID("citation", "batch", "Job", "dagster", "citation-migrate"), "citation:batch/Job:dagster/citation-migrate"; got != want {
		t.Errorf("TrackingID = %q, want %q", got, want)
	}
}
