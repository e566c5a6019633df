package validate

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
)

// PlatformName is the name of an object the platform provides, and the
// contract field (or install) that says so.
type PlatformName struct {
	Name  string
	Field string
}

// PlatformNames lists the names of the objects the platform provides in
// the contract's namespace that a code-location could ship an object of,
// in contract order: the ConfigMaps, ServiceAccounts and buckets
// code-locations may declare (a bucket's claim, Secret and ConfigMap share
// its name), the Dagster workspace ConfigMap and the webserver's Service;
// then the names of codeloc's install (its bundle, the root Application).
// The platform's Secrets are not among them: no code-location may ship a
// Secret (policy-kind) nor read one through the API (rbac-rule), so owning
// a Secret's name reaches nothing, and a platform naturally names a
// code-location's own secret after it (citation-api-token).
func (c *Contract) PlatformNames() []PlatformName {
	var out []PlatformName
	add := func(field, name string) {
		if name != "" {
			out = append(out, PlatformName{Name: name, Field: field})
		}
	}
	for _, p := range c.ConfigMaps {
		add("configMaps", p.Name)
	}
	for _, p := range c.ServiceAccounts {
		add("serviceAccounts", p.Name)
	}
	for _, b := range c.ObjectStorage.Buckets {
		add("objectStorage.buckets", b.Name)
	}
	add("dagster.workspaceConfigMap", c.Dagster.WorkspaceConfigMap)
	add("dagster.webserverURL", c.webserverService())
	for _, n := range names.InstallNames {
		add("codeloc's install", n)
	}
	return out
}

// webserverService is the Service of dagster.webserverURL when it is in
// the contract's namespace (a host of one label, or <service>.<namespace>…).
func (c *Contract) webserverService() string {
	u, err := url.Parse(c.Dagster.WebserverURL)
	if err != nil || c.Dagster.WebserverURL == "" {
		return ""
	}
	host := u.Hostname()
	if host == "" || net.ParseIP(host) != nil {
		return ""
	}
	labels := strings.Split(host, ".")
	if len(labels) > 1 && labels[1] != c.Namespace {
		return ""
	}
	return labels[0]
}

// checkCodeLocationName refuses a codeLocation that is a name codeloc keeps
// for itself, or that would own a name of the platform: all code-locations
// deploy into one namespace, and each owns every name <codeLocation> and
// <codeLocation>-<name>.
func checkCodeLocationName(d *Declaration, c *Contract) problem.Problems {
	cl := d.CodeLocation
	if cl == "" {
		return nil
	}
	at := d.PosOf("codeLocation")
	if r, ok := names.Reserved(cl); ok {
		return problem.Problems{at.At(CodeCodeLocationReserved, "codeLocation",
			fmt.Sprintf("%q is a name codeloc keeps for itself: %s", cl, r.Why()),
			fmt.Sprintf("choose another name: not codeloc, nor codeloc-<name>, nor ending with %s, nor %s", strings.Join(names.ReservedSuffixes(), ", "), names.RootApplicationName))}
	}
	owned := ownedPlatformNames(cl, c.PlatformNames())
	if len(owned) == 0 {
		return nil
	}
	return problem.Problems{at.At(CodeCodeLocationPlatform, "codeLocation",
		fmt.Sprintf("%q would own the platform's %s: every object of a code-location is named %s or %s-<name>, so its objects could take the platform's", cl, owned, cl, cl),
		fmt.Sprintf("rename the code-location (its folder, codeLocation and images) so that no platform name is %s or starts with %s-", cl, cl))}
}

// ownedPlatformNames lists the platform names cl owns, each once with the
// fields that give it: "dagster (serviceAccounts), dagster-instance
// (configMaps)".
func ownedPlatformNames(cl string, platform []PlatformName) string {
	var order []string
	fields := map[string][]string{}
	for _, p := range platform {
		if !names.Owns(cl, p.Name) {
			continue
		}
		if _, seen := fields[p.Name]; !seen {
			order = append(order, p.Name)
		}
		fields[p.Name] = append(fields[p.Name], p.Field)
	}
	out := make([]string, len(order))
	for i, n := range order {
		out[i] = fmt.Sprintf("%s (%s)", n, strings.Join(fields[n], ", "))
	}
	return strings.Join(out, ", ")
}
