package sqllint

import (
	"fmt"
	"strconv"
	"strings"
)

// columnType is a column's type as a statement wrote it: its name when
// PostgreSQL's own (pg_catalog, or unqualified: pg_catalog comes first in
// the search path), else "", its type modifiers, and whether the statement
// gave the column a COLLATE (a type change without one resets it to the
// type's default, and rebuilds the indexes).
type columnType struct {
	name     string
	mods     []int
	array    bool
	collated bool
}

// typeOf reads a TypeName; ok is false when a modifier is no constant.
func typeOf(tn node) (t columnType, ok bool) {
	schema, name := qualifiedName(tn.list("names"))
	if schema == "" || schema == "pg_catalog" {
		t.name = name
	}
	t.array = len(tn.list("arrayBounds")) > 0
	for _, m := range tn.list("typmods") {
		n, err := strconv.Atoi(constString(m))
		if err != nil {
			return columnType{}, false
		}
		t.mods = append(t.mods, n)
	}
	return t, true
}

// widens reports whether ALTER COLUMN ... TYPE from old to new rewrites
// neither the table nor its indexes: the changes PostgreSQL's own support
// functions (varchar_support, numeric_support, varbit_support) and binary
// coercions make a catalog change, as ALTER TABLE's page lists them —
// varchar(n) to a longer varchar or to varchar or text, text or varchar to
// varchar, numeric(p,s) to a larger precision at the same scale or to
// numeric, varbit(n) to a longer varbit or to varbit.
func widens(old, new columnType) bool {
	if old.array || new.array || old.collated {
		return false
	}
	switch {
	case (old.name == "varchar" || old.name == "text") && (new.name == "text" || new.name == "varchar" && len(new.mods) == 0):
		return true
	case old.name == "varchar" && new.name == "varchar", old.name == "varbit" && new.name == "varbit":
		return len(new.mods) == 0 || len(old.mods) == 1 && len(new.mods) == 1 && new.mods[0] >= old.mods[0]
	case old.name == "numeric" && new.name == "numeric":
		if len(new.mods) == 0 {
			return true
		}
		if len(old.mods) == 0 {
			return false
		}
		return scale(new.mods) == scale(old.mods) && new.mods[0] >= old.mods[0]
	}
	return false
}

// scale is numeric(p[,s])'s scale: 0 when unsaid.
func scale(mods []int) int {
	if len(mods) > 1 {
		return mods[1]
	}
	return 0
}

// rememberColumn records the type a column definition (def, a ColumnDef)
// gives table's column, or forgets it when the statement may not have set
// it (known false: IF NOT EXISTS, a DO block).
func (s *Session) rememberColumn(table objectName, column string, def node, known bool) {
	t, ok := typeOf(def.get("typeName"))
	if !known || !ok || def.get("typeName") == nil {
		delete(s.columns[table], column)
		return
	}
	t.collated = def["collClause"] != nil
	if s.columns[table] == nil {
		s.columns[table] = map[string]columnType{}
	}
	s.columns[table][column] = t
}

// rememberRevalidated marks the table a statement gives a CHECK or
// EXCLUDE constraint, or an index on an expression or with a WHERE: a type
// change of any of its columns re-validates such a constraint with a scan,
// and rebuilds such an index (ATPostAlterTypeParse re-adds them;
// CheckIndexCompatible never reuses an index with an expression or a
// predicate), under its ACCESS EXCLUSIVE lock. Marked by name, in any
// schema, and never forgotten: the lint cannot tell which column they read.
func (s *Session) rememberRevalidated(table string, stmt any) {
	walk(stmt, func(k string, n node) {
		switch {
		case k == "Constraint" && (n.str("contype") == "CONSTR_CHECK" || n.str("contype") == "CONSTR_EXCLUSION"),
			k == "IndexStmt" && n["whereClause"] != nil,
			k == "IndexElem" && n["expr"] != nil:
			s.revalidated[table] = true
		}
	})
}

// typeChangeWidens reports whether ALTER COLUMN ... TYPE (cmd) of table's
// column widens a type the files gave it, with no USING and no COLLATE, on
// a table with no constraint or index the change would check or rebuild.
func (s *Session) typeChangeWidens(table objectName, column string, cmd node) bool {
	def := is(cmd["def"], "ColumnDef")
	old, known := s.columns[table][column]
	if !known || def["raw_default"] != nil || def["collClause"] != nil || s.revalidated[table.name] {
		return false
	}
	new, ok := typeOf(def.get("typeName"))
	return ok && widens(old, new)
}

// index is an index the files built on plain columns, by its table's name
// as the files wrote it.
type index struct {
	table   objectName
	columns []string
}

// rememberIndex records the columns of a named index built on plain
// columns (ADD PRIMARY KEY USING INDEX refuses one on an expression).
func (s *Session) rememberIndex(create node) {
	rel := rangeVarName(create.get("relation"))
	key := objectName{schema: rel.schema, name: create.str("idxname")}
	var columns []string
	for _, p := range create.list("indexParams") {
		e := is(p, "IndexElem")
		if e.str("name") == "" {
			delete(s.indexes, key)
			return
		}
		columns = append(columns, e.str("name"))
	}
	if key.name != "" {
		s.indexes[key] = index{table: rel, columns: columns}
	}
}

// forgetIndex forgets the indexes of that name in any schema (dropped or
// renamed).
func (s *Session) forgetIndex(name string) {
	for k := range s.indexes {
		if k.name == name {
			delete(s.indexes, k)
		}
	}
}

// setNotNull records whether table's column is NOT NULL.
func (s *Session) setNotNull(table objectName, column string, notNull bool) {
	if !notNull {
		delete(s.notNull[table], column)
		return
	}
	if s.notNull[table] == nil {
		s.notNull[table] = map[string]bool{}
	}
	s.notNull[table][column] = true
}

// rememberNotNull records the columns a column definition or a PRIMARY
// KEY makes NOT NULL: NOT NULL, PRIMARY KEY, an identity, a serial type.
func (s *Session) rememberNotNull(table objectName, def any) {
	if c := is(def, "Constraint"); c != nil && c.str("contype") == "CONSTR_PRIMARY" {
		for _, k := range c.list("keys") {
			s.setNotNull(table, is(k, "String").str("sval"), true)
		}
		return
	}
	col := is(def, "ColumnDef")
	if col == nil {
		return
	}
	if names := col.get("typeName").list("names"); len(names) > 0 && serial[is(names[len(names)-1], "String").str("sval")] {
		s.setNotNull(table, col.str("colname"), true)
	}
	for _, c := range col.list("constraints") {
		switch is(c, "Constraint").str("contype") {
		case "CONSTR_NOTNULL", "CONSTR_PRIMARY", "CONSTR_IDENTITY":
			s.setNotNull(table, col.str("colname"), true)
		}
	}
}

// isNotNull reports whether table's column is known NOT NULL, or a
// validated CHECK proves it is (SET NOT NULL then skips its scan).
func (s *Session) isNotNull(table objectName, column string) bool {
	return s.notNull[table][column] || s.notNullChecked(table, column)
}

// primaryKeyUsingIndex: ADD PRIMARY KEY USING INDEX sets NOT NULL on each
// of the index's columns that is not, which scans the whole table under
// its ACCESS EXCLUSIVE lock (ALTER TABLE's page) unless a validated CHECK
// (col IS NOT NULL) proves it.
func (l *linter) primaryKeyUsingIndex(rel objectName, name string) {
	idx, known := l.s.indexes[objectName{schema: rel.schema, name: name}]
	var nullable []string
	for _, c := range idx.columns {
		if !l.s.isNotNull(rel, c) {
			nullable = append(nullable, c)
		}
	}
	hint := "make each column NOT NULL first without a scan (ADD CONSTRAINT ... CHECK (col IS NOT NULL) NOT VALID, VALIDATE CONSTRAINT in a later file, then SET NOT NULL), or add the constraint UNIQUE USING INDEX"
	switch {
	case !known:
		l.find(RuleSetNotNull, -1, fmt.Sprintf("ADD PRIMARY KEY USING INDEX %q sets NOT NULL on each of its columns that is not, scanning the whole table %q under an ACCESS EXCLUSIVE lock: the lint knows neither the index's columns nor that they are NOT NULL (no earlier file built it)", name, rel.name), hint)
	case len(nullable) > 0:
		l.find(RuleSetNotNull, -1, fmt.Sprintf("ADD PRIMARY KEY USING INDEX %q sets NOT NULL on %s, scanning the whole table %q under an ACCESS EXCLUSIVE lock: no NOT NULL or validated CHECK (col IS NOT NULL) of them is known", name, strings.Join(nullable, ", "), rel.name), hint)
	}
}
