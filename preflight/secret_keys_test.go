package preflight_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloc/codeloc/internal/kubetest"
	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/preflight"
	"github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/render/emit"
	"github.com/codeloc/codeloc/validate"
)

// secretValue is what every test secret holds: it must never be printed.
const secretValue = "s3cret-never-printed"

// secretDoc is Secret pgvector-pg-auth in ns with the given keys.
func secretDoc(ns string, keys ...string) string {
	var data []string
	for _, k := range keys {
		data = append(data, fmt.Sprintf("%q: %q", k, secretValue))
	}
	return fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata: {name: pgvector-pg-auth, namespace: %s}\nstringData: {%s}\n", ns, strings.Join(data, ", "))
}

// writeInputs writes files into a new folder, as the preflight pod's
// ConfigMap volume shows them, and loads them as `codeloc-jobs preflight
// --dir` does.
func writeInputs(t *testing.T, files map[string]string) (*validate.Declaration, *validate.Contract, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, c, ps := preflight.Load(dir, filepath.Join(dir, emit.ContractKey))
	if len(ps) > 0 {
		t.Fatalf("load: %v", ps)
	}
	return d, c, dir
}

// assertNoValue checks that nothing the report says carries a secret value.
func assertNoValue(t *testing.T, rep *preflight.Report) {
	t.Helper()
	all := strings.Join(append(append([]string{rep.Summary()}, rep.Checked...), rep.Notes...), "\n")
	if strings.Contains(all, secretValue) {
		t.Errorf("the report prints a secret value:\n%s", all)
	}
}

func TestSecretKeys(t *testing.T) {
	env := sharedEnv(t)
	const missing = `secret-key-missing dependsOn.secrets[0]: secret "pgvector-pg-auth" in namespace "{{ns}}" has no key `
	cases := []struct {
		name   string
		keys   *string  // the SecretKeysFile; nil = none
		secret []string // keys of the live secret; nil = no secret
		want   []string
	}{
		{name: "no keys file: presence only", secret: []string{"username"}},
		{name: "every key present", keys: ptr(`{"pgvector-pg-auth":["password","username"]}`), secret: []string{"username", "password", "extra"}},
		{name: "a key missing", keys: ptr(`{"pgvector-pg-auth":["ca.crt","password","username"]}`), secret: []string{"username", "password"},
			want: []string{missing + `"ca.crt", which the pods read: they would not start (CreateContainerConfigError) (pgvector-pg-auth holds the keys password, username: have the platform add the key`}},
		{name: "every key missing", keys: ptr(`{"pgvector-pg-auth":["password","username"]}`), secret: []string{},
			want: []string{missing + `"password"`, missing + `"username", which the pods read: they would not start (CreateContainerConfigError) (pgvector-pg-auth holds no key: `}},
		{name: "secret missing", keys: ptr(`{"pgvector-pg-auth":["password"]}`),
			want: []string{`secret-missing dependsOn.secrets[0]: secret "pgvector-pg-auth" does not exist in namespace "{{ns}}"`}},
		{name: "keys of an undeclared secret are not read", keys: ptr(`{"other":["token"]}`), secret: []string{"username"}},
		{name: "malformed keys file", keys: ptr(`["password"]`), secret: []string{"username"},
			want: []string{`{{dir}}/` + names.SecretKeysFile + `: file-unreadable: the secret keys the pods read cannot be loaded: json: cannot unmarshal array`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, env, nil)
			files := map[string]string{validate.ManifestFile: declarationYAML, emit.ContractKey: w.subst(contractYAML)}
			if tc.keys != nil {
				files[names.SecretKeysFile] = *tc.keys
			}
			w.decl, w.con, _ = writeInputs(t, files)
			s := good()
			s.secrets = []string{"dagster-postgresql-secret"}
			w.apply(t, s)
			if tc.secret != nil {
				w.env.ApplyYAML(t, w.ns, secretDoc(w.ns, tc.secret...))
			}
			rep := w.run(t, preflight.Options{})
			dir := filepath.Dir(w.decl.File)
			for i := range tc.want {
				tc.want[i] = strings.ReplaceAll(tc.want[i], "{{dir}}", dir)
			}
			w.expect(t, rep, tc.want...)
			assertNoValue(t, rep)
		})
	}
}

func ptr(s string) *string { return &s }

// TestRenderedSecretKeysReachThePreflight ties render to the preflight: the
// inputs ConfigMap the allpaths fixture renders, mounted as files, makes
// the preflight — as its own ServiceAccount, with the rendered Role — read
// the declared secret whole (names only kept) and report the key a
// secretKeyRef reads that the live secret lacks.
func TestRenderedSecretKeysReachThePreflight(t *testing.T) {
	c, problems := validate.LoadContract("")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	res, err := render.Render(render.Request{Dir: "../fixtures/allpaths", Contract: c})
	if err != nil {
		t.Fatal(err)
	}
	files, rbac := map[string]string{}, ""
	for _, o := range res.Objects {
		if o.GetName() != "allpaths-preflight" {
			continue
		}
		switch o.GetKind() {
		case "ConfigMap":
			files = o.GetDataMap()
		case "ServiceAccount", "Role", "RoleBinding":
			doc, err := o.String()
			if err != nil {
				t.Fatal(err)
			}
			rbac += "---\n" + doc
		}
	}
	if files[names.SecretKeysFile] == "" {
		t.Fatalf("the rendered inputs have no %s: %v", names.SecretKeysFile, files)
	}
	for _, tt := range []struct {
		name   string
		secret []string
		want   []string
	}{
		{"the keys the web pods read are there", []string{"username", "password"}, nil},
		{"password missing", []string{"username"},
			[]string{`secret-key-missing dependsOn.secrets[0]: secret "pgvector-pg-auth" in namespace "{{ns}}" has no key "password"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, sharedEnv(t), nil)
			inputs := map[string]string{}
			for k, v := range files {
				inputs[k] = w.exampleNamespaces(v)
			}
			w.decl, w.con, _ = writeInputs(t, inputs)
			s := good()
			s.secrets, s.records, s.apps = nil, nil, nil
			w.apply(t, s)
			w.env.ApplyYAML(t, w.ns, strings.ReplaceAll(rbac, "namespace: dagster", "namespace: "+w.ns))
			w.env.ApplyYAML(t, w.ns, secretDoc(w.ns, tt.secret...))
			ctx := ctxFor(t)
			cfg, err := w.env.ServiceAccountConfig(ctx, w.ns, "allpaths-preflight")
			if err != nil {
				t.Fatal(err)
			}
			access := kubetest.Access{Verb: "get", Resource: "secrets", Namespace: w.ns, Name: "pgvector-pg-auth"}
			if err := kubetest.WaitForAccess(ctx, cfg, access); err != nil {
				t.Fatal(err)
			}
			requests := captureSecretRequests(cfg)
			rep := w.run(t, preflight.Options{Config: requests.cfg})
			secretsOnly := &preflight.Report{}
			for _, p := range rep.Problems {
				if strings.HasPrefix(p.Path, "dependsOn.secrets") {
					secretsOnly.Problems = append(secretsOnly.Problems, p)
				}
			}
			w.expect(t, secretsOnly, tt.want...)
			assertNoValue(t, rep)
			if a := requests.accepts; len(a) != 1 || !strings.HasPrefix(a[0], "GET ") || metadataOnlyAccept(a[0][strings.Index(a[0], "Accept: ")+len("Accept: "):]) {
				t.Errorf("want one full GET of the secret, got %q", a)
			}
		})
	}
}
