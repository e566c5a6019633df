package workspace

import (
	"fmt"
	"strings"
)

// cfgKind is a Dagster config type kind (dagster/_config/config_type.py).
type cfgKind int

const (
	cfgString      cfgKind = iota // String (str)
	cfgInt                        // Int (int, not bool)
	cfgBool                       // Bool
	cfgScalarUnion                // ScalarUnion: scalar, else the non-scalar type
	cfgPermissive                 // Permissive: a mapping, any keys
	cfgShape                      // Shape: a mapping of these keys only
	cfgSelector                   // Selector: a mapping of exactly one of these keys
	cfgArray                      // Array
	cfgRefused                    // valid for Dagster, refused by codeloc
)

// cfgType is a Dagster config type.
type cfgType struct {
	kind              cfgKind
	fields            []cfgField
	elem              *cfgType // Array
	scalar, nonScalar *cfgType // ScalarUnion
	why               string   // cfgRefused
}

type cfgField struct {
	name     string
	typ      *cfgType
	required bool
}

func (t *cfgType) field(name string) (cfgField, bool) {
	for _, f := range t.fields {
		if f.name == name {
			return f, true
		}
	}
	return cfgField{}, false
}

func (t *cfgType) fieldNames() string {
	ns := make([]string, len(t.fields))
	for i, f := range t.fields {
		ns[i] = f.name
	}
	return strings.Join(ns, ", ")
}

// hasFields is ConfigTypeKind.has_fields.
func (t *cfgType) hasFields() bool {
	return t.kind == cfgShape || t.kind == cfgPermissive || t.kind == cfgSelector
}

// schema is WORKSPACE_CONFIG_SCHEMA (see Check).
var schema = func() *cfgType {
	str := &cfgType{kind: cfgString}
	env := &cfgType{kind: cfgSelector, fields: []cfgField{{"env", str, true}}}
	stringSource := &cfgType{kind: cfgScalarUnion, scalar: str, nonScalar: env}
	intSource := &cfgType{kind: cfgScalarUnion, scalar: &cfgType{kind: cfgInt}, nonScalar: env}
	target := &cfgType{kind: cfgRefused, why: "Dagster accepts it, but the webserver and the daemon would then start that code themselves, in their own pods: codeloc's workspace loads code-locations through grpc_server only"}
	grpcServer := &cfgType{kind: cfgShape, fields: []cfgField{
		{"host", stringSource, false},
		{"socket", stringSource, false},
		{"port", intSource, false},
		{"location_name", stringSource, false},
		{"ssl", &cfgType{kind: cfgBool}, false},
		{"additional_metadata", &cfgType{kind: cfgPermissive}, false},
	}}
	entry := &cfgType{kind: cfgSelector, fields: []cfgField{
		{"python_file", target, false},
		{"python_module", target, false},
		{"python_package", target, false},
		{"grpc_server", grpcServer, false},
	}}
	return &cfgType{kind: cfgShape, fields: []cfgField{
		{"load_from", &cfgType{kind: cfgArray, elem: entry}, false},
	}}
}()

// the workspace schema.
func (c *checker) validate(v *pyValue, t *cfgType, path string) {
	if v.kind == pyNull {
		c.fail(v, path, "null is not allowed here")
		return
	}
	switch t.kind {
	case cfgString:
		if v.kind != pyStr {
			c.fail(v, path, "want a string, got %s", v.describe())
		}
	case cfgInt:
		if v.kind != pyInt {
			c.fail(v, path, "want an integer, got %s", v.describe())
		}
	case cfgBool:
		if v.kind != pyBool {
			c.fail(v, path, "want true or false, got %s", v.describe())
		}
	case cfgScalarUnion:
		if v.kind == pyMap || v.kind == pyList {
			c.validate(v, t.nonScalar, path)
		} else {
			c.validate(v, t.scalar, path)
		}
	case cfgPermissive:
		if v.kind != pyMap {
			c.fail(v, path, "want a mapping, got %s", v.describe())
			return
		}
		// additional_metadata, the one Permissive, is a Mapping[str, Any]:
		// the loader's GrpcServerCodeLocationOrigin refuses other keys.
		for _, k := range v.keys {
			if k.kind != pyStr {
				c.fail(k, path, "key %s is %s, not a string: Dagster's loader takes string keys only", k.text, k.describe())
			}
		}
	case cfgShape:
		c.shape(v, t, path)
	case cfgSelector:
		c.selector(v, t, path)
	case cfgArray:
		if v.kind != pyList {
			c.fail(v, path, "want a list, got %s", v.describe())
			return
		}
		for i, item := range v.items {
			c.validate(item, t.elem, fmt.Sprintf("%s[%d]", path, i))
		}
	case cfgRefused:
		c.fail(v, path, "%s", t.why)
	}
}

// shape validates a strict Shape: a mapping of its keys only, the required
// ones present.
func (c *checker) shape(v *pyValue, t *cfgType, path string) {
	if v.kind != pyMap {
		c.fail(v, path, "want a mapping, got %s", v.describe())
		return
	}
	for i, k := range v.keys {
		f, ok := t.field(k.text)
		if k.kind != pyStr || !ok {
			c.fail(k, path, "unexpected key %s: Dagster's schema allows only %s", k.text, t.fieldNames())
			continue
		}
		c.validate(v.vals[i], f.typ, join(path, f.name))
	}
	for _, f := range t.fields {
		if f.required && v.get(f.name) == nil {
			c.fail(v, path, "missing required key %s", f.name)
		}
	}
}

// selector validates a Selector: a mapping of exactly one of its keys.
func (c *checker) selector(v *pyValue, t *cfgType, path string) {
	if v.kind == pyMap && len(v.keys) == 0 {
		if len(t.fields) > 1 || t.fields[0].required {
			c.fail(v, path, "empty: give one of %s", t.fieldNames())
		}
		return
	}
	if v.kind != pyMap {
		c.fail(v, path, "want a mapping of one of %s, got %s", t.fieldNames(), v.describe())
		return
	}
	if len(v.keys) > 1 {
		given := make([]string, len(v.keys))
		for i, k := range v.keys {
			given[i] = k.text
		}
		c.fail(v, path, "%s given: one only of %s", strings.Join(given, " and "), t.fieldNames())
		return
	}
	k, val := v.keys[0], v.vals[0]
	f, ok := t.field(k.text)
	if k.kind != pyStr || !ok {
		c.fail(k, path, "unexpected key %s: Dagster's schema allows one of %s", k.text, t.fieldNames())
		return
	}
	if val.kind == pyNull && f.typ.hasFields() {
		// A key with no value stands for {}, so that defaults fill in.
		val = &pyValue{kind: pyMap, line: val.line, col: val.col}
	}
	c.validate(val, f.typ, join(path, f.name))
}
