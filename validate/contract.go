package validate

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/kyaml/yaml"
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
	APIVersion       string         `json:"apiVersion"`
	Kind             string         `json:"kind"`
	ContractVersions []int          `json:"contractVersions"`
	Namespace        string         `json:"namespace"`
	ArgoCDNamespace  string         `json:"argocdNamespace,omitempty"`
	Registry         string         `json:"registry"`
	Databases        []Database     `json:"databases,omitempty"`
	Secrets          []Secret       `json:"secrets,omitempty"`
	ObjectStorage    ObjectStorage  `json:"objectStorage"`
	BlockStorage     BlockStorage   `json:"blockStorage"`
	Budgets          Budgets        `json:"budgets"`
	Ceph             Ceph           `json:"ceph"`
	Jobs             Jobs           `json:"jobs"`
	File             string         `json:"-"`
	Raw              []byte         `json:"-"`
	Pos              map[string]Pos `json:"-"`
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

// Ceph locates the CephCluster whose capacity preflight reads.
type Ceph struct {
	Namespace   string `json:"namespace,omitempty"`
	ReplicaSize int    `json:"replicaSize,omitempty"`
}

// Jobs configures the PreSync preflight and migration Jobs.
type Jobs struct {
	Image                 string   `json:"image"`
	BackoffLimit          int      `json:"backoffLimit"`
	ActiveDeadlineSeconds int      `json:"activeDeadlineSeconds"`
	CPU                   Quantity `json:"cpu"`
	Memory                Quantity `json:"memory"`
}

// ContractAPIVersion and ContractKind identify a contract document.
const (
	ContractAPIVersion = "codeloc.dev/v1"
	ContractKind       = "ClusterContract"
)

// LoadContract reads the contract at path, or the embedded example when path
// is empty.
func LoadContract(path string) (*Contract, Problems) {
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
		return nil, Problems{{Code: CodeContractUnreadable, File: path, Message: msg, Hint: "mount the cluster contract and point --contract (or CODELOC_CONTRACT) at it; `codeloc contract` prints an example"}}
	}
	return ParseContract(path, data)
}

// ParseContract decodes and checks a contract document.
func ParseContract(file string, data []byte) (*Contract, Problems) {
	w := newWalker(file)
	root := w.parseRoot(data)
	if root == nil {
		return nil, w.problems
	}
	c := &Contract{File: file, Raw: data, Pos: w.pos}
	w.mapping(root, "", []field{
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
		{"budgets", true, func(n *yaml.Node, path string) {
			w.mapping(n, path, []field{
				{"cpu", true, w.quantity(&c.Budgets.CPU)},
				{"memory", true, w.quantity(&c.Budgets.Memory)},
				{"disk", false, w.quantity(&c.Budgets.Disk)},
				{"buckets", false, w.quantity(&c.Budgets.Buckets)},
				{"headroomPercent", false, w.int(&c.Budgets.HeadroomPercent)},
			})
		}},
		{"ceph", false, func(n *yaml.Node, path string) {
			w.mapping(n, path, []field{
				{"namespace", false, w.str(&c.Ceph.Namespace)},
				{"replicaSize", false, w.int(&c.Ceph.ReplicaSize)},
			})
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
	})
	c.applyDefaults()
	w.problems = append(w.problems, c.check()...)
	return c, w.problems
}

// Job defaults when the contract leaves them out.
const (
	DefaultBackoffLimit          = 1
	DefaultActiveDeadlineSeconds = 600
	DefaultReplicaSize           = 3
)

func (c *Contract) applyDefaults() {
	if _, ok := c.Pos["jobs.backoffLimit"]; !ok {
		c.Jobs.BackoffLimit = DefaultBackoffLimit
	}
	if c.Jobs.ActiveDeadlineSeconds == 0 {
		c.Jobs.ActiveDeadlineSeconds = DefaultActiveDeadlineSeconds
	}
	if c.Ceph.ReplicaSize == 0 {
		c.Ceph.ReplicaSize = DefaultReplicaSize
	}
	for i := range c.Databases {
		if c.Databases[i].SSLMode == "" {
			c.Databases[i].SSLMode = "prefer"
		}
	}
}

// PosOf returns the position of a contract field path.
func (c *Contract) PosOf(path string) Pos {
	for p := path; p != ""; p = parentPath(p) {
		if pos, ok := c.Pos[p]; ok {
			return pos
		}
	}
	return Pos{File: c.File, Line: 1, Column: 1}
}

var sslModes = []string{"disable", "allow", "prefer", "require", "verify-ca", "verify-full"}

// check validates the contract's own consistency.
func (c *Contract) check() Problems {
	var ps Problems
	add := func(code, path, msg, hint string) { ps = append(ps, c.PosOf(path).At(code, path, msg, hint)) }
	if c.APIVersion != "" && c.APIVersion != ContractAPIVersion {
		add(CodeContractInvalid, "apiVersion", fmt.Sprintf("%q is not %s", c.APIVersion, ContractAPIVersion), "set apiVersion: "+ContractAPIVersion)
	}
	if c.Kind != "" && c.Kind != ContractKind {
		add(CodeContractInvalid, "kind", fmt.Sprintf("%q is not %s", c.Kind, ContractKind), "set kind: "+ContractKind)
	}
	if _, ok := c.Pos["contractVersions"]; ok && len(c.ContractVersions) == 0 {
		add(CodeContractInvalid, "contractVersions", "no contract version is accepted", "list at least one version")
	}
	for i, v := range c.ContractVersions {
		if v < 1 {
			add(CodeContractInvalid, index("contractVersions", i), fmt.Sprintf("%d is not a contract version", v), "versions start at 1")
		}
	}
	dnsLabel := func(path, v string) {
		if v != "" && len(validation.IsDNS1123Label(v)) > 0 {
			add(CodeContractInvalid, path, fmt.Sprintf("%q is not a DNS-1123 label", v), "use lowercase letters, digits and '-'")
		}
	}
	dnsLabel("namespace", c.Namespace)
	dnsLabel("argocdNamespace", c.ArgoCDNamespace)
	dnsLabel("ceph.namespace", c.Ceph.Namespace)
	if strings.Contains(c.Registry, "://") || strings.HasSuffix(c.Registry, "/") {
		add(CodeContractInvalid, "registry", fmt.Sprintf("%q is not a registry host[/path]", c.Registry), "write it as it prefixes image names, e.g. registry:80")
	}
	unique := func(list string, n int, name func(int) string) {
		seen := map[string]bool{}
		for i := 0; i < n; i++ {
			v := name(i)
			p := index(list, i) + ".name"
			dnsLabel(p, v)
			if seen[v] {
				add(CodeContractInvalid, p, fmt.Sprintf("%q is listed twice", v), "list it once")
			}
			seen[v] = true
		}
	}
	unique("databases", len(c.Databases), func(i int) string { return c.Databases[i].Name })
	unique("objectStorage.buckets", len(c.ObjectStorage.Buckets), func(i int) string { return c.ObjectStorage.Buckets[i].Name })
	secretNames := map[string]bool{}
	for i, s := range c.Secrets {
		p := index("secrets", i) + ".name"
		if s.Name != "" && len(validation.IsDNS1123Subdomain(s.Name)) > 0 {
			add(CodeContractInvalid, p, fmt.Sprintf("%q is not a valid Secret name", s.Name), "use a DNS-1123 subdomain")
		}
		if secretNames[s.Name] {
			add(CodeContractInvalid, p, fmt.Sprintf("%q is listed twice", s.Name), "list it once")
		}
		secretNames[s.Name] = true
	}
	for i, db := range c.Databases {
		p := index("databases", i)
		if _, ok := c.Pos[p+".port"]; ok && (db.Port < 1 || db.Port > 65535) {
			add(CodeContractInvalid, p+".port", fmt.Sprintf("%d is not a TCP port", db.Port), "use 1-65535")
		}
		if !slices.Contains(sslModes, db.SSLMode) {
			add(CodeContractInvalid, p+".sslMode", fmt.Sprintf("%q is not a libpq sslmode", db.SSLMode), "use one of "+strings.Join(sslModes, ", "))
		}
		if db.CredentialsSecret != "" && !secretNames[db.CredentialsSecret] {
			add(CodeContractInvalid, p+".credentialsSecret", fmt.Sprintf("secret %q is not listed in secrets", db.CredentialsSecret), "add it to secrets so code-locations can declare it")
		}
	}
	for i, b := range c.ObjectStorage.Buckets {
		if b.StorageClass != "" && !slices.Contains(c.ObjectStorage.StorageClasses, b.StorageClass) {
			add(CodeContractInvalid, index("objectStorage.buckets", i)+".storageClass", fmt.Sprintf("%q is not in objectStorage.storageClasses", b.StorageClass), "list the class in objectStorage.storageClasses")
		}
	}
	if hp := c.Budgets.HeadroomPercent; hp < 0 || hp >= 100 {
		add(CodeContractInvalid, "budgets.headroomPercent", fmt.Sprintf("%d is not a percentage below 100", hp), "use 0-99")
	}
	if c.Ceph.ReplicaSize < 1 {
		add(CodeContractInvalid, "ceph.replicaSize", fmt.Sprintf("%d is not a replica count", c.Ceph.ReplicaSize), "use the pool's replicated.size, e.g. 3")
	}
	if c.Jobs.BackoffLimit < 0 || c.Jobs.BackoffLimit > 10 {
		add(CodeContractInvalid, "jobs.backoffLimit", fmt.Sprintf("%d is outside 0-10", c.Jobs.BackoffLimit), "keep retries bounded: Argo CD's sync retry handles the rest")
	}
	if d := c.Jobs.ActiveDeadlineSeconds; d < 10 || d > 86400 {
		add(CodeContractInvalid, "jobs.activeDeadlineSeconds", fmt.Sprintf("%d is outside 10-86400", d), "bound the Job's run time")
	}
	return ps
}

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

// DeclarationSchema is the JSON Schema of code-location.manifest.yaml, for
// editors; the Go checks remain the authority.
//
//go:embed schema.json
var DeclarationSchema []byte
