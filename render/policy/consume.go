package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render/node"
	"github.com/codeloc/codeloc/validate"
)

// consumptionRule binds what the pods consume to the declaration: every
// Secret, ConfigMap, PersistentVolumeClaim and ServiceAccount a pod spec
// names must be declared, shipped by this render, a declared bucket's or
// <codeLocation>-data; block storage shipped outside resources.disk is
// refused.
type consumptionRule struct{}

// Codes of consumptionRule: stable, contracts, fixtures and scripts name them.
const (
	CodeConsumeSecret         = "consume-secret"
	CodeConsumeConfigMap      = "consume-configmap"
	CodeConsumeClaim          = "consume-volume-claim"
	CodeConsumeServiceAccount = "consume-service-account"
	CodeBlockStorage          = "block-storage-undeclared"
)

// Codes are the codes consumptionRule emits.
func (consumptionRule) Codes() []Code {
	return []Code{
		{CodeConsumeSecret, "A pod, an Ingress's TLS or a ServiceAccount's secrets reference a Secret the declaration does not name: neither in dependsOn.secrets nor a declared bucket's."},
		{CodeConsumeConfigMap, "A pod references a ConfigMap that neither the render ships nor a declared bucket provides."},
		{CodeConsumeClaim, "A pod mounts a PersistentVolumeClaim other than <codeLocation>-data, or that one without resources.disk."},
		{CodeConsumeServiceAccount, "A pod runs as a ServiceAccount that is neither default nor shipped by the render (codeloc's own preflight accounts included)."},
		{CodeBlockStorage, "The render ships block storage outside the declaration: a PersistentVolumeClaim, volumeClaimTemplates or an ephemeral volume claim."},
	}
}

func (consumptionRule) Check(in *Context, objs []*yaml.RNode) problem.Problems {
	b := in.newBinding(objs)
	var ps problem.Problems
	for _, o := range objs {
		if handledByPolicy(o) {
			continue
		}
		ps = append(ps, b.object(o)...)
	}
	return ps
}

// readSecretKeys are the (secret, key) pairs the pods, and more (those the
// run pods of their container contexts read), read from the declared
// secrets, for the preflight to check (a fact: gatherFacts).
func (in *Context) readSecretKeys(objs []*yaml.RNode, more []SecretKey) map[string][]string {
	b := in.newBinding(objs)
	for _, w := range in.decodedPods(objs) {
		var c collector
		c.pod(w.spec, w.path)
		for _, k := range c.keys {
			b.addKey(k.secret, k.key)
		}
	}
	for _, k := range more {
		b.addKey(k.Secret, k.Key)
	}
	return b.declaredKeys()
}

// binding is what the pods of one render may consume, and the secret keys
// they read (readSecretKeys).
type binding struct {
	in              *Context
	secrets         map[string]bool // dependsOn.secrets
	buckets         map[string]bool // declared buckets: their OBC's Secret and ConfigMap
	configMaps      map[string]bool // ConfigMaps the render ships (hashed names)
	serviceAccounts map[string]bool // ServiceAccounts the render ships
	platformCMs     map[string]bool // dependsOn.configMaps
	platformSAs     map[string]bool // dependsOn.serviceAccounts
	keys            map[string]map[string]bool
}

func (in *Context) newBinding(objs []*yaml.RNode) *binding {
	b := &binding{
		in: in, secrets: map[string]bool{}, buckets: map[string]bool{},
		configMaps: map[string]bool{}, serviceAccounts: map[string]bool{}, keys: map[string]map[string]bool{},
		platformCMs: setOf(in.d.DependsOn.ConfigMaps), platformSAs: setOf(in.d.DependsOn.ServiceAccounts),
	}
	for _, s := range in.d.DependsOn.Secrets {
		b.secrets[s] = true
	}
	for _, bk := range in.d.DependsOn.Buckets {
		b.buckets[bk.Name] = true
	}
	for _, o := range objs {
		if o.GetApiVersion() != "v1" || handledByPolicy(o) {
			continue
		}
		switch o.GetKind() {
		case "ConfigMap":
			b.configMaps[o.GetName()] = true
		case "ServiceAccount":
			b.serviceAccounts[o.GetName()] = true
		}
	}
	return b
}

// object checks one built object: its pod spec, and the block storage or
// pull secrets it carries itself.
func (b *binding) object(o *yaml.RNode) problem.Problems {
	var ps problem.Problems
	switch {
	case o.GetKind() == "PersistentVolumeClaim": // any group: the kinds rule leaves them all to this one
		ps = append(ps, b.shippedClaim(o))
	case o.GetApiVersion() == "v1" && o.GetKind() == "ServiceAccount":
		ps = append(ps, b.serviceAccountPullSecrets(o)...)
		ps = append(ps, b.serviceAccountSecrets(o)...)
	case o.GetKind() == "Ingress":
		ps = append(ps, b.ingressTLS(o)...)
	case o.GetKind() == "StatefulSet":
		ps = append(ps, b.claimTemplates(o)...)
	}
	node, path := podSpec(o)
	if node == nil {
		return ps
	}
	spec, ok, _ := b.in.podSpecOf(node)
	if !ok {
		return ps
	}
	var c collector
	c.pod(spec, path)
	for _, r := range c.refs {
		if p := b.check(o, r); p != nil {
			ps = append(ps, *p)
		}
	}
	for _, field := range c.ephemeral {
		ps = append(ps, b.in.problem(o, CodeBlockStorage, field,
			"a generic ephemeral volume gives each pod its own PersistentVolumeClaim: block storage the declaration does not name",
			fmt.Sprintf("use an emptyDir (with a sizeLimit) for scratch space, or declare resources.disk and mount %s", names.DataClaimName(b.in.d.CodeLocation))))
	}
	return ps
}

func (b *binding) addKey(secret, key string) {
	if b.keys[secret] == nil {
		b.keys[secret] = map[string]bool{}
	}
	b.keys[secret][key] = true
}

// declaredKeys are the keys read from each declared secret, sorted; nil
// when none. The other secrets are refused (or a bucket's, whose keys the
// provisioner writes).
func (b *binding) declaredKeys() map[string][]string {
	var out map[string][]string
	for secret, keys := range b.keys {
		if !b.secrets[secret] {
			continue
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[secret] = slices.Sorted(maps.Keys(keys))
	}
	return out
}

// referenceRules give, per kind of reference, its problem code and why a
// name may not be consumed ("" when it may).
var referenceRules = map[string]struct {
	code   string
	reason func(*binding, string) (string, string)
}{
	KindSecret:         {CodeConsumeSecret, (*binding).secretProblem},
	KindConfigMap:      {CodeConsumeConfigMap, (*binding).configMapProblem},
	KindClaim:          {CodeConsumeClaim, (*binding).claimProblem},
	KindServiceAccount: {CodeConsumeServiceAccount, (*binding).serviceAccountProblem},
}

// check returns the problem of one reference, if any.
func (b *binding) check(o *yaml.RNode, r reference) *problem.Problem {
	rule := referenceRules[r.kind]
	msg, hint := rule.reason(b, r.name)
	if r.name == "" && r.kind != KindServiceAccount { // "" is default for an account only
		msg, hint = fmt.Sprintf("the reference names no %s", r.kind), "set the name: the API server refuses an empty one"
	} else if msg != "" && r.optional {
		hint = b.optionalHint(r)
	}
	if msg == "" {
		return nil
	}
	p := b.in.problem(o, rule.code, r.field, msg, hint)
	return &p
}

// secretProblem says why the pods may not read Secret name ("" if they may).
func (b *binding) secretProblem(name string) (string, string) {
	if b.secrets[name] || b.buckets[name] {
		return "", ""
	}
	msg := fmt.Sprintf("Secret %q is neither declared in dependsOn.secrets nor the Secret of a declared bucket", name)
	switch {
	case b.contractBucket(name):
		return msg, fmt.Sprintf("it is bucket %s's credentials: declare the bucket in dependsOn.buckets (codeloc then injects its %s* variables)", name, names.BucketEnvPrefix(name))
	case b.contractSecret(name):
		return msg, fmt.Sprintf("declare it: add %s to dependsOn.secrets, so that the preflight checks it exists before the pods start", name)
	}
	return msg, fmt.Sprintf("the cluster contract offers no secret %s: ask the platform to provide it, then declare it in dependsOn.secrets", name)
}

// optionalHint is the hint of an optional reference the pods may not
// make: the pod starts without the object, so the fix is the
// code-location's own (drop the reference, or declare what the contract
// offers), never the platform's.
func (b *binding) optionalHint(r reference) string {
	const drop = "the reference is optional, so the pods start without it: drop it"
	switch {
	case b.contractBucket(r.name) && (r.kind == KindSecret || r.kind == KindConfigMap):
		return fmt.Sprintf("%s, or declare bucket %s in dependsOn.buckets", drop, r.name)
	case r.kind == KindSecret && b.contractSecret(r.name):
		return fmt.Sprintf("%s, or declare it: add %s to dependsOn.secrets", drop, r.name)
	case r.kind == KindConfigMap && b.in.c.HasConfigMap(r.name):
		return fmt.Sprintf("%s, or declare it: add %s to dependsOn.configMaps", drop, r.name)
	case r.kind == KindConfigMap:
		if shipped, how := b.shippedAs(KindConfigMap, r.name); shipped != "" {
			return fmt.Sprintf("%s, or name the one the render ships: %s (%s)", drop, shipped, how)
		}
		return fmt.Sprintf("%s, or ship ConfigMap %s in the kustomize root", drop, r.name)
	}
	return fmt.Sprintf("%s; the cluster contract offers no %s %s to declare", drop, r.kind, r.name)
}

func setOf(names []string) map[string]bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return set
}

// configMapProblem says why the pods may not read ConfigMap name.
func (b *binding) configMapProblem(name string) (string, string) {
	if b.configMaps[name] || b.buckets[name] || b.platformCMs[name] {
		return "", ""
	}
	if b.in.c.HasConfigMap(name) {
		return fmt.Sprintf("ConfigMap %q is the platform's, and the declaration does not name it", name),
			fmt.Sprintf("declare it: add %s to dependsOn.configMaps, so that the preflight checks it exists before the pods start", name)
	}
	if cl, ok := strings.CutPrefix(name, names.RecordName("")); ok && cl != "" {
		return fmt.Sprintf("ConfigMap %q is the record codeloc publishes for code-location %s, not a ConfigMap of this code-location", name, cl),
			fmt.Sprintf("records are read by codeloc's preflights only: to wait for %s declare it in dependsOn.codeLocations; ship your own settings in a ConfigMap of the kustomize root", cl)
	}
	if b.contractBucket(name) {
		return fmt.Sprintf("ConfigMap %q belongs to bucket %s, which the declaration does not list", name, name),
			fmt.Sprintf("declare the bucket in dependsOn.buckets (codeloc then injects its %s* variables)", names.BucketEnvPrefix(name))
	}
	msg := fmt.Sprintf("ConfigMap %q is not shipped by this render, declared, nor a declared bucket's", name)
	if shipped, how := b.shippedAs(KindConfigMap, name); shipped != "" {
		return msg, renamedHint(shipped, how)
	}
	return msg,
		"ship it in the kustomize root (resources or configMapGenerator), or declare one the contract offers in dependsOn.configMaps: a code-location's pods read only its own ConfigMaps, the declared ones and its declared buckets'"
}

// claimProblem says why the pods may not mount PersistentVolumeClaim name.
func (b *binding) claimProblem(name string) (string, string) {
	data := names.DataClaimName(b.in.d.CodeLocation)
	switch {
	case name == data && b.in.d.Resources.Disk.Set:
		return "", ""
	case name == data:
		return fmt.Sprintf("PersistentVolumeClaim %q exists only when resources.disk is declared", name),
			fmt.Sprintf("declare resources.disk in %s: codeloc then provides %s on the cluster's block storage", validate.ManifestFile, data)
	case b.in.d.Resources.Disk.Set:
		return fmt.Sprintf("PersistentVolumeClaim %q is not the code-location's claim %s", name, data),
			fmt.Sprintf("mount %s, the claim codeloc provides for resources.disk", data)
	}
	return fmt.Sprintf("PersistentVolumeClaim %q is not the code-location's claim %s", name, data),
		fmt.Sprintf("declare resources.disk in %s and mount %s, the claim codeloc then provides", validate.ManifestFile, data)
}

// serviceAccountProblem says why the pods may not run as name.
func (b *binding) serviceAccountProblem(name string) (string, string) {
	if cl, ok := strings.CutSuffix(name, names.PreflightName("")); ok && cl != "" {
		return fmt.Sprintf("ServiceAccount %q is the account of codeloc's preflight pod for code-location %s", name, cl),
			"run as default or as a ServiceAccount the code-location ships (not named <name>-preflight): preflight accounts carry codeloc's read grants"
	}
	if name == "" || name == "default" || b.serviceAccounts[name] || b.platformSAs[name] {
		return "", ""
	}
	if b.in.c.HasServiceAccount(name) {
		return fmt.Sprintf("ServiceAccount %q is the platform's, and the declaration does not name it", name),
			fmt.Sprintf("declare it: add %s to dependsOn.serviceAccounts, so that the preflight checks it exists before the pods start", name)
	}
	msg := fmt.Sprintf("ServiceAccount %q is neither shipped by this render nor declared", name)
	if shipped, how := b.shippedAs(KindServiceAccount, name); shipped != "" {
		return msg, renamedHint(shipped, how)
	}
	return msg,
		fmt.Sprintf("ship a ServiceAccount named %s in the kustomize root, declare one the contract offers in dependsOn.serviceAccounts, or remove the field to run as default", name)
}

// withoutHashSuffix cuts the suffix kustomize's generators add to a name:
// '-' and ten characters of its hash alphabet (kustomize's hasher). ok is
// false when name has none.
func withoutHashSuffix(name string) (core string, ok bool) {
	const size, alphabet = 10, "2456789bcdfghkmt"
	cut := len(name) - size - 1
	if cut < 0 || name[cut] != '-' {
		return name, false
	}
	for i := cut + 1; i < len(name); i++ {
		if strings.IndexByte(alphabet, name[i]) < 0 {
			return name, false
		}
	}
	return name[:cut], true
}

// Ways kustomize renamed an object, as shippedAs says them.
const (
	renamedPrefix = "kustomize's namePrefix renamed it"
	renamedHash   = "its generator added a hash suffix"
)

// shippedAs finds the object of kind (ConfigMap, ServiceAccount) the render
// ships under another name than name: renamed by kustomize (namePrefix,
// a generator's hash suffix), which rewrites the references it knows, but
// not one it does not (a Dagster container context's JSON, a field of a
// custom kind). how says what renamed it; "" when none is.
func (b *binding) shippedAs(kind, name string) (shipped, how string) {
	set := b.configMaps
	if kind == KindServiceAccount {
		set = b.serviceAccounts
	}
	for _, s := range slices.Sorted(maps.Keys(set)) {
		core, hashed := s, false
		if kind == KindConfigMap {
			core, hashed = withoutHashSuffix(s)
		}
		prefixed := core != name && strings.HasSuffix(core, "-"+name)
		if core != name && !prefixed {
			continue
		}
		var ways []string
		if prefixed {
			ways = append(ways, renamedPrefix)
		}
		if hashed {
			ways = append(ways, renamedHash)
		}
		if shipped == "" || len(s) < len(shipped) {
			shipped, how = s, strings.Join(ways, " and ")
		}
	}
	return shipped, how
}

// renamedHint is the hint of a reference to an object the render ships
// under another name: kustomize did not rewrite the reference.
func renamedHint(shipped, how string) string {
	hint := fmt.Sprintf("the render ships it as %s: %s, in the references kustomize knows but not in a Dagster container context's JSON", shipped, how)
	if core, hashed := withoutHashSuffix(shipped); hashed && strings.Contains(how, renamedHash) {
		return hint + fmt.Sprintf("; set options: {disableNameSuffixHash: true} on the generator and write %s here, as the hash changes with the content", core)
	}
	return hint + fmt.Sprintf("; write %s here, or with the Dagster chart set fullnameOverride, which writes one name into the object and the context", shipped)
}

func (b *binding) contractSecret(name string) bool {
	return slices.ContainsFunc(b.in.c.Secrets, func(s validate.Secret) bool { return s.Name == name })
}

func (b *binding) contractBucket(name string) bool {
	return slices.ContainsFunc(b.in.c.ObjectStorage.Buckets, func(p validate.ProvidedBucket) bool { return p.Name == name })
}

// shippedClaim refuses a PersistentVolumeClaim among the objects.
func (b *binding) shippedClaim(o *yaml.RNode) problem.Problem {
	size := ""
	if n, err := o.Pipe(yaml.Lookup("spec", "resources", "requests", "storage")); err == nil && n != nil {
		size = " of " + yaml.GetValue(n)
	}
	return b.in.problem(o, CodeBlockStorage, "",
		fmt.Sprintf("a code-location may not ship a PersistentVolumeClaim%s: block storage is declared, not shipped", size),
		b.diskHint())
}

// claimTemplates refuses a StatefulSet's volumeClaimTemplates.
func (b *binding) claimTemplates(o *yaml.RNode) problem.Problems {
	spec := o.Field("spec")
	if spec == nil {
		return nil
	}
	var ps problem.Problems
	for i, t := range node.Sequence(spec.Value, "volumeClaimTemplates") {
		name := ""
		if n, err := t.Pipe(yaml.Lookup("metadata", "name")); err == nil && n != nil {
			name = " " + yaml.GetValue(n)
		}
		ps = append(ps, b.in.problem(o, CodeBlockStorage, fmt.Sprintf("spec.volumeClaimTemplates[%d]", i),
			fmt.Sprintf("volumeClaimTemplates%s gives each replica its own PersistentVolumeClaim: block storage the declaration does not name", name),
			b.diskHint()))
	}
	return ps
}

func (b *binding) diskHint() string {
	data := names.DataClaimName(b.in.d.CodeLocation)
	if b.in.d.Resources.Disk.Set {
		return fmt.Sprintf("remove it and mount %s, the claim codeloc provides for resources.disk", data)
	}
	return fmt.Sprintf("remove it: declare resources.disk and mount %s, the claim codeloc then provides", data)
}

// serviceAccountPullSecrets checks the pull secrets of a shipped
// ServiceAccount: Kubernetes adds them to every pod that runs as it.
func (b *binding) serviceAccountPullSecrets(o *yaml.RNode) problem.Problems {
	var ps problem.Problems
	for i, item := range node.Sequence(o, "imagePullSecrets") {
		n := item.Field("name")
		if n == nil {
			continue
		}
		if p := b.check(o, reference{kind: KindSecret, name: yaml.GetValue(n.Value), field: fmt.Sprintf("imagePullSecrets[%d].name", i)}); p != nil {
			ps = append(ps, *p)
		}
	}
	return ps
}

// Kinds of the objects a pod spec references.
const (
	KindSecret         = "Secret"
	KindConfigMap      = "ConfigMap"
	KindClaim          = "PersistentVolumeClaim"
	KindServiceAccount = "ServiceAccount"
)

// reference is one object a pod spec names, at field (a path in the
// object); optional when the pod starts without it (optional: true).
type reference struct {
	kind, name, field string
	optional          bool
}

// secretKey is a key a pod reads from a Secret, which must be there for
// the pod to start (optional references are left out).
type secretKey struct{ secret, key string }

// collector gathers what one pod spec consumes.
type collector struct {
	refs      []reference
	keys      []secretKey
	ephemeral []string // fields of generic ephemeral volumes
}

func (c *collector) ref(kind, name, field string) {
	c.refs = append(c.refs, reference{kind: kind, name: name, field: field})
}

// optionalRef is a reference the pod starts without when optional is set
// and true.
func (c *collector) optionalRef(kind, name, field string, optional *bool) {
	c.refs = append(c.refs, reference{kind: kind, name: name, field: field, optional: optional != nil && *optional})
}

func (c *collector) key(secret, key string, optional *bool) {
	if key != "" && (optional == nil || !*optional) {
		c.keys = append(c.keys, secretKey{secret, key})
	}
}

// pod collects the references of a pod spec at path.
func (c *collector) pod(spec *corev1.PodSpec, path string) {
	for i, s := range spec.ImagePullSecrets {
		c.ref(KindSecret, s.Name, fmt.Sprintf("%s.imagePullSecrets[%d].name", path, i))
	}
	if spec.ServiceAccountName != "" {
		c.ref(KindServiceAccount, spec.ServiceAccountName, path+".serviceAccountName")
	}
	if sa := spec.DeprecatedServiceAccount; sa != "" && sa != spec.ServiceAccountName {
		c.ref(KindServiceAccount, sa, path+".serviceAccount")
	}
	for i, ct := range spec.InitContainers {
		c.env(ct.Env, ct.EnvFrom, fmt.Sprintf("%s.initContainers[%d]", path, i))
	}
	for i, ct := range spec.Containers {
		c.env(ct.Env, ct.EnvFrom, fmt.Sprintf("%s.containers[%d]", path, i))
	}
	for i, ct := range spec.EphemeralContainers {
		c.env(ct.Env, ct.EnvFrom, fmt.Sprintf("%s.ephemeralContainers[%d]", path, i))
	}
	for i, v := range spec.Volumes {
		c.volume(v.VolumeSource, fmt.Sprintf("%s.volumes[%d]", path, i))
	}
}

// env collects a container's env and envFrom references.
func (c *collector) env(env []corev1.EnvVar, envFrom []corev1.EnvFromSource, path string) {
	for i, e := range env {
		if e.ValueFrom == nil {
			continue
		}
		field := fmt.Sprintf("%s.env[%d].valueFrom", path, i)
		if r := e.ValueFrom.SecretKeyRef; r != nil {
			c.optionalRef(KindSecret, r.Name, field+".secretKeyRef.name", r.Optional)
			c.key(r.Name, r.Key, r.Optional)
		}
		if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
			c.optionalRef(KindConfigMap, r.Name, field+".configMapKeyRef.name", r.Optional)
		}
	}
	for i, e := range envFrom {
		field := fmt.Sprintf("%s.envFrom[%d]", path, i)
		if r := e.SecretRef; r != nil {
			c.optionalRef(KindSecret, r.Name, field+".secretRef.name", r.Optional)
		}
		if r := e.ConfigMapRef; r != nil {
			c.optionalRef(KindConfigMap, r.Name, field+".configMapRef.name", r.Optional)
		}
	}
}

// volume collects the references of one volume at path.
func (c *collector) volume(v corev1.VolumeSource, path string) {
	if s := v.Secret; s != nil {
		c.optionalRef(KindSecret, s.SecretName, path+".secret.secretName", s.Optional)
		for _, item := range s.Items {
			c.key(s.SecretName, item.Key, s.Optional)
		}
	}
	if s := v.ConfigMap; s != nil {
		c.optionalRef(KindConfigMap, s.Name, path+".configMap.name", s.Optional)
	}
	if s := v.Projected; s != nil {
		for i, src := range s.Sources {
			c.projection(src, fmt.Sprintf("%s.projected.sources[%d]", path, i))
		}
	}
	if s := v.PersistentVolumeClaim; s != nil {
		c.ref(KindClaim, s.ClaimName, path+".persistentVolumeClaim.claimName")
	}
	if s := v.Ephemeral; s != nil {
		field := path + ".ephemeral"
		if s.VolumeClaimTemplate != nil {
			field += ".volumeClaimTemplate"
		}
		c.ephemeral = append(c.ephemeral, field)
	}
	for _, r := range volumeSecretRefs(v) {
		c.ref(KindSecret, r.name, path+"."+r.field)
	}
}

func (c *collector) projection(src corev1.VolumeProjection, path string) {
	if s := src.Secret; s != nil {
		c.optionalRef(KindSecret, s.Name, path+".secret.name", s.Optional)
		for _, item := range s.Items {
			c.key(s.Name, item.Key, s.Optional)
		}
	}
	if s := src.ConfigMap; s != nil {
		c.optionalRef(KindConfigMap, s.Name, path+".configMap.name", s.Optional)
	}
}

// fieldName is a name at a field.
type fieldName struct{ field, name string }

// volumeSecretRefs are the credentials Secrets of the volume plugins that
// name one (k8s.io/api/core/v1 VolumeSource), as field and name.
func volumeSecretRefs(v corev1.VolumeSource) []fieldName {
	var out []fieldName
	local := func(field string, r *corev1.LocalObjectReference) {
		if r != nil {
			out = append(out, fieldName{field + ".name", r.Name})
		}
	}
	if s := v.CSI; s != nil {
		local("csi.nodePublishSecretRef", s.NodePublishSecretRef)
	}
	if s := v.RBD; s != nil {
		local("rbd.secretRef", s.SecretRef)
	}
	if s := v.CephFS; s != nil {
		local("cephfs.secretRef", s.SecretRef)
	}
	if s := v.ISCSI; s != nil {
		local("iscsi.secretRef", s.SecretRef)
	}
	if s := v.FlexVolume; s != nil {
		local("flexVolume.secretRef", s.SecretRef)
	}
	if s := v.Cinder; s != nil {
		local("cinder.secretRef", s.SecretRef)
	}
	if s := v.ScaleIO; s != nil {
		local("scaleIO.secretRef", s.SecretRef)
	}
	if s := v.StorageOS; s != nil {
		local("storageos.secretRef", s.SecretRef)
	}
	if s := v.AzureFile; s != nil {
		out = append(out, fieldName{"azureFile.secretName", s.SecretName})
	}
	return out
}
