package names

import "strings"

// Names of codeloc's install (sidecar/install): the bundle's objects and the
// root Application of the app-of-apps. PluginName, "codeloc", is the
// bundle's app.kubernetes.io/name and the sidecar container's name.
const (
	// InstallContractName is the bundle's ConfigMap holding the cluster
	// contract, in Argo CD's namespace.
	InstallContractName = "codeloc-contract"
	// InstallPreflightName is the bundle's ClusterRole, Roles and
	// RoleBindings that let every preflight read the platform.
	InstallPreflightName = "codeloc-preflight"
	// InstallAdmissionPolicyName is the bundle's ValidatingAdmissionPolicy
	// over the pods of every code-location; its bindings are named
	// codeloc-<codeLocation> (and codeloc-<codeLocation>.dagster).
	InstallAdmissionPolicyName = "codeloc-code-location"
	// InstallImagesPolicyName is the bundle's ValidatingAdmissionPolicy
	// and binding that keep a code-location's pod's images as admitted.
	InstallImagesPolicyName = "codeloc-pod-images"
	// RootApplicationName is the root app-of-apps Application
	// (sidecar/install/app-of-apps.example.yaml), in Argo CD's namespace
	// beside the code-locations' Applications, which are named after them.
	RootApplicationName = "app-of-apps"
)

// InstallNames are the names of codeloc's install, sorted.
var InstallNames = []string{RootApplicationName, PluginName, InstallAdmissionPolicyName, InstallContractName, InstallImagesPolicyName, InstallPreflightName}

// Kind is an API group ("" for the core API) and a kind.
type Kind struct{ Group, Kind string }

// The kinds codeloc emits.
var (
	kindConfigMap      = Kind{"", "ConfigMap"}
	kindPod            = Kind{"", "Pod"}
	kindServiceAccount = Kind{"", "ServiceAccount"}
	kindClaim          = Kind{"", "PersistentVolumeClaim"}
	kindJob            = Kind{"batch", "Job"}
	kindRole           = Kind{"rbac.authorization.k8s.io", "Role"}
	kindRoleBinding    = Kind{"rbac.authorization.k8s.io", "RoleBinding"}
)

// Reservation says why a name is codeloc's.
type Reservation struct {
	// CodeLocation is the code-location codeloc emits the name for; "" for
	// a name of codeloc's install.
	CodeLocation string
	// What says what codeloc names so, in words.
	What string
	// Kinds are the kinds codeloc emits under the name in the
	// code-location's namespace (none for the install's names).
	Kinds []Kind
}

// Emits reports whether codeloc emits an object of group and kind under
// the reserved name.
func (r Reservation) Emits(group, kind string) bool {
	for _, k := range r.Kinds {
		if k.Group == group && k.Kind == kind {
			return true
		}
	}
	return false
}

// Why says why the name is reserved, for messages: what codeloc names so,
// and for which code-location.
func (r Reservation) Why() string {
	if r.CodeLocation == "" {
		return r.What
	}
	return r.What + " of code-location " + r.CodeLocation
}

// suffixed are the names codeloc emits for every code-location <cl>, as
// <cl><suffix>, besides its record and its migrations ConfigMap.
var suffixed = []struct {
	suffix string
	what   string
	kinds  []Kind
}{
	{PreflightName(""), "codeloc's preflight pod, ServiceAccount, Role, RoleBinding and inputs ConfigMap", []Kind{kindServiceAccount, kindRole, kindRoleBinding, kindConfigMap, kindPod}},
	{MigrateName(""), "codeloc's migration Job", []Kind{kindJob}},
	{ReloadName(""), "codeloc's reload pod", []Kind{kindPod}},
	{DataClaimName(""), "codeloc's block volume claim (resources.disk)", []Kind{kindClaim}},
	{AdmissionName(""), "codeloc's admission parameters ConfigMap", []Kind{kindConfigMap}},
}

// ReservedSuffixes are the suffixes of the names codeloc emits for every
// code-location, in words (the migrations ConfigMap's ends with a hash).
func ReservedSuffixes() []string {
	out := make([]string, 0, len(suffixed)+1)
	for _, s := range suffixed {
		out = append(out, s.suffix)
	}
	return append(out, migrationsInfix+"<hash>")
}

// Reserved reports whether name is one codeloc emits for some
// code-location, whatever the kind: its record codeloc-<cl>, <cl>-preflight,
// <cl>-migrate, <cl>-migrations-<10 hex>, <cl>-reload, <cl>-data and
// <cl>-admission; or a name of codeloc's install (codeloc, codeloc-contract,
// codeloc-preflight, codeloc-code-location, app-of-apps). No code-location may be named so, nor
// ship an object so named but the ones codeloc emits for it.
func Reserved(name string) (Reservation, bool) {
	switch name {
	case PluginName:
		return Reservation{What: "codeloc's own name (the plugin, the sidecar container, the install bundle's app.kubernetes.io/name)"}, true
	case InstallContractName:
		return Reservation{What: "the install bundle's ConfigMap holding the cluster contract"}, true
	case InstallPreflightName:
		return Reservation{What: "the install bundle's ClusterRole, Roles and RoleBindings of every preflight"}, true
	case RootApplicationName:
		return Reservation{What: "the root Application of the app-of-apps"}, true
	case InstallAdmissionPolicyName:
		return Reservation{What: "the install bundle's ValidatingAdmissionPolicy over every code-location's pods"}, true
	case InstallImagesPolicyName:
		return Reservation{What: "the install bundle's ValidatingAdmissionPolicy keeping the images of code-locations' pods"}, true
	}
	if cl, ok := strings.CutPrefix(name, RecordName("")); ok && cl != "" {
		return Reservation{CodeLocation: cl, What: "codeloc's readiness record (the ConfigMap dependents' preflights read)", Kinds: []Kind{kindConfigMap}}, true
	}
	for _, s := range suffixed {
		if cl, ok := strings.CutSuffix(name, s.suffix); ok && cl != "" {
			return Reservation{CodeLocation: cl, What: s.what, Kinds: s.kinds}, true
		}
	}
	if cl, ok := migrationsOf(name); ok {
		return Reservation{CodeLocation: cl, What: "codeloc's migrations ConfigMap", Kinds: []Kind{kindConfigMap}}, true
	}
	return Reservation{}, false
}

// migrationsOf is the code-location of a name <cl>-migrations-<10 hex>.
func migrationsOf(name string) (string, bool) {
	cut := len(name) - MigrationsHashLen
	if cut <= len(migrationsInfix) || !isLowerHex(name[cut:]) {
		return "", false
	}
	cl, ok := strings.CutSuffix(name[:cut], migrationsInfix)
	return cl, ok && cl != ""
}

func isLowerHex(s string) bool {
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Owns reports whether code-location cl owns name: name is cl, or starts
// with cl and '-'. A code-location's objects are all named so.
func Owns(cl, name string) bool {
	return name == cl || strings.HasPrefix(name, cl+"-")
}
