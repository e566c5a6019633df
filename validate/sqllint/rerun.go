package sqllint

import (
	"fmt"
	"strings"
)

// rerunnable checks one statement of a `-- codeloc:no-transaction` file: a
// run that stops half way (killed, a lost connection, a failed statement)
// is retried from the file's first statement, so each statement must
// succeed, and do nothing more, when what it does is done already.
// Statements PostgreSQL refuses in a transaction and that have no such form
// (DETACH PARTITION ... CONCURRENTLY) are not reported: they cannot move to
// a transactional file.
func (l *linter) rerunnable(k string, n node) {
	fix := ""
	switch k {
	case "CreateStmt", "CreateSchemaStmt", "CreateSeqStmt", "CreateExtensionStmt", "CreateTableAsStmt":
		if !n.bool("if_not_exists") {
			fix = "write CREATE ... IF NOT EXISTS"
		}
	case "IndexStmt":
		switch {
		case n.str("idxname") == "":
			fix = "name the index (an unnamed one is built again under a new name at each run) and write CREATE INDEX CONCURRENTLY IF NOT EXISTS name"
		case !n.bool("if_not_exists"):
			fix = "write CREATE INDEX CONCURRENTLY IF NOT EXISTS (the Job refuses to start while an INVALID index is left, so IF NOT EXISTS skips only a whole one)"
		}
	case "ViewStmt", "CreateFunctionStmt", "CreateTrigStmt":
		if !n.bool("replace") {
			fix = "write CREATE OR REPLACE"
		}
	case "DropStmt", "DropdbStmt":
		if !n.bool("missing_ok") {
			fix = "write DROP ... IF EXISTS"
		}
	case "AlterEnumStmt":
		if n.str("oldVal") == "" && !n.bool("skipIfNewValExists") {
			fix = "write ALTER TYPE ... ADD VALUE IF NOT EXISTS"
		}
	case "AlterTableStmt":
		table := rangeVarName(n.get("relation"))
		for _, c := range n.list("cmds") {
			cmd := is(c, "AlterTableCmd")
			key := constraintKey{table, cmd.str("name")}
			switch cmd.str("subtype") {
			case "AT_AddColumn":
				switch {
				case n.str("objtype") == "OBJECT_TYPE": // ALTER TYPE ... ADD ATTRIBUTE has no IF NOT EXISTS
					fix = inTransaction
				case !cmd.bool("missing_ok"):
					fix = "write ADD COLUMN IF NOT EXISTS"
				}
			case "AT_AttachPartition", "AT_AddInherit", "AT_AddIdentity":
				fix = inTransaction
			case "AT_DropColumn", "AT_DropConstraint":
				if !cmd.bool("missing_ok") {
					fix = "write DROP ... IF EXISTS"
				} else if cmd.str("subtype") == "AT_DropConstraint" {
					l.droppedIfExists[key] = true
				}
			case "AT_AddConstraint":
				if l.droppedIfExists[constraintKey{table, constraintName(table.name, is(cmd["def"], "Constraint"))}] {
					continue
				}
				fix = "move it to a file that runs in a transaction (only what PostgreSQL refuses in a transaction needs -- codeloc:no-transaction), or drop it first: ALTER TABLE ... DROP CONSTRAINT IF EXISTS name, ADD CONSTRAINT name ..."
			}
			if fix != "" {
				break
			}
		}
	case "RenameStmt", "CreateDomainStmt", "CreateEnumStmt", "CompositeTypeStmt", "CreateRangeStmt":
		fix = inTransaction
	case "SelectStmt":
		if n["intoClause"] != nil {
			fix = "write CREATE TABLE IF NOT EXISTS ... AS"
		}
	case "CreateForeignTableStmt":
		if !n.get("base").bool("if_not_exists") {
			fix = "write CREATE FOREIGN TABLE IF NOT EXISTS"
		}
	default:
		fix = otherCreate(k, n)
	}
	if fix == "" {
		return
	}
	l.find(RuleNotRerunnable, -1, fmt.Sprintf("%s in a -- codeloc:no-transaction file fails or does its work twice when run again, and a run that stops half way is retried from the file's first statement", statementName(k)),
		fix)
}

const inTransaction = "move it to a file that runs in a transaction: only what PostgreSQL refuses in a transaction needs -- codeloc:no-transaction"

// refusedInTransaction are the CREATE statements PostgreSQL refuses in a
// transaction block: they have nowhere else to go.
var refusedInTransaction = map[string]bool{"CreatedbStmt": true, "CreateTableSpaceStmt": true, "CreateSubscriptionStmt": true}

// otherCreate judges the CREATE statements the switch of rerunnable does
// not name (CREATE POLICY, STATISTICS, ROLE, PUBLICATION, CAST, AGGREGATE,
// OPERATOR, COLLATION, RULE, SERVER, ...): each fails when its object
// exists, unless it says IF NOT EXISTS or OR REPLACE.
func otherCreate(k string, n node) string {
	if !strings.HasPrefix(k, "Create") && k != "DefineStmt" && k != "RuleStmt" {
		return ""
	}
	if refusedInTransaction[k] || n.bool("if_not_exists") || n.bool("replace") {
		return ""
	}
	return "write IF NOT EXISTS or OR REPLACE where the statement has one; else " + inTransaction
}

// statementNames names the statement kinds whose name does not follow
// from their node's (CreatePolicyStmt: CREATE POLICY).
var statementNames = map[string]string{
	"CreateStmt":              "CREATE TABLE",
	"CreateSeqStmt":           "CREATE SEQUENCE",
	"CreateTableAsStmt":       "CREATE TABLE AS (or MATERIALIZED VIEW)",
	"IndexStmt":               "CREATE INDEX",
	"ViewStmt":                "CREATE VIEW",
	"CreateTrigStmt":          "CREATE TRIGGER",
	"DropStmt":                "DROP",
	"DropdbStmt":              "DROP",
	"AlterEnumStmt":           "ALTER TYPE ... ADD VALUE",
	"AlterTableStmt":          "ALTER TABLE",
	"RenameStmt":              "a rename",
	"CreateEnumStmt":          "CREATE TYPE",
	"CompositeTypeStmt":       "CREATE TYPE",
	"CreateRangeStmt":         "CREATE TYPE",
	"SelectStmt":              "SELECT ... INTO",
	"DefineStmt":              "CREATE AGGREGATE, OPERATOR, TYPE, COLLATION or TEXT SEARCH object",
	"RuleStmt":                "CREATE RULE",
	"CreateStatsStmt":         "CREATE STATISTICS",
	"CreateEventTrigStmt":     "CREATE EVENT TRIGGER",
	"CreatePLangStmt":         "CREATE LANGUAGE",
	"CreateAmStmt":            "CREATE ACCESS METHOD",
	"CreateOpClassStmt":       "CREATE OPERATOR CLASS",
	"CreateOpFamilyStmt":      "CREATE OPERATOR FAMILY",
	"CreateFdwStmt":           "CREATE FOREIGN DATA WRAPPER",
	"CreateForeignServerStmt": "CREATE SERVER",
}

// statementName names a statement kind for a message: from statementNames,
// else from the words of the node's name (CreateUserMappingStmt: CREATE
// USER MAPPING).
func statementName(k string) string {
	if name, ok := statementNames[k]; ok {
		return name
	}
	var b strings.Builder
	for i, r := range strings.TrimSuffix(k, "Stmt") {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}
