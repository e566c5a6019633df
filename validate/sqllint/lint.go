package sqllint

import (
	"fmt"
	"slices"
	"strings"
	"time"

	pgq "github.com/pganalyze/pg_query_go/v6"

	"github.com/codeloc/codeloc/internal/sqltext"
)

// Config is what the cluster contract says about migrations.
type Config struct {
	// Severities gives each rule its severity (policy.migrations); a rule
	// missing from it has its default.
	Severities map[string]Severity
	// LockTimeout is database.migrations.lockTimeout, which the migration
	// Job sets before each file; 0 sets none.
	LockTimeout time.Duration
}

// Finding is one thing the lint says about a file, at a 1-based line and
// column (in characters).
type Finding struct {
	Code     string
	Severity Severity // Error or Warning
	// Allowed is the reason of the `-- codeloc:allow` comment that silenced
	// the rule: the finding is then a warning that says so.
	Allowed string
	Line    int
	Column  int
	Message string
	Hint    string
}

// Lint reads one migration file with PostgreSQL's grammar and returns its
// findings in file order. A file PostgreSQL refuses yields one sql-syntax
// finding and nothing else.
func Lint(sql string, cfg Config) []Finding {
	tree, scan, err := parse(sql)
	l := &linter{sql: sql, lines: lineStarts(sql), cfg: cfg, noTx: sqltext.NoTransaction(sql), created: map[string]bool{},
		lockTimeout: cfg.LockTimeout > 0}
	if err != nil {
		f := Finding{Code: CodeSyntax, Severity: Error, Line: 1, Column: 1, Message: err.Error(),
			Hint: "PostgreSQL refuses the file as written, and the migration Job would fail on it: fix the SQL at this position"}
		if se, ok := err.(*syntaxError); ok && se.Offset >= 0 {
			f.Line, f.Column = l.position(se.Offset)
		}
		return []Finding{f}
	}
	l.readAllows(scan)
	for _, raw := range tree.GetStmts() {
		l.statement(raw)
	}
	slices.SortStableFunc(l.out, func(a, b Finding) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	return l.out
}

// linter is the state of one file's walk.
type linter struct {
	sql     string
	lines   []int // byte offset of each line's start
	cfg     Config
	noTx    bool
	created map[string]bool // tables (and indexes) created by the file itself
	// lockTimeout: a non-zero lock_timeout is in force (the contract's, or
	// the file's own SET).
	lockTimeout bool
	allows      []allow
	out         []Finding

	// per statement
	start    int // byte offset of the statement's first character of code
	reported bool
}

func (l *linter) severity(code string) Severity {
	if s, ok := l.cfg.Severities[code]; ok {
		return s
	}
	for _, r := range Rules {
		if r.Code == code {
			return r.Default
		}
	}
	return Error
}

// find records a finding of rule code at byte offset at (-1: the statement's
// start), unless the contract turns the rule off or an allow comment
// covers the statement.
func (l *linter) find(code string, at int, message, hint string) {
	sev := l.severity(code)
	if sev == Off {
		return
	}
	if at < 0 {
		at = l.start
	}
	f := Finding{Code: code, Severity: sev, Message: message, Hint: hint}
	f.Line, f.Column = l.position(at)
	if a := l.allowFor(code); a != nil {
		f.Severity, f.Allowed = Warning, a.reason
		f.Message, f.Hint = "allowed: "+a.reason, ""
	} else {
		l.reported = true
	}
	l.out = append(l.out, f)
}

func (l *linter) statement(raw *pgq.RawStmt) {
	loc, end := int(raw.GetStmtLocation()), len(l.sql)
	if n := int(raw.GetStmtLen()); n > 0 {
		end = loc + n
	}
	l.start = loc
	if st := sqltext.Split(l.sql[loc:end]); len(st) > 0 {
		l.start = loc + st[0].Offset
	}
	l.reported = false
	strong := l.check(raw.GetStmt())
	if strong != "" && !l.lockTimeout && !l.reported {
		l.find(RuleLockTimeout, -1, strong+" with no lock_timeout in force: it queues behind any long transaction on the table, and every query on the table queues behind it",
			"set database.migrations.lockTimeout in the contract, or SET lock_timeout = '5s' earlier in the file, so that a blocked migration fails fast and Argo CD retries it")
	}
}

// check applies the rules to one statement; it returns what strong lock
// the statement takes on an existing table ("" for none), for the
// lock_timeout rule.
func (l *linter) check(n *pgq.Node) string {
	switch {
	case n.GetIndexStmt() != nil:
		return l.createIndex(n.GetIndexStmt())
	case n.GetDropStmt() != nil:
		return l.drop(n.GetDropStmt())
	case n.GetReindexStmt() != nil:
		return l.reindex(n.GetReindexStmt())
	case n.GetAlterTableStmt() != nil:
		return l.alterTable(n.GetAlterTableStmt())
	case n.GetRenameStmt() != nil:
		return l.rename(n.GetRenameStmt())
	case n.GetTransactionStmt() != nil:
		l.find(RuleTransactionControl, -1, "a transaction command inside a migration: the runner already runs each file in a transaction of its own, and a COMMIT here ends it early, so that a failure after it leaves the file half applied",
			"remove it: each file is one transaction; a file that must run outside one starts with the line -- codeloc:no-transaction")
	case n.GetVariableSetStmt() != nil:
		l.setVariable(n.GetVariableSetStmt())
	case n.GetCreateStmt() != nil:
		l.created[n.GetCreateStmt().GetRelation().GetRelname()] = true
	case n.GetCreateTableAsStmt() != nil:
		l.created[n.GetCreateTableAsStmt().GetInto().GetRel().GetRelname()] = true
	case n.GetTruncateStmt() != nil:
		return "TRUNCATE takes an ACCESS EXCLUSIVE lock"
	case n.GetLockStmt() != nil:
		return "LOCK TABLE takes a strong lock"
	case n.GetCreateTrigStmt() != nil:
		if !l.created[n.GetCreateTrigStmt().GetRelation().GetRelname()] {
			return "CREATE TRIGGER takes a SHARE ROW EXCLUSIVE lock"
		}
	}
	return ""
}

const noTxHint = "in a file whose first line is -- codeloc:no-transaction"

func (l *linter) createIndex(s *pgq.IndexStmt) string {
	table := s.GetRelation().GetRelname()
	if s.GetIdxname() != "" {
		l.created[s.GetIdxname()] = true
	}
	if s.GetConcurrent() {
		l.concurrentlyInTx("CREATE INDEX CONCURRENTLY")
		return ""
	}
	if l.created[table] {
		return ""
	}
	l.find(RuleIndexBlocking, -1, fmt.Sprintf("CREATE INDEX on the existing table %q takes a SHARE lock: every INSERT, UPDATE and DELETE on it waits for the whole build", table),
		"build it with CREATE INDEX CONCURRENTLY "+noTxHint)
	return "CREATE INDEX takes a SHARE lock"
}

func (l *linter) concurrentlyInTx(what string) {
	if !l.noTx {
		l.find(RuleConcurrentlyInTx, -1, what+" cannot run inside a transaction block: PostgreSQL refuses it and the migration fails",
			"make -- codeloc:no-transaction the file's first line (the Job then runs the file one statement at a time, outside a transaction)")
	}
}

func (l *linter) drop(s *pgq.DropStmt) string {
	switch s.GetRemoveType() {
	case pgq.ObjectType_OBJECT_INDEX:
		if s.GetConcurrent() {
			l.concurrentlyInTx("DROP INDEX CONCURRENTLY")
			return ""
		}
		if l.allCreated(s.GetObjects()) {
			return ""
		}
		l.find(RuleIndexBlocking, -1, "DROP INDEX takes an ACCESS EXCLUSIVE lock on the index's table: every query on the table waits for it",
			"drop it with DROP INDEX CONCURRENTLY "+noTxHint)
		return "DROP INDEX takes an ACCESS EXCLUSIVE lock"
	case pgq.ObjectType_OBJECT_TABLE, pgq.ObjectType_OBJECT_SCHEMA:
		if l.allCreated(s.GetObjects()) {
			return ""
		}
		what := "DROP TABLE"
		if s.GetRemoveType() == pgq.ObjectType_OBJECT_SCHEMA {
			what = "DROP SCHEMA"
		}
		l.find(RuleDrop, -1, what+": the previous revision's pods still use it while the rollout runs, and its data is gone for good",
			"stop using it in one revision and drop it in a later one, with -- codeloc:allow sql-drop <reason> above the statement")
		return what + " takes an ACCESS EXCLUSIVE lock"
	}
	return ""
}

// allCreated reports whether every object a DROP names was created by the
// file itself (its last name, as the file wrote it).
func (l *linter) allCreated(objects []*pgq.Node) bool {
	for _, o := range objects {
		items := o.GetList().GetItems()
		if len(items) == 0 {
			items = []*pgq.Node{o}
		}
		if !l.created[items[len(items)-1].GetString_().GetSval()] {
			return false
		}
	}
	return len(objects) > 0
}

func (l *linter) reindex(s *pgq.ReindexStmt) string {
	for _, p := range s.GetParams() {
		if d := p.GetDefElem(); d != nil && d.GetDefname() == "concurrently" && defBool(d) {
			l.concurrentlyInTx("REINDEX CONCURRENTLY")
			return ""
		}
	}
	l.find(RuleReindexBlocking, -1, "REINDEX without CONCURRENTLY blocks writes to the table, and reads that use the index, for the whole rebuild",
		"rebuild it with REINDEX INDEX CONCURRENTLY (or TABLE CONCURRENTLY) "+noTxHint)
	return "REINDEX takes a SHARE lock on the table"
}

// defBool reads a DefElem option's boolean: no argument is true.
func defBool(d *pgq.DefElem) bool {
	arg := d.GetArg()
	if arg == nil {
		return true
	}
	switch v := strings.ToLower(constString(arg)); v {
	case "false", "off", "0", "no":
		return false
	}
	return true
}

func (l *linter) alterTable(s *pgq.AlterTableStmt) string {
	table := s.GetRelation().GetRelname()
	if s.GetObjtype() != pgq.ObjectType_OBJECT_TABLE || l.created[table] {
		return ""
	}
	strong := ""
	for _, c := range s.GetCmds() {
		cmd := c.GetAlterTableCmd()
		if cmd == nil {
			continue
		}
		if cmd.GetSubtype() != pgq.AlterTableType_AT_ValidateConstraint {
			strong = "ALTER TABLE takes an ACCESS EXCLUSIVE lock"
		}
		l.alterCmd(table, cmd)
	}
	return strong
}

func (l *linter) alterCmd(table string, cmd *pgq.AlterTableCmd) {
	switch cmd.GetSubtype() {
	case pgq.AlterTableType_AT_AddColumn:
		l.addColumn(table, cmd.GetDef().GetColumnDef())
	case pgq.AlterTableType_AT_AlterColumnType:
		l.find(RuleColumnTypeChange, l.nodeAt(cmd.GetDef().GetColumnDef().GetLocation()),
			fmt.Sprintf("ALTER COLUMN %q TYPE rewrites the table %q and its indexes under an ACCESS EXCLUSIVE lock (every type change but a few binary-compatible ones)", cmd.GetName(), table),
			"add a column of the new type, backfill it in batches, switch the code to it, and drop the old column in a later revision")
	case pgq.AlterTableType_AT_SetNotNull:
		l.find(RuleSetNotNull, -1, fmt.Sprintf("SET NOT NULL on %q scans the whole table %q under an ACCESS EXCLUSIVE lock", cmd.GetName(), table),
			"ADD CONSTRAINT ... CHECK (col IS NOT NULL) NOT VALID, then VALIDATE CONSTRAINT in a later statement, then SET NOT NULL, which uses the validated constraint and skips the scan")
	case pgq.AlterTableType_AT_AddConstraint:
		l.addConstraint(table, cmd.GetDef().GetConstraint())
	case pgq.AlterTableType_AT_DropColumn:
		l.find(RuleDrop, -1, fmt.Sprintf("DROP COLUMN %q: the previous revision's pods still read and write it while the rollout runs, and its data is gone for good", cmd.GetName()),
			"stop using the column in one revision and drop it in a later one, with -- codeloc:allow sql-drop <reason> above the statement")
	}
}

// volatile lists functions PostgreSQL marks VOLATILE that a column default
// commonly calls: such a default is evaluated for every existing row, so
// ADD COLUMN rewrites the table. now(), CURRENT_TIMESTAMP and
// statement_timestamp() are STABLE: evaluated once, no rewrite.
var volatile = map[string]bool{
	"random": true, "random_normal": true, "clock_timestamp": true, "timeofday": true,
	"gen_random_uuid": true, "uuidv4": true, "uuidv7": true, "uuid_generate_v1": true, "uuid_generate_v1mc": true,
	"uuid_generate_v4": true, "nextval": true, "txid_current": true, "pg_current_xact_id": true, "gen_random_bytes": true,
}

// serial types are integer columns with a nextval() default.
var serial = map[string]bool{"serial": true, "serial4": true, "bigserial": true, "serial8": true, "smallserial": true, "serial2": true}

func (l *linter) addColumn(table string, col *pgq.ColumnDef) {
	if col == nil {
		return
	}
	at := l.nodeAt(col.GetLocation())
	var notNull, hasDefault bool
	for _, cn := range col.GetConstraints() {
		c := cn.GetConstraint()
		switch c.GetContype() {
		case pgq.ConstrType_CONSTR_NOTNULL:
			notNull = true
		case pgq.ConstrType_CONSTR_DEFAULT:
			hasDefault = true
			if fn := volatileCall(c.GetRawExpr()); fn != "" {
				l.find(RuleVolatileDefault, l.nodeAt(c.GetLocation()),
					fmt.Sprintf("ADD COLUMN %q with the volatile default %s(): PostgreSQL computes it for every row, rewriting the table %q and its indexes under an ACCESS EXCLUSIVE lock", col.GetColname(), fn, table),
					"add the column without a default, then ALTER COLUMN ... SET DEFAULT (new rows only), and backfill the existing rows in batches")
			}
		case pgq.ConstrType_CONSTR_IDENTITY, pgq.ConstrType_CONSTR_GENERATED:
			hasDefault = true
			l.find(RuleVolatileDefault, l.nodeAt(c.GetLocation()),
				fmt.Sprintf("ADD COLUMN %q as an identity or stored generated column: PostgreSQL computes it for every row, rewriting the table %q under an ACCESS EXCLUSIVE lock", col.GetColname(), table),
				"add a plain nullable column, backfill it in batches, then attach the sequence or the trigger that fills it")
		case pgq.ConstrType_CONSTR_PRIMARY, pgq.ConstrType_CONSTR_UNIQUE:
			l.uniqueConstraint(table, l.nodeAt(c.GetLocation()))
		case pgq.ConstrType_CONSTR_CHECK, pgq.ConstrType_CONSTR_FOREIGN:
			if !c.GetSkipValidation() {
				l.constraintValidated(table, l.nodeAt(c.GetLocation()))
			}
		}
	}
	if tn := col.GetTypeName(); len(tn.GetNames()) > 0 && serial[tn.GetNames()[len(tn.GetNames())-1].GetString_().GetSval()] {
		hasDefault = true
		l.find(RuleVolatileDefault, at,
			fmt.Sprintf("ADD COLUMN %q of a serial type: its default nextval() is volatile, so PostgreSQL numbers every row, rewriting the table %q under an ACCESS EXCLUSIVE lock", col.GetColname(), table),
			"add a plain nullable integer column, backfill it in batches, then attach a sequence with ALTER COLUMN ... SET DEFAULT nextval(...)")
	}
	if notNull && !hasDefault {
		l.find(RuleAddColumnNotNull, at,
			fmt.Sprintf("ADD COLUMN %q NOT NULL without a default fails on a table %q that has rows, and the running revision's INSERTs do not set it", col.GetColname(), table),
			"add it nullable (or NOT NULL with a constant DEFAULT), backfill, then add the NOT NULL in a later revision")
	}
}

// volatileCall returns the name of a known-volatile function the
// expression calls, or "".
func volatileCall(n *pgq.Node) string {
	found := ""
	walk(n, func(f *pgq.FuncCall) {
		if names := f.GetFuncname(); found == "" && len(names) > 0 {
			if name := names[len(names)-1].GetString_().GetSval(); volatile[name] {
				found = name
			}
		}
	})
	return found
}

func (l *linter) addConstraint(table string, c *pgq.Constraint) {
	at := l.nodeAt(c.GetLocation())
	switch c.GetContype() {
	case pgq.ConstrType_CONSTR_CHECK, pgq.ConstrType_CONSTR_FOREIGN:
		if !c.GetSkipValidation() {
			l.constraintValidated(table, at)
		}
	case pgq.ConstrType_CONSTR_PRIMARY, pgq.ConstrType_CONSTR_UNIQUE, pgq.ConstrType_CONSTR_EXCLUSION:
		if c.GetIndexname() == "" {
			l.uniqueConstraint(table, at)
		}
	}
}

func (l *linter) constraintValidated(table string, at int) {
	l.find(RuleConstraintValidated, at,
		fmt.Sprintf("a CHECK or FOREIGN KEY constraint added to the existing table %q checks every row under a lock that blocks its writes (a FOREIGN KEY locks the referenced table too)", table),
		"add it NOT VALID (new rows are checked at once), then ALTER TABLE ... VALIDATE CONSTRAINT in a later statement, which lets writes through")
}

func (l *linter) uniqueConstraint(table string, at int) {
	l.find(RuleUniqueConstraint, at,
		fmt.Sprintf("a UNIQUE or PRIMARY KEY constraint added to the existing table %q builds its index under an ACCESS EXCLUSIVE lock: every query on the table waits for the build", table),
		"CREATE UNIQUE INDEX CONCURRENTLY in a no-transaction file, then ALTER TABLE ... ADD CONSTRAINT ... UNIQUE USING INDEX (or PRIMARY KEY USING INDEX)")
}

func (l *linter) rename(s *pgq.RenameStmt) string {
	table := s.GetRelation().GetRelname()
	if l.created[table] {
		return ""
	}
	switch s.GetRenameType() {
	case pgq.ObjectType_OBJECT_TABLE:
		l.find(RuleRename, -1, fmt.Sprintf("renaming the table %q to %q: the previous revision's pods still query the old name while the rollout runs", table, s.GetNewname()),
			"create the new table (or a view named as the new one), move the code to it, and drop the old name in a later revision")
	case pgq.ObjectType_OBJECT_COLUMN:
		l.find(RuleRename, -1, fmt.Sprintf("renaming the column %q of %q to %q: the previous revision's pods still use the old name while the rollout runs", s.GetSubname(), table, s.GetNewname()),
			"add the new column, write both from the code, backfill, and drop the old one in a later revision")
	}
	if s.GetRelation() != nil {
		return "ALTER ... RENAME takes an ACCESS EXCLUSIVE lock"
	}
	return ""
}

func (l *linter) setVariable(s *pgq.VariableSetStmt) {
	if s.GetName() != "lock_timeout" {
		return
	}
	switch s.GetKind() {
	case pgq.VariableSetKind_VAR_SET_VALUE:
		args := s.GetArgs()
		l.lockTimeout = len(args) > 0 && !zeroSetting(constString(args[0]))
	case pgq.VariableSetKind_VAR_SET_DEFAULT, pgq.VariableSetKind_VAR_RESET, pgq.VariableSetKind_VAR_RESET_ALL:
		l.lockTimeout = l.cfg.LockTimeout > 0
	}
}

// zeroSetting reports whether a lock_timeout value disables it: 0 with or
// without a unit.
func zeroSetting(v string) bool {
	v = strings.TrimSpace(strings.ToLower(v))
	v = strings.TrimRight(v, "abcdefghijklmnopqrstuvwxyz ")
	return strings.Trim(v, "0.") == "" && v != ""
}

// constString is an A_Const's value as text.
func constString(n *pgq.Node) string {
	c := n.GetAConst()
	switch {
	case c == nil:
		if s := n.GetString_(); s != nil {
			return s.GetSval()
		}
		return ""
	case c.GetIval() != nil:
		return fmt.Sprint(c.GetIval().GetIval())
	case c.GetSval() != nil:
		return c.GetSval().GetSval()
	case c.GetFval() != nil:
		return c.GetFval().GetFval()
	case c.GetBoolval() != nil:
		return fmt.Sprint(c.GetBoolval().GetBoolval())
	}
	return ""
}

// nodeAt returns a node's byte offset, or -1 (the statement's start) when
// libpg_query recorded none.
func (l *linter) nodeAt(loc int32) int {
	if loc < 0 || int(loc) < l.start || int(loc) > len(l.sql) {
		return -1
	}
	return int(loc)
}
