package names

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReserved(t *testing.T) {
	type got struct {
		CodeLocation string
		Reserved     bool
		Kinds        []Kind
	}
	preflight := []Kind{kindServiceAccount, kindRole, kindRoleBinding, kindConfigMap, kindPod}
	for _, tt := range []struct {
		name string
		want got
	}{
		// The install's names.
		{"codeloc", got{Reserved: true}},
		{"codeloc-contract", got{Reserved: true}},
		{"codeloc-preflight", got{Reserved: true}},
		{"app-of-apps", got{Reserved: true}},
		// What codeloc emits for a code-location.
		{"codeloc-mediawatch", got{"mediawatch", true, []Kind{kindConfigMap}}},
		{"codeloc-media-watch", got{"media-watch", true, []Kind{kindConfigMap}}},
		{"mediawatch-preflight", got{"mediawatch", true, preflight}},
		{"mediawatch-migrate", got{"mediawatch", true, []Kind{kindJob}}},
		{"citation-migrations-cf650bd7f8", got{"citation", true, []Kind{kindConfigMap}}},
		{"citation-reload", got{"citation", true, []Kind{kindPod}}},
		{"citation-data", got{"citation", true, []Kind{kindClaim}}},
		{"citation-admission", got{"citation", true, []Kind{kindConfigMap}}},
		{"citation-x-preflight", got{"citation-x", true, preflight}},
		{"a-migrations-0123456789", got{"a", true, []Kind{kindConfigMap}}},
		// Not codeloc's.
		{"citation", got{}},
		{"citation-dagster", got{}},
		{"preflight", got{}},
		{"-preflight", got{}},
		{"data", got{}},
		{"codeloc-", got{}},
		{"citation-preflight-config", got{}},
		{"citation-database", got{}},
		{"citation-migrations", got{}},
		{"citation-migrations-0123", got{}},
		{"citation-migrations-CF650BD7F8", got{}},
		{"citation-migrations-cf650bd7f80", got{}},
		{"-migrations-cf650bd7f8", got{}},
		{"migrations-cf650bd7f8", got{}},
		{"app-of-apps-2", got{}},
	} {
		r, ok := Reserved(tt.name)
		if ok && r.What == "" {
			t.Errorf("Reserved(%q) says nothing of why", tt.name)
		}
		if diff := cmp.Diff(tt.want, got{r.CodeLocation, ok, r.Kinds}); diff != "" {
			t.Errorf("Reserved(%q) (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestReservedCoversEmitted ties Reserved to the name helpers: every name
// codeloc emits for a code-location is reserved for it, with its kind.
func TestReservedCoversEmitted(t *testing.T) {
	for _, tt := range []struct {
		name string
		kind Kind
	}{
		{RecordName("x"), kindConfigMap},
		{PreflightName("x"), kindPod},
		{PreflightName("x"), kindRole},
		{MigrateName("x"), kindJob},
		{MigrationsName("x", "0123456789"), kindConfigMap},
		{ReloadName("x"), kindPod},
		{DataClaimName("x"), kindClaim},
		{AdmissionName("x"), kindConfigMap},
	} {
		r, ok := Reserved(tt.name)
		if !ok || r.CodeLocation != "x" || !r.Emits(tt.kind.Group, tt.kind.Kind) {
			t.Errorf("Reserved(%q) = %+v, %v: want code-location x emitting %v", tt.name, r, ok, tt.kind)
		}
		if r.Emits("", "Service") {
			t.Errorf("Reserved(%q) emits a Service", tt.name)
		}
	}
	for _, name := range InstallNames {
		if r, ok := Reserved(name); !ok || r.CodeLocation != "" {
			t.Errorf("install name %q: Reserved = %+v, %v", name, r, ok)
		}
	}
}

func TestOwns(t *testing.T) {
	for _, tt := range []struct {
		cl, name string
		want     bool
	}{
		{"media", "media", true},
		{"media", "media-watch-api", true},
		{"media", "mediawatch", false},
		{"media", "codeloc-media", false},
		{"media-watch", "media", false},
	} {
		if got := Owns(tt.cl, tt.name); got != tt.want {
			t.Errorf("Owns(%q, %q) = %v", tt.cl, tt.name, got)
		}
	}
}
