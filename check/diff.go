package check

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/codeloc/codeloc/render/emit"
	"github.com/codeloc/codeloc/validate"
)

// consumption compares what two declarations consume, dependsOn field by
// field (nil for a side that has no declaration).
func consumption(base, head *validate.Declaration) []Consumption {
	b, h := dependsOn(base), dependsOn(head)
	var out []Consumption
	for _, field := range []string{"codeLocations", "database", "secrets", "configMaps", "serviceAccounts", "buckets", "migrations"} {
		for _, n := range minus(h[field], b[field]) {
			out = append(out, Consumption{Field: field, Name: n, Change: Added})
		}
		for _, n := range minus(b[field], h[field]) {
			out = append(out, Consumption{Field: field, Name: n, Change: Removed})
		}
	}
	return out
}

// dependsOn lists a declaration's dependsOn entries by field.
func dependsOn(d *validate.Declaration) map[string][]string {
	if d == nil {
		return map[string][]string{}
	}
	buckets := make([]string, len(d.DependsOn.Buckets))
	for i, b := range d.DependsOn.Buckets {
		buckets[i] = b.Name
	}
	return map[string][]string{
		"codeLocations": d.DependsOn.CodeLocations, "database": d.DependsOn.Database,
		"secrets": d.DependsOn.Secrets, "configMaps": d.DependsOn.ConfigMaps,
		"serviceAccounts": d.DependsOn.ServiceAccounts, "buckets": buckets,
		"migrations": d.DependsOn.Migrations,
	}
}

// minus is the sorted names of a not in b.
func minus(a, b []string) []string {
	var out []string
	for _, n := range a {
		if !slices.Contains(b, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// fields compares the declarations' scalar fields and the buckets'
// sizes and classes.
func fields(base, head *validate.Declaration) []FieldChange {
	b, h := scalars(base), scalars(head)
	keys := make([]string, 0, len(b)+len(h))
	for k := range b {
		keys = append(keys, k)
	}
	for k := range h {
		if _, ok := b[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []FieldChange
	for _, k := range keys {
		if b[k] != h[k] {
			out = append(out, FieldChange{Field: k, Base: b[k], Head: h[k]})
		}
	}
	return out
}

// scalars maps each scalar field path of d to its value as text.
func scalars(d *validate.Declaration) map[string]string {
	if d == nil {
		return map[string]string{}
	}
	m := map[string]string{
		"ready": strconv.FormatBool(d.Ready), "revision": d.Revision,
		"contractVersion": strconv.Itoa(d.ContractVersion),
		"resources.cpu":   quantity(d.Resources.CPU), "resources.memory": quantity(d.Resources.Memory),
		"resources.disk": quantity(d.Resources.Disk),
	}
	for _, bk := range d.DependsOn.Buckets {
		m["dependsOn.buckets["+bk.Name+"].size"] = quantity(bk.Size)
		m["dependsOn.buckets["+bk.Name+"].storageClass"] = bk.StorageClass
	}
	return m
}

func quantity(q validate.Quantity) string {
	if !q.Set {
		return ""
	}
	v := q.Quantity
	return v.String()
}

// migrations lists the migration files head adds or changes.
func migrations(base, head *validate.Declaration) []MigrationChange {
	if head == nil {
		return nil
	}
	old := map[string][]byte{}
	if base != nil {
		for _, m := range base.Migrations {
			old[m.Name] = m.SQL
		}
	}
	var out []MigrationChange
	for _, m := range head.Migrations {
		sql, ok := old[m.Name]
		switch {
		case !ok:
			out = append(out, MigrationChange{Name: m.Name, Change: Added})
		case !bytes.Equal(sql, m.SQL):
			out = append(out, MigrationChange{Name: m.Name, Change: Changed})
		}
	}
	return out
}

// objectKey keys a rendered object: kind/namespace/name.
func objectKey(o *yaml.RNode) string {
	return o.GetKind() + "/" + o.GetNamespace() + "/" + o.GetName()
}

// objects compares two renders object by object, in head's order then
// the removed ones in base's order.
func objects(base, head []*yaml.RNode) ([]ObjectChange, error) {
	old := map[string]*yaml.RNode{}
	for _, o := range base {
		old[objectKey(o)] = o
	}
	seen := map[string]bool{}
	var out []ObjectChange
	for _, o := range head {
		k := objectKey(o)
		seen[k] = true
		c, err := objectChange(old[k], o)
		if err != nil {
			return nil, err
		}
		if c != nil {
			out = append(out, *c)
		}
	}
	for _, o := range base {
		if !seen[objectKey(o)] {
			c, err := objectChange(o, nil)
			if err != nil {
				return nil, err
			}
			out = append(out, *c)
		}
	}
	return out, nil
}

// objectChange is the change from a to b (either nil), nil when none.
func objectChange(a, b *yaml.RNode) (*ObjectChange, error) {
	at, err := objectYAML(a)
	if err != nil {
		return nil, err
	}
	bt, err := objectYAML(b)
	if err != nil {
		return nil, err
	}
	if at == bt {
		return nil, nil
	}
	o, change := b, Changed
	switch {
	case a == nil:
		change = Added
	case b == nil:
		o, change = a, Removed
	}
	name := o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: splitLines(at), B: splitLines(bt),
		FromFile: "base " + name, ToFile: "head " + name, Context: 3,
	})
	if err != nil {
		return nil, err
	}
	return &ObjectChange{Kind: o.GetKind(), Namespace: o.GetNamespace(), Name: o.GetName(), Change: change, Diff: d}, nil
}

// objectYAML is the object as render prints it; "" for nil.
func objectYAML(o *yaml.RNode) (string, error) {
	if o == nil {
		return "", nil
	}
	out, err := emit.Write([]*yaml.RNode{o})
	if err != nil {
		return "", fmt.Errorf("encoding %s: %w", objectKey(o), err)
	}
	return strings.TrimPrefix(string(out), "---\n"), nil
}

// splitLines splits text into lines that keep their newline (render's
// YAML always ends with one); none for "".
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
