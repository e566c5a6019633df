package sqllint

import "strconv"

// columnType is a column's type as a statement wrote it: its name when
// PostgreSQL's own (pg_catalog, or unqualified: pg_catalog comes first in
// the search path), else "", and its type modifiers.
type columnType struct {
	name  string
	mods  []int
	array bool
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
	if old.array || new.array {
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

// rememberColumn records column's type in table, or forgets it when the
// statement may not have set it (known false: IF NOT EXISTS, a DO block).
func (s *Session) rememberColumn(table objectName, column string, tn node, known bool) {
	t, ok := typeOf(tn)
	if !known || !ok || tn == nil {
		delete(s.columns[table], column)
		return
	}
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
