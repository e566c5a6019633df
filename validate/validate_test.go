package validate_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	kvalidate "k8s.io/kube-openapi/pkg/validation/validate"
	"sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/validate"
)

// adrExample is the manifest of ADR 0094 §3, with the Dagster platform
// objects its code server and run pods read declared.
const adrExample = "../fixtures/citation/code-location.manifest.yaml"

func mustContract(t testing.TB) *validate.Contract {
	t.Helper()
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		t.Fatalf("embedded contract: %v", problems)
	}
	return c
}

func TestADRExampleValidates(t *testing.T) {
	d, problems := validate.LoadDeclaration(filepath.Dir(adrExample))
	if len(problems) > 0 {
		t.Fatalf("ADR example: %v", problems)
	}
	if problems := validate.Check(d, mustContract(t)); len(problems) > 0 {
		t.Fatalf("ADR example against the example contract: %v", problems)
	}
	want := validate.DependsOn{
		CodeLocations: []string{"mediawatch"}, Database: []string{"pgvector"}, Secrets: []string{"pgvector-pg-auth", "dagster-postgresql-secret"},
		ConfigMaps: []string{"dagster-instance", "dagster-pipeline-env"}, Migrations: []string{"001-researchers-hnsw.sql"},
	}
	got := d.DependsOn
	got.Buckets = nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dependsOn (-want +got):\n%s", diff)
	}
	if b := d.DependsOn.Buckets; len(b) != 1 || b[0].Name != "atlas-datalake" || b[0].Size.String() != "100Gi" || b[0].StorageClass != "rook-ceph-datalake" {
		t.Errorf("buckets: %+v", b)
	}
	if d.CodeLocation != "citation" || !d.Ready || d.Revision != "a3f9c1d" || d.ContractVersion != 3 ||
		d.Resources.CPU.String() != "500m" || d.Resources.Memory.String() != "1Gi" || d.Resources.Disk.String() != "20Gi" {
		t.Errorf("declaration: %+v", d)
	}
	if len(d.Migrations) != 1 || !strings.Contains(string(d.Migrations[0].SQL), "vector(384)") {
		t.Errorf("migrations: %+v", d.Migrations)
	}
}

const minimal = "codeLocation: a\nready: true\nrevision: abcdef0\ncontractVersion: 3\nresources: {cpu: 1, memory: 1Gi}\n"

// TestParseDeclaration pins the lines of declarations that are wrong in one
// way each (the fixtures cover the same through the CLI).
func TestParseDeclaration(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{"minimal", minimal, nil},
		{"alias", "x: &a 1\n" + minimal, []string{`m.yaml:1:1: unknown-field x: unknown field "x" (known fields: codeLocation, contractVersion, dependsOn, ready, resources, revision)`}},
		{"alias value", "codeLocation: &n a\nready: true\nrevision: *n\ncontractVersion: 3\nresources: {cpu: 1, memory: 1Gi}\n",
			[]string{`m.yaml:3:11: wrong-type revision: expected a string, got alias (YAML aliases are not accepted; write the value out)`}},
		{"null field", strings.Replace(minimal, "revision: abcdef0", "revision:", 1),
			[]string{`m.yaml:3:10: wrong-type revision: expected a string, got null (write a string)`}},
		{"float version", strings.Replace(minimal, "contractVersion: 3", "contractVersion: 3.5", 1),
			[]string{`m.yaml:4:18: wrong-type contractVersion: expected an integer, got number (write an integer)`}},
		{"huge version", strings.Replace(minimal, "contractVersion: 3", "contractVersion: 99999999999", 1),
			[]string{`m.yaml:4:18: wrong-type contractVersion: "99999999999" is not a 32-bit integer (write a small whole number)`}},
		{"long revision", strings.Replace(minimal, "abcdef0", strings.Repeat("a", 41), 1),
			[]string{`m.yaml:3:11: bad-revision revision: "` + strings.Repeat("a", 41) + `" is not a git SHA of 7 to 40 lowercase hex digits (write the commit's SHA, e.g. git rev-parse --short HEAD)`}},
		{"empty lists", minimal + "dependsOn:\n  codeLocations: []\n  buckets:\n", nil},
		{"non-string key", "? [a]\n: 1\n" + minimal, []string{`m.yaml:1:3: unknown-field: a key is not a plain name (use plain field names)`}},
		{"tab", "codeLocation:\ta\n\tready: true\n", []string{`m.yaml:2:1: yaml-syntax: found a tab character that violates indentation (fix the YAML syntax)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, problems := validate.ParseDeclaration("m.yaml", []byte(tt.doc))
			var got []string
			for _, p := range problems.Sorted() {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBoundedInput feeds oversized and deeply nested documents: each is
// refused quickly with one problem, never a hang or a panic.
func TestBoundedInput(t *testing.T) {
	tests := []struct {
		name, doc, code string
	}{
		{"oversized", minimal + "# " + strings.Repeat("x", validate.MaxFileBytes) + "\n", validate.CodeFileTooLarge},
		{"deep flow", "codeLocation: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n", validate.CodeYAMLSyntax},
		{"deep block", deepBlock(500), validate.CodeUnknownField},
		{"alias bomb", aliasBomb(), validate.CodeUnknownField},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, problems := validate.ParseDeclaration("m.yaml", []byte(tt.doc))
			if len(problems) == 0 || !hasCode(problems, tt.code) {
				t.Errorf("want a %s problem, got %v", tt.code, problems)
			}
		})
	}
}

func hasCode(ps problem.Problems, code string) bool {
	for _, p := range ps {
		if p.Code == code {
			return true
		}
	}
	return false
}

func deepBlock(depth int) string {
	var b strings.Builder
	for i := 0; i < depth; i++ {
		b.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	return b.String()
}

func aliasBomb() string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		prev := "*a" + string(rune('0'+i-1))
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [" + strings.Repeat(prev+", ", 9) + prev + "]\n")
	}
	return b.String()
}

func TestContractExampleIsComplete(t *testing.T) {
	c := mustContract(t)
	if !c.Accepts(3) || c.Namespace != "dagster" || c.Registry != "registry:80" || c.ArgoCDNamespace == "" || c.Jobs.Image == "" {
		t.Errorf("example contract: %+v", c)
	}
	if db, ok := c.Database("pgvector"); !ok || db.CredentialsSecret != "pgvector-pg-auth" || db.Port != 5432 {
		t.Errorf("database pgvector: %+v", db)
	}
	if b, ok := c.Bucket("atlas-datalake"); !ok || b.StorageClass != "rook-ceph-datalake" {
		t.Errorf("bucket atlas-datalake: %+v", b)
	}
	if !c.HasSecret("pgvector-pg-auth") || c.BlockStorage.StorageClass == "" || c.Budgets.HeadroomPercent != 10 {
		t.Errorf("contract: %+v", c)
	}
}

func TestContractUnreadable(t *testing.T) {
	_, problems := validate.LoadContract(filepath.Join(t.TempDir(), "none.yaml"))
	if len(problems) != 1 || problems[0].Code != validate.CodeContractUnreadable || !strings.Contains(problems[0].Message, "no such file") {
		t.Errorf("got %v", problems)
	}
}

// TestContractThroughSymlink mimics a ConfigMap mount, where the file is a
// link into ..data.
func TestContractThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "..data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "..data", "contract.yaml"), validate.ExampleContract, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..data/contract.yaml", filepath.Join(dir, "contract.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, problems := validate.LoadContract(filepath.Join(dir, "contract.yaml")); len(problems) > 0 {
		t.Errorf("got %v", problems)
	}
}

// TestSchemaAcceptsFixtures validates the fixtures' declarations against the
// JSON Schema printed by `codeloc schema`, and checks it rejects mistakes.
func TestSchemaAcceptsFixtures(t *testing.T) {
	var raw map[string]any
	if err := json.Unmarshal(validate.DeclarationSchema, &raw); err != nil {
		t.Fatal(err)
	}
	expanded, err := json.Marshal(inlineRefs(raw, raw["definitions"].(map[string]any)))
	if err != nil {
		t.Fatal(err)
	}
	var schema spec.Schema
	if err := json.Unmarshal(expanded, &schema); err != nil {
		t.Fatal(err)
	}
	v := kvalidate.NewSchemaValidator(&schema, &schema, "", strfmt.Default)
	check := func(name string, doc []byte, wantValid bool) {
		var obj any
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res := v.Validate(obj)
		if res.IsValid() != wantValid {
			t.Errorf("%s: valid=%v, want %v: %v", name, res.IsValid(), wantValid, res.Errors)
		}
	}
	for _, f := range []string{"citation", "mediawatch"} {
		doc, err := os.ReadFile(filepath.Join("..", "fixtures", f, validate.ManifestFile))
		if err != nil {
			t.Fatal(err)
		}
		check(f, doc, true)
	}
	for _, f := range []string{"unknown-fields", "wrong-types", "bad-names", "missing-fields", "bad-quantities"} {
		doc, err := os.ReadFile(filepath.Join("..", "fixtures", "invalid", f, validate.ManifestFile))
		if err != nil {
			t.Fatal(err)
		}
		check(f, doc, false)
	}
}

// inlineRefs replaces local "#/definitions/x" references by their target:
// kube-openapi's validator does not follow references.
func inlineRefs(node any, defs map[string]any) any {
	switch n := node.(type) {
	case map[string]any:
		if ref, ok := n["$ref"].(string); ok {
			return inlineRefs(defs[strings.TrimPrefix(ref, "#/definitions/")], defs)
		}
		out := map[string]any{}
		for k, v := range n {
			if k != "definitions" {
				out[k] = inlineRefs(v, defs)
			}
		}
		return out
	case []any:
		out := make([]any, len(n))
		for i, v := range n {
			out[i] = inlineRefs(v, defs)
		}
		return out
	}
	return node
}

// TestMigrationsFolderSymlink: a linked migrations/ folder is refused once,
// at dependsOn.migrations, whatever the number of files.
func TestMigrationsFolderSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "elsewhere")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"001-a.sql", "002-b.sql"} {
		if err := os.WriteFile(filepath.Join(real, f), []byte("SELECT 1;\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("elsewhere", filepath.Join(dir, validate.MigrationsDir)); err != nil {
		t.Fatal(err)
	}
	doc := minimal + "dependsOn:\n  database: [pgvector]\n  secrets: [pgvector-pg-auth]\n  migrations: [001-a.sql, 002-b.sql]\n"
	if err := os.WriteFile(filepath.Join(dir, validate.ManifestFile), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, problems := validate.LoadDeclaration(dir)
	if len(problems) != 1 || problems[0].Code != validate.CodeFileNotRegular || problems[0].Path != "dependsOn.migrations" {
		t.Errorf("got %v", problems)
	}
}
