package check

import (
	"encoding/json"
	"io"

	"github.com/codeloc/codeloc/internal/problem"
)

// Report is what a check found: the JSON of `codeloc check --format json`
// (docs/check.md documents its schema; field names are stable).
type Report struct {
	// Contract is the contract checked against.
	Contract ContractInfo `json:"contract"`
	// Base and Head are the revisions compared.
	Base Revision `json:"base"`
	Head Revision `json:"head"`
	// Refused says Argo CD would refuse the head: a touched code-location
	// has a problem, or the dependency graph at head has one.
	Refused bool `json:"refused"`
	// CodeLocations are the touched code-locations, sorted by folder.
	CodeLocations []Location `json:"codeLocations"`
	// Moved are the code-locations whose wave or dependencies differ
	// between base and head, touched or not, sorted by name.
	Moved []Move `json:"moved"`
	// Problems are the head's problems outside one code-location's render:
	// the dependency graph's, links leading outside the repo.
	Problems []problem.Problem `json:"problems"`
}

// ContractInfo identifies the contract.
type ContractInfo struct {
	Origin           string `json:"origin"`
	ContractVersions []int  `json:"contractVersions"`
	SHA256           string `json:"sha256"`
}

// Revision is one side of the change.
type Revision struct {
	// Rev is the revision as given (":index" for the staged change).
	Rev string `json:"rev"`
	// Tree is the git tree id it resolved to.
	Tree string `json:"tree"`
}

// Change kinds.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"
)

// Location is one touched code-location.
type Location struct {
	CodeLocation string `json:"codeLocation"`
	// Dir is its folder, relative to the repo root.
	Dir string `json:"dir"`
	// Change is added, removed or changed.
	Change string `json:"change"`
	// Refused says the head's render of it fails.
	Refused bool `json:"refused"`
	// Consumes lists what its declaration now consumes or no longer does.
	Consumes []Consumption `json:"consumes"`
	// Fields are the scalar fields that changed (revision, resources...).
	Fields []FieldChange `json:"fields"`
	// Migrations are the migrations added or whose file changed, with
	// their lint findings at head.
	Migrations []MigrationChange `json:"migrations"`
	// Problems are every problem and warning of its head render, with
	// file:line as render prints them.
	Problems []problem.Problem `json:"problems"`
	// Objects are the rendered objects added, removed or changed.
	Objects []ObjectChange `json:"objects"`
}

// Consumption is one entry of dependsOn added or removed.
type Consumption struct {
	// Field is the dependsOn field: secrets, configMaps, serviceAccounts,
	// database, buckets, migrations, codeLocations.
	Field string `json:"field"`
	Name  string `json:"name"`
	// Change is added or removed.
	Change string `json:"change"`
}

// FieldChange is one scalar field of the declaration, before and after
// ("" when absent on that side).
type FieldChange struct {
	Field string `json:"field"`
	Base  string `json:"base"`
	Head  string `json:"head"`
}

// MigrationChange is a migration file added or changed.
type MigrationChange struct {
	Name   string `json:"name"`
	Change string `json:"change"`
	// Findings are the head's problems and warnings on the file (lint).
	Findings []problem.Problem `json:"findings"`
}

// ObjectChange is one rendered object added, removed or changed.
type ObjectChange struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Change    string `json:"change"`
	// Diff is the unified diff of the object's YAML, base to head.
	Diff string `json:"diff"`
}

// Move is a code-location whose place in the graph differs. A side where
// it does not exist (or cannot be placed) has a nil wave.
type Move struct {
	CodeLocation   string   `json:"codeLocation"`
	BaseWave       *int     `json:"baseWave"`
	HeadWave       *int     `json:"headWave"`
	BaseDependsOn  []string `json:"baseDependsOn"`
	HeadDependsOn  []string `json:"headDependsOn"`
	DependsChanged bool     `json:"dependsOnChanged"`
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
