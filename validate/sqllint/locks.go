package sqllint

import "strings"

// alterLock returns the lock an ALTER TABLE subcommand takes on the table
// when it blocks reads or writes (SHARE ROW EXCLUSIVE, ACCESS EXCLUSIVE),
// or "" for the SHARE UPDATE EXCLUSIVE forms, which let both through. From
// the lock levels of PostgreSQL's ALTER TABLE page (AlterTableGetLockLevel).
func alterLock(cmd node) string {
	switch cmd.str("subtype") {
	case "AT_ValidateConstraint", "AT_SetStatistics", "AT_SetOptions", "AT_ResetOptions",
		"AT_ClusterOn", "AT_DropCluster", "AT_DetachPartitionFinalize":
		return ""
	case "AT_DetachPartition":
		if is(cmd["def"], "PartitionCmd").bool("concurrent") {
			return ""
		}
	case "AT_SetRelOptions", "AT_ResetRelOptions":
		for _, o := range is(cmd["def"], "List").list("items") {
			if !weakRelOption(is(o, "DefElem")) {
				return "ACCESS EXCLUSIVE"
			}
		}
		return ""
	case "AT_EnableTrig", "AT_EnableAlwaysTrig", "AT_EnableReplicaTrig", "AT_DisableTrig",
		"AT_EnableTrigAll", "AT_DisableTrigAll", "AT_EnableTrigUser", "AT_DisableTrigUser":
		return "SHARE ROW EXCLUSIVE"
	case "AT_AddConstraint":
		if is(cmd["def"], "Constraint").str("contype") == "CONSTR_FOREIGN" {
			return "SHARE ROW EXCLUSIVE"
		}
	}
	return "ACCESS EXCLUSIVE"
}

// weakRelOption reports whether setting or resetting a storage parameter
// takes only a SHARE UPDATE EXCLUSIVE lock: fillfactor, the autovacuum and
// TOAST parameters, parallel_workers (PostgreSQL's reloptions table).
func weakRelOption(d node) bool {
	if d == nil {
		return false
	}
	name := d.str("defname")
	if d.str("defnamespace") == "toast" {
		return true
	}
	switch name {
	case "fillfactor", "toast_tuple_target", "parallel_workers", "vacuum_index_cleanup", "vacuum_truncate",
		"log_autovacuum_min_duration":
		return true
	}
	return strings.HasPrefix(name, "autovacuum_")
}

// subcommand names an ALTER TABLE subcommand for a message.
func subcommand(cmd node) string {
	switch st := cmd.str("subtype"); st {
	case "AT_AddColumn":
		return "ADD COLUMN"
	case "AT_ColumnDefault":
		return "ALTER COLUMN ... SET/DROP DEFAULT"
	case "AT_SetNotNull":
		return "SET NOT NULL"
	case "AT_DropNotNull":
		return "DROP NOT NULL"
	case "AT_AddConstraint":
		return "ADD CONSTRAINT"
	case "AT_DropConstraint":
		return "DROP CONSTRAINT"
	case "AT_DropColumn":
		return "DROP COLUMN"
	case "AT_AlterColumnType":
		return "ALTER COLUMN ... TYPE"
	case "AT_SetRelOptions":
		return "SET (...)"
	case "AT_AttachPartition":
		return "ATTACH PARTITION (on the partition attached)"
	case "AT_DetachPartition":
		return "DETACH PARTITION"
	case "AT_SetTableSpace":
		return "SET TABLESPACE"
	case "AT_SetLogged":
		return "SET LOGGED"
	case "AT_SetUnLogged":
		return "SET UNLOGGED"
	case "AT_SetAccessMethod":
		return "SET ACCESS METHOD"
	default:
		return strings.TrimPrefix(st, "AT_")
	}
}
