package validate_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/codeloc/codeloc/validate"
	"github.com/codeloc/codeloc/validate/sqllint"
)

// withoutSection drops a top-level section (its key line and the indented
// lines under it) from the example contract.
func withoutSection(t *testing.T, key string) string {
	t.Helper()
	var out []string
	skip := false
	for _, line := range strings.Split(string(validate.ExampleContract), "\n") {
		if strings.HasPrefix(line, key+":") {
			skip = true
			continue
		}
		if skip && (strings.HasPrefix(line, " ") || line == "") {
			continue
		}
		skip = false
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func TestMigrationSettingsDefaults(t *testing.T) {
	c, ps := validate.ParseContract("c.yaml", []byte(withoutSection(t, "database")))
	if len(ps) > 0 {
		t.Fatalf("contract without database: %v", ps)
	}
	want := validate.MigrationSettings{LockTimeout: validate.DefaultLockTimeout, StatementTimeout: validate.DefaultStatementTimeout}
	if diff := cmp.Diff(want, c.DB.Migrations); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, mustContract(t).DB.Migrations); diff != "" {
		t.Errorf("the example contract spells out the defaults (-defaults +example):\n%s", diff)
	}
	noPolicy := strings.Split(string(validate.ExampleContract), "\npolicy:\n")[0] + "\n"
	c, ps = validate.ParseContract("c.yaml", []byte(noPolicy))
	if len(ps) > 0 {
		t.Fatalf("contract without policy: %v", ps)
	}
	if diff := cmp.Diff(sqllint.Defaults(), c.Policy.Migrations); diff != "" {
		t.Errorf("policy.migrations defaults (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(c.Policy.Migrations, mustContract(t).Policy.Migrations); diff != "" {
		t.Errorf("the example contract spells out policy.migrations (-defaults +example):\n%s", diff)
	}
}

func TestMigrationSettings(t *testing.T) {
	base := withoutSection(t, "database") + "\ndatabase:\n  migrations:\n"
	for _, tt := range []struct {
		name, yaml string
		want       []string // code path
		lock, stmt time.Duration
	}{
		{"durations", "    lockTimeout: 250ms\n    statementTimeout: 1m30s\n", nil, 250 * time.Millisecond, 90 * time.Second},
		{"disabled", "    lockTimeout: 0\n    statementTimeout: \"0\"\n", nil, 0, 0},
		{"not a duration", "    lockTimeout: five\n", []string{"contract-invalid database.migrations.lockTimeout"}, 0, 0},
		{"negative", "    lockTimeout: -1s\n", []string{"contract-invalid database.migrations.lockTimeout"}, 0, 0},
		{"sub-millisecond", "    lockTimeout: 1500us\n", []string{"contract-invalid database.migrations.lockTimeout"}, 0, 0},
		{"beyond PostgreSQL", "    statementTimeout: 1000h\n", []string{"contract-invalid database.migrations.statementTimeout"}, 0, 0},
		{"past the Job's deadline", "    statementTimeout: 10m\n", []string{"contract-invalid database.migrations.statementTimeout"}, 0, 0},
		{"unknown", "    lockTimeOut: 5s\n", []string{"unknown-field database.migrations.lockTimeOut"}, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, ps := validate.ParseContract("c.yaml", []byte(base+tt.yaml))
			var got []string
			for _, p := range ps {
				got = append(got, p.Code+" "+p.Path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("problems (-want +got):\n%s\n%v", diff, ps)
			}
			if tt.want == nil && (c.DB.Migrations.LockTimeout != tt.lock || c.DB.Migrations.StatementTimeout != tt.stmt) {
				t.Errorf("got %+v", c.DB.Migrations)
			}
		})
	}
}

func TestMigrationRuleSeverities(t *testing.T) {
	base := strings.Split(string(validate.ExampleContract), "\npolicy:\n")[0] + "\npolicy:\n  migrations:\n"
	for _, tt := range []struct {
		name, yaml string
		want       []string
	}{
		{"tuned", "    sql-drop: warning\n    sql-rename: off\n", nil},
		{"not a severity", "    sql-drop: fatal\n", []string{"contract-invalid policy.migrations.sql-drop"}},
		{"unknown rule", "    sql-drops: off\n", []string{"unknown-field policy.migrations.sql-drops"}},
		{"syntax is not a rule", "    sql-syntax: off\n", []string{"unknown-field policy.migrations.sql-syntax"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, ps := validate.ParseContract("c.yaml", []byte(base+tt.yaml))
			var got []string
			for _, p := range ps {
				got = append(got, p.Code+" "+p.Path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("problems (-want +got):\n%s\n%v", diff, ps)
			}
			if tt.want == nil {
				if c.Policy.Migrations[sqllint.RuleDrop] != sqllint.Warning || c.Policy.Migrations[sqllint.RuleRename] != sqllint.Off ||
					c.Policy.Migrations[sqllint.RuleIndexBlocking] != sqllint.Error {
					t.Errorf("severities %v", c.Policy.Migrations)
				}
			}
		})
	}
}
