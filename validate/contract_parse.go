package validate

import (
	"fmt"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/problem"
)

// ParseContract decodes and checks a contract document.
func ParseContract(file string, data []byte) (*Contract, problem.Problems) {
	w := newWalker(file)
	root := w.parseRoot(data)
	if root == nil {
		return nil, w.problems
	}
	c := &Contract{File: file, Raw: data, Pos: w.pos}
	w.mapping(root, "", slices.Concat(c.identityFields(w), c.providedFields(w), c.limitFields(w), c.policyFields(w)))
	c.applyDefaults()
	w.problems = append(w.problems, c.check()...)
	return c, w.problems
}

// identityFields: what the contract is and where code-locations deploy.
func (c *Contract) identityFields(w *walker) []field {
	return []field{
		{"apiVersion", true, w.str(&c.APIVersion)},
		{"kind", true, w.str(&c.Kind)},
		{"contractVersions", true, func(n *yaml.Node, path string) {
			w.list(n, path, func(item *yaml.Node, ip string) {
				v := 0
				w.integer(&v)(item, ip)
				c.ContractVersions = append(c.ContractVersions, v)
			})
		}},
		{"namespace", true, w.str(&c.Namespace)},
		{"argocdNamespace", false, w.str(&c.ArgoCDNamespace)},
		{"registry", true, w.str(&c.Registry)},
	}
}

// providedFields: the databases, secrets and storage the platform provides.
func (c *Contract) providedFields(w *walker) []field {
	return []field{
		{"databases", false, func(n *yaml.Node, path string) {
			w.list(n, path, func(item *yaml.Node, ip string) {
				var db Database
				w.mapping(item, ip, []field{
					{"name", true, w.str(&db.Name)},
					{"host", true, w.str(&db.Host)},
					{"port", true, w.int(&db.Port)},
					{"dbname", true, w.str(&db.DBName)},
					{"sslMode", false, w.str(&db.SSLMode)},
					{"credentialsSecret", true, w.str(&db.CredentialsSecret)},
				})
				c.Databases = append(c.Databases, db)
			})
		}},
		{"secrets", false, func(n *yaml.Node, path string) {
			w.list(n, path, func(item *yaml.Node, ip string) {
				var s Secret
				w.mapping(item, ip, []field{
					{"name", true, w.str(&s.Name)},
					{"description", false, w.str(&s.Description)},
				})
				c.Secrets = append(c.Secrets, s)
			})
		}},
		{"configMaps", false, w.providedList(&c.ConfigMaps)},
		{"serviceAccounts", false, w.providedList(&c.ServiceAccounts)},
		{"objectStorage", false, func(n *yaml.Node, path string) {
			w.mapping(n, path, []field{
				{"storageClasses", false, w.strList(&c.ObjectStorage.StorageClasses)},
				{"buckets", false, func(n *yaml.Node, path string) {
					w.list(n, path, func(item *yaml.Node, ip string) {
						var b ProvidedBucket
						w.mapping(item, ip, []field{
							{"name", true, w.str(&b.Name)},
							{"storageClass", true, w.str(&b.StorageClass)},
							{"size", true, w.quantity(&b.Size)},
						})
						c.ObjectStorage.Buckets = append(c.ObjectStorage.Buckets, b)
					})
				}},
			})
		}},
		{"blockStorage", false, func(n *yaml.Node, path string) {
			w.mapping(n, path, []field{{"storageClass", false, w.str(&c.BlockStorage.StorageClass)}})
		}},
	}
}

// limitFields: budgets, capacity sources and the Jobs' settings.
func (c *Contract) limitFields(w *walker) []field {
	return []field{
		{"budgets", true, func(n *yaml.Node, path string) {
			w.mapping(n, path, []field{
				{"cpu", true, w.quantity(&c.Budgets.CPU)},
				{"memory", true, w.quantity(&c.Budgets.Memory)},
				{"disk", false, w.quantity(&c.Budgets.Disk)},
				{"buckets", false, w.quantity(&c.Budgets.Buckets)},
				{"headroomPercent", false, w.int(&c.Budgets.HeadroomPercent)},
			})
		}},
		{"limits", false, func(n *yaml.Node, path string) {
			w.mapping(n, path, []field{
				{"objects", false, w.int(&c.Limits.Objects)},
			})
		}},
		{"ceph", false, func(n *yaml.Node, path string) {
			w.mapping(n, path, []field{
				{"namespace", false, w.str(&c.Ceph.Namespace)},
				{"replicaSize", false, w.int(&c.Ceph.ReplicaSize)},
			})
		}},
		{"dagster", false, func(n *yaml.Node, path string) {
			w.mapping(n, path, []field{
				{"webserverURL", false, w.str(&c.Dagster.WebserverURL)},
				{"workspaceConfigMap", false, w.str(&c.Dagster.WorkspaceConfigMap)},
				{"runLauncher", false, c.runLauncherField(w)},
			})
		}},
		{"database", false, func(n *yaml.Node, path string) {
			w.mapping(n, path, []field{{"migrations", false, func(n *yaml.Node, path string) {
				w.mapping(n, path, []field{
					{"lockTimeout", false, w.duration(&c.DB.Migrations.LockTimeout)},
					{"statementTimeout", false, w.duration(&c.DB.Migrations.StatementTimeout)},
				})
			}}})
		}},
		{"jobs", true, func(n *yaml.Node, path string) {
			w.mapping(n, path, []field{
				{"image", true, w.str(&c.Jobs.Image)},
				{"backoffLimit", false, w.int(&c.Jobs.BackoffLimit)},
				{"activeDeadlineSeconds", false, w.int(&c.Jobs.ActiveDeadlineSeconds)},
				{"cpu", false, w.quantity(&c.Jobs.CPU)},
				{"memory", false, w.quantity(&c.Jobs.Memory)},
			})
		}},
	}
}

// providedList decodes a list of {name, description}.
func (w *walker) providedList(dst *[]Provided) func(*yaml.Node, string) {
	return func(n *yaml.Node, path string) {
		w.list(n, path, func(item *yaml.Node, ip string) {
			var p Provided
			w.mapping(item, ip, []field{
				{"name", true, w.str(&p.Name)},
				{"description", false, w.str(&p.Description)},
			})
			*dst = append(*dst, p)
		})
	}
}

// runLauncherField decodes dagster.runLauncher: what the platform's run
// launcher adds to every run pod.
func (c *Contract) runLauncherField(w *walker) func(*yaml.Node, string) {
	r := &c.Dagster.RunLauncher
	return func(n *yaml.Node, path string) {
		w.mapping(n, path, []field{
			{"serviceAccountName", false, w.str(&r.ServiceAccountName)},
			{"instanceConfigMap", false, w.str(&r.InstanceConfigMap)},
			{"postgresPasswordSecret", false, w.str(&r.PostgresPasswordSecret)},
			{"envConfigMaps", false, w.strList(&r.EnvConfigMaps)},
			{"envSecrets", false, w.strList(&r.EnvSecrets)},
			{"imagePullSecrets", false, w.strList(&r.ImagePullSecrets)},
			{"passEnv", false, w.strList(&r.PassEnv)},
			{"volumes", false, func(n *yaml.Node, path string) {
				w.list(n, path, func(item *yaml.Node, ip string) {
					var v corev1.Volume
					if w.apiObject(item, ip, &v) {
						r.Volumes = append(r.Volumes, v)
					}
				})
			}},
			{"volumeMounts", false, func(n *yaml.Node, path string) {
				w.list(n, path, func(item *yaml.Node, ip string) {
					var m corev1.VolumeMount
					if w.apiObject(item, ip, &m) {
						r.VolumeMounts = append(r.VolumeMounts, m)
					}
				})
			}},
			{"labels", false, func(n *yaml.Node, path string) {
				if !w.kind(n, path, yaml.MappingNode) {
					return
				}
				r.Labels = map[string]string{}
				for i := 0; i+1 < len(n.Content); i += 2 {
					key, val := n.Content[i], n.Content[i+1]
					var s string
					w.record(val, join(path, key.Value))
					w.str(&s)(val, join(path, key.Value))
					r.Labels[key.Value] = s
				}
			}},
		})
	}
}

// apiObject decodes a Kubernetes object written in YAML into v, an API
// type, strictly: its API field names, nothing unknown.
func (w *walker) apiObject(n *yaml.Node, path string, v any) bool {
	if !w.kind(n, path, yaml.MappingNode) {
		return false
	}
	data, err := yaml.NewRNode(n).MarshalJSON()
	if err == nil {
		var strict []error
		strict, err = sigsjson.UnmarshalStrict(data, v)
		if err == nil && len(strict) > 0 {
			err = strict[0]
		}
	}
	if err != nil {
		w.add(n, CodeContractInvalid, path, fmt.Sprintf("does not decode as a Kubernetes %s: %s", reflect.TypeOf(v).Elem().Name(), err), "write it as in a pod spec, with the API's field names")
		return false
	}
	return true
}
