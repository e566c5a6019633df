package validate

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/internal/fsys"
	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/internal/problem"
)

// ManifestFile is the name of the declaration at the root of a code-location.
const ManifestFile = "code-location.manifest.yaml"

// MigrationsDir is the folder, next to the declaration, holding the .sql files.
const MigrationsDir = "migrations"

// Declaration is code-location.manifest.yaml (ADR 0094 §3): what an atlas
// code-location brings and consumes.
type Declaration struct {
	CodeLocation    string    `json:"codeLocation"`
	Ready           bool      `json:"ready"`
	Revision        string    `json:"revision"`
	ContractVersion int       `json:"contractVersion"`
	Resources       Resources `json:"resources"`
	DependsOn       DependsOn `json:"dependsOn"`

	// File is the path the declaration was read from, as given.
	File string `json:"-"`
	// Raw is the declaration file as read.
	Raw []byte `json:"-"`
	// Migrations are the declared SQL files, read in declared order.
	Migrations []Migration `json:"-"`
	// Pos maps each field path (dependsOn.buckets[0].size) to its position.
	Pos map[string]problem.Pos `json:"-"`

	// notReady is ready: false as written; a missing or mistyped ready is a
	// form problem, not also a refusal of the revision.
	notReady bool
}

// Resources are the declared requests of the code-location.
type Resources struct {
	CPU    Quantity `json:"cpu"`
	Memory Quantity `json:"memory"`
	Disk   Quantity `json:"disk"`
}

// DependsOn lists what the code-location consumes.
type DependsOn struct {
	CodeLocations []string `json:"codeLocations,omitempty"`
	Database      []string `json:"database,omitempty"`
	Secrets       []string `json:"secrets,omitempty"`
	// ConfigMaps and ServiceAccounts are the platform's own objects the
	// code-location reads or runs as (the Dagster instance, the run env).
	ConfigMaps      []string `json:"configMaps,omitempty"`
	ServiceAccounts []string `json:"serviceAccounts,omitempty"`
	Buckets         []Bucket `json:"buckets,omitempty"`
	Migrations      []string `json:"migrations,omitempty"`
}

// Bucket is an ObjectBucketClaim the code-location needs.
type Bucket struct {
	Name         string   `json:"name"`
	Size         Quantity `json:"size"`
	StorageClass string   `json:"storageClass"`
}

// PosOf returns the position of a field path, falling back to its closest
// recorded parent and then to the file itself.
func (d *Declaration) PosOf(path string) problem.Pos { return posOf(d.Pos, d.File, path) }

// posOf looks path up in positions, then its parents; else the file's
// first line.
func posOf(positions map[string]problem.Pos, file, path string) problem.Pos {
	for p := path; p != ""; p = parentPath(p) {
		if pos, ok := positions[p]; ok {
			return pos
		}
	}
	return problem.Pos{File: file, Line: 1, Column: 1}
}

func parentPath(p string) string {
	if i := strings.LastIndexAny(p, ".["); i >= 0 {
		return p[:i]
	}
	return ""
}

// LoadDeclaration reads and checks dir/code-location.manifest.yaml on its own
// (schema, names, revision, quantities, duplicates, migration files). It
// returns the declaration, possibly partial, and every problem found.
func LoadDeclaration(dir string) (*Declaration, problem.Problems) {
	return LoadDeclarationFS(fsys.Disk(), dir)
}

// LoadDeclarationFS is LoadDeclaration on the file system fs.
func LoadDeclarationFS(fs fsys.FS, dir string) (*Declaration, problem.Problems) {
	file := filepath.Join(dir, ManifestFile)
	data, p := readRepoFile(fs, dir, ManifestFile, "write the declaration described in the README next to kustomization.yaml")
	if p != nil {
		return nil, problem.Problems{*p}
	}
	d, problems := ParseDeclaration(file, data)
	if d != nil {
		problems = append(problems, d.readMigrations(fs, dir)...)
	}
	return d, problems
}

// readRepoFile reads a regular file inside dir, refusing symlinks and
// oversized files.
func readRepoFile(fs fsys.FS, dir, name, hint string) ([]byte, *problem.Problem) {
	file := filepath.Join(dir, name)
	at := problem.Pos{File: file}
	fi, err := fs.Lstat(file)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		p := at.At(CodeFileMissing, "", "file not found", hint)
		return nil, &p
	case err != nil:
		p := at.At(CodeFileUnreadable, "", err.Error(), "check the file's permissions")
		return nil, &p
	case fi.Mode()&iofs.ModeSymlink != 0:
		p := at.At(CodeFileNotRegular, "", "is a symbolic link", "commit the file itself, not a link")
		return nil, &p
	case !fi.Mode().IsRegular():
		p := at.At(CodeFileNotRegular, "", "is not a regular file", "commit a plain file")
		return nil, &p
	case fi.Size() > MaxFileBytes:
		p := at.At(CodeFileTooLarge, "", fmt.Sprintf("file is %d bytes, more than the %d allowed", fi.Size(), MaxFileBytes), "keep the document small")
		return nil, &p
	}
	data, err := fs.ReadFile(file)
	if err != nil {
		p := at.At(CodeFileUnreadable, "", err.Error(), "check the file's permissions")
		return nil, &p
	}
	return data, nil
}

// ParseDeclaration decodes a declaration strictly and checks each field's
// form. It does not look at the repo or the contract.
func ParseDeclaration(file string, data []byte) (*Declaration, problem.Problems) {
	w := newWalker(file)
	root := w.parseRoot(data)
	if root == nil {
		return nil, w.problems
	}
	d := &Declaration{File: file, Raw: data, Pos: w.pos}
	w.mapping(root, "", []field{
		{"codeLocation", true, w.str(&d.CodeLocation)},
		{"ready", true, func(n *yaml.Node, path string) {
			w.boolean(&d.Ready)(n, path)
			d.notReady = !d.Ready && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool"
		}},
		{"revision", true, w.str(&d.Revision)},
		{"contractVersion", true, func(n *yaml.Node, path string) {
			if w.integer(&d.ContractVersion)(n, path) && d.ContractVersion < 1 {
				w.add(n, CodeBadContractVersion, path, fmt.Sprintf("%d is not a contract version", d.ContractVersion), "contract versions start at 1")
			}
		}},
		{"resources", true, func(n *yaml.Node, path string) {
			w.mapping(n, path, []field{
				{"cpu", true, w.quantity(&d.Resources.CPU)},
				{"memory", true, w.quantity(&d.Resources.Memory)},
				{"disk", false, w.quantity(&d.Resources.Disk)},
			})
		}},
		{"dependsOn", false, func(n *yaml.Node, path string) { w.dependsOn(n, path, &d.DependsOn) }},
	})
	w.problems = append(w.problems, d.checkForm()...)
	return d, w.problems
}

func (w *walker) dependsOn(n *yaml.Node, path string, dep *DependsOn) {
	w.mapping(n, path, []field{
		{"codeLocations", false, w.strList(&dep.CodeLocations)},
		{"database", false, w.strList(&dep.Database)},
		{"secrets", false, w.strList(&dep.Secrets)},
		{"configMaps", false, w.strList(&dep.ConfigMaps)},
		{"serviceAccounts", false, w.strList(&dep.ServiceAccounts)},
		{"buckets", false, func(n *yaml.Node, path string) {
			w.list(n, path, func(item *yaml.Node, ip string) {
				var b Bucket
				w.mapping(item, ip, []field{
					{"name", true, w.str(&b.Name)},
					{"size", true, w.quantity(&b.Size)},
					{"storageClass", true, w.str(&b.StorageClass)},
				})
				dep.Buckets = append(dep.Buckets, b)
			})
		}},
		{"migrations", false, w.strList(&dep.Migrations)},
	})
}

// checkForm checks names, revision, duplicates and self-dependency.
func (d *Declaration) checkForm() problem.Problems {
	var ps problem.Problems
	add := func(code, path, msg, hint string) { ps = append(ps, d.PosOf(path).At(code, path, msg, hint)) }
	label := func(path, v string) {
		if v == "" {
			return // already reported as missing or mistyped
		}
		if len(validation.IsDNS1123Label(v)) > 0 {
			add(CodeBadName, path, fmt.Sprintf("%q is not a DNS-1123 label", v), "use lowercase letters, digits and '-', at most 63, starting and ending with a letter or digit")
		}
	}
	label("codeLocation", d.CodeLocation)
	if _, ok := d.Pos["revision"]; ok && d.Revision != "" && !names.IsRevision(d.Revision) {
		add(CodeBadRevision, "revision", fmt.Sprintf("%q is not a git SHA of 7 to 40 lowercase hex digits", d.Revision), "write the commit's SHA, e.g. git rev-parse --short HEAD")
	}
	eachName := func(field string, vals []string, check func(path, v string)) {
		path := "dependsOn." + field
		seen := map[string]int{}
		for i, v := range vals {
			ip := index(path, i)
			check(ip, v)
			if j, dup := seen[v]; dup && v != "" {
				add(CodeDuplicate, ip, fmt.Sprintf("%q is already listed at %s", v, index(path, j)), "list it once")
			} else {
				seen[v] = i
			}
		}
	}
	eachName("codeLocations", d.DependsOn.CodeLocations, func(path, v string) {
		label(path, v)
		if v != "" && v == d.CodeLocation {
			add(CodeSelfDependency, path, fmt.Sprintf("%q depends on itself", v), "remove it from dependsOn.codeLocations")
		}
	})
	eachName("database", d.DependsOn.Database, label)
	eachName("secrets", d.DependsOn.Secrets, func(path, v string) {
		if v != "" && len(validation.IsDNS1123Subdomain(v)) > 0 {
			add(CodeBadName, path, fmt.Sprintf("%q is not a valid Secret name", v), "use a DNS-1123 subdomain: lowercase letters, digits, '-' and '.'")
		}
	})
	subdomain := func(kind string) func(path, v string) {
		return func(path, v string) {
			if v != "" && len(validation.IsDNS1123Subdomain(v)) > 0 {
				add(CodeBadName, path, fmt.Sprintf("%q is not a valid %s name", v, kind), "use a DNS-1123 subdomain: lowercase letters, digits, '-' and '.'")
			}
		}
	}
	eachName("configMaps", d.DependsOn.ConfigMaps, subdomain("ConfigMap"))
	eachName("serviceAccounts", d.DependsOn.ServiceAccounts, subdomain("ServiceAccount"))
	bucketNames := make([]string, len(d.DependsOn.Buckets))
	for i, b := range d.DependsOn.Buckets {
		bucketNames[i] = b.Name
		if b.StorageClass != "" && len(validation.IsDNS1123Subdomain(b.StorageClass)) > 0 {
			add(CodeBadName, index("dependsOn.buckets", i)+".storageClass", fmt.Sprintf("%q is not a valid storage class name", b.StorageClass), "use a DNS-1123 subdomain")
		}
	}
	eachName("buckets", bucketNames, func(path, v string) { label(path+".name", v) })
	eachName("migrations", d.DependsOn.Migrations, func(path, v string) {
		if v != "" && !names.IsMigrationName(v) {
			add(CodeBadMigrationName, path, fmt.Sprintf("%q is not a migration file name", v), "name it NNN-name.sql (digits, '-', lowercase name), a plain file under migrations/ with no path")
		}
	})
	return ps
}

// readMigrations reads each declared migration, a regular file directly
// under dir/migrations, into d.Migrations, and bounds their total size.
func (d *Declaration) readMigrations(fs fsys.FS, dir string) problem.Problems {
	var ps problem.Problems
	if len(d.DependsOn.Migrations) == 0 {
		return nil
	}
	if fi, err := fs.Lstat(filepath.Join(dir, MigrationsDir)); err == nil && fi.Mode()&iofs.ModeSymlink != 0 {
		return problem.Problems{d.PosOf("dependsOn.migrations").At(CodeFileNotRegular, "dependsOn.migrations", "the migrations folder is a symbolic link", "commit a real migrations/ folder")}
	}
	total := 0
	for i, name := range d.DependsOn.Migrations {
		if !names.IsMigrationName(name) {
			continue
		}
		path := index("dependsOn.migrations", i)
		data, p := readMigration(fs, dir, name)
		if p != nil {
			ps = append(ps, d.PosOf(path).At(p.Code, path, fmt.Sprintf("%s: %s", filepath.Join(MigrationsDir, name), p.Message), p.Hint))
			continue
		}
		total += len(data)
		d.Migrations = append(d.Migrations, Migration{Name: name, SQL: data})
	}
	if total > MaxMigrationsTotal {
		ps = append(ps, d.PosOf("dependsOn.migrations").At(CodeMigrationTooLarge, "dependsOn.migrations",
			fmt.Sprintf("the migrations add up to %d bytes, more than the %d a ConfigMap can carry", total, MaxMigrationsTotal),
			"squash applied migrations into a baseline, or move data loads out of migrations"))
	}
	return ps
}

// MaxMigrationBytes bounds one migration file; MaxMigrationsTotal bounds
// them all, since they travel in one ConfigMap (1 MiB, metadata included).
const (
	MaxMigrationBytes  = names.MaxMigrationBytes
	MaxMigrationsTotal = names.MaxMigrationsTotal
)

func readMigration(fs fsys.FS, dir, name string) ([]byte, *problem.Problem) {
	file := filepath.Join(dir, MigrationsDir, name)
	fi, err := fs.Lstat(file)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return nil, &problem.Problem{Code: CodeMigrationMissing, Message: "file not found", Hint: fmt.Sprintf("add %s or remove it from the list", filepath.Join(MigrationsDir, name))}
	case err != nil:
		return nil, &problem.Problem{Code: CodeFileUnreadable, Message: err.Error(), Hint: "check the file's permissions"}
	case !fi.Mode().IsRegular():
		return nil, &problem.Problem{Code: CodeFileNotRegular, Message: "is not a regular file (a link or a folder)", Hint: "commit the .sql file itself"}
	case fi.Size() > MaxMigrationBytes:
		return nil, &problem.Problem{Code: CodeMigrationTooLarge, Message: fmt.Sprintf("is %d bytes, more than %d", fi.Size(), MaxMigrationBytes), Hint: "split the migration"}
	case fi.Size() == 0:
		return nil, &problem.Problem{Code: CodeMigrationEmpty, Message: "is empty", Hint: "write the SQL or remove the migration"}
	}
	data, err := fs.ReadFile(file)
	if err != nil {
		return nil, &problem.Problem{Code: CodeFileUnreadable, Message: err.Error(), Hint: "check the file's permissions"}
	}
	if p := migrationContent(data); p != nil {
		return nil, p
	}
	return data, nil
}

// Migration is one declared SQL file with its content.
type Migration struct {
	Name string
	SQL  []byte
}
