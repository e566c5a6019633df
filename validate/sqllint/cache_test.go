package sqllint_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/validate/sqllint"
)

// TestCacheSameFindings lints every input of the package's tables without
// the parse cache, then with it twice (cold: each file parsed and written;
// warm: each read back): the findings are the same, field for field.
func TestCacheSameFindings(t *testing.T) {
	type input struct {
		name string
		sql  string
		cfg  sqllint.Config
	}
	var inputs []input
	for _, tt := range lintCases {
		inputs = append(inputs, input{tt.name, tt.sql, tt.cfg})
	}
	for _, tt := range hostileCases() {
		inputs = append(inputs, input{tt.name, tt.sql, withTimeout})
	}
	inputs = append(inputs, input{"sampler", sampler, sqllint.Config{}}, input{"the ADR's migration", adrMigration, withTimeout})
	distinct := map[string]bool{}
	for _, in := range inputs {
		distinct[in.sql] = true
	}
	lintAll := func() [][]sqllint.Finding {
		out := make([][]sqllint.Finding, len(inputs))
		for i, in := range inputs {
			out[i] = sqllint.Lint(in.sql, in.cfg)
		}
		return out
	}

	t.Setenv(sqllint.CacheDirEnv, "off")
	want := lintAll()
	sqllint.EnableCacheForTest(t)
	dir := t.TempDir()
	t.Setenv(sqllint.CacheDirEnv, dir)
	cold := 0
	for _, pass := range []string{"cold", "warm"} {
		got := lintAll()
		for i, in := range inputs {
			if diff := cmp.Diff(want[i], got[i]); diff != "" {
				t.Errorf("%s, %s: findings with the cache (-without +with):\n%s", pass, in.name, diff)
			}
		}
		entries, err := os.ReadDir(filepath.Join(dir, "sqlparse"))
		if err != nil {
			t.Fatal(err)
		}
		// A file's entry, and one per DO block body and statement in it.
		if pass == "cold" {
			cold = len(entries)
		}
		if len(entries) < len(distinct) || len(entries) != cold {
			t.Errorf("%s: %d entries for %d distinct files (%d after the cold pass)", pass, len(entries), len(distinct), cold)
		}
	}
}
