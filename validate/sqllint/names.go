package sqllint

// What the files name. Two statements surely name one object when they
// write the same schema (or both none) and the same name, in the same
// namespace: a table and a domain, or a table and a schema, may share a
// name and are still two objects. A qualified and an unqualified name may
// or may not be one object, as search_path decides, so what one does never
// lets a rule be skipped for the other.

// objectName is an object's name as a statement wrote it: its schema (""
// when the statement wrote none) and its own name. A catalog is left out:
// PostgreSQL refuses any database but the current one.
type objectName struct{ schema, name string }

// namespace is where PostgreSQL keeps a kind of object's names.
type namespace int

const (
	relations namespace = iota // pg_class: tables, views, indexes, sequences, one namespace per schema
	types                      // pg_type: domains, enums, ranges, composite types
	schemas                    // pg_namespace
)

// createdKey is an object the file created.
type createdKey struct {
	ns  namespace
	obj objectName
}

// constraintKey is a table's constraint, by the names the file writes.
type constraintKey struct {
	table      objectName
	constraint string
}

// rangeVarName is the name a RangeVar (a table reference) writes.
func rangeVarName(rv node) objectName {
	return objectName{schema: rv.str("schemaname"), name: rv.str("relname")}
}

// listName is a name DROP writes: String nodes, a List of them, or a
// TypeName (DROP TYPE, DROP DOMAIN).
func listName(v any) objectName {
	if list := is(v, "List"); list != nil {
		return partsName(list.list("items"))
	}
	if tn := is(v, "TypeName"); tn != nil {
		return partsName(tn.list("names"))
	}
	return partsName([]any{v})
}

// partsName is a name written as String nodes: [schema,] name.
func partsName(items []any) objectName {
	var parts []string
	for _, it := range items {
		parts = append(parts, is(it, "String").str("sval"))
	}
	switch len(parts) {
	case 0:
		return objectName{}
	case 1:
		return objectName{name: parts[0]}
	}
	return objectName{schema: parts[len(parts)-2], name: parts[len(parts)-1]}
}

// create records that the file created o.
func (l *linter) create(ns namespace, o objectName) {
	if o.name != "" {
		l.created[createdKey{ns, o}] = true
	}
}

// searchPathChanged forgets the unqualified names the file created: after
// SET search_path, the same name may resolve to another schema's object.
func (l *linter) searchPathChanged() {
	l.s.forgetUnqualifiedFunctions()
	for k := range l.created {
		if k.obj.schema == "" && k.ns != schemas {
			delete(l.created, k)
		}
	}
}

// createUnless records that the file created o, unless the statement said
// IF NOT EXISTS of an object an earlier file created or changed: that one
// exists, rows and all, and what follows acts on it.
func (l *linter) createUnless(ifNotExists bool, ns namespace, o objectName) {
	if !ifNotExists || !l.s.existing[createdKey{ns, o}] {
		l.create(ns, o)
	}
}

// createdHere reports whether the file created o, under that very name.
func (l *linter) createdHere(ns namespace, o objectName) bool {
	return o.name != "" && l.created[createdKey{ns, o}]
}
