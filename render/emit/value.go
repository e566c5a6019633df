package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

var (
	marshalerType = reflect.TypeFor[json.Marshaler]()
	isZeroerType  = reflect.TypeFor[interface{ IsZero() bool }]()
)

// methods is what value and zero ask of a type at every value they visit:
// which methods encoding/json would call on it, or on a pointer to it.
type methods struct {
	marshals, ptrMarshals bool // json.Marshaler
	zeroer, ptrZeroer     bool // IsZero() bool
}

// methodCache caches methods by type: reflect compares method names to
// tell whether a type implements an interface, and looks the pointer type
// up in a cache of its own.
var methodCache sync.Map // reflect.Type -> methods

func methodsOf(t reflect.Type) methods {
	if m, ok := methodCache.Load(t); ok {
		return m.(methods)
	}
	m := methods{marshals: t.Implements(marshalerType), zeroer: t.Implements(isZeroerType)}
	if t.Kind() != reflect.Pointer {
		pt := reflect.PointerTo(t)
		m.ptrMarshals, m.ptrZeroer = pt.Implements(marshalerType), pt.Implements(isZeroerType)
	}
	methodCache.Store(t, m)
	return m
}

// value is v as encoding/json writes it and reads it back into an any
// (maps, slices, strings, booleans, int64 and float64 numbers): json tags,
// omitempty, omitzero, embedded structs inlined, json.Marshaler honoured. It visits
// only the values the object holds, where encoding/json first builds an
// encoder for every type the object's type can reach (for a Pod, every
// volume source and probe: two milliseconds in a process that renders
// once).
func value(v reflect.Value) (any, error) {
	if !v.IsValid() {
		return nil, nil
	}
	m := methodsOf(v.Type())
	if m.ptrMarshals && v.CanAddr() {
		v, m.marshals = v.Addr(), true
	}
	if m.marshals {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return nil, nil
		}
		return marshaled(v.Interface().(json.Marshaler))
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil, nil
		}
		return value(v.Elem())
	case reflect.Struct:
		m := map[string]any{}
		return m, fields(v, m)
	case reflect.Map:
		return mapValue(v)
	case reflect.Slice, reflect.Array:
		return sliceValue(v)
	case reflect.String:
		return v.String(), nil
	case reflect.Bool:
		return v.Bool(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(v.Uint()), nil
	case reflect.Float32, reflect.Float64:
		return v.Float(), nil
	}
	return nil, fmt.Errorf("emit: cannot convert a %s", v.Type())
}

// jsonField is how encoding/json writes a struct field.
type jsonField struct {
	index               int
	name                string
	inline              bool // an embedded struct without a name: its fields are the struct's
	omitEmpty, omitZero bool
}

// structFields caches jsonFields by struct type.
var structFields sync.Map // reflect.Type -> []jsonField

func jsonFields(t reflect.Type) []jsonField {
	if fs, ok := structFields.Load(t); ok {
		return fs.([]jsonField)
	}
	var fs []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" && opts == "", !f.IsExported() && !f.Anonymous:
			continue
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			fs = append(fs, jsonField{index: i, inline: true})
			continue
		case name == "":
			name = f.Name
		}
		fs = append(fs, jsonField{index: i, name: name,
			omitEmpty: strings.Contains(","+opts+",", ",omitempty,"), omitZero: strings.Contains(","+opts+",", ",omitzero,")})
	}
	structFields.Store(t, fs)
	return fs
}

// fields adds the fields of struct v to m, embedded structs inlined.
func fields(v reflect.Value, m map[string]any) error {
	for _, f := range jsonFields(v.Type()) {
		fv := v.Field(f.index)
		if f.inline {
			if err := fields(fv, m); err != nil {
				return err
			}
			continue
		}
		if f.omitEmpty && empty(fv) || f.omitZero && zero(fv) {
			continue
		}
		val, err := value(fv)
		if err != nil {
			return err
		}
		m[f.name] = val
	}
	return nil
}

func mapValue(v reflect.Value) (any, error) {
	if v.IsNil() {
		return nil, nil
	}
	if v.Type().Key().Kind() != reflect.String {
		return nil, fmt.Errorf("emit: cannot convert a %s", v.Type())
	}
	m := make(map[string]any, v.Len())
	for it := v.MapRange(); it.Next(); {
		val, err := value(it.Value())
		if err != nil {
			return nil, err
		}
		m[it.Key().String()] = val
	}
	return m, nil
}

func sliceValue(v reflect.Value) (any, error) {
	if v.Kind() == reflect.Slice && v.IsNil() {
		return nil, nil
	}
	if v.Type().Elem().Kind() == reflect.Uint8 {
		return nil, fmt.Errorf("emit: cannot convert a %s", v.Type()) // base64 in JSON: none emitted
	}
	items := make([]any, v.Len())
	for i := range items {
		val, err := value(v.Index(i))
		if err != nil {
			return nil, err
		}
		items[i] = val
	}
	return items, nil
}

// zero is encoding/json's omitzero rule: the value's IsZero method when it
// has one (metav1.Time's, since Kubernetes 1.35), else the zero value.
func zero(v reflect.Value) bool {
	m := methodsOf(v.Type())
	if m.zeroer {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return true
		}
		return v.Interface().(interface{ IsZero() bool }).IsZero()
	}
	if m.ptrZeroer && v.CanAddr() {
		return v.Addr().Interface().(interface{ IsZero() bool }).IsZero()
	}
	return v.IsZero()
}

// empty is encoding/json's omitempty rule.
func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// marshaled is what a type's own MarshalJSON writes, read back.
func marshaled(m json.Marshaler) (any, error) {
	data, err := m.MarshalJSON()
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return numbers(out), nil
}

// numbers turns the json.Numbers of v into int64, or float64 when they
// are not whole.
func numbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = numbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = numbers(x)
		}
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return v
}
