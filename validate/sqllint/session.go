package sqllint

import "maps"

// Session lints the migrations of one code-location in the order the Job
// applies them, and carries what an earlier file did that changes what a
// later statement costs: a validated CHECK (col IS NOT NULL) lets
// PostgreSQL 12+ set NOT NULL without scanning the table.
type Session struct {
	cfg Config
	// checks holds, per table (as the files name it), the CHECK
	// constraints the files added that imply NOT NULL of some columns, by
	// constraint name.
	checks map[objectName]map[string]*notNullCheck
	// functions holds the bodies of the PL/pgSQL and SQL functions and
	// procedures the files define, by name.
	functions map[string]function
	// existing holds what earlier files created or altered: a later
	// CREATE ... IF NOT EXISTS of it creates nothing.
	existing map[createdKey]bool
	// partitioned holds the tables (as the files name them) a CREATE TABLE
	// ... PARTITION BY of the files made: CREATE INDEX ... ON ONLY one
	// builds nothing.
	partitioned map[objectName]bool
	// columns holds, per table (as the files name it), the types the files
	// gave its columns.
	columns map[objectName]map[string]columnType
	// notNull holds, per table (as the files name it), the columns the
	// files made NOT NULL.
	notNull map[objectName]map[string]bool
	// indexes holds the named indexes the files built on plain columns, by
	// their table's schema (as written) and name.
	indexes map[objectName]index
	// revalidated holds the names of the tables a type change would scan
	// or reindex for a constraint or an index (rememberRevalidated).
	revalidated map[string]bool
	// constrainedDomains holds the names (in any schema) of the domains the
	// files gave a CHECK or NOT NULL constraint: ADD COLUMN of one rewrites
	// the table.
	constrainedDomains map[string]bool
	// volatileDomains holds, by name (in any schema), the domains whose
	// default the files made volatile, and the function it calls: ADD
	// COLUMN of one without a default of its own rewrites the table.
	volatileDomains map[string]string
	// stableFunctions holds, by name as written (with a schema only when
	// the files wrote one), whether every definition of the function the
	// files made was IMMUTABLE or STABLE: a column default calling one is
	// computed once. CREATE FUNCTION makes VOLATILE unless told otherwise.
	stableFunctions map[objectName]bool
}

// function is the body of a function or procedure the files define.
type function struct {
	body string
	sql  bool // LANGUAGE sql: SQL statements, else PL/pgSQL
}

// notNullCheck is a CHECK constraint whose expression implies that columns
// are not null (col IS NOT NULL, alone or in an AND).
type notNullCheck struct {
	columns   []string
	validated bool
}

// NewSession starts the lint of a code-location's migrations.
func NewSession(cfg Config) *Session {
	return &Session{cfg: cfg, checks: map[objectName]map[string]*notNullCheck{}, functions: map[string]function{},
		existing: map[createdKey]bool{}, partitioned: map[objectName]bool{}, columns: map[objectName]map[string]columnType{}, revalidated: map[string]bool{},
		notNull: map[objectName]map[string]bool{}, indexes: map[objectName]index{},
		constrainedDomains: map[string]bool{}, volatileDomains: map[string]string{}, stableFunctions: map[objectName]bool{}}
}

// notNullChecked reports whether a validated CHECK constraint of table
// (named as the files named it when they added it) implies that column is
// not null.
func (s *Session) notNullChecked(table objectName, column string) bool {
	for _, c := range s.checks[table] {
		if !c.validated {
			continue
		}
		for _, col := range c.columns {
			if col == column {
				return true
			}
		}
	}
	return false
}

// forgetTable forgets what is known of every table that may be the one
// named table, in whatever schema: its constraints, whether it is
// partitioned, its columns' types.
func (s *Session) forgetTable(table string) {
	s.forgetTables(func(t objectName) bool { return t.name == table })
}

// forgetChecks forgets the constraints of every table that may be the one
// named table: a dropped column takes its checks along, a type change may
// make one unprovable.
func (s *Session) forgetChecks(table string) {
	for t := range s.checks {
		if t.name == table {
			delete(s.checks, t)
		}
	}
}

// forgetSchema forgets what is known of the tables a DROP SCHEMA may have
// dropped: its own, and those named without a schema (the search path may
// have led to it).
func (s *Session) forgetSchema(schema string) {
	s.forgetTables(func(t objectName) bool { return t.schema == schema || t.schema == "" })
}

// forgetAllTables forgets what is known of every table: a statement
// dropped objects the files do not name (DROP OWNED, DROP ... CASCADE).
func (s *Session) forgetAllTables() {
	s.forgetTables(func(objectName) bool { return true })
}

// forgetTables forgets what is known of the tables gone says may be gone.
func (s *Session) forgetTables(gone func(objectName) bool) {
	forgetKeys(s.checks, gone)
	forgetKeys(s.partitioned, gone)
	forgetKeys(s.columns, gone)
	forgetKeys(s.notNull, gone)
	maps.DeleteFunc(s.indexes, func(_ objectName, idx index) bool { return gone(idx.table) })
}

// forgetKeys deletes the tables gone says may be gone from a map of them.
func forgetKeys[V any](m map[objectName]V, gone func(objectName) bool) {
	maps.DeleteFunc(m, func(t objectName, _ V) bool { return gone(t) })
}

// remember records what one ALTER TABLE subcommand does to the table's
// CHECK constraints, column types and NOT NULL columns. It runs after the
// rules, so that a statement is judged by what the earlier ones did. In a
// DO block or a function, which an IF may skip, a column's type or NOT
// NULL is forgotten, not set.
func (l *linter) remember(table objectName, cmd node) {
	name := cmd.str("name")
	l.s.rememberRevalidated(table.name, cmd["def"])
	switch cmd.str("subtype") {
	case "AT_AddConstraint":
		c := is(cmd["def"], "Constraint")
		l.s.rememberCheck(table, c, !c.bool("skip_validation"))
		if c.str("contype") == "CONSTR_PRIMARY" && l.outer < 0 {
			l.s.rememberNotNull(table, cmd["def"])
			if idx, ok := l.s.indexes[objectName{schema: table.schema, name: c.str("indexname")}]; ok {
				for _, col := range idx.columns {
					l.s.setNotNull(table, col, true)
				}
			}
		}
	case "AT_SetNotNull":
		l.s.setNotNull(table, name, l.outer < 0)
	case "AT_DropNotNull":
		l.s.setNotNull(table, name, false)
	case "AT_ValidateConstraint":
		if c := l.s.checks[table][name]; c != nil {
			c.validated = true
		}
	case "AT_DropConstraint":
		delete(l.s.checks[table], name)
	case "AT_AddColumn":
		col := is(cmd["def"], "ColumnDef")
		known := l.outer < 0 && !cmd.bool("missing_ok")
		l.s.rememberColumn(table, col.str("colname"), col, known)
		l.s.setNotNull(table, col.str("colname"), false)
		if known {
			l.s.rememberNotNull(table, cmd["def"])
		}
	case "AT_AlterColumnType":
		l.s.forgetChecks(table.name)
		l.s.rememberColumn(table, name, is(cmd["def"], "ColumnDef"), l.outer < 0)
	case "AT_DropColumn":
		l.s.forgetChecks(table.name)
		delete(l.s.columns[table], name)
		l.s.setNotNull(table, name, false)
	}
}

// rememberTable records what a CREATE TABLE declares: whether it is
// partitioned, its column types and NOT NULL columns, and its CHECK
// constraints, on a column or on the table: PostgreSQL marks those of a
// new table valid, NOT VALID or not (transformCheckConstraints), since it
// has no rows. With IF NOT EXISTS the table may have been there already,
// without them, so nothing is recorded. What is known of the name before
// is forgotten, as a DROP TABLE of it would: the CREATE succeeds only if
// no such table is left.
func (s *Session) rememberTable(table objectName, create node) {
	if create.bool("if_not_exists") {
		return
	}
	s.forgetTable(table.name)
	if create["partspec"] != nil {
		s.partitioned[table] = true
	}
	for _, elt := range create.list("tableElts") {
		constraints := []any{elt}
		if col := is(elt, "ColumnDef"); col != nil {
			constraints = col.list("constraints")
			s.rememberColumn(table, col.str("colname"), col, true)
		}
		s.rememberNotNull(table, elt)
		for _, c := range constraints {
			s.rememberCheck(table, is(c, "Constraint"), true)
		}
	}
}

// rememberCheck records c, a constraint of table, if it is a CHECK that
// implies NOT NULL of some columns.
func (s *Session) rememberCheck(table objectName, c node, validated bool) {
	if c.str("contype") != "CONSTR_CHECK" {
		return
	}
	cols := notNullColumns(c["raw_expr"])
	if len(cols) == 0 {
		return
	}
	if s.checks[table] == nil {
		s.checks[table] = map[string]*notNullCheck{}
	}
	s.checks[table][constraintName(table.name, c)] = &notNullCheck{columns: cols, validated: validated}
}

// notNullColumns returns the columns a CHECK expression says are not null:
// col IS NOT NULL, or such tests joined by AND (PostgreSQL proves NOT NULL
// from either).
func notNullColumns(expr any) []string {
	k, n := kind(expr)
	switch k {
	case "NullTest":
		if n.str("nulltesttype") != "IS_NOT_NULL" {
			return nil
		}
		fields := is(n["arg"], "ColumnRef").list("fields")
		if len(fields) == 0 {
			return nil
		}
		if col := is(fields[len(fields)-1], "String").str("sval"); col != "" {
			return []string{col}
		}
	case "BoolExpr":
		if n.str("boolop") != "AND_EXPR" {
			return nil
		}
		var out []string
		for _, a := range n.list("args") {
			out = append(out, notNullColumns(a)...)
		}
		return out
	}
	return nil
}

// constraintName is the constraint's name as written, or the one
// PostgreSQL gives an unnamed CHECK on one column: TABLE_COLUMN_check
// (ChooseConstraintName; a name past 63 bytes or taken already differs).
func constraintName(table string, c node) string {
	if name := c.str("conname"); name != "" {
		return name
	}
	if c.str("contype") == "CONSTR_FOREIGN" {
		name := table
		for _, a := range c.list("fk_attrs") {
			name += "_" + is(a, "String").str("sval")
		}
		return name + "_fkey"
	}
	cols := map[string]bool{}
	walk(c["raw_expr"], func(k string, n node) {
		if k == "ColumnRef" {
			if f := n.list("fields"); len(f) > 0 {
				cols[is(f[len(f)-1], "String").str("sval")] = true
			}
		}
	})
	name := table
	if len(cols) == 1 {
		for col := range cols {
			name += "_" + col
		}
	}
	return name + "_check"
}

// rememberDomain records a CREATE DOMAIN that gives the domain a CHECK or
// NOT NULL constraint or a volatile default, or makes it over a domain
// that has them (it inherits them; its own default replaces the base's).
// A constrained name is never forgotten: a later domain of that name, or
// of that name in another schema, is judged as constrained.
func (s *Session) rememberDomain(create node) {
	base, name := partsName(create.get("typeName").list("names")).name, partsName(create.list("domainname")).name
	constrained, volatile := s.constrainedDomains[base], s.volatileDomains[base]
	for _, c := range create.list("constraints") {
		c := is(c, "Constraint")
		switch c.str("contype") {
		case "CONSTR_CHECK", "CONSTR_NOTNULL":
			constrained = true
		case "CONSTR_DEFAULT":
			volatile = s.volatileCall(c["raw_expr"])
		}
	}
	if constrained {
		s.constrainedDomains[name] = true
	}
	s.setVolatileDomain(name, volatile)
}

// rememberFunction records the volatility of a function CREATE FUNCTION
// defines, or ALTER FUNCTION sets: the worst ever seen for the name
// stands, since an overload, or a definition a DO block may have made,
// may still be the one a call resolves to. A function made inside a DO
// block counts too: if it did not run, no function of that definition
// exists, and a default calling it fails rather than rewrites.
func (s *Session) rememberFunction(name []any, options []any) {
	schema, fn := qualifiedName(name)
	if fn == "" {
		return
	}
	stable := false
	for _, o := range options {
		if d := is(o, "DefElem"); d.str("defname") == "volatility" {
			v := is(d["arg"], "String").str("sval")
			stable = v == "immutable" || v == "stable"
		}
	}
	s.mergeFunction(objectName{schema: schema, name: fn}, stable)
}

// mergeFunction records that a function now answers calls to name, stable
// or not: the name keeps the worse of the two.
func (s *Session) mergeFunction(name objectName, stable bool) {
	if was, seen := s.stableFunctions[name]; !seen || was {
		s.stableFunctions[name] = stable
	}
}

// rememberMovedFunction: ALTER FUNCTION (or ROUTINE) ... RENAME TO or SET
// SCHEMA brings a function under a name whose calls it may now answer,
// with the volatility its old name was known by (VOLATILE when unknown).
// Moved to a schema, it may answer unqualified calls too.
func (s *Session) rememberMovedFunction(stmt node) {
	kind, to := stmt.str("renameType"), []objectName(nil)
	fn := is(stmt["object"], "ObjectWithArgs")
	schema, name := qualifiedName(fn.list("objname"))
	if kind == "" {
		kind = stmt.str("objectType") // ALTER ... SET SCHEMA
		to = []objectName{{schema: stmt.str("newschema"), name: name}, {name: name}}
	} else {
		to = []objectName{{schema: schema, name: stmt.str("newname")}}
	}
	if kind != "OBJECT_FUNCTION" && kind != "OBJECT_ROUTINE" || name == "" {
		return
	}
	stable := s.stableFunctions[objectName{schema: schema, name: name}]
	for _, n := range to {
		s.mergeFunction(n, stable)
	}
}

// rememberAlterFunction records ALTER FUNCTION ... IMMUTABLE, STABLE or
// VOLATILE (other actions leave the volatility as it was).
func (s *Session) rememberAlterFunction(alter node) {
	for _, o := range alter.list("actions") {
		if d := is(o, "DefElem"); d.str("defname") == "volatility" {
			s.rememberFunction(alter.get("func").list("objname"), []any{o})
		}
	}
}

// forgetUnqualifiedFunctions: after SET search_path, an unqualified call
// may resolve to another schema's function.
func (s *Session) forgetUnqualifiedFunctions() {
	maps.DeleteFunc(s.stableFunctions, func(k objectName, _ bool) bool { return k.schema == "" })
}

// setVolatileDomain records the volatile function domain's default calls
// ("": none).
func (s *Session) setVolatileDomain(domain, fn string) {
	if fn == "" {
		delete(s.volatileDomains, domain)
		return
	}
	s.volatileDomains[domain] = fn
}

// rememberAlterDomain records ALTER DOMAIN ... ADD CONSTRAINT (NOT VALID or
// not: the domain has a constraint either way), SET NOT NULL, and SET or
// DROP DEFAULT.
func (s *Session) rememberAlterDomain(alter node) {
	name := partsName(alter.list("typeName")).name
	switch alter.str("subtype") {
	case "C", "O":
		s.constrainedDomains[name] = true
	case "T":
		s.setVolatileDomain(name, s.volatileCall(alter["def"]))
	}
}

// rememberRenamedDomain carries the mark of a constrained domain to its new
// name (ALTER DOMAIN or ALTER TYPE ... RENAME TO).
func (s *Session) rememberRenamedDomain(rename node) {
	switch rename.str("renameType") {
	case "OBJECT_DOMAIN", "OBJECT_TYPE":
		old, name := listName(rename["object"]).name, rename.str("newname")
		if s.constrainedDomains[old] {
			s.constrainedDomains[name] = true
		}
		s.setVolatileDomain(name, s.volatileDomains[old])
	}
}
