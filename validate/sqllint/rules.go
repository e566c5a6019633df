// Package sqllint reads a code-location's declared migrations with
// PostgreSQL's own grammar and reports the statements that would hurt a live
// database during a deploy: blocking index builds, table rewrites, long
// locks, drops and renames that code still running would trip on.
//
// This file holds the rules' names and default severities: the contract's
// policy.migrations and the `-- codeloc:allow <rule> <reason>` comments
// name them.
package sqllint

// Severity is what a rule's finding does to the render.
type Severity string

// Severities a contract may give a rule in policy.migrations.
const (
	Error   Severity = "error"   // the render fails
	Warning Severity = "warning" // the render goes on and prints a warning line
	Off     Severity = "off"     // the rule is not checked
)

// Severities lists the values policy.migrations accepts.
var Severities = []Severity{Error, Warning, Off}

// Rule codes. They are stable: contracts and allow comments name them.
const (
	RuleIndexBlocking       = "sql-index-blocking"
	RuleConcurrentlyInTx    = "sql-concurrently-in-transaction"
	RuleReindexBlocking     = "sql-reindex-blocking"
	RuleAddColumnNotNull    = "sql-add-column-not-null"
	RuleVolatileDefault     = "sql-volatile-default"
	RuleColumnTypeChange    = "sql-column-type-change"
	RuleSetNotNull          = "sql-set-not-null"
	RuleConstraintValidated = "sql-constraint-validated"
	RuleUniqueConstraint    = "sql-unique-constraint"
	RuleDrop                = "sql-drop"
	RuleRename              = "sql-rename"
	RuleTransactionControl  = "sql-transaction-control"
	RuleLockTimeout         = "sql-lock-timeout"
	RuleValidateSameTx      = "sql-validate-same-transaction"
	RuleDomainConstraint    = "sql-domain-constraint"
	RuleTableRewrite        = "sql-table-rewrite"
	RuleRefreshBlocking     = "sql-refresh-blocking"
	RuleDetachBlocking      = "sql-detach-blocking"
	RuleTruncateCascade     = "sql-truncate-cascade"
	RuleDropDatabase        = "sql-drop-database"
	RuleNotRerunnable       = "sql-not-rerunnable"
	RuleDoUnchecked         = "sql-do-unchecked"
	CodeSyntax              = "sql-syntax"       // not a rule: always an error
	CodeAllowWithoutReason  = "sql-allow-reason" // not a rule: always an error
	CodeAllowUnknownRule    = "sql-allow-rule"   // not a rule: always an error
)

// Rule is one check a contract can tune.
type Rule struct {
	Code     string
	Default  Severity
	Describe string // one sentence for docs/codes/migrations.md and the contract docs
}

// Rules are the tunable rules, in the order docs list them.
var Rules = []Rule{
	{RuleIndexBlocking, Error, "CREATE INDEX (SHARE lock) or DROP INDEX (ACCESS EXCLUSIVE) on a table the file did not create, without CONCURRENTLY: it blocks every write to the table for the whole build."},
	{RuleConcurrentlyInTx, Error, "A statement PostgreSQL refuses inside a transaction block (CONCURRENTLY, VACUUM, DETACH PARTITION ... CONCURRENTLY, CLUSTER without a table) in a file that runs in one: make `-- codeloc:no-transaction` the file's first line."},
	{RuleReindexBlocking, Error, "REINDEX without CONCURRENTLY (or with CONCURRENTLY false): a SHARE lock on the table, ACCESS EXCLUSIVE on the index, for the whole rebuild; it blocks writes and the reads that use the index."},
	{RuleAddColumnNotNull, Error, "ADD COLUMN ... NOT NULL without a default (or with DEFAULT NULL, cast or not) on an existing table: it fails on any row, and code still running does not write the column."},
	{RuleVolatileDefault, Error, "ADD COLUMN whose default calls anything but the known IMMUTABLE or STABLE built-ins and the functions the migrations declared IMMUTABLE or STABLE in every definition they made of that name (a volatile one such as random() or gen_random_uuid(), any other user or extension function or operator, which PostgreSQL makes VOLATILE unless told otherwise, a serial, an identity or a stored generated column, or the volatile default of the column's domain): PostgreSQL rewrites the whole table under an ACCESS EXCLUSIVE lock."},
	{RuleColumnTypeChange, Error, "ALTER COLUMN ... TYPE: most type changes rewrite the table and its indexes under an ACCESS EXCLUSIVE lock; a widening PostgreSQL makes in the catalog (varchar(n) to a longer varchar or text, numeric(p,s) to a larger precision at the same scale) of a type the migrations gave the column is not flagged."},
	{RuleSetNotNull, Error, "SET NOT NULL on an existing column with no validated CHECK (col IS NOT NULL) in an earlier file (or earlier in the file), or ADD PRIMARY KEY USING INDEX on columns not known NOT NULL (it sets NOT NULL on them): it scans the whole table under an ACCESS EXCLUSIVE lock; PostgreSQL 12+ skips the scan when such a constraint is validated."},
	{RuleConstraintValidated, Error, "A CHECK (ACCESS EXCLUSIVE lock) or FOREIGN KEY (SHARE ROW EXCLUSIVE on both tables) constraint added to an existing table without NOT VALID: it scans the table under a lock that blocks writes (add it NOT VALID, then VALIDATE CONSTRAINT in a later file)."},
	{RuleUniqueConstraint, Error, "A UNIQUE or PRIMARY KEY constraint added to an existing table: it builds its index under a lock that blocks writes (build a unique index CONCURRENTLY, then ADD CONSTRAINT ... USING INDEX)."},
	{RuleDrop, Error, "DROP TABLE, DROP COLUMN or DROP SCHEMA, a DROP ... CASCADE of what a column or a table may depend on (a type, domain, extension, collation, function, operator, sequence, text search configuration, language, access method, server: it takes them along), or DROP OWNED BY: the previous revision's pods still read it during the rollout, and the data is gone."},
	{RuleRename, Error, "A table, view, column, schema or enum value renamed, or a table or view moved to another schema (SET SCHEMA): the previous revision's pods still use the old name during the rollout."},
	{RuleTransactionControl, Error, "BEGIN, COMMIT, ROLLBACK or SAVEPOINT in a file: the migration runner owns the transaction of each file."},
	{RuleLockTimeout, Warning, "A statement that takes a lock blocking reads or writes (SHARE or stronger: most ALTER TABLE forms, CREATE INDEX, TRUNCATE, LOCK in SHARE mode or above, CREATE TABLE ... PARTITION OF or with a FOREIGN KEY (on the other table), a policy, rule, trigger or view created, replaced, altered or dropped, ALTER SEQUENCE (nextval waits for it); not VALIDATE CONSTRAINT, SET STATISTICS, SET (fillfactor ...) or LOCK ... IN ACCESS SHARE MODE) runs without lock_timeout (the contract's database.migrations.lockTimeout is 0 and the file sets none, or the file undid it: RESET, SET ... TO DEFAULT, RESET ALL, DISCARD ALL): it queues behind a long query and every query queues behind it."},
	{RuleValidateSameTx, Error, "VALIDATE CONSTRAINT in the transactional file that added the constraint NOT VALID: the ADD's lock (ACCESS EXCLUSIVE for a CHECK, SHARE ROW EXCLUSIVE for a FOREIGN KEY) is held until the file commits, so the validation scans under it and NOT VALID gains nothing."},
	{RuleDomainConstraint, Error, "ALTER DOMAIN ... ADD CONSTRAINT without NOT VALID, SET NOT NULL or VALIDATE CONSTRAINT: PostgreSQL scans every column of the domain in every table under a SHARE lock on each (writes blocked). A new domain's CHECK (CREATE DOMAIN) is not flagged: no column uses it yet."},
	{RuleTableRewrite, Error, "CLUSTER, VACUUM FULL, or ALTER TABLE ... SET TABLESPACE, SET LOGGED, SET UNLOGGED, SET ACCESS METHOD or ALTER COLUMN ... SET EXPRESSION (and ALTER INDEX or MATERIALIZED VIEW ... SET TABLESPACE, ALTER ... ALL IN TABLESPACE), or ADD COLUMN of a domain the migrations gave a CHECK or NOT NULL constraint (PostgreSQL checks it on every row): the table is rewritten or copied under an ACCESS EXCLUSIVE lock, every query on it waits for the whole rewrite."},
	{RuleRefreshBlocking, Error, "REFRESH MATERIALIZED VIEW without CONCURRENTLY: it holds an ACCESS EXCLUSIVE lock on the view for the whole refresh, so every read of it waits."},
	{RuleDetachBlocking, Error, "ALTER TABLE ... DETACH PARTITION without CONCURRENTLY: an ACCESS EXCLUSIVE lock on the partitioned table, every query on any partition waits."},
	{RuleTruncateCascade, Error, "TRUNCATE ... CASCADE: it also empties every table with a foreign key to the named ones, which the file does not name, under an ACCESS EXCLUSIVE lock on each."},
	{RuleDropDatabase, Error, "DROP DATABASE: a migration runs against its code-location's database; dropping another one destroys data the migrations do not own (and PostgreSQL refuses it inside a transaction)."},
	{RuleNotRerunnable, Error, "A statement of a `-- codeloc:no-transaction` file that fails or does its work twice when run again (any CREATE without IF NOT EXISTS or OR REPLACE, SELECT ... INTO, DROP without IF EXISTS, ADD COLUMN without IF NOT EXISTS, ADD CONSTRAINT, ATTACH PARTITION, a rename): a run stopped half way is retried from the file's first statement."},
	{RuleDoUnchecked, Warning, "A DO block whose statements the lint cannot read: a body in another language than PL/pgSQL or that PL/pgSQL's parser refuses, or an EXECUTE of a computed string. The statements of a PL/pgSQL DO block are otherwise linted one by one, at their lines."},
}

// Others are the codes that are not rules: always errors, never tuned.
var Others = []Rule{
	{CodeSyntax, Error, "A declared migration does not parse with PostgreSQL's grammar (libpg_query): PostgreSQL's own message, at its cursor; or an expression chained or nested deeper than the lint reads."},
	{CodeAllowWithoutReason, Error, "A `-- codeloc:allow <rule> <reason>` comment gives no reason (or no rule): an opt-out says why the statement is safe here."},
	{CodeAllowUnknownRule, Error, "A `-- codeloc:allow` comment names a rule the migrations' lint does not have."},
}

// Defaults returns every rule's default severity.
func Defaults() map[string]Severity {
	m := make(map[string]Severity, len(Rules))
	for _, r := range Rules {
		m[r.Code] = r.Default
	}
	return m
}
