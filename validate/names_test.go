package validate_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/validate"
)

// TestCodeLocationName pins the codeLocations Check refuses against the
// example contract: names codeloc keeps, and names that would own the
// platform's objects.
func TestCodeLocationName(t *testing.T) {
	reserved := func(cl, why string) string {
		return `m.yaml:1:15: code-location-reserved codeLocation: "` + cl + `" is a name codeloc keeps for itself: ` + why +
			` (choose another name: not codeloc, nor codeloc-<name>, nor ending with -preflight, -migrate, -reload, -data, -admission, -migrations-<hash>, nor app-of-apps)`
	}
	platform := func(cl, owned string) string {
		return `m.yaml:1:15: code-location-owns-platform codeLocation: "` + cl + `" would own the platform's ` + owned +
			`: every object of a code-location is named ` + cl + ` or ` + cl + `-<name>, so its objects could take the platform's` +
			` (rename the code-location (its folder, codeLocation and images) so that no platform name is ` + cl + ` or starts with ` + cl + `-)`
	}
	tests := []struct {
		cl   string
		want []string
	}{
		{"mediawatch", nil},
		{"citation-x", nil},
		{"dagsterx", nil},
		{"atlasdatalake", nil},
		{"pg", nil},
		{"codeloc", []string{reserved("codeloc", "codeloc's own name (the plugin, the sidecar container, the install bundle's app.kubernetes.io/name)")}},
		{"codeloc-mediawatch", []string{reserved("codeloc-mediawatch", "codeloc's readiness record (the ConfigMap dependents' preflights read) of code-location mediawatch")}},
		{"codeloc-contract", []string{reserved("codeloc-contract", "the install bundle's ConfigMap holding the cluster contract")}},
		{"mediawatch-preflight", []string{reserved("mediawatch-preflight", "codeloc's preflight pod, ServiceAccount, Role, RoleBinding and inputs ConfigMap of code-location mediawatch")}},
		{"x-migrate", []string{reserved("x-migrate", "codeloc's migration Job of code-location x")}},
		{"x-migrations-0123456789", []string{reserved("x-migrations-0123456789", "codeloc's migrations ConfigMap of code-location x")}},
		{"x-reload", []string{reserved("x-reload", "codeloc's reload pod of code-location x")}},
		{"x-data", []string{reserved("x-data", "codeloc's block volume claim (resources.disk) of code-location x")}},
		{"x-admission", []string{reserved("x-admission", "codeloc's admission parameters ConfigMap of code-location x")}},
		{"app-of-apps", []string{reserved("app-of-apps", "the root Application of the app-of-apps")}},
		{"dagster", []string{platform("dagster", "dagster-instance (configMaps), dagster-pipeline-env (configMaps), dagster (serviceAccounts), dagster-workspace (dagster.workspaceConfigMap), dagster-dagster-webserver (dagster.webserverURL)")}},
		{"dagster-dagster", []string{platform("dagster-dagster", "dagster-dagster-webserver (dagster.webserverURL)")}},
		{"dagster-instance", []string{platform("dagster-instance", "dagster-instance (configMaps)")}},
		{"atlas", []string{platform("atlas", "atlas-datalake (objectStorage.buckets)")}},
		// Secrets cannot be shipped nor read through the API: owning their
		// names reaches nothing, and the platform names a code-location's
		// own secret after it.
		{"pgvector", nil},
		{"pgvector-pg", nil},
		{"app", []string{platform("app", "app-of-apps (codeloc's install)")}},
	}
	c := mustContract(t)
	for _, tt := range tests {
		t.Run(tt.cl, func(t *testing.T) {
			d, problems := validate.ParseDeclaration("m.yaml", []byte(strings.Replace(minimal, "codeLocation: a", "codeLocation: "+tt.cl, 1)))
			if len(problems) > 0 {
				t.Fatal(problems)
			}
			var got []string
			for _, p := range validate.Check(d, c).Sorted() {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWebserverService: the webserver's Service counts as the platform's
// only when it is in the contract's namespace.
func TestWebserverService(t *testing.T) {
	tests := []struct {
		url  string
		want bool // dagster-dagster owns it
	}{
		{"http://dagster-dagster-webserver.dagster.svc:80", true},
		{"http://dagster-dagster-webserver.dagster.svc.cluster.local", true},
		{"http://dagster-dagster-webserver:3000", true},
		{"http://dagster-dagster-webserver.platform.svc:80", false},
		{"https://dagster-dagster.example.com", false},
		{"http://10.0.0.1:80", false},
		{"", false},
	}
	for _, tt := range tests {
		c := mustContract(t)
		c.Dagster.WebserverURL = tt.url
		d, _ := validate.ParseDeclaration("m.yaml", []byte(strings.Replace(minimal, "codeLocation: a", "codeLocation: dagster-dagster", 1)))
		got := len(validate.Check(d, c)) > 0
		if got != tt.want {
			t.Errorf("%q: dagster-dagster refused: %v, want %v", tt.url, got, tt.want)
		}
	}
}
