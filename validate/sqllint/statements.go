package sqllint

import "fmt"

// The rules of statements other than CREATE INDEX, DROP and ALTER TABLE:
// maintenance commands that rewrite or empty tables, domains, databases.

func (l *linter) truncate(s node) string {
	all := true
	for _, r := range s.list("relations") {
		if !l.createdHere(relations, rangeVarName(is(r, "RangeVar"))) {
			all = false
		}
	}
	if s.str("behavior") == "DROP_CASCADE" && !all { // only the file's later tables can reference its own
		l.find(RuleTruncateCascade, -1, "TRUNCATE ... CASCADE also empties every table with a foreign key to the ones it names (and the tables referencing those), which the file does not name, each under an ACCESS EXCLUSIVE lock",
			"name every table to empty in one TRUNCATE a, b, ... without CASCADE: PostgreSQL then refuses to run if a table it would leave references them")
	}
	if all {
		return ""
	}
	return "TRUNCATE takes an ACCESS EXCLUSIVE lock"
}

func (l *linter) cluster(s node) string {
	table := s.get("relation").str("relname")
	if l.createdHere(relations, rangeVarName(s.get("relation"))) {
		return ""
	}
	what := fmt.Sprintf("CLUSTER rewrites the table %q", table)
	if table == "" {
		what = "CLUSTER without a table rewrites every table clustered before"
		l.concurrentlyInTx("CLUSTER without a table name")
	}
	l.find(RuleTableRewrite, -1, what+" in index order under an ACCESS EXCLUSIVE lock: every query on it waits for the whole rewrite",
		rewriteHint)
	return "CLUSTER takes an ACCESS EXCLUSIVE lock"
}

const rewriteHint = "a plain VACUUM (ANALYZE) in a file whose first line is -- codeloc:no-transaction frees dead rows for reuse under a SHARE UPDATE EXCLUSIVE lock, which lets reads and writes through; to compact a table or order it, run pg_repack outside the migrations"

func (l *linter) vacuum(s node) string {
	if !s.bool("is_vacuumcmd") {
		return "" // ANALYZE: SHARE UPDATE EXCLUSIVE
	}
	full := false
	for _, o := range s.list("options") {
		if d := is(o, "DefElem"); d != nil && d.str("defname") == "full" && defBool(d) {
			full = true
		}
	}
	l.concurrentlyInTx("VACUUM")
	if !full || l.vacuumsOnlyNew(s.list("rels")) {
		return ""
	}
	l.find(RuleTableRewrite, -1, "VACUUM FULL rewrites each table it names (every table, without names) under an ACCESS EXCLUSIVE lock: every query on it waits for the whole rewrite",
		rewriteHint)
	return "VACUUM FULL takes an ACCESS EXCLUSIVE lock"
}

// vacuumsOnlyNew reports whether a VACUUM names tables, all of them made
// by the file (without names it vacuums every table).
func (l *linter) vacuumsOnlyNew(rels []any) bool {
	for _, r := range rels {
		if !l.createdHere(relations, rangeVarName(is(r, "VacuumRelation").get("relation"))) {
			return false
		}
	}
	return len(rels) > 0
}

func (l *linter) refresh(s node) string {
	view := s.get("relation").str("relname")
	if s.bool("concurrent") || l.createdHere(relations, rangeVarName(s.get("relation"))) {
		return "" // CONCURRENTLY: an EXCLUSIVE lock, reads go on
	}
	l.find(RuleRefreshBlocking, -1, fmt.Sprintf("REFRESH MATERIALIZED VIEW %q without CONCURRENTLY holds an ACCESS EXCLUSIVE lock on it for the whole refresh: every read of the view waits", view),
		"REFRESH MATERIALIZED VIEW CONCURRENTLY (an EXCLUSIVE lock: reads go on), which needs a unique index on the view: build one with CREATE UNIQUE INDEX CONCURRENTLY in a no-transaction file first")
	return "REFRESH MATERIALIZED VIEW takes an ACCESS EXCLUSIVE lock"
}

func (l *linter) dropDatabase(s node) {
	l.find(RuleDropDatabase, -1, fmt.Sprintf("DROP DATABASE %q: a migration runs against its code-location's own database, and dropping another destroys data these migrations do not own (PostgreSQL also refuses it inside a transaction, and while anyone is connected to it)", s.str("dbname")),
		"remove it from the migrations: drop a database by hand, once nothing connects to it and its backups are checked")
}

// alterDomain: a constraint added to a domain, or validated, is checked
// against every column of that domain in every table, under a SHARE lock
// on each table (typecmds.c, validateDomainConstraint: the same lock for
// VALIDATE CONSTRAINT, so NOT VALID then VALIDATE is no way out).
func (l *linter) alterDomain(s node) string {
	name := partsName(s.list("typeName"))
	domain := name.name
	if l.createdHere(types, name) {
		return ""
	}
	var what string
	switch s.str("subtype") {
	case "C":
		c := is(s["def"], "Constraint")
		if c.str("contype") == "CONSTR_CHECK" && c.bool("skip_validation") {
			return ""
		}
		what = "ALTER DOMAIN ... ADD CONSTRAINT"
	case "O":
		what = "ALTER DOMAIN ... SET NOT NULL"
	case "V":
		what = "ALTER DOMAIN ... VALIDATE CONSTRAINT"
	default:
		return ""
	}
	l.find(RuleDomainConstraint, -1, fmt.Sprintf("%s on %q checks every column of the domain in every table under a SHARE lock on each table: writes to all of them wait for the scan", what, domain),
		"ALTER DOMAIN ... ADD CONSTRAINT ... CHECK (...) NOT VALID checks new values only and reads no table; to check existing rows, add the CHECK to each table's column NOT VALID and VALIDATE it there in a later file (SHARE UPDATE EXCLUSIVE)")
	return "ALTER DOMAIN takes a SHARE lock on every table using the domain"
}
