package layers

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Groups of packages the rules name. Patterns are module-relative
// ("render/..." is render and every package below it); a pattern whose
// first element is a domain ("github.com/argoproj/...") names packages of
// other modules.
var (
	// leaves import no codeloc package but other leaves: every stage
	// imports them.
	leaves = []string{
		"internal/problem", "internal/names", "internal/fsys", "internal/yamlbound",
		"internal/sqltext", "internal/pgtimeout", "dagster/workspace", "render/node", "render/apijson",
		"docs", // the pages, and the codes reference codeloc explain prints
	}
	// cli is the command packages that the binaries share.
	cli = []string{"internal/cli/..."}
	// mains is where the binaries are.
	mains = []string{"cmd/..."}
)

// rules is the module's layering, one rule a line of intent. A rule with
// OnlyImport is checked on direct imports (a leaf's imports are leaves, so
// its whole closure is); a rule with Forbid on everything a package links,
// directly or not, so that no detour gets around it.
var rules = []rule{{
	Name:       "leaves stay leaves",
	Packages:   leaves,
	OnlyImport: leaves,
}, {
	Name:     "validate is below render, the stages and the commands",
	Packages: []string{"validate/..."},
	Forbid:   cat([]string{"render/...", "plugin/...", "sidecar/...", "appofapps/...", "preflight/...", "migrate/...", "reload/..."}, cli, mains),
}, {
	Name:     "render/build links no validate (nor its SQL parser): the problem type is internal/problem's",
	Packages: []string{"render/build/..."},
	Forbid:   []string{"validate/..."},
}, {
	Name:     "render is below the plugin, the sidecar, the app-of-apps and the commands",
	Packages: []string{"render/..."},
	Forbid:   cat([]string{"plugin/...", "sidecar/...", "appofapps/..."}, cli, mains),
}, {
	Name:     "render/policy holds no Dagster rule: render/policy/dagster imports it, render/policy/rules assembles both lists",
	Packages: []string{"render/policy"},
	Forbid:   []string{"render/policy/dagster", "render/policy/rules"},
}, {
	Name:     "render/policy/dagster imports no render above it: the rule list and the render take it",
	Packages: []string{"render/policy/dagster"},
	Forbid:   []string{"render", "render/emit/...", "render/policy/rules"},
}, {
	Name:     "only tests import render/policy/policytest, the rules' test harness",
	Packages: []string{"..."},
	Except:   []string{"render/policy/policytest"},
	Forbid:   []string{"render/policy/policytest"},
}, {
	Name:     "render/policy/policytest links no rule package: render/policy's internal tests import it",
	Packages: []string{"render/policy/policytest"},
	Forbid:   []string{"render/policy", "render/policy/dagster", "render/policy/rules"},
}, {
	Name:     "no package imports a main package",
	Packages: []string{"..."},
	Forbid:   mains,
}, {
	Name:     "Dagster's formats and client are below everything that uses them",
	Packages: []string{"dagster/..."},
	Forbid:   cat([]string{"validate/...", "render/...", "plugin/...", "sidecar/...", "appofapps/...", "preflight/...", "migrate/...", "reload/..."}, cli, mains),
}, {
	Name:     "codeloc's own commands link neither the Jobs' nor the sidecar's",
	Packages: []string{"internal/cli"},
	Forbid:   []string{"internal/cli/jobscmd", "internal/cli/sidecarcmd"},
}, {
	Name:     "only the mains and the command packages import the command packages",
	Packages: []string{"..."},
	Except:   cat(mains, cli),
	Forbid:   cli,
}, {
	Name:     "check reads git with the git CLI and renders with the plugin's path: no go-git, no commands, nothing live",
	Packages: []string{"check/..."},
	Forbid:   cat([]string{"github.com/go-git/...", "k8s.io/client-go/...", "github.com/jackc/pgx/...", "github.com/argoproj/...", "sidecar/...", "preflight/...", "migrate/...", "reload/..."}, cli, mains),
}, {
	Name:     "the per-render codeloc links no Argo CD, client-go or pgx: each costs milliseconds and MiB at every render",
	Packages: []string{"cmd/codeloc"},
	Forbid:   []string{"github.com/argoproj/...", "k8s.io/client-go/...", "github.com/jackc/pgx/...", "github.com/go-git/..."},
}}

func cat(groups ...[]string) []string {
	var all []string
	for _, g := range groups {
		all = append(all, g...)
	}
	return all
}

// TestLayers checks the module's packages against rules.
func TestLayers(t *testing.T) {
	if testing.Short() {
		t.Skip("lists the module's packages with go list")
	}
	g := loadGraph(t)
	for _, v := range check(g, rules) {
		t.Error(v)
	}
}

// loadGraph lists every package the module's packages link (without their
// tests) and their imports, from the module root.
func loadGraph(t *testing.T) *graph {
	t.Helper()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	mod := exec.Command("go", "list", "-m")
	mod.Dir = root
	module, err := mod.Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	list := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	list.Dir = root
	out, err := list.Output()
	if err != nil {
		msg := err.Error()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			msg += ": " + string(ee.Stderr)
		}
		t.Fatalf("go list -deps ./...: %s", msg)
	}
	return parseGraph(strings.TrimSpace(string(module)), string(out))
}
