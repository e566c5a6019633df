// Package emit builds the objects the cluster adds to a code-location's own
// (the PreSync preflight pod and its RBAC and inputs, the migration
// ConfigMap and Job, the block PVC, the record ConfigMap, the admission
// params), as typed
// Kubernetes API objects converted once to YAML nodes; it orders every
// object in sync waves and writes the final stream.
package emit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/dagster/workspace"
	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/pgtimeout"
	"github.com/codeloc/codeloc/render/node"
	"github.com/codeloc/codeloc/validate"
)

// Paths inside the Jobs' containers.
const (
	DeclarationMount = "/etc/codeloc/declaration"
	MigrationsMount  = "/etc/codeloc/migrations"
	ContractKey      = "contract.yaml"
)

// Hook waves inside PreSync: RBAC and inputs, preflight, SQL, migration.
const (
	waveHookInputs = iota
	waveHookPreflight
	waveHookSQL
	waveHookMigrate
)

// Input is what the emitted objects are made of.
type Input struct {
	Declaration *validate.Declaration
	Contract    *validate.Contract
	// SecretKeys are the keys the pods read from each declared secret,
	// which the preflight checks exist.
	SecretKeys map[string][]string
	// GRPC is where the platform's Dagster reaches the code server; nil
	// when the code-location runs none.
	GRPC *workspace.Location
	// Atlas are the code-location's own objects, as the policy left them:
	// the admission params name what their pods use.
	Atlas []*yaml.RNode
}

// emitter builds one code-location's objects.
type emitter struct {
	d *validate.Declaration
	c *validate.Contract
	// secretKeys: see Input.
	secretKeys map[string][]string
	grpc       *workspace.Location
	atlas      []*yaml.RNode
}

// Objects builds the objects the cluster adds to the code-location's own.
func Objects(in Input) ([]*yaml.RNode, error) {
	e := &emitter{d: in.Declaration, c: in.Contract, secretKeys: in.SecretKeys, grpc: in.GRPC, atlas: in.Atlas}
	objs := []any{
		e.preflightServiceAccount(),
		e.preflightRole(),
		e.preflightRoleBinding(),
		e.preflightInputs(),
		e.preflightPod(),
	}
	if len(e.d.Migrations) > 0 {
		cm := e.migrationsConfigMap()
		objs = append(objs, cm, e.migrateJob(cm.Name))
	}
	if e.d.Resources.Disk.Set {
		objs = append(objs, e.dataClaim())
	}
	objs = append(objs, e.record())
	if e.c.Dagster.WebserverURL != "" && e.grpc != nil { // a Dagster to tell, a code server to reload
		objs = append(objs, e.reloadPod(e.grpc.Name))
	}
	params, err := e.admissionParams(objs)
	if err != nil {
		return nil, err
	}
	objs = append(objs, params)
	out := make([]*yaml.RNode, len(objs))
	for i, o := range objs {
		n, err := toNode(o)
		if err != nil {
			return nil, fmt.Errorf("emit %T: %w", o, err)
		}
		out[i] = n
	}
	return out, nil
}

func (e *emitter) labels() map[string]string {
	return map[string]string{names.LabelCodeLocation: e.d.CodeLocation, names.LabelRevision: e.d.Revision, names.LabelManagedBy: names.ManagedByValue}
}

func (e *emitter) meta(name string, annotations map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: e.c.Namespace, Labels: e.labels(), Annotations: annotations}
}

func hook(wave int) map[string]string {
	return map[string]string{names.AnnoHook: "PreSync", names.AnnoHookDelete: "BeforeHookCreation", names.AnnoSyncWave: strconv.Itoa(wave)}
}

func typeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}

func (e *emitter) preflightServiceAccount() *corev1.ServiceAccount {
	return &corev1.ServiceAccount{TypeMeta: typeMeta("v1", "ServiceAccount"), ObjectMeta: e.meta(names.PreflightName(e.d.CodeLocation), hook(waveHookInputs))}
}

// preflightRole grants exactly what preflight reads in the namespace: the
// declared secrets (their metadata, or their key names when the pods read
// keys of them: RBAC cannot tell either from the whole object), the
// dependencies' records and the declared platform ConfigMaps (one rule),
// the declared platform ServiceAccounts, the declared OBCs, quotas and
// pods. Names keep their declaration order, each listed once.
func (e *emitter) preflightRole() *rbacv1.Role {
	var rules []rbacv1.PolicyRule
	named := func(group, resource string, names []string) {
		seen := make(map[string]bool, len(names))
		var list []string
		for _, n := range names {
			if n != "" && !seen[n] {
				seen[n] = true
				list = append(list, n)
			}
		}
		if len(list) == 0 {
			return // an empty resourceNames would grant every object
		}
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: []string{"get"}, ResourceNames: list})
	}
	named("", "secrets", e.d.DependsOn.Secrets)
	configMaps := make([]string, 0, len(e.d.DependsOn.CodeLocations)+len(e.d.DependsOn.ConfigMaps))
	for _, dep := range e.d.DependsOn.CodeLocations {
		configMaps = append(configMaps, names.RecordName(dep))
	}
	named("", "configmaps", append(configMaps, e.d.DependsOn.ConfigMaps...))
	named("", "serviceaccounts", e.d.DependsOn.ServiceAccounts)
	buckets := make([]string, len(e.d.DependsOn.Buckets))
	for i, b := range e.d.DependsOn.Buckets {
		buckets[i] = b.Name
	}
	named("objectbucket.io", "objectbucketclaims", buckets)
	rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods", "resourcequotas"}, Verbs: []string{"list"}})
	return &rbacv1.Role{TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "Role"), ObjectMeta: e.meta(names.PreflightName(e.d.CodeLocation), hook(waveHookInputs)), Rules: rules}
}

func (e *emitter) preflightRoleBinding() *rbacv1.RoleBinding {
	name := names.PreflightName(e.d.CodeLocation)
	return &rbacv1.RoleBinding{
		TypeMeta:   typeMeta("rbac.authorization.k8s.io/v1", "RoleBinding"),
		ObjectMeta: e.meta(name, hook(waveHookInputs)),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: e.c.Namespace}},
	}
}

// preflightInputs carries the declaration, the contract and the secret
// keys the pods read into the preflight pod.
func (e *emitter) preflightInputs() *corev1.ConfigMap {
	data := map[string]string{validate.ManifestFile: string(e.d.Raw), ContractKey: string(e.c.Raw)}
	if len(e.secretKeys) > 0 {
		// Strings only, so it cannot fail; map keys come out sorted.
		keys, _ := json.Marshal(e.secretKeys)
		data[names.SecretKeysFile] = string(keys)
	}
	return &corev1.ConfigMap{TypeMeta: typeMeta("v1", "ConfigMap"), ObjectMeta: e.meta(names.PreflightName(e.d.CodeLocation), hook(waveHookInputs)), Data: data}
}

// preflightPod is a bare Pod hook, not a Job: Argo CD reports a failed
// Pod hook with its container's termination message (the preflight's one
// line) as the hook's result, and a failed Job hook with the Job's
// condition only ("Job has reached the specified backoff limit"). Retries
// come from the Application's sync retry, which runs the whole PreSync
// phase again.
func (e *emitter) preflightPod() *corev1.Pod {
	name := names.PreflightName(e.d.CodeLocation)
	args := []string{"preflight", "--dir", DeclarationMount, "--contract", DeclarationMount + "/" + ContractKey}
	c := e.container("preflight", args, "declaration", DeclarationMount)
	spec := e.podSpec(c, "declaration", name)
	spec.ServiceAccountName = name
	spec.ActiveDeadlineSeconds = ptr.To(int64(e.c.Jobs.ActiveDeadlineSeconds))
	md := e.meta(name, hook(waveHookPreflight))
	md.Labels[names.LabelJob] = "preflight"
	return &corev1.Pod{TypeMeta: typeMeta("v1", "Pod"), ObjectMeta: md, Spec: spec}
}

// migrationsConfigMap carries the declared SQL files, named by a hash of
// their names and contents.
func (e *emitter) migrationsConfigMap() *corev1.ConfigMap {
	h := sha256.New()
	data := map[string]string{}
	for _, mg := range e.d.Migrations {
		fmt.Fprintf(h, "%s\x00%d\x00", mg.Name, len(mg.SQL))
		h.Write(mg.SQL)
		data[mg.Name] = string(mg.SQL)
	}
	name := names.MigrationsName(e.d.CodeLocation, hex.EncodeToString(h.Sum(nil))[:names.MigrationsHashLen])
	return &corev1.ConfigMap{TypeMeta: typeMeta("v1", "ConfigMap"), ObjectMeta: e.meta(name, hook(waveHookSQL)), Data: data, Immutable: ptr.To(true)}
}

func (e *emitter) migrateJob(configMap string) *batchv1.Job {
	args := []string{"migrate", "--dir", MigrationsMount, "--code-location", e.d.CodeLocation, "--revision", e.d.Revision,
		"--lock-timeout", pgtimeout.Format(e.c.DB.Migrations.LockTimeout), "--statement-timeout", pgtimeout.Format(e.c.DB.Migrations.StatementTimeout)}
	for _, mg := range e.d.Migrations {
		args = append(args, mg.Name)
	}
	spec := e.podSpec(e.container("migrate", args, "migrations", MigrationsMount), "migrations", configMap)
	spec.AutomountServiceAccountToken = ptr.To(false)
	return &batchv1.Job{
		TypeMeta:   typeMeta("batch/v1", "Job"),
		ObjectMeta: e.meta(names.MigrateName(e.d.CodeLocation), hook(waveHookMigrate)),
		Spec: batchv1.JobSpec{
			BackoffLimit:          ptr.To(int32(e.c.Jobs.BackoffLimit)),
			ActiveDeadlineSeconds: ptr.To(int64(e.c.Jobs.ActiveDeadlineSeconds)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{names.LabelCodeLocation: e.d.CodeLocation, names.LabelJob: "migrate"}},
				Spec:       spec,
			},
		},
	}
}

// podSpec is a hardened single-container pod with one ConfigMap volume.
func (e *emitter) podSpec(c corev1.Container, volume, configMap string) corev1.PodSpec {
	return corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(999)), RunAsGroup: ptr.To(int64(999)),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Containers: []corev1.Container{c},
		Volumes: []corev1.Volume{
			{Name: volume, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: configMap}}}},
			{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("16Mi"))}}},
		},
	}
}

func (e *emitter) container(name string, args []string, volume, mount string) corev1.Container {
	return corev1.Container{
		Name: name, Image: e.c.Jobs.Image, Command: []string{names.BinaryJobs}, Args: args,
		Env:       e.databaseEnv(),
		Resources: e.jobResources(),
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true), RunAsNonRoot: ptr.To(true),
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
		VolumeMounts: []corev1.VolumeMount{
			{Name: volume, MountPath: mount, ReadOnly: true},
			{Name: "tmp", MountPath: "/tmp"},
		},
	}
}

func (e *emitter) jobResources() corev1.ResourceRequirements {
	var r corev1.ResourceRequirements
	if q := e.c.Jobs.CPU; q.Set {
		r.Requests = corev1.ResourceList{corev1.ResourceCPU: q.Quantity}
	}
	if q := e.c.Jobs.Memory; q.Set {
		if r.Requests == nil {
			r.Requests = corev1.ResourceList{}
		}
		r.Requests[corev1.ResourceMemory] = q.Quantity
		r.Limits = corev1.ResourceList{corev1.ResourceMemory: q.Quantity}
	}
	return r
}

// databaseEnv gives libpq variables for the first declared database; the
// credentials come from its secret by reference only.
func (e *emitter) databaseEnv() []corev1.EnvVar {
	if len(e.d.DependsOn.Database) == 0 {
		return nil
	}
	db, _ := e.c.Database(e.d.DependsOn.Database[0])
	secretKey := func(key string) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: db.CredentialsSecret}, Key: key}}
	}
	return []corev1.EnvVar{
		{Name: "PGHOST", Value: db.Host},
		{Name: "PGPORT", Value: strconv.Itoa(db.Port)},
		{Name: "PGDATABASE", Value: db.DBName},
		{Name: "PGSSLMODE", Value: db.SSLMode},
		{Name: "PGUSER", ValueFrom: secretKey("username")},
		{Name: "PGPASSWORD", ValueFrom: secretKey("password")},
	}
}

// dataClaim is the block PVC; Argo CD never prunes or deletes it.
func (e *emitter) dataClaim() *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		TypeMeta:   typeMeta("v1", "PersistentVolumeClaim"),
		ObjectMeta: e.meta(names.DataClaimName(e.d.CodeLocation), map[string]string{names.AnnoSyncOptions: "Prune=false,Delete=false"}),
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: ptr.To(e.c.BlockStorage.StorageClass),
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: e.d.Resources.Disk.Quantity}},
		},
	}
}

// record publishes the code-location's state for dependents' preflights.
func (e *emitter) record() *corev1.ConfigMap {
	cm := &corev1.ConfigMap{
		TypeMeta:   typeMeta("v1", "ConfigMap"),
		ObjectMeta: e.meta(names.RecordName(e.d.CodeLocation), nil),
		Data: map[string]string{
			names.RecordKeyCodeLocation:    e.d.CodeLocation,
			names.RecordKeyRevision:        e.d.Revision,
			names.RecordKeyContractVersion: strconv.Itoa(e.d.ContractVersion),
			names.RecordKeyReady:           strconv.FormatBool(e.d.Ready),
			names.RecordKeyDependsOn:       strings.Join(e.d.DependsOn.CodeLocations, ","),
		},
	}
	if g := e.grpc; g != nil {
		cm.Data[names.RecordKeyGRPCHost] = g.Host
		cm.Data[names.RecordKeyGRPCPort] = strconv.Itoa(g.Port)
		cm.Data[names.RecordKeyLocationName] = g.Name
	}
	return cm
}

// Write writes objects as one YAML stream.
func Write(objs []*yaml.RNode) ([]byte, error) {
	var buf []byte
	for i, o := range objs {
		if i > 0 {
			buf = append(buf, "---\n"...)
		}
		if out, ok := node.AppendYAML(buf, o.YNode()); ok {
			buf = out
			continue
		}
		s, err := o.String()
		if err != nil {
			return nil, fmt.Errorf("encode %s/%s: %w", o.GetKind(), o.GetName(), err)
		}
		buf = append(buf, s...)
	}
	return buf, nil
}
