package sqllint

import "strings"

// stable lists functions PostgreSQL ships as IMMUTABLE or STABLE (pg_proc's
// provolatile 'i' or 's', in every overload) that a column default
// commonly calls: such a default is computed once by ADD COLUMN and stored
// as the missing value, with no rewrite (PostgreSQL 11+). Any other
// function is taken as volatile: the built-in volatile ones (random(),
// clock_timestamp(), gen_random_uuid(), nextval() ...), and every user or
// extension function, which CREATE FUNCTION makes VOLATILE unless told
// otherwise. A name qualified with a schema other than pg_catalog is a
// user function, whatever its name.
var stable = map[string]bool{
	// date and time (STABLE: the transaction's start)
	"now": true, "transaction_timestamp": true, "statement_timestamp": true,
	"date_trunc": true, "date_part": true, "extract": true, "make_date": true, "make_time": true,
	"make_timestamp": true, "make_timestamptz": true, "make_interval": true, "timezone": true,
	"to_timestamp": true, "to_date": true, "to_char": true, "to_number": true, "age": true,
	"date_bin": true, "justify_days": true, "justify_hours": true, "justify_interval": true,
	// settings and session
	"current_setting": true, "current_database": true, "current_schema": true,
	// text
	"lower": true, "upper": true, "initcap": true, "length": true, "char_length": true, "octet_length": true,
	"btrim": true, "ltrim": true, "rtrim": true, "substring": true, "substr": true, "replace": true,
	"left": true, "right": true, "lpad": true, "rpad": true, "repeat": true, "split_part": true,
	"regexp_replace": true, "concat": true, "concat_ws": true, "format": true, "md5": true, "sha256": true,
	"encode": true, "decode": true, "translate": true, "reverse": true, "chr": true, "ascii": true,
	// numbers
	"abs": true, "round": true, "trunc": true, "floor": true, "ceil": true, "ceiling": true,
	"power": true, "sqrt": true, "mod": true, "sign": true,
	// json and arrays
	"to_json": true, "to_jsonb": true, "json_build_object": true, "jsonb_build_object": true,
	"json_build_array": true, "jsonb_build_array": true, "jsonb_object": true, "json_object": true,
	"array_fill": true, "array_length": true, "cardinality": true, "array_append": true, "array_prepend": true, "array_cat": true,
	// uuid-ossp's IMMUTABLE ones (v1 and v4 are VOLATILE)
	"uuid_nil": true, "uuid_ns_dns": true, "uuid_ns_url": true, "uuid_ns_oid": true, "uuid_ns_x500": true,
	"uuid_generate_v3": true, "uuid_generate_v5": true,
}

// stableOperators are the operator names of the IMMUTABLE or STABLE
// built-in operators a column default commonly uses: arithmetic,
// concatenation, comparison, pattern matching, bits, json and arrays. An
// operator is a function call too (CREATE OPERATOR names a function, which
// CREATE FUNCTION makes VOLATILE unless told otherwise): any other name, or
// a name qualified with a schema other than pg_catalog, is taken as
// volatile.
var stableOperators = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "%": true, "^": true, "|/": true, "||/": true, "@": true,
	"||": true, "=": true, "<>": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true,
	"~": true, "~*": true, "!~": true, "!~*": true, "~~": true, "!~~": true, "~~*": true, "!~~*": true,
	"&": true, "|": true, "#": true, "<<": true, ">>": true,
	"->": true, "->>": true, "#>": true, "#>>": true, "#-": true, "@>": true, "<@": true, "&&": true, "?": true, "?|": true, "?&": true,
}

// builtinVolatile lists VOLATILE functions of pg_catalog a column default
// may call. pg_catalog comes first in the search path unless placed
// later, so a function of the files with one of these names, however they
// declared it, does not stand for an unqualified call.
var builtinVolatile = map[string]bool{
	"random": true, "random_normal": true, "setseed": true, "clock_timestamp": true, "timeofday": true,
	"gen_random_uuid": true, "uuidv4": true, "uuidv7": true, "nextval": true, "setval": true, "currval": true, "lastval": true,
	"txid_current": true, "txid_current_if_assigned": true, "pg_current_xact_id": true, "pg_current_xact_id_if_assigned": true,
	"set_config": true, "pg_sleep": true, "pg_notify": true,
}

// volatileCall names the first function or operator the expression calls
// that is neither a known IMMUTABLE or STABLE built-in nor a function the
// files declared IMMUTABLE or STABLE ("uuid()", "the operator @@@"), or
// returns "". s may be nil: no function of the files is known.
func (s *Session) volatileCall(expr any) string {
	found := ""
	walk(expr, func(k string, n node) {
		if found != "" {
			return
		}
		switch k {
		case "FuncCall":
			if names := n.list("funcname"); !s.declaredStable(names) {
				found = volatileFunction(names)
			}
		case "A_Expr":
			found = volatileOperator(n)
		}
	})
	return found
}

// declaredStable reports whether every definition the files made of the
// function named so (as written, schema and all) was IMMUTABLE or STABLE.
// An overload they did not define (an extension's, or one made before
// the migrations) is not known: that is the limit of a lint that sees no
// catalog.
func (s *Session) declaredStable(names []any) bool {
	if s == nil {
		return false
	}
	schema, name := qualifiedName(names)
	if schema == "" && builtinVolatile[name] {
		return false
	}
	return s.stableFunctions[objectName{schema: schema, name: name}]
}

// qualifiedName splits a function's or an operator's name as written.
func qualifiedName(names []any) (schema, name string) {
	if len(names) == 0 {
		return "", ""
	}
	name = is(names[len(names)-1], "String").str("sval")
	if len(names) > 1 {
		schema = is(names[len(names)-2], "String").str("sval")
	}
	return schema, name
}

func volatileFunction(names []any) string {
	schema, name := qualifiedName(names)
	if name == "" {
		return ""
	}
	uuidOssp := name == "uuid_nil" || strings.HasPrefix(name, "uuid_ns") || strings.HasPrefix(name, "uuid_generate_")
	if stable[name] && (schema == "" || schema == "pg_catalog" || uuidOssp) {
		return ""
	}
	if schema != "" {
		return schema + "." + name + "()"
	}
	return name + "()"
}

// volatileOperator judges the operators of an A_Expr. BETWEEN and its
// kin name no operator (they expand to < and >).
func volatileOperator(n node) string {
	switch n.str("kind") {
	case "AEXPR_OP", "AEXPR_OP_ANY", "AEXPR_OP_ALL", "AEXPR_DISTINCT", "AEXPR_NOT_DISTINCT", "AEXPR_NULLIF",
		"AEXPR_IN", "AEXPR_LIKE", "AEXPR_ILIKE", "AEXPR_SIMILAR":
	default:
		return ""
	}
	schema, name := qualifiedName(n.list("name"))
	if name == "" || stableOperators[name] && (schema == "" || schema == "pg_catalog") {
		return ""
	}
	if schema != "" {
		return "the operator " + schema + "." + name
	}
	return "the operator " + name
}
