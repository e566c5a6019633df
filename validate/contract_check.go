package validate

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/codeloc/codeloc/internal/problem"
)

var sslModes = []string{"disable", "allow", "prefer", "require", "verify-ca", "verify-full"}

// contractChecker collects the problems of a contract's own consistency.
type contractChecker struct {
	c  *Contract
	ps problem.Problems
}

func (k *contractChecker) add(code, path, msg, hint string) {
	k.ps = append(k.ps, k.c.PosOf(path).At(code, path, msg, hint))
}

func (k *contractChecker) invalid(path, msg, hint string) {
	k.add(CodeContractInvalid, path, msg, hint)
}

// check validates the contract's own consistency.
func (c *Contract) check() problem.Problems {
	k := &contractChecker{c: c}
	k.identity()
	k.databasesAndSecrets()
	k.storageAndLimits()
	k.policy()
	k.dagster()
	return k.ps
}

func (k *contractChecker) dnsLabel(path, v string) {
	if v != "" && len(validation.IsDNS1123Label(v)) > 0 {
		k.invalid(path, fmt.Sprintf("%q is not a DNS-1123 label", v), "use lowercase letters, digits and '-'")
	}
}

// unique checks the names of a list: DNS-1123 labels, each once.
func (k *contractChecker) unique(list string, names []string) {
	seen := map[string]bool{}
	for i, v := range names {
		p := index(list, i) + ".name"
		k.dnsLabel(p, v)
		if seen[v] {
			k.invalid(p, fmt.Sprintf("%q is listed twice", v), "list it once")
		}
		seen[v] = true
	}
}

// identity checks apiVersion, kind, versions, namespaces and the registry.
func (k *contractChecker) identity() {
	c := k.c
	if c.APIVersion != "" && c.APIVersion != ContractAPIVersion {
		k.invalid("apiVersion", fmt.Sprintf("%q is not %s", c.APIVersion, ContractAPIVersion), "set apiVersion: "+ContractAPIVersion)
	}
	if c.Kind != "" && c.Kind != ContractKind {
		k.invalid("kind", fmt.Sprintf("%q is not %s", c.Kind, ContractKind), "set kind: "+ContractKind)
	}
	if _, ok := c.Pos["contractVersions"]; ok && len(c.ContractVersions) == 0 {
		k.invalid("contractVersions", "no contract version is accepted", "list at least one version")
	}
	for i, v := range c.ContractVersions {
		if v < 1 {
			k.invalid(index("contractVersions", i), fmt.Sprintf("%d is not a contract version", v), "versions start at 1")
		}
	}
	k.dnsLabel("namespace", c.Namespace)
	k.dnsLabel("argocdNamespace", c.ArgoCDNamespace)
	k.dnsLabel("ceph.namespace", c.Ceph.Namespace)
	k.registry("registry", c.Registry)
}

// registry checks a registry host[/path] as it prefixes image names.
func (k *contractChecker) registry(path, r string) {
	if strings.Contains(r, "://") || strings.HasSuffix(r, "/") || strings.ContainsAny(r, " @") {
		k.invalid(path, fmt.Sprintf("%q is not a registry host[/path]", r), "write it as it prefixes image names, e.g. registry:80")
	}
}

// databasesAndSecrets checks names, ports, SSL modes and that each
// database's credentials secret is one code-locations may declare.
func (k *contractChecker) databasesAndSecrets() {
	c := k.c
	k.unique("databases", namesOf(c.Databases, func(d Database) string { return d.Name }))
	secretNames := map[string]bool{}
	for i, s := range c.Secrets {
		p := index("secrets", i) + ".name"
		if s.Name != "" && len(validation.IsDNS1123Subdomain(s.Name)) > 0 {
			k.invalid(p, fmt.Sprintf("%q is not a valid Secret name", s.Name), "use a DNS-1123 subdomain")
		}
		if secretNames[s.Name] {
			k.invalid(p, fmt.Sprintf("%q is listed twice", s.Name), "list it once")
		}
		secretNames[s.Name] = true
	}
	k.provided("configMaps", "ConfigMap", c.ConfigMaps)
	k.provided("serviceAccounts", "ServiceAccount", c.ServiceAccounts)
	for i, db := range c.Databases {
		p := index("databases", i)
		if _, ok := c.Pos[p+".port"]; ok && (db.Port < 1 || db.Port > 65535) {
			k.invalid(p+".port", fmt.Sprintf("%d is not a TCP port", db.Port), "use 1-65535")
		}
		if !slices.Contains(sslModes, db.SSLMode) {
			k.invalid(p+".sslMode", fmt.Sprintf("%q is not a libpq sslmode", db.SSLMode), "use one of "+strings.Join(sslModes, ", "))
		}
		if db.CredentialsSecret != "" && !secretNames[db.CredentialsSecret] {
			k.invalid(p+".credentialsSecret", fmt.Sprintf("secret %q is not listed in secrets", db.CredentialsSecret), "add it to secrets so code-locations can declare it")
		}
	}
}

// provided checks the names of a list of platform objects of one kind.
func (k *contractChecker) provided(path, kind string, items []Provided) {
	seen := map[string]bool{}
	for i, it := range items {
		p := index(path, i) + ".name"
		if it.Name != "" && len(validation.IsDNS1123Subdomain(it.Name)) > 0 {
			k.invalid(p, fmt.Sprintf("%q is not a valid %s name", it.Name, kind), "use a DNS-1123 subdomain")
		}
		if seen[it.Name] {
			k.invalid(p, fmt.Sprintf("%q is listed twice", it.Name), "list it once")
		}
		seen[it.Name] = true
	}
}

// dagster checks where the platform's Dagster is reached.
func (k *contractChecker) dagster() {
	d := k.c.Dagster
	if u := d.WebserverURL; u != "" {
		parsed, err := url.Parse(u)
		if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" || parsed.User != nil || parsed.RawQuery != "" || parsed.Fragment != "" {
			k.invalid("dagster.webserverURL", fmt.Sprintf("%q is not an http(s) URL of the webserver", u), "write the in-cluster URL Dagster's webserver answers on, e.g. http://dagster-dagster-webserver.dagster.svc:80")
		}
	}
	if n := d.WorkspaceConfigMap; len(validation.IsDNS1123Subdomain(n)) > 0 {
		k.invalid("dagster.workspaceConfigMap", fmt.Sprintf("%q is not a valid ConfigMap name", n), "use a DNS-1123 subdomain")
	}
	k.runLauncher()
}

// launcherVolumeTypes are the volume types the run launcher may add to
// every run pod: the platform's settings and scratch space. A claim or a
// node's path would reach every code-location's run pods.
const launcherVolumeTypes = "configMap, secret, projected (configMap, secret, downwardAPI, serviceAccountToken), downwardAPI or emptyDir"

// runLauncher checks dagster.runLauncher: every object it names is one
// the contract lists, so that the admission of run pods, which allows
// them, allows nothing the contract does not offer.
func (k *contractChecker) runLauncher() {
	const p = "dagster.runLauncher"
	c, r := k.c, k.c.Dagster.RunLauncher
	listed := func(path, kind, list, name string, ok bool) {
		if name != "" && !ok {
			k.invalid(path, fmt.Sprintf("%s %q is not listed in %s", kind, name, list),
				fmt.Sprintf("list it in %s: the run launcher adds it to every run pod, and the admission of run pods allows only the objects the contract offers", list))
		}
	}
	listed(p+".serviceAccountName", "ServiceAccount", "serviceAccounts", r.ServiceAccountName, c.HasServiceAccount(r.ServiceAccountName))
	listed(p+".instanceConfigMap", "ConfigMap", "configMaps", r.InstanceConfigMap, c.HasConfigMap(r.InstanceConfigMap))
	listed(p+".postgresPasswordSecret", "Secret", "secrets", r.PostgresPasswordSecret, c.HasSecret(r.PostgresPasswordSecret))
	for _, l := range []struct {
		path, kind, list string
		names            []string
		has              func(string) bool
	}{
		{p + ".envConfigMaps", "ConfigMap", "configMaps", r.EnvConfigMaps, c.HasConfigMap},
		{p + ".envSecrets", "Secret", "secrets", r.EnvSecrets, c.HasSecret},
		{p + ".imagePullSecrets", "Secret", "secrets", r.ImagePullSecrets, c.HasSecret},
	} {
		for i, n := range l.names {
			if n == "" {
				k.invalid(index(l.path, i), "the name is empty", "write the object's name")
			}
			listed(index(l.path, i), l.kind, l.list, n, l.has(n))
		}
	}
	volumes := map[string]bool{}
	for i, v := range r.Volumes {
		vp := index(p+".volumes", i)
		if errs := validation.IsDNS1123Label(v.Name); len(errs) > 0 {
			k.invalid(vp+".name", fmt.Sprintf("%q is not a volume name: %s", v.Name, strings.Join(errs, "; ")), "use a DNS-1123 label")
		}
		if volumes[v.Name] {
			k.invalid(vp+".name", fmt.Sprintf("volume %q is listed twice", v.Name), "list it once")
		}
		volumes[v.Name] = true
		if !launcherVolumeType(v.VolumeSource) {
			k.invalid(vp, fmt.Sprintf("volume %q is not of a type the run launcher may add to every code-location's run pods", v.Name),
				"use a "+launcherVolumeTypes+" volume: a claim or a node's path would reach every code-location's run pods")
		}
		refs := volumeRefs(v.VolumeSource)
		for _, n := range refs.secrets {
			listed(vp, "Secret", "secrets", n, c.HasSecret(n))
		}
		for _, n := range refs.configMaps {
			listed(vp, "ConfigMap", "configMaps", n, c.HasConfigMap(n))
		}
	}
	for i, m := range r.VolumeMounts {
		if !volumes[m.Name] {
			k.invalid(index(p+".volumeMounts", i)+".name", fmt.Sprintf("volume mount %q names no volume of dagster.runLauncher.volumes", m.Name),
				"add the volume to volumes, or remove the mount: the API server refuses a run Job whose mount names no volume")
		}
		if m.MountPath == "" {
			k.invalid(index(p+".volumeMounts", i)+".mountPath", fmt.Sprintf("volume mount %q has no mountPath", m.Name), "set mountPath")
		}
	}
	for i, name := range r.PassEnv {
		if errs := validation.IsEnvVarName(name); len(errs) > 0 || strings.Contains(name, "=") {
			k.invalid(index(p+".passEnv", i), fmt.Sprintf("%q is not an environment variable's name", name), "list names, without =VALUE")
		}
	}
	for _, key := range slices.Sorted(maps.Keys(r.Labels)) {
		lp := p + ".labels." + key
		if errs := validation.IsQualifiedName(key); len(errs) > 0 {
			k.invalid(lp, fmt.Sprintf("%q is not a label key: %s", key, strings.Join(errs, "; ")), "use a Kubernetes label key")
		} else if strings.HasPrefix(key, "dagster/") || strings.HasPrefix(key, "codeloc.dev/") {
			k.invalid(lp, fmt.Sprintf("label %s is one Dagster or codeloc sets on run pods to tell whose they are", key), "choose a label outside the dagster/ and codeloc.dev/ prefixes")
		}
		if errs := validation.IsValidLabelValue(r.Labels[key]); len(errs) > 0 {
			k.invalid(lp, fmt.Sprintf("%q is not a label value: %s", r.Labels[key], strings.Join(errs, "; ")), "use a Kubernetes label value")
		}
	}
}

// launcherVolumeType reports whether a run launcher's volume is of a type
// it may add to every run pod.
func launcherVolumeType(v corev1.VolumeSource) bool {
	set := 0
	for _, ok := range []bool{v.ConfigMap != nil, v.Secret != nil, v.Projected != nil, v.DownwardAPI != nil, v.EmptyDir != nil} {
		if ok {
			set++
		}
	}
	if set != 1 || v.PersistentVolumeClaim != nil || v.HostPath != nil || v.CSI != nil || v.Ephemeral != nil {
		return false
	}
	if v.Projected != nil {
		for _, s := range v.Projected.Sources {
			if s.ClusterTrustBundle != nil {
				return false
			}
		}
	}
	return true
}

// storageAndLimits checks buckets, budgets, Ceph and the Jobs' bounds.
func (k *contractChecker) storageAndLimits() {
	c := k.c
	k.unique("objectStorage.buckets", namesOf(c.ObjectStorage.Buckets, func(b ProvidedBucket) string { return b.Name }))
	for i, b := range c.ObjectStorage.Buckets {
		if b.StorageClass != "" && !slices.Contains(c.ObjectStorage.StorageClasses, b.StorageClass) {
			k.invalid(index("objectStorage.buckets", i)+".storageClass", fmt.Sprintf("%q is not in objectStorage.storageClasses", b.StorageClass), "list the class in objectStorage.storageClasses")
		}
	}
	if n := c.Limits.Objects; n < 1 {
		k.invalid("limits.objects", fmt.Sprintf("%d is not an object count", n), "use a positive count; leave it out for the default of "+strconv.Itoa(DefaultObjectLimit))
	}
	if hp := c.Budgets.HeadroomPercent; hp < 0 || hp >= 100 {
		k.invalid("budgets.headroomPercent", fmt.Sprintf("%d is not a percentage below 100", hp), "use 0-99")
	}
	if c.Ceph.ReplicaSize < 1 {
		k.invalid("ceph.replicaSize", fmt.Sprintf("%d is not a replica count", c.Ceph.ReplicaSize), "use the pool's replicated.size, e.g. 3")
	}
	if c.Jobs.BackoffLimit < 0 || c.Jobs.BackoffLimit > 10 {
		k.invalid("jobs.backoffLimit", fmt.Sprintf("%d is outside 0-10", c.Jobs.BackoffLimit), "keep retries bounded: Argo CD's sync retry handles the rest")
	}
	if d := c.Jobs.ActiveDeadlineSeconds; d < 10 || d > 86400 {
		k.invalid("jobs.activeDeadlineSeconds", fmt.Sprintf("%d is outside 10-86400", d), "bound the Job's run time")
	}
	if st := c.DB.Migrations.StatementTimeout; st >= time.Duration(c.Jobs.ActiveDeadlineSeconds)*time.Second {
		k.invalid("database.migrations.statementTimeout", fmt.Sprintf("%s is not below jobs.activeDeadlineSeconds (%ds)", st, c.Jobs.ActiveDeadlineSeconds),
			"keep it below the Job's deadline, so that a long statement ends with its own line instead of the Job being killed")
	}
}
