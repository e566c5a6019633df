package validate

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/codeloc/codeloc/internal/problem"
)

// ExampleContract is the embedded generic contract: the default of `render`
// and `validate`, and what `codeloc contract` prints.
//
//go:embed contract.example.yaml
var ExampleContract []byte

// ExampleContractFile names the embedded contract in messages.
const ExampleContractFile = "<embedded>/contract.example.yaml"

// Contract is the versioned cluster contract owned by the platform.
type Contract struct {
	APIVersion       string                 `json:"apiVersion"`
	Kind             string                 `json:"kind"`
	ContractVersions []int                  `json:"contractVersions"`
	Namespace        string                 `json:"namespace"`
	ArgoCDNamespace  string                 `json:"argocdNamespace,omitempty"`
	Registry         string                 `json:"registry"`
	Databases        []Database             `json:"databases,omitempty"`
	Secrets          []Secret               `json:"secrets,omitempty"`
	ConfigMaps       []Provided             `json:"configMaps,omitempty"`
	ServiceAccounts  []Provided             `json:"serviceAccounts,omitempty"`
	ObjectStorage    ObjectStorage          `json:"objectStorage"`
	BlockStorage     BlockStorage           `json:"blockStorage"`
	Budgets          Budgets                `json:"budgets"`
	Limits           Limits                 `json:"limits"`
	Ceph             Ceph                   `json:"ceph"`
	Jobs             Jobs                   `json:"jobs"`
	DB               DatabaseConfig         `json:"database"`
	Policy           Policy                 `json:"policy"`
	Dagster          Dagster                `json:"dagster"`
	File             string                 `json:"-"`
	Raw              []byte                 `json:"-"`
	Pos              map[string]problem.Pos `json:"-"`
}

// Database is a logical database the platform provides.
type Database struct {
	Name              string `json:"name"`
	Host              string `json:"host"`
	Port              int    `json:"port"`
	DBName            string `json:"dbname"`
	SSLMode           string `json:"sslMode,omitempty"`
	CredentialsSecret string `json:"credentialsSecret"`
}

// Secret is a secret a code-location may declare.
type Secret struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Provided is a platform object (ConfigMap, ServiceAccount) a
// code-location may declare and then read or run as.
type Provided struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Dagster is where the platform's Dagster runs: codeloc generates its
// workspace and reloads a code-location after each sync.
type Dagster struct {
	// WebserverURL, when set, is the URL of the Dagster webserver inside
	// the cluster (http://dagster-dagster-webserver.dagster.svc:80): each
	// sync ends with a PostSync hook reloading the code-location there.
	WebserverURL string `json:"webserverURL,omitempty"`
	// WorkspaceConfigMap names the ConfigMap holding workspace.yaml that
	// `codeloc application` generates (the chart's
	// dagsterWebserver.workspace.externalConfigmap).
	WorkspaceConfigMap string `json:"workspaceConfigMap,omitempty"`
	// RunLauncher is what the platform's K8sRunLauncher adds to every run
	// pod it creates, whatever the code-location: the admission of run
	// pods allows it beside what the code-location declares.
	RunLauncher RunLauncher `json:"runLauncher"`
}

// RunLauncher is what the platform's Dagster run launcher
// (dagster_k8s.K8sRunLauncher, the run_launcher of dagster.yaml) adds to
// every run pod: the same values as its config, in the contract's
// spelling. Every object it names is one of the contract's
// serviceAccounts, configMaps or secrets.
type RunLauncher struct {
	ServiceAccountName     string               `json:"serviceAccountName,omitempty"`
	InstanceConfigMap      string               `json:"instanceConfigMap,omitempty"`
	PostgresPasswordSecret string               `json:"postgresPasswordSecret,omitempty"`
	EnvConfigMaps          []string             `json:"envConfigMaps,omitempty"`
	EnvSecrets             []string             `json:"envSecrets,omitempty"`
	ImagePullSecrets       []string             `json:"imagePullSecrets,omitempty"`
	Volumes                []corev1.Volume      `json:"volumes,omitempty"`
	VolumeMounts           []corev1.VolumeMount `json:"volumeMounts,omitempty"`
	Labels                 map[string]string    `json:"labels,omitempty"`
	// PassEnv are the names of the launching process's environment (the
	// daemon's, the webserver's) a container context may copy into its run
	// pods with a bare env_vars entry: values codeloc cannot see, so the
	// platform says which of its variables a code-location may have.
	PassEnv []string `json:"passEnv,omitempty"`
}

// Secrets are the Secrets the run launcher's additions name: the
// PostgreSQL password, env and pull secrets, and its volumes'.
func (r RunLauncher) Secrets() []string {
	out := []string{r.PostgresPasswordSecret}
	out = append(out, r.EnvSecrets...)
	out = append(out, r.ImagePullSecrets...)
	for _, v := range r.Volumes {
		out = append(out, volumeRefs(v.VolumeSource).secrets...)
	}
	return nonEmpty(out)
}

// ConfigMaps are the ConfigMaps the run launcher's additions name.
func (r RunLauncher) ConfigMaps() []string {
	out := append([]string{r.InstanceConfigMap}, r.EnvConfigMaps...)
	for _, v := range r.Volumes {
		out = append(out, volumeRefs(v.VolumeSource).configMaps...)
	}
	return nonEmpty(out)
}

// HasVolume reports whether the run launcher adds a volume of that name
// to every run pod.
func (r RunLauncher) HasVolume(name string) bool {
	return slices.ContainsFunc(r.Volumes, func(v corev1.Volume) bool { return v.Name == name })
}

func nonEmpty(names []string) []string {
	return slices.DeleteFunc(names, func(s string) bool { return s == "" })
}

// launcherRefs are the objects a run launcher's volume names.
type launcherRefs struct{ secrets, configMaps []string }

// volumeRefs are the Secrets and ConfigMaps a volume source names (the
// volume types a run launcher's volume may be: launcherVolumeTypes).
func volumeRefs(v corev1.VolumeSource) launcherRefs {
	var r launcherRefs
	if v.Secret != nil {
		r.secrets = append(r.secrets, v.Secret.SecretName)
	}
	if v.ConfigMap != nil {
		r.configMaps = append(r.configMaps, v.ConfigMap.Name)
	}
	if v.Projected != nil {
		for _, s := range v.Projected.Sources {
			if s.Secret != nil {
				r.secrets = append(r.secrets, s.Secret.Name)
			}
			if s.ConfigMap != nil {
				r.configMaps = append(r.configMaps, s.ConfigMap.Name)
			}
		}
	}
	return r
}

// DefaultWorkspaceConfigMap is dagster.workspaceConfigMap when left out.
const DefaultWorkspaceConfigMap = "dagster-workspace"

// ObjectStorage lists object-storage classes and provided buckets.
type ObjectStorage struct {
	StorageClasses []string         `json:"storageClasses,omitempty"`
	Buckets        []ProvidedBucket `json:"buckets,omitempty"`
}

// ProvidedBucket is an ObjectBucketClaim the platform provisions.
type ProvidedBucket struct {
	Name         string   `json:"name"`
	StorageClass string   `json:"storageClass"`
	Size         Quantity `json:"size"`
}

// BlockStorage names the class of the code-location's block PVC.
type BlockStorage struct {
	StorageClass string `json:"storageClass,omitempty"`
}

// Budgets bound what one code-location may declare.
type Budgets struct {
	CPU             Quantity `json:"cpu"`
	Memory          Quantity `json:"memory"`
	Disk            Quantity `json:"disk"`
	Buckets         Quantity `json:"buckets"`
	HeadroomPercent int      `json:"headroomPercent"`
}

// Limits bound what one code-location may render.
type Limits struct {
	// Objects bounds the objects a code-location's kustomize root yields
	// (before codeloc adds its own): a code-location is not a monorepo,
	// and kustomize's cost grows faster than the objects.
	Objects int `json:"objects"`
}

// DefaultObjectLimit is limits.objects when the contract leaves it out.
const DefaultObjectLimit = 1000

// Ceph locates the CephCluster whose capacity preflight reads.
type Ceph struct {
	Namespace   string `json:"namespace,omitempty"`
	ReplicaSize int    `json:"replicaSize,omitempty"`
}

// Jobs configures the PreSync preflight pod and migration Job.
type Jobs struct {
	Image                 string   `json:"image"`
	BackoffLimit          int      `json:"backoffLimit"`
	ActiveDeadlineSeconds int      `json:"activeDeadlineSeconds"`
	CPU                   Quantity `json:"cpu"`
	Memory                Quantity `json:"memory"`
}

// DatabaseConfig is how codeloc's Jobs use the contract's databases.
type DatabaseConfig struct {
	Migrations MigrationSettings `json:"migrations"`
}

// MigrationSettings bound each statement of the migration Job: it sets
// lock_timeout and statement_timeout on its session. Zero disables one.
type MigrationSettings struct {
	// LockTimeout bounds how long a statement waits for a lock: a
	// migration queued behind a long query makes every later query on the
	// table queue behind it.
	LockTimeout time.Duration `json:"lockTimeout"`
	// StatementTimeout bounds one statement's run time; it stays below
	// jobs.activeDeadlineSeconds so that the Job ends with one line rather
	// than being killed.
	StatementTimeout time.Duration `json:"statementTimeout"`
}

// Defaults of database.migrations.
const (
	DefaultLockTimeout      = 5 * time.Second
	DefaultStatementTimeout = 5 * time.Minute
)

// ContractAPIVersion and ContractKind identify a contract document.
const (
	ContractAPIVersion = "codeloc.dev/v1"
	ContractKind       = "ClusterContract"
)

// LoadContract reads the contract at path, or the embedded example when path
// is empty.
func LoadContract(path string) (*Contract, problem.Problems) {
	if path == "" {
		return ParseContract(ExampleContractFile, ExampleContract)
	}
	// A mounted ConfigMap is a symbolic link into ..data: follow it.
	data, err := readLimited(path)
	if err != nil {
		msg := err.Error()
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			msg = pe.Err.Error()
		}
		return nil, problem.Problems{{Code: CodeContractUnreadable, File: path, Message: msg, Hint: "mount the cluster contract and point --contract (or CODELOC_CONTRACT) at it; `codeloc contract` prints an example"}}
	}
	return ParseContract(path, data)
}

// Job defaults when the contract leaves them out.
const (
	DefaultBackoffLimit          = 1
	DefaultActiveDeadlineSeconds = 600
	DefaultReplicaSize           = 3
)

func (c *Contract) applyDefaults() {
	c.applyPolicyDefaults()
	if _, ok := c.Pos["jobs.backoffLimit"]; !ok {
		c.Jobs.BackoffLimit = DefaultBackoffLimit
	}
	if c.Jobs.ActiveDeadlineSeconds == 0 {
		c.Jobs.ActiveDeadlineSeconds = DefaultActiveDeadlineSeconds
	}
	if c.Dagster.WorkspaceConfigMap == "" {
		c.Dagster.WorkspaceConfigMap = DefaultWorkspaceConfigMap
	}
	if c.Ceph.ReplicaSize == 0 {
		c.Ceph.ReplicaSize = DefaultReplicaSize
	}
	if _, ok := c.Pos["database.migrations.lockTimeout"]; !ok {
		c.DB.Migrations.LockTimeout = DefaultLockTimeout
	}
	if _, ok := c.Pos["database.migrations.statementTimeout"]; !ok {
		c.DB.Migrations.StatementTimeout = DefaultStatementTimeout
	}
	if _, ok := c.Pos["limits.objects"]; !ok {
		c.Limits.Objects = DefaultObjectLimit
	}
	for i := range c.Databases {
		if c.Databases[i].SSLMode == "" {
			c.Databases[i].SSLMode = "prefer"
		}
	}
}

// PosOf returns the position of a contract field path, falling back to
// its closest recorded parent and then to the file itself.
func (c *Contract) PosOf(path string) problem.Pos { return posOf(c.Pos, c.File, path) }

// Accepts reports whether the contract accepts a declared version.
func (c *Contract) Accepts(v int) bool { return slices.Contains(c.ContractVersions, v) }

// Database returns the contract's database of that name.
func (c *Contract) Database(name string) (Database, bool) {
	i := slices.IndexFunc(c.Databases, func(d Database) bool { return d.Name == name })
	if i < 0 {
		return Database{}, false
	}
	return c.Databases[i], true
}

// Bucket returns the provided bucket of that name.
func (c *Contract) Bucket(name string) (ProvidedBucket, bool) {
	i := slices.IndexFunc(c.ObjectStorage.Buckets, func(b ProvidedBucket) bool { return b.Name == name })
	if i < 0 {
		return ProvidedBucket{}, false
	}
	return c.ObjectStorage.Buckets[i], true
}

// HasConfigMap reports whether the contract offers a platform ConfigMap.
func (c *Contract) HasConfigMap(name string) bool { return hasProvided(c.ConfigMaps, name) }

// HasServiceAccount reports whether the contract offers a platform
// ServiceAccount.
func (c *Contract) HasServiceAccount(name string) bool { return hasProvided(c.ServiceAccounts, name) }

func hasProvided(items []Provided, name string) bool {
	return slices.ContainsFunc(items, func(p Provided) bool { return p.Name == name })
}

// HasSecret reports whether the contract lets code-locations declare a secret.
func (c *Contract) HasSecret(name string) bool {
	return slices.ContainsFunc(c.Secrets, func(s Secret) bool { return s.Name == name })
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("file is more than %d bytes", MaxFileBytes)
	}
	return data, nil
}
