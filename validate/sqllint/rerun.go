package sqllint

import "fmt"

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
				if !cmd.bool("missing_ok") {
					fix = "write ADD COLUMN IF NOT EXISTS"
				}
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
		fix = "move it to a file that runs in a transaction: only what PostgreSQL refuses in a transaction needs -- codeloc:no-transaction"
	}
	if fix == "" {
		return
	}
	l.find(RuleNotRerunnable, -1, fmt.Sprintf("%s in a -- codeloc:no-transaction file fails or does its work twice when run again, and a run that stops half way is retried from the file's first statement", statementName(k)),
		fix)
}

// statementName names a statement kind for a message.
func statementName(k string) string {
	switch k {
	case "CreateStmt":
		return "CREATE TABLE"
	case "CreateSchemaStmt":
		return "CREATE SCHEMA"
	case "CreateSeqStmt":
		return "CREATE SEQUENCE"
	case "CreateExtensionStmt":
		return "CREATE EXTENSION"
	case "CreateTableAsStmt":
		return "CREATE TABLE AS (or MATERIALIZED VIEW)"
	case "IndexStmt":
		return "CREATE INDEX"
	case "ViewStmt":
		return "CREATE VIEW"
	case "CreateFunctionStmt":
		return "CREATE FUNCTION"
	case "CreateTrigStmt":
		return "CREATE TRIGGER"
	case "DropStmt", "DropdbStmt":
		return "DROP"
	case "AlterEnumStmt":
		return "ALTER TYPE ... ADD VALUE"
	case "AlterTableStmt":
		return "ALTER TABLE"
	case "RenameStmt":
		return "a rename"
	case "CreateDomainStmt":
		return "CREATE DOMAIN"
	default:
		return "CREATE TYPE"
	}
}
