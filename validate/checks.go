package validate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/codeloc/codeloc/internal/problem"
)

// Check confronts an accepted declaration with the cluster contract: version
// accepted, every dependency provided, sizes and requests within budget, a
// codeLocation that is neither codeloc's nor owns a platform name; and
// refuses a revision atlas does not attest as ready (CodeNotReady).
func Check(d *Declaration, c *Contract) problem.Problems {
	ps := append(checkReady(d), checkCodeLocationName(d, c)...)
	add := func(code, path, msg, hint string) { ps = append(ps, d.PosOf(path).At(code, path, msg, hint)) }

	if d.ContractVersion > 0 && !c.Accepts(d.ContractVersion) {
		add(CodeContractVersion, "contractVersion", fmt.Sprintf("contract version %d is not accepted by this cluster", d.ContractVersion),
			"this cluster accepts "+joinInts(c.ContractVersions)+"; move the code-location to one of them")
	}
	declaredSecrets := map[string]bool{}
	for i, s := range d.DependsOn.Secrets {
		declaredSecrets[s] = true
		if s != "" && !c.HasSecret(s) {
			add(CodeUnknownSecret, index("dependsOn.secrets", i), fmt.Sprintf("secret %q is not provided by the cluster contract", s), known("secrets", namesOf(c.Secrets, func(s Secret) string { return s.Name })))
		}
	}
	for i, name := range d.DependsOn.ConfigMaps {
		if name != "" && !c.HasConfigMap(name) {
			add(CodeUnknownConfigMap, index("dependsOn.configMaps", i), fmt.Sprintf("ConfigMap %q is not provided by the cluster contract", name),
				known("configMaps", namesOf(c.ConfigMaps, providedName))+"; a ConfigMap of the code-location's own is shipped in its kustomize root, not declared")
		}
	}
	for i, name := range d.DependsOn.ServiceAccounts {
		if name != "" && !c.HasServiceAccount(name) {
			add(CodeUnknownServiceAccount, index("dependsOn.serviceAccounts", i), fmt.Sprintf("ServiceAccount %q is not provided by the cluster contract", name),
				known("serviceAccounts", namesOf(c.ServiceAccounts, providedName))+"; an account of the code-location's own is shipped in its kustomize root, not declared")
		}
	}
	for i, name := range d.DependsOn.Database {
		path := index("dependsOn.database", i)
		db, ok := c.Database(name)
		switch {
		case name == "":
		case !ok:
			add(CodeUnknownDatabase, path, fmt.Sprintf("database %q is not provided by the cluster contract", name), known("databases", namesOf(c.Databases, func(db Database) string { return db.Name })))
		case !declaredSecrets[db.CredentialsSecret]:
			add(CodeDatabaseSecret, path, fmt.Sprintf("database %q is reached with secret %q, which is not declared", name, db.CredentialsSecret),
				fmt.Sprintf("add %q to dependsOn.secrets", db.CredentialsSecret))
		}
	}
	if len(d.DependsOn.Migrations) > 0 && len(d.DependsOn.Database) == 0 {
		add(CodeMigrationsNeedDB, "dependsOn.migrations", "migrations are declared but no database", "declare the database they apply to in dependsOn.database")
	}
	ps = append(ps, checkBuckets(d, c)...)
	ps = append(ps, checkBudgets(d, c)...)
	return ps
}

// checkReady refuses ready: false. Readiness is atlas's attestation that the
// revision is merged, tagged and tested; a revision without it is not deployed,
// and Argo CD keeps the objects of the last one that rendered.
func checkReady(d *Declaration) problem.Problems {
	if !d.notReady {
		return nil
	}
	return problem.Problems{d.PosOf("ready").At(CodeNotReady, "ready", "the declaration says ready: false: this revision is not attested ready, so it is not deployed",
		"the running revision stays deployed; push a revision with ready: true once it is merged, tagged and tested")}
}

func checkBuckets(d *Declaration, c *Contract) problem.Problems {
	var ps problem.Problems
	add := func(code, path, msg, hint string) { ps = append(ps, d.PosOf(path).At(code, path, msg, hint)) }
	for i, b := range d.DependsOn.Buckets {
		path := index("dependsOn.buckets", i)
		if b.StorageClass != "" && !slices.Contains(c.ObjectStorage.StorageClasses, b.StorageClass) {
			add(CodeUnknownStorageClass, path+".storageClass", fmt.Sprintf("storage class %q is not an object-storage class of this cluster", b.StorageClass), known("classes", c.ObjectStorage.StorageClasses))
		}
		if b.Name == "" {
			continue
		}
		pb, ok := c.Bucket(b.Name)
		if !ok {
			add(CodeUnknownBucket, path+".name", fmt.Sprintf("bucket %q is not provided by the cluster contract", b.Name), known("buckets", namesOf(c.ObjectStorage.Buckets, func(b ProvidedBucket) string { return b.Name })))
			continue
		}
		if b.StorageClass != "" && pb.StorageClass != b.StorageClass {
			add(CodeBucketClassMismatch, path+".storageClass", fmt.Sprintf("bucket %q is on %q, not %q", b.Name, pb.StorageClass, b.StorageClass), fmt.Sprintf("declare storageClass: %s", pb.StorageClass))
		}
		if b.Size.Set && pb.Size.Set && b.Size.Cmp(pb.Size.Quantity) > 0 {
			add(CodeBucketTooLarge, path+".size", fmt.Sprintf("bucket %q is provisioned with %s, less than the declared %s", b.Name, pb.Size.String(), b.Size.String()),
				"declare at most the provisioned size, or ask the platform to grow the bucket")
		}
	}
	return ps
}

func checkBudgets(d *Declaration, c *Contract) problem.Problems {
	var ps problem.Problems
	over := func(path, what string, got resource.Quantity, budget Quantity) {
		if budget.Set && got.Cmp(budget.Quantity) > 0 {
			ps = append(ps, d.PosOf(path).At(CodeOverBudget, path, fmt.Sprintf("%s %s exceeds the contract's budget of %s per code-location", what, got.String(), budget.String()),
				"declare less, or ask the platform to raise budgets."+strings.TrimPrefix(path, "resources.")))
		}
	}
	r := d.Resources
	if r.CPU.Set {
		over("resources.cpu", "cpu", r.CPU.Quantity, c.Budgets.CPU)
	}
	if r.Memory.Set {
		over("resources.memory", "memory", r.Memory.Quantity, c.Budgets.Memory)
	}
	if r.Disk.Set {
		over("resources.disk", "disk", r.Disk.Quantity, c.Budgets.Disk)
		if c.BlockStorage.StorageClass == "" {
			ps = append(ps, d.PosOf("resources.disk").At(CodeNoBlockStorage, "resources.disk", "disk is declared but this cluster offers no block storage", "remove disk, or ask the platform to set blockStorage.storageClass"))
		}
	}
	var total resource.Quantity
	for _, b := range d.DependsOn.Buckets {
		if b.Size.Set {
			total.Add(b.Size.Quantity)
		}
	}
	if len(d.DependsOn.Buckets) > 0 && c.Budgets.Buckets.Set && total.Cmp(c.Budgets.Buckets.Quantity) > 0 {
		ps = append(ps, d.PosOf("dependsOn.buckets").At(CodeOverBudget, "dependsOn.buckets", fmt.Sprintf("buckets add up to %s, more than the contract's budget of %s", total.String(), c.Budgets.Buckets.String()),
			"declare smaller buckets, or ask the platform to raise budgets.buckets"))
	}
	return ps
}

func known(what string, names []string) string {
	if len(names) == 0 {
		return "the contract lists no " + what
	}
	return "known " + what + ": " + strings.Join(names, ", ")
}

func joinInts(vs []int) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ", ")
}

func providedName(p Provided) string { return p.Name }

// namesOf lists the names of the contract's entries, for hints.
func namesOf[T any](items []T, name func(T) string) []string {
	out := make([]string, len(items))
	for i, item := range items {
		out[i] = name(item)
	}
	return out
}
