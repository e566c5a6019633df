package sqllint

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

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
// finding and nothing else. It knows nothing of earlier files: a
// code-location's migrations are linted in order with a Session.
func Lint(sql string, cfg Config) []Finding {
	return NewSession(cfg).Lint(sql)
}

// Lint reads the next migration file of the session (files in the order the
// Job applies them) and returns its findings in file order.
func (s *Session) Lint(sql string) []Finding {
	tree, scan, err := parse(sql)
	l := s.newLinter(sql)
	if err != nil {
		f := Finding{Code: CodeSyntax, Severity: Error, Line: 1, Column: 1, Message: syntaxMessage(err.Error()),
			Hint: "PostgreSQL refuses the file as written, and the migration Job would fail on it: fix the SQL at this position"}
		if se := (*syntaxError)(nil); errors.As(err, &se) && se.Offset >= 0 {
			f.Line, f.Column = l.position(se.Offset)
		}
		return []Finding{f}
	}
	l.readAllows(scan)
	for _, raw := range tree {
		l.statement(raw)
	}
	for k := range l.created {
		s.existing[k] = true
	}
	slices.SortStableFunc(l.out, func(a, b Finding) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	return l.out
}

// newLinter starts the walk of the session's next file.
func (s *Session) newLinter(sql string) *linter {
	return &linter{sql: sql, lines: lineStarts(sql), cfg: s.cfg, noTx: sqltext.NoTransaction(sql), created: map[createdKey]bool{},
		lockTimeout: s.cfg.LockTimeout > 0, s: s, outer: -1, called: map[string]bool{}, addedNotValid: map[string]string{}, droppedIfExists: map[constraintKey]bool{}}
}

// linter is the state of one file's walk.
type linter struct {
	sql     string
	lines   []int // byte offset of each line's start
	cfg     Config
	noTx    bool
	created map[createdKey]bool // what the file itself created (names.go)
	// lockTimeout: a non-zero lock_timeout is in force (the contract's, or
	// the file's own SET).
	lockTimeout bool
	allows      []allow
	out         []Finding
	s           *Session
	// addedNotValid: constraints this transactional file added NOT VALID
	// (table and name), with the lock the ADD took.
	addedNotValid map[string]string
	// droppedIfExists: constraints this no-transaction file drops IF
	// EXISTS, which makes adding them again re-runnable.
	droppedIfExists map[constraintKey]bool

	// per statement
	start    int // byte offset of the statement's first character of code
	reported bool
	// base is added to the parse tree's locations: the offset of the text
	// parsed in the file (a DO block's statement); outer is the DO
	// statement's start while its statements are linted, else -1.
	base, outer int
	// called: the functions whose bodies the file's calls linted already;
	// bodies: the DO blocks and function bodies the file's lint read;
	// constants: the EXECUTEs it read.
	called    map[string]bool
	bodies    int
	constants int // the EXECUTEs read
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
		f.Message, f.Hint = "allowed: "+cutRunes(a.reason, maxReason), ""
	} else {
		l.reported = true
	}
	l.out = append(l.out, f)
}

func (l *linter) statement(raw node) { l.statementIn(raw, l.sql, 0) }

// codeStart is the byte offset in text of the statement raw's first
// character of code (past the comments and spaces before it).
func codeStart(raw node, text string) int {
	loc, end := raw.int("stmt_location", 0), len(text)
	if n := raw.int("stmt_len", 0); n > 0 {
		end = min(loc+n, len(text))
	}
	loc = min(max(loc, 0), end)
	if st := sqltext.Split(text[loc:end]); len(st) > 0 {
		loc += st[0].Offset
	}
	return loc
}

// statementIn lints one statement of text, which starts at byte offset base
// of the file; it returns the strong lock the statement takes, as check.
func (l *linter) statementIn(raw node, text string, base int) string {
	l.start, l.base = base+codeStart(raw, text), base
	l.reported = false
	strong := l.check(raw["stmt"])
	if strong != "" && !l.lockTimeout && !l.reported {
		l.find(RuleLockTimeout, -1, strong+" with no lock_timeout in force: it queues behind any long transaction on the table, and every query on the table queues behind it",
			"set database.migrations.lockTimeout in the contract, or SET lock_timeout = '5s' earlier in the file, so that a blocked migration fails fast and Argo CD retries it")
	}
	return strong
}

// check applies the rules to one statement; it returns what strong lock
// the statement takes on an existing table ("" for none), for the
// lock_timeout rule: SHARE or stronger, the modes that block writes or
// reads and that every later query queues behind.
func (l *linter) check(stmt any) string {
	k, n := kind(stmt)
	if l.noTx {
		l.rerunnable(k, n)
	}
	if k == "CreateFunctionStmt" {
		l.defineFunction(n)
		if !n.bool("is_procedure") {
			l.s.rememberFunction(n.list("funcname"), n.list("options"))
		}
	} else {
		l.callsFunctions(stmt)
	}
	l.setConfig(stmt)
	switch k {
	case "IndexStmt":
		return l.createIndex(n)
	case "DropStmt":
		return l.drop(n)
	case "ReindexStmt":
		return l.reindex(n)
	case "AlterTableStmt":
		return l.alterTable(n)
	case "RenameStmt":
		l.s.rememberRenamedDomain(n)
		l.s.rememberMovedFunction(n)
		return l.rename(n)
	case "TransactionStmt":
		l.find(RuleTransactionControl, -1, "a transaction command inside a migration: the runner already runs each file in a transaction of its own, and a COMMIT here ends it early, so that a failure after it leaves the file half applied",
			"remove it: each file is one transaction; a file that must run outside one starts with the line -- codeloc:no-transaction")
	case "VariableSetStmt":
		l.setVariable(n)
	case "DiscardStmt":
		if n.str("target") == "DISCARD_ALL" { // DISCARD ALL runs RESET ALL
			l.lockTimeout = false
			l.searchPathChanged()
		}
	case "CreateStmt":
		rel := rangeVarName(n.get("relation"))
		l.s.rememberRevalidated(rel.name, n["tableElts"])
		strong := l.createTableLock(rel, n)
		l.createUnless(n.bool("if_not_exists"), relations, rel)
		if l.outer < 0 { // in a DO block or a function, an IF may have skipped it
			l.s.rememberTable(rel, n)
		}
		return strong
	case "CreateTableAsStmt":
		l.createUnless(n.bool("if_not_exists"), relations, rangeVarName(n.get("into").get("rel")))
	case "CreateSchemaStmt":
		l.createUnless(n.bool("if_not_exists"), schemas, objectName{name: n.str("schemaname")})
	case "CreateSeqStmt":
		l.createUnless(n.bool("if_not_exists"), relations, rangeVarName(n.get("sequence")))
	case "AlterSeqStmt":
		if !l.createdHere(relations, rangeVarName(n.get("sequence"))) {
			return "ALTER SEQUENCE takes a SHARE ROW EXCLUSIVE lock on the sequence (nextval, so every INSERT drawing a default from it, waits for it)"
		}
	case "TruncateStmt":
		return l.truncate(n)
	case "LockStmt":
		// LOCK without a mode is ACCESS EXCLUSIVE (8); SHARE is 5.
		if mode := n.int("mode", 8); mode >= 5 {
			return "LOCK TABLE in " + lockModes[mode] + " mode"
		}
	case "CreateTrigStmt":
		if !l.createdHere(relations, rangeVarName(n.get("relation"))) {
			return "CREATE TRIGGER takes a SHARE ROW EXCLUSIVE lock"
		}
	case "CreatePolicyStmt", "AlterPolicyStmt":
		if !l.createdHere(relations, rangeVarName(n.get("table"))) {
			return "CREATE or ALTER POLICY takes an ACCESS EXCLUSIVE lock on its table"
		}
	case "RuleStmt":
		if !l.createdHere(relations, rangeVarName(n.get("relation"))) {
			return "CREATE RULE takes an ACCESS EXCLUSIVE lock on its table"
		}
	case "ViewStmt":
		view := rangeVarName(n.get("view"))
		if !n.bool("replace") {
			l.create(relations, view)
		} else if !l.createdHere(relations, view) {
			return "CREATE OR REPLACE VIEW takes an ACCESS EXCLUSIVE lock on the view when it exists"
		}
	case "ClusterStmt":
		return l.cluster(n)
	case "VacuumStmt":
		return l.vacuum(n)
	case "RefreshMatViewStmt":
		return l.refresh(n)
	case "DropdbStmt":
		l.dropDatabase(n)
	case "DoStmt":
		l.doBlock(n)
	case "DropOwnedStmt":
		return l.dropOwned()
	case "AlterObjectSchemaStmt":
		l.s.rememberMovedFunction(n)
		return l.setSchema(n)
	case "AlterEnumStmt":
		l.renameEnumValue(n)
	case "AlterFunctionStmt":
		l.s.rememberAlterFunction(n)
	case "AlterTableMoveAllStmt":
		l.find(RuleTableRewrite, -1, "ALTER ... ALL IN TABLESPACE ... SET TABLESPACE copies every table (or index) of the tablespace to another under an ACCESS EXCLUSIVE lock on each: every query on them waits for the copy",
			rewriteHint)
		return "ALTER ... ALL IN TABLESPACE takes an ACCESS EXCLUSIVE lock on each table"
	case "AlterDomainStmt":
		defer l.s.rememberAlterDomain(n)
		return l.alterDomain(n)
	case "CreateDomainStmt":
		// A new domain's CHECK reads no table: no column uses it yet.
		l.create(types, partsName(n.list("domainname")))
		l.s.rememberDomain(n)
	case "CreateEnumStmt", "CreateRangeStmt":
		l.create(types, partsName(n.list("typeName")))
	case "CompositeTypeStmt":
		l.create(types, rangeVarName(n.get("typevar")))
	}
	return ""
}

// lockModes names LOCK's modes by their number in the parse tree.
var lockModes = map[int]string{1: "ACCESS SHARE", 2: "ROW SHARE", 3: "ROW EXCLUSIVE", 4: "SHARE UPDATE EXCLUSIVE",
	5: "SHARE", 6: "SHARE ROW EXCLUSIVE", 7: "EXCLUSIVE", 8: "ACCESS EXCLUSIVE"}

const noTxHint = "in a file whose first line is -- codeloc:no-transaction"

func (l *linter) createIndex(s node) string {
	rel := rangeVarName(s.get("relation"))
	table := rel.name
	l.s.rememberRevalidated(table, map[string]any{"IndexStmt": map[string]any(s)})
	if l.outer < 0 {
		l.s.rememberIndex(s)
	}
	// An index lives in its table's schema.
	l.createUnless(s.bool("if_not_exists"), relations, objectName{schema: rel.schema, name: s.str("idxname")})
	if s.bool("concurrent") {
		l.concurrentlyInTx("CREATE INDEX CONCURRENTLY")
		return ""
	}
	if l.createdHere(relations, rel) {
		return ""
	}
	if !s.get("relation").bool("inh") && l.s.partitioned[rel] {
		// ON ONLY a partitioned table: an invalid index on the parent
		// alone, nothing built.
		return "CREATE INDEX ... ON ONLY takes a SHARE lock"
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

func (l *linter) drop(s node) string {
	what := s.str("removeType")
	switch what {
	case "OBJECT_INDEX":
		for _, o := range s.list("objects") {
			l.s.forgetIndex(listName(o).name)
		}
		if s.bool("concurrent") {
			l.concurrentlyInTx("DROP INDEX CONCURRENTLY")
			return ""
		}
		if l.allCreated(relations, s.list("objects")) {
			return ""
		}
		l.find(RuleIndexBlocking, -1, "DROP INDEX takes an ACCESS EXCLUSIVE lock on the index's table: every query on the table waits for it",
			"drop it with DROP INDEX CONCURRENTLY "+noTxHint)
		return "DROP INDEX takes an ACCESS EXCLUSIVE lock"
	case "OBJECT_TABLE", "OBJECT_SCHEMA":
		ns, forget := schemas, l.s.forgetSchema
		if what == "OBJECT_TABLE" {
			ns, forget = relations, l.s.forgetTable
		}
		for _, o := range s.list("objects") {
			forget(listName(o).name)
		}
		if l.allCreated(ns, s.list("objects")) {
			return ""
		}
		what = "DROP " + what[len("OBJECT_"):]
		l.find(RuleDrop, -1, what+": the previous revision's pods still use it while the rollout runs, and its data is gone for good",
			"stop using it in one revision and drop it in a later one, with -- codeloc:allow sql-drop <reason> above the statement")
		return what + " takes an ACCESS EXCLUSIVE lock"
	}
	// Without CASCADE, PostgreSQL refuses to drop what a column uses.
	if s.str("behavior") != "DROP_CASCADE" || cascadeReachesNoColumn[what] {
		return l.dropLock(what, s.list("objects"))
	}
	l.s.forgetAllTables() // a column or a CHECK that used it is gone with it
	if (what == "OBJECT_TYPE" || what == "OBJECT_DOMAIN") && l.allCreated(types, s.list("objects")) {
		return ""
	}
	what = "DROP " + objectKind(what) + " ... CASCADE"
	l.find(RuleDrop, -1, what+" also drops every column (and table, index, default) that depends on it, in every table of the database, which the file does not name: their data is gone for good",
		"drop it without CASCADE, so that PostgreSQL refuses while anything uses it; drop or change those columns first, in a later revision than the code that stops using them")
	return what + " takes an ACCESS EXCLUSIVE lock on each table it changes"
}

// dropLock is the lock a DROP that no rule reports takes on a table or view
// the file did not create: a trigger, policy or rule is dropped under an
// ACCESS EXCLUSIVE lock on its table, a view under one on itself.
func (l *linter) dropLock(what string, objects []any) string {
	for _, o := range objects {
		name := listName(o)
		switch what {
		case "OBJECT_TRIGGER", "OBJECT_POLICY", "OBJECT_RULE": // [schema.]table.name
			parts := is(o, "List").list("items")
			if len(parts) < 2 {
				continue
			}
			name = partsName(parts[:len(parts)-1])
		case "OBJECT_VIEW", "OBJECT_MATVIEW":
		default:
			return ""
		}
		if !l.createdHere(relations, name) {
			return "DROP " + objectKind(what) + " takes an ACCESS EXCLUSIVE lock on " + name.name
		}
	}
	return ""
}

// createTableLock is the lock a CREATE TABLE takes on a table the file did
// not create: ACCESS EXCLUSIVE on the partitioned table of PARTITION OF,
// SHARE ROW EXCLUSIVE on the table a FOREIGN KEY references (its triggers
// are added there), unless that is the new table itself.
func (l *linter) createTableLock(table objectName, create node) string {
	if create["partbound"] != nil {
		for _, parent := range create.list("inhRelations") {
			if rel := rangeVarName(is(parent, "RangeVar")); !l.createdHere(relations, rel) {
				return "CREATE TABLE ... PARTITION OF takes an ACCESS EXCLUSIVE lock on the partitioned table " + rel.name
			}
		}
	}
	strong := ""
	walk(create["tableElts"], func(k string, n node) {
		if k != "Constraint" || n.str("contype") != "CONSTR_FOREIGN" || strong != "" {
			return
		}
		rel := rangeVarName(n.get("pktable"))
		itself := rel.name == table.name && (rel.schema == table.schema || rel.schema == "" || table.schema == "")
		if !itself && !l.createdHere(relations, rel) {
			strong = "CREATE TABLE with a FOREIGN KEY takes a SHARE ROW EXCLUSIVE lock on the referenced table " + rel.name
		}
	})
	return strong
}

// cascadeReachesNoColumn are the objects whose DROP ... CASCADE cannot take
// a column or a table along: no column's type, default, generated
// expression, CHECK or index uses them (an aggregate or a procedure may not
// appear there; a view's dependents are views). A type, domain, collation,
// function, operator, operator class, text search configuration, language,
// access method (its tables), server (its foreign tables), extension or
// sequence (the defaults calling it) may.
var cascadeReachesNoColumn = map[string]bool{"OBJECT_VIEW": true, "OBJECT_MATVIEW": true, "OBJECT_PROCEDURE": true, "OBJECT_AGGREGATE": true,
	"OBJECT_TRIGGER": true, "OBJECT_POLICY": true, "OBJECT_RULE": true, "OBJECT_PUBLICATION": true, "OBJECT_EVENT_TRIGGER": true,
	"OBJECT_STATISTIC_EXT": true, "OBJECT_CAST": true, "OBJECT_CONVERSION": true, "OBJECT_TRANSFORM": true}

// objectKinds names the DROP kinds whose name does not follow from their
// parse tree's (OBJECT_FOREIGN_TABLE: FOREIGN TABLE).
var objectKinds = map[string]string{"OBJECT_FDW": "FOREIGN DATA WRAPPER", "OBJECT_FOREIGN_SERVER": "SERVER",
	"OBJECT_TSCONFIGURATION": "TEXT SEARCH CONFIGURATION", "OBJECT_TSDICTIONARY": "TEXT SEARCH DICTIONARY",
	"OBJECT_TSPARSER": "TEXT SEARCH PARSER", "OBJECT_TSTEMPLATE": "TEXT SEARCH TEMPLATE",
	"OBJECT_OPCLASS": "OPERATOR CLASS", "OBJECT_OPFAMILY": "OPERATOR FAMILY"}

// objectKind names a DROP's kind for a message.
func objectKind(what string) string {
	if name, ok := objectKinds[what]; ok {
		return name
	}
	return strings.ReplaceAll(strings.TrimPrefix(what, "OBJECT_"), "_", " ")
}

// dropOwned: DROP OWNED BY drops every object the roles own in the
// database, tables included.
func (l *linter) dropOwned() string {
	l.s.forgetAllTables()
	l.find(RuleDrop, -1, "DROP OWNED BY drops every table, view, sequence and function the roles own in this database (and revokes their privileges): the previous revision's pods still use them, and the data is gone for good",
		"drop the objects by name, each in the revision after the code stops using it; REASSIGN OWNED BY moves them to another role instead")
	return "DROP OWNED takes an ACCESS EXCLUSIVE lock on each table it drops"
}

// allCreated reports whether the file itself created every object a DROP
// names, under the name the DROP writes.
func (l *linter) allCreated(ns namespace, objects []any) bool {
	for _, o := range objects {
		if !l.createdHere(ns, listName(o)) {
			return false
		}
	}
	return len(objects) > 0
}

func (l *linter) reindex(s node) string {
	for _, p := range s.list("params") {
		if d := is(p, "DefElem"); d != nil && d.str("defname") == "concurrently" && defBool(d) {
			l.concurrentlyInTx("REINDEX CONCURRENTLY")
			return ""
		}
	}
	if k := s.str("kind"); (k == "REINDEX_OBJECT_TABLE" || k == "REINDEX_OBJECT_INDEX") && l.createdHere(relations, rangeVarName(s.get("relation"))) {
		return ""
	}
	l.find(RuleReindexBlocking, -1, "REINDEX without CONCURRENTLY blocks writes to the table, and reads that use the index, for the whole rebuild",
		"rebuild it with REINDEX INDEX CONCURRENTLY (or TABLE CONCURRENTLY) "+noTxHint)
	return "REINDEX takes a SHARE lock on the table"
}

// defBool reads a DefElem option's boolean: no argument is true.
func defBool(d node) bool {
	arg, ok := d["arg"]
	if !ok {
		return true
	}
	switch v := strings.ToLower(strings.TrimSpace(constString(arg))); v {
	case "false", "off", "0", "no", "f", "n", "of", "fa", "fal", "fals":
		return false
	}
	return true
}

func (l *linter) alterTable(s node) string {
	rel := rangeVarName(s.get("relation"))
	l.s.existing[createdKey{relations, rel}] = true
	switch s.str("objtype") {
	case "OBJECT_TABLE":
	case "OBJECT_INDEX", "OBJECT_MATVIEW":
		return l.moveRelation(rel, s)
	case "OBJECT_VIEW":
		if !l.createdHere(relations, rel) {
			return "ALTER VIEW takes an ACCESS EXCLUSIVE lock on the view"
		}
		return ""
	default:
		return ""
	}
	if l.createdHere(relations, rel) {
		for _, c := range s.list("cmds") {
			if cmd := is(c, "AlterTableCmd"); cmd != nil {
				l.remember(rel, cmd)
			}
		}
		return ""
	}
	strong := ""
	for _, c := range s.list("cmds") {
		cmd := is(c, "AlterTableCmd")
		if cmd == nil {
			continue
		}
		if lock := alterLock(cmd); lock != "" && strong == "" {
			strong = "ALTER TABLE ... " + subcommand(cmd) + " takes an " + lock + " lock"
		}
		l.alterCmd(rel, cmd)
		l.remember(rel, cmd)
	}
	return strong
}

// moveRelation: ALTER INDEX or ALTER MATERIALIZED VIEW ... SET TABLESPACE
// copies the relation under an ACCESS EXCLUSIVE lock (every query that
// plans on the index's table opens the index, so waits too).
func (l *linter) moveRelation(rel objectName, s node) string {
	if l.createdHere(relations, rel) {
		return ""
	}
	for _, c := range s.list("cmds") {
		if is(c, "AlterTableCmd").str("subtype") == "AT_SetTableSpace" {
			l.find(RuleTableRewrite, -1, fmt.Sprintf("SET TABLESPACE copies %q to another tablespace under an ACCESS EXCLUSIVE lock: every query on it, or on its table, waits for the copy", rel.name),
				rewriteHint)
			return "SET TABLESPACE takes an ACCESS EXCLUSIVE lock"
		}
	}
	return ""
}

// alterCmd applies the rules to one subcommand of ALTER TABLE on an
// existing table.
func (l *linter) alterCmd(rel objectName, cmd node) {
	table, name := rel.name, cmd.str("name")
	switch cmd.str("subtype") {
	case "AT_AddColumn":
		l.addColumn(table, is(cmd["def"], "ColumnDef"))
	case "AT_AlterColumnType":
		if l.s.typeChangeWidens(rel, name, cmd) {
			return
		}
		l.find(RuleColumnTypeChange, l.nodeAt(is(cmd["def"], "ColumnDef").location()),
			fmt.Sprintf("ALTER COLUMN %q TYPE rewrites the table %q and its indexes under an ACCESS EXCLUSIVE lock (every type change but a few binary-compatible ones)", name, table),
			"add a column of the new type, backfill it in batches, switch the code to it, and drop the old column in a later revision")
	case "AT_SetNotNull":
		if l.s.isNotNull(rel, name) {
			return
		}
		l.find(RuleSetNotNull, -1, fmt.Sprintf("SET NOT NULL on %q scans the whole table %q under an ACCESS EXCLUSIVE lock: no validated CHECK (%s IS NOT NULL) of the table is known from an earlier file or statement", name, table, name),
			"ADD CONSTRAINT ... CHECK (col IS NOT NULL) NOT VALID in one file, VALIDATE CONSTRAINT in a later file, then SET NOT NULL in that file or a later one: PostgreSQL 12+ uses the validated constraint and skips the scan")
	case "AT_AddConstraint":
		c := is(cmd["def"], "Constraint")
		l.addConstraint(table, c)
		if c.str("contype") == "CONSTR_PRIMARY" && c.str("indexname") != "" {
			l.primaryKeyUsingIndex(rel, c.str("indexname"))
		}
	case "AT_ValidateConstraint":
		if lock, ok := l.addedNotValid[table+"\x00"+name]; ok {
			l.find(RuleValidateSameTx, -1, fmt.Sprintf("VALIDATE CONSTRAINT %q in the transaction that added it NOT VALID: the ADD's %s lock on %q is held until the file commits, so the validation scans the table under it and NOT VALID gains nothing", name, lock, table),
				"end the file after ADD CONSTRAINT ... NOT VALID and validate in a later file: the ADD commits at once, and VALIDATE CONSTRAINT alone takes a SHARE UPDATE EXCLUSIVE lock that lets reads and writes through")
		}
	case "AT_DetachPartition":
		pc := is(cmd["def"], "PartitionCmd")
		part := pc.get("name").str("relname")
		if pc.bool("concurrent") {
			l.concurrentlyInTx("DETACH PARTITION ... CONCURRENTLY")
			return
		}
		l.find(RuleDetachBlocking, -1, fmt.Sprintf("DETACH PARTITION %q takes an ACCESS EXCLUSIVE lock on the partitioned table %q: every query on it, and on each of its partitions through it, waits", part, table),
			"ALTER TABLE ... DETACH PARTITION ... CONCURRENTLY (PostgreSQL 14+, SHARE UPDATE EXCLUSIVE on both tables) as the only statement of a file whose first line is -- codeloc:no-transaction; if it is interrupted, run ALTER TABLE ... DETACH PARTITION ... FINALIZE")
	case "AT_SetExpression":
		l.find(RuleTableRewrite, -1, fmt.Sprintf("ALTER COLUMN %q SET EXPRESSION recomputes the stored generated column for every row, rewriting the table %q and its indexes under an ACCESS EXCLUSIVE lock: every query on it waits for the rewrite", name, table),
			"add a new generated column (or a plain one filled by a trigger and a batched backfill), switch the code to it, and drop the old column in a later revision")
	case "AT_SetTableSpace", "AT_SetLogged", "AT_SetUnLogged", "AT_SetAccessMethod":
		l.find(RuleTableRewrite, -1, fmt.Sprintf("ALTER TABLE ... %s rewrites (or copies) the whole table %q and its indexes under an ACCESS EXCLUSIVE lock: every query on it waits for the rewrite", subcommand(cmd), table),
			rewriteHint)
	case "AT_DropColumn":
		l.find(RuleDrop, -1, fmt.Sprintf("DROP COLUMN %q: the previous revision's pods still read and write it while the rollout runs, and its data is gone for good", name),
			"stop using the column in one revision and drop it in a later one, with -- codeloc:allow sql-drop <reason> above the statement")
	}
}

// serial types are integer columns with a nextval() default.
var serial = map[string]bool{"serial": true, "serial4": true, "bigserial": true, "serial8": true, "smallserial": true, "serial2": true}

func (l *linter) addColumn(table string, col node) {
	if col == nil {
		return
	}
	colname := col.str("colname")
	at := l.nodeAt(col.location())
	// hasDefault: a value for the existing rows; ownDefault: any default
	// of the column's own, NULL too, which replaces its domain's.
	var notNull, hasDefault, ownDefault bool
	for _, cn := range col.list("constraints") {
		c := is(cn, "Constraint")
		switch c.str("contype") {
		case "CONSTR_NOTNULL":
			notNull = true
		case "CONSTR_DEFAULT":
			hasDefault, ownDefault = !isNullConstant(c["raw_expr"]), true
			if fn := l.s.volatileCall(c["raw_expr"]); fn != "" {
				l.find(RuleVolatileDefault, l.nodeAt(c.location()),
					fmt.Sprintf("ADD COLUMN %q with a default calling %s, which is neither a known IMMUTABLE or STABLE built-in nor a function the migrations declared IMMUTABLE or STABLE (PostgreSQL makes a function, and an operator's, VOLATILE unless told otherwise): PostgreSQL computes it for every row, rewriting the table %q and its indexes under an ACCESS EXCLUSIVE lock", colname, fn, table),
					"add the column without a default, then ALTER COLUMN ... SET DEFAULT (new rows only), and backfill the existing rows in batches")
			}
		case "CONSTR_IDENTITY", "CONSTR_GENERATED":
			hasDefault, ownDefault = true, true
			l.find(RuleVolatileDefault, l.nodeAt(c.location()),
				fmt.Sprintf("ADD COLUMN %q as an identity or stored generated column: PostgreSQL computes it for every row, rewriting the table %q under an ACCESS EXCLUSIVE lock", colname, table),
				"add a plain nullable column, backfill it in batches, then attach the sequence or the trigger that fills it")
		case "CONSTR_PRIMARY", "CONSTR_UNIQUE":
			l.uniqueConstraint(table, l.nodeAt(c.location()))
		case "CONSTR_CHECK", "CONSTR_FOREIGN":
			if !c.bool("skip_validation") {
				l.constraintValidated(table, l.nodeAt(c.location()))
			}
		}
	}
	if names := col.get("typeName").list("names"); len(names) > 0 && serial[is(names[len(names)-1], "String").str("sval")] {
		hasDefault, ownDefault = true, true
		l.find(RuleVolatileDefault, at,
			fmt.Sprintf("ADD COLUMN %q of a serial type: its default nextval() is volatile, so PostgreSQL numbers every row, rewriting the table %q under an ACCESS EXCLUSIVE lock", colname, table),
			"add a plain nullable integer column, backfill it in batches, then attach a sequence with ALTER COLUMN ... SET DEFAULT nextval(...)")
	}
	l.domainColumn(table, colname, col.get("typeName"), at, ownDefault)
	if notNull && !hasDefault {
		l.find(RuleAddColumnNotNull, at,
			fmt.Sprintf("ADD COLUMN %q NOT NULL without a default fails on a table %q that has rows, and the running revision's INSERTs do not set it", colname, table),
			"add it nullable (or NOT NULL with a constant DEFAULT), backfill, then add the NOT NULL in a later revision")
	}
}

// domainColumn: ADD COLUMN of a domain type with a CHECK or NOT NULL
// constraint rewrites the table, default or not, since PostgreSQL checks
// the constraints against each row's new value (tablecmds.c,
// ATExecAddColumn: DomainHasConstraints sets AT_REWRITE_DEFAULT_VAL); one
// without a default of its own takes its domain's (build_column_default),
// and a volatile one is computed for every row. The domains known are
// those the files made so; an array of one is not a domain.
func (l *linter) domainColumn(table, colname string, typ node, at int, ownDefault bool) {
	domain := partsName(typ.list("names")).name
	if len(typ.list("arrayBounds")) > 0 {
		return
	}
	if fn := l.s.volatileDomains[domain]; fn != "" && !ownDefault {
		l.find(RuleVolatileDefault, at,
			fmt.Sprintf("ADD COLUMN %q of the domain %q, whose default calls %s, which is neither a known IMMUTABLE or STABLE built-in nor a function the migrations declared IMMUTABLE or STABLE: PostgreSQL computes it for every row, rewriting the table %q and its indexes under an ACCESS EXCLUSIVE lock", colname, domain, fn, table),
			"give the column DEFAULT NULL (or a constant) when adding it, then ALTER COLUMN ... SET DEFAULT the domain's expression (new rows only), and backfill the existing rows in batches")
	}
	if !l.s.constrainedDomains[domain] {
		return
	}
	l.find(RuleTableRewrite, at,
		fmt.Sprintf("ADD COLUMN %q of the domain %q, which the migrations gave a CHECK or NOT NULL constraint: PostgreSQL checks it against every row's new value, rewriting the table %q and its indexes under an ACCESS EXCLUSIVE lock", colname, domain, table),
		"add the column with the domain's base type, nullable (no rewrite), add the domain's CHECK to the table NOT VALID, and VALIDATE CONSTRAINT it in a later file")
}

// isNullConstant reports whether a default is the NULL constant, cast or
// not: it sets no value, as if there were no default.
func isNullConstant(expr any) bool {
	for {
		k, n := kind(expr)
		switch k {
		case "A_Const":
			return n.bool("isnull")
		case "TypeCast":
			expr = n["arg"]
		default:
			return false
		}
	}
}

// walk calls fn for every wrapped node under v, to any depth.
func walk(v any, fn func(kind string, n node)) {
	switch v := v.(type) {
	case map[string]any:
		for k, inner := range v {
			if n, ok := inner.(map[string]any); ok && len(k) > 0 && k[0] >= 'A' && k[0] <= 'Z' {
				fn(k, n)
			}
			walk(inner, fn)
		}
	case []any:
		for _, item := range v {
			walk(item, fn)
		}
	}
}

func (l *linter) addConstraint(table string, c node) {
	at := l.nodeAt(c.location())
	switch c.str("contype") {
	case "CONSTR_CHECK", "CONSTR_FOREIGN":
		if !c.bool("skip_validation") {
			l.constraintValidated(table, at)
		} else if !l.noTx {
			lock := "ACCESS EXCLUSIVE"
			if c.str("contype") == "CONSTR_FOREIGN" {
				lock = "SHARE ROW EXCLUSIVE"
			}
			l.addedNotValid[table+"\x00"+constraintName(table, c)] = lock
		}
	case "CONSTR_PRIMARY", "CONSTR_UNIQUE", "CONSTR_EXCLUSION":
		if c.str("indexname") == "" {
			l.uniqueConstraint(table, at)
		}
	}
}

func (l *linter) constraintValidated(table string, at int) {
	l.find(RuleConstraintValidated, at,
		fmt.Sprintf("a CHECK or FOREIGN KEY constraint added to the existing table %q checks every row under a lock that blocks its writes (a FOREIGN KEY locks the referenced table too)", table),
		"add it NOT VALID (new rows are checked at once), then ALTER TABLE ... VALIDATE CONSTRAINT in a later file, which lets reads and writes through")
}

func (l *linter) uniqueConstraint(table string, at int) {
	l.find(RuleUniqueConstraint, at,
		fmt.Sprintf("a UNIQUE or PRIMARY KEY constraint added to the existing table %q builds its index under an ACCESS EXCLUSIVE lock: every query on the table waits for the build", table),
		"CREATE UNIQUE INDEX CONCURRENTLY in a no-transaction file, then ALTER TABLE ... ADD CONSTRAINT ... UNIQUE USING INDEX (or PRIMARY KEY USING INDEX)")
}

// renameNotValid follows a constraint this file added NOT VALID through a
// rename of it or of its table: validated under its new name, it is still
// validated in the transaction that added it.
func (l *linter) renameNotValid(s node) {
	table, renamed := s.get("relation").str("relname"), map[string]string{}
	for k, lock := range l.addedNotValid {
		t, constraint, _ := strings.Cut(k, "\x00")
		switch {
		case t != table:
		case s.str("renameType") == "OBJECT_TABLE":
			renamed[s.str("newname")+"\x00"+constraint] = lock
		case s.str("renameType") == "OBJECT_TABCONSTRAINT" && constraint == s.str("subname"):
			renamed[table+"\x00"+s.str("newname")] = lock
		}
	}
	maps.Copy(l.addedNotValid, renamed)
}

func (l *linter) rename(s node) string {
	rel := s.get("relation")
	table := rel.str("relname")
	// The checks name the old names, even those of a table the file made.
	switch s.str("renameType") {
	case "OBJECT_TABLE", "OBJECT_COLUMN", "OBJECT_TABCONSTRAINT":
		l.s.forgetTable(table)
		l.renameNotValid(s)
	case "OBJECT_INDEX":
		l.s.forgetIndex(table) // ALTER INDEX's name is in relation
	case "OBJECT_SCHEMA":
		l.s.forgetSchema(s.str("subname"))
	}
	if l.createdHere(relations, rangeVarName(rel)) {
		return ""
	}
	if s.str("renameType") == "OBJECT_SCHEMA" && !l.createdHere(schemas, objectName{name: s.str("subname")}) {
		l.find(RuleRename, -1, fmt.Sprintf("renaming the schema %q to %q: the previous revision's pods still query every table in it under the old name while the rollout runs", s.str("subname"), s.str("newname")),
			"keep the schema's name; create the new schema, move the code to it table by table, and drop the old one in a later revision")
		return ""
	}
	switch s.str("renameType") {
	case "OBJECT_TABLE":
		l.find(RuleRename, -1, fmt.Sprintf("renaming the table %q to %q: the previous revision's pods still query the old name while the rollout runs", table, s.str("newname")),
			"create the new table (or a view named as the new one), move the code to it, and drop the old name in a later revision")
	case "OBJECT_VIEW", "OBJECT_MATVIEW":
		l.find(RuleRename, -1, fmt.Sprintf("renaming the view %q to %q: the previous revision's pods still query the old name while the rollout runs", table, s.str("newname")),
			"create the view under the new name beside the old one, move the code to it, and drop the old name in a later revision")
	case "OBJECT_COLUMN":
		l.find(RuleRename, -1, fmt.Sprintf("renaming the column %q of %q to %q: the previous revision's pods still use the old name while the rollout runs", s.str("subname"), table, s.str("newname")),
			"add the new column, write both from the code, backfill, and drop the old one in a later revision")
	}
	if rel != nil {
		return "ALTER ... RENAME takes an ACCESS EXCLUSIVE lock"
	}
	return ""
}

// setSchema: ALTER TABLE or VIEW ... SET SCHEMA renames the relation for
// every query that names it unqualified or by its old schema.
func (l *linter) setSchema(s node) string {
	switch s.str("objectType") {
	case "OBJECT_TABLE", "OBJECT_VIEW", "OBJECT_MATVIEW":
	default:
		return ""
	}
	rel := rangeVarName(s.get("relation"))
	l.s.forgetTable(rel.name)
	if l.createdHere(relations, rel) {
		return ""
	}
	l.find(RuleRename, -1, fmt.Sprintf("moving %q to the schema %q: the previous revision's pods still query it where it was while the rollout runs", rel.name, s.str("newschema")),
		"create the object in the new schema (or a view there over the old one), move the code to it, and drop the old one in a later revision")
	return "ALTER ... SET SCHEMA takes an ACCESS EXCLUSIVE lock"
}

// renameEnumValue: ALTER TYPE ... RENAME VALUE; the previous revision's
// pods still write the old value.
func (l *linter) renameEnumValue(s node) {
	if s.str("oldVal") == "" || l.createdHere(types, partsName(s.list("typeName"))) {
		return
	}
	l.find(RuleRename, -1, fmt.Sprintf("renaming the enum value %q to %q: the previous revision's pods still write and compare the old one while the rollout runs", s.str("oldVal"), s.str("newVal")),
		"ADD VALUE the new one, move the code and the rows to it, and stop using the old one (an enum value cannot be dropped: keep it, or move to a new type)")
}

// setVariable follows lock_timeout through the file's SET and RESET. The
// Job sets the contract's lock_timeout as a SET of the session would
// (set_config), so RESET, SET ... TO DEFAULT and RESET ALL go back past it,
// to the role's or the server's default: none is assumed.
func (l *linter) setVariable(s node) {
	kind := s.str("kind")
	if kind == "VAR_RESET_ALL" {
		l.lockTimeout = false
		l.searchPathChanged()
		return
	}
	// A quoted name keeps its case; PostgreSQL's settings ignore it.
	if strings.EqualFold(s.str("name"), "search_path") {
		l.searchPathChanged()
	}
	if !strings.EqualFold(s.str("name"), "lock_timeout") {
		return
	}
	switch kind {
	case "VAR_SET_VALUE":
		if s.bool("is_local") && l.noTx {
			return // SET LOCAL outside a transaction block does nothing
		}
		args := s.list("args")
		l.lockTimeout = len(args) > 0 && !zeroSetting(constString(args[0]))
	case "VAR_SET_DEFAULT", "VAR_RESET":
		l.lockTimeout = false
	}
}

// setConfig follows set_config(name, value, is_local), the Job's own way
// to set lock_timeout, as SET and SET LOCAL, wherever a statement calls it
// (SELECT set_config(...), in FROM, inside an expression), and an UPDATE
// of pg_settings. A name or a value the lint cannot read may be
// lock_timeout = 0 or another search_path. When a statement sets
// lock_timeout more than once, one that may disable it wins: the order in
// which PostgreSQL evaluates them is not the text's. A statement that only
// defines what runs later (a function, view, rule, policy, prepared
// statement) sets nothing.
func (l *linter) setConfig(stmt any) {
	if k, _ := kind(stmt); definesOnly[k] {
		return
	}
	var enables, disables bool
	walk(stmt, func(k string, n node) {
		switch k {
		case "UpdateStmt":
			if rel := rangeVarName(n.get("relation")); rel.name == "pg_settings" && (rel.schema == "" || rel.schema == "pg_catalog") {
				disables = true
				l.searchPathChanged()
			}
		case "FuncCall":
			schema, name := qualifiedName(n.list("funcname"))
			args := n.list("args")
			if name != "set_config" || schema != "" && schema != "pg_catalog" || len(args) != 3 {
				return
			}
			setting, known := "", false
			if k, _ := kind(args[0]); k == "A_Const" {
				setting, known = strings.ToLower(constString(args[0])), true
			}
			if !known || setting == "search_path" {
				l.searchPathChanged()
			}
			if known && setting != "lock_timeout" {
				return
			}
			if constString(args[2]) == "true" && l.noTx {
				return // local, outside a transaction block: nothing
			}
			if k, _ := kind(args[1]); !known || k != "A_Const" || zeroSetting(constString(args[1])) {
				disables = true
			} else {
				enables = true
			}
		}
	})
	switch {
	case disables:
		l.lockTimeout = false
	case enables:
		l.lockTimeout = true
	}
}

// definesOnly are the statements whose expressions run later, if ever.
var definesOnly = map[string]bool{"CreateFunctionStmt": true, "ViewStmt": true, "RuleStmt": true, "CreatePolicyStmt": true,
	"PrepareStmt": true, "CreateTrigStmt": true, "DeclareCursorStmt": true}

// zeroSetting reports whether a lock_timeout value disables it: 0 with or
// without a unit.
func zeroSetting(v string) bool {
	v = strings.TrimSpace(strings.ToLower(v))
	v = strings.TrimRight(v, "abcdefghijklmnopqrstuvwxyz ")
	return strings.Trim(v, "0.") == "" && v != ""
}

// constString is a constant's value as text (libpg_query leaves a zero
// or an empty value out: {"ival": {}} is 0).
func constString(v any) string {
	k, n := kind(v)
	switch k {
	case "String":
		return n.str("sval")
	case "Integer": // {"Integer": {}} is 0
		return fmt.Sprint(n.int("ival", 0))
	case "Float":
		return n.str("fval")
	case "Boolean":
		return fmt.Sprint(n.bool("boolval"))
	case "A_Const":
		for _, f := range []struct{ key, field string }{{"ival", "ival"}, {"sval", "sval"}, {"fval", "fval"}, {"boolval", "boolval"}} {
			inner := n.get(f.key)
			if inner == nil {
				continue
			}
			switch x := inner[f.field].(type) {
			case nil:
				switch f.key {
				case "ival":
					return "0"
				case "boolval":
					return "false"
				}
				return ""
			case float64:
				return fmt.Sprint(int64(x))
			default:
				return fmt.Sprint(x)
			}
		}
	}
	return ""
}

// nodeAt returns a node's byte offset, or -1 (the statement's start) when
// libpg_query recorded none.
func (l *linter) nodeAt(loc int) int {
	loc += l.base
	if loc < l.start || loc > len(l.sql) {
		return -1
	}
	return loc
}

// maxReason bounds, in characters, an opt-out's reason as a finding's
// message quotes it: the comment may run on for the whole line.
const maxReason = 200

// cutRunes cuts s to n characters, marking the cut.
func cutRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}

// maxSyntaxMessage bounds PostgreSQL's syntax message, in characters: its
// "at or near" quotes the rest of the file for an unterminated quote.
const maxSyntaxMessage = 160

// syntaxMessage is PostgreSQL's message on one line and bounded: the text it
// quotes from the file may hold line breaks and run to the file's end.
func syntaxMessage(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if r := []rune(msg); len(r) > maxSyntaxMessage {
		msg = string(r[:maxSyntaxMessage]) + "…"
	}
	return msg
}
