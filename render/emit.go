package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/validate"
)

type m = map[string]any

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

// emit builds the objects the cluster adds to the code-location's own.
func (in *instance) emit() ([]*yaml.RNode, error) {
	objs := []m{
		in.preflightServiceAccount(),
		in.preflightRole(),
		in.preflightRoleBinding(),
		in.preflightInputs(),
		in.preflightPod(),
	}
	if len(in.d.Migrations) > 0 {
		cm, name := in.migrationsConfigMap()
		objs = append(objs, cm, in.migrateJob(name))
	}
	if in.d.Resources.Disk.Set {
		objs = append(objs, in.dataClaim())
	}
	objs = append(objs, in.record())
	out := make([]*yaml.RNode, len(objs))
	for i, o := range objs {
		n, err := fromMap(o)
		if err != nil {
			return nil, fmt.Errorf("emit %v: %w", o["kind"], err)
		}
		headFirst(n)
		out[i] = n
	}
	return out, nil
}

func (in *instance) labels() m {
	return m{names.LabelCodeLocation: in.d.CodeLocation, names.LabelRevision: in.d.Revision, names.LabelManagedBy: names.ManagedByValue}
}

func (in *instance) meta(name string, annotations m) m {
	md := m{"name": name, "namespace": in.c.Namespace, "labels": in.labels()}
	if len(annotations) > 0 {
		md["annotations"] = annotations
	}
	return md
}

func hook(wave int) m {
	return m{AnnoHook: "PreSync", AnnoHookDelete: "BeforeHookCreation", AnnoSyncWave: strconv.Itoa(wave)}
}

func (in *instance) preflightServiceAccount() m {
	return m{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": in.meta(names.PreflightName(in.d.CodeLocation), hook(waveHookInputs))}
}

// preflightRole grants exactly what preflight reads in the namespace: the
// declared secrets (their metadata, or their key names when the pods read
// keys of them: RBAC cannot tell either from the whole object), the
// dependencies' records, the declared OBCs, quotas and pods.
func (in *instance) preflightRole() m {
	var rules []any
	named := func(group, resource string, names []string) {
		if len(names) == 0 {
			return // an empty resourceNames would grant every object
		}
		rules = append(rules, m{"apiGroups": []any{group}, "resources": []any{resource}, "verbs": []any{"get"}, "resourceNames": toAny(names)})
	}
	named("", "secrets", in.d.DependsOn.Secrets)
	records := make([]string, len(in.d.DependsOn.CodeLocations))
	for i, dep := range in.d.DependsOn.CodeLocations {
		records[i] = names.RecordName(dep)
	}
	named("", "configmaps", records)
	buckets := make([]string, len(in.d.DependsOn.Buckets))
	for i, b := range in.d.DependsOn.Buckets {
		buckets[i] = b.Name
	}
	named("objectbucket.io", "objectbucketclaims", buckets)
	rules = append(rules, m{"apiGroups": []any{""}, "resources": []any{"pods", "resourcequotas"}, "verbs": []any{"list"}})
	return m{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": in.meta(names.PreflightName(in.d.CodeLocation), hook(waveHookInputs)), "rules": rules}
}

func (in *instance) preflightRoleBinding() m {
	name := names.PreflightName(in.d.CodeLocation)
	return m{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
		"metadata": in.meta(name, hook(waveHookInputs)),
		"roleRef":  m{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
		"subjects": []any{m{"kind": "ServiceAccount", "name": name, "namespace": in.c.Namespace}},
	}
}

// preflightInputs carries the declaration, the contract and the secret
// keys the pods read into the Job.
func (in *instance) preflightInputs() m {
	data := m{validate.ManifestFile: string(in.d.Raw), ContractKey: string(in.c.Raw)}
	if len(in.secretKeys) > 0 {
		// Strings only, so it cannot fail; map keys come out sorted.
		keys, _ := json.Marshal(in.secretKeys)
		data[names.SecretKeysFile] = string(keys)
	}
	return m{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": in.meta(names.PreflightName(in.d.CodeLocation), hook(waveHookInputs)),
		"data":     data,
	}
}

// preflightPod is a bare Pod hook, not a Job: Argo CD reports a failed
// Pod hook with its container's termination message (the preflight's one
// line) as the hook's result, and a failed Job hook with the Job's
// condition only ("Job has reached the specified backoff limit"). Retries
// come from the Application's sync retry, which runs the whole PreSync
// phase again.
func (in *instance) preflightPod() m {
	name := names.PreflightName(in.d.CodeLocation)
	args := []any{"preflight", "--dir", DeclarationMount, "--contract", DeclarationMount + "/" + ContractKey}
	c := in.container("preflight", args, in.databaseEnv(), "declaration", DeclarationMount)
	pod := in.podSpec(c, "declaration", m{"configMap": m{"name": name}})
	pod["serviceAccountName"] = name
	pod["activeDeadlineSeconds"] = in.c.Jobs.ActiveDeadlineSeconds
	md := in.meta(name, hook(waveHookPreflight))
	md["labels"].(m)[names.LabelJob] = "preflight"
	return m{"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": pod}
}

func (in *instance) migrationsConfigMap() (m, string) {
	h := sha256.New()
	data := m{}
	for _, mg := range in.d.Migrations {
		fmt.Fprintf(h, "%s\x00%d\x00", mg.Name, len(mg.SQL))
		h.Write(mg.SQL)
		data[mg.Name] = string(mg.SQL)
	}
	name := fmt.Sprintf("%s-migrations-%s", in.d.CodeLocation, hex.EncodeToString(h.Sum(nil))[:10])
	return m{"apiVersion": "v1", "kind": "ConfigMap", "metadata": in.meta(name, hook(waveHookSQL)), "data": data, "immutable": true}, name
}

func (in *instance) migrateJob(configMap string) m {
	args := []any{"migrate", "--dir", MigrationsMount, "--code-location", in.d.CodeLocation, "--revision", in.d.Revision}
	for _, mg := range in.d.Migrations {
		args = append(args, mg.Name)
	}
	c := in.container("migrate", args, in.databaseEnv(), "migrations", MigrationsMount)
	pod := in.podSpec(c, "migrations", m{"configMap": m{"name": configMap}})
	pod["automountServiceAccountToken"] = false
	return in.job(names.MigrateName(in.d.CodeLocation), waveHookMigrate, "migrate", pod)
}

func (in *instance) job(name string, wave int, role string, pod m) m {
	return m{
		"apiVersion": "batch/v1", "kind": "Job",
		"metadata": in.meta(name, hook(wave)),
		"spec": m{
			"backoffLimit":          in.c.Jobs.BackoffLimit,
			"activeDeadlineSeconds": in.c.Jobs.ActiveDeadlineSeconds,
			"template": m{
				"metadata": m{"labels": m{names.LabelCodeLocation: in.d.CodeLocation, names.LabelJob: role}},
				"spec":     pod,
			},
		},
	}
}

// podSpec is a hardened single-container pod with one ConfigMap volume.
func (in *instance) podSpec(container m, volume string, source m) m {
	vol := m{"name": volume}
	for k, v := range source {
		vol[k] = v
	}
	return m{
		"restartPolicy": "Never",
		"securityContext": m{
			"runAsNonRoot": true, "runAsUser": 999, "runAsGroup": 999,
			"seccompProfile": m{"type": "RuntimeDefault"},
		},
		"containers": []any{container},
		"volumes":    []any{vol, m{"name": "tmp", "emptyDir": m{"sizeLimit": "16Mi"}}},
	}
}

func (in *instance) container(name string, args []any, env []any, volume, mount string) m {
	c := m{
		"name": name, "image": in.c.Jobs.Image, "command": []any{names.BinaryJobs}, "args": args,
		"securityContext": m{
			"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true, "runAsNonRoot": true,
			"capabilities": m{"drop": []any{"ALL"}},
		},
		"terminationMessagePolicy": "FallbackToLogsOnError",
		"volumeMounts": []any{
			m{"name": volume, "mountPath": mount, "readOnly": true},
			m{"name": "tmp", "mountPath": "/tmp"},
		},
	}
	if len(env) > 0 {
		c["env"] = env
	}
	if r := in.jobResources(); len(r) > 0 {
		c["resources"] = r
	}
	return c
}

func (in *instance) jobResources() m {
	req, lim := m{}, m{}
	if q := in.c.Jobs.CPU; q.Set {
		req["cpu"] = q.String()
	}
	if q := in.c.Jobs.Memory; q.Set {
		req["memory"] = q.String()
		lim["memory"] = q.String()
	}
	r := m{}
	if len(req) > 0 {
		r["requests"] = req
	}
	if len(lim) > 0 {
		r["limits"] = lim
	}
	return r
}

// databaseEnv gives libpq variables for the first declared database; the
// credentials come from its secret by reference only.
func (in *instance) databaseEnv() []any {
	if len(in.d.DependsOn.Database) == 0 {
		return nil
	}
	db, _ := in.c.Database(in.d.DependsOn.Database[0])
	secretKey := func(key string) m {
		return m{"secretKeyRef": m{"name": db.CredentialsSecret, "key": key}}
	}
	return []any{
		m{"name": "PGHOST", "value": db.Host},
		m{"name": "PGPORT", "value": strconv.Itoa(db.Port)},
		m{"name": "PGDATABASE", "value": db.DBName},
		m{"name": "PGSSLMODE", "value": db.SSLMode},
		m{"name": "PGUSER", "valueFrom": secretKey("username")},
		m{"name": "PGPASSWORD", "valueFrom": secretKey("password")},
	}
}

// dataClaim is the block PVC; Argo CD never prunes or deletes it.
func (in *instance) dataClaim() m {
	return m{
		"apiVersion": "v1", "kind": "PersistentVolumeClaim",
		"metadata": in.meta(names.DataClaimName(in.d.CodeLocation), m{AnnoSyncOptions: "Prune=false,Delete=false"}),
		"spec": m{
			"accessModes":      []any{"ReadWriteOnce"},
			"storageClassName": in.c.BlockStorage.StorageClass,
			"resources":        m{"requests": m{"storage": in.d.Resources.Disk.String()}},
		},
	}
}

// record publishes the code-location's state for dependents' preflights.
func (in *instance) record() m {
	return m{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": in.meta(names.RecordName(in.d.CodeLocation), nil),
		"data": m{
			names.RecordKeyCodeLocation:    in.d.CodeLocation,
			names.RecordKeyRevision:        in.d.Revision,
			names.RecordKeyContractVersion: strconv.Itoa(in.d.ContractVersion),
			names.RecordKeyReady:           strconv.FormatBool(in.d.Ready),
			names.RecordKeyDependsOn:       strings.Join(in.d.DependsOn.CodeLocations, ","),
		},
	}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// headFirst puts apiVersion, kind and metadata before the other fields, as
// people write manifests (FromMap sorts keys).
func headFirst(n *yaml.RNode) {
	content := n.YNode().Content
	var head, rest []*yaml.Node
	for _, key := range []string{"apiVersion", "kind", "metadata"} {
		for i := 0; i+1 < len(content); i += 2 {
			if content[i].Value == key {
				head = append(head, content[i], content[i+1])
			}
		}
	}
	for i := 0; i+1 < len(content); i += 2 {
		switch content[i].Value {
		case "apiVersion", "kind", "metadata":
		default:
			rest = append(rest, content[i], content[i+1])
		}
	}
	n.YNode().Content = append(head, rest...)
}
