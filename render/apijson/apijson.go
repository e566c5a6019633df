// Package apijson decodes JSON into Kubernetes API types as the API server
// reads them (sigs.k8s.io/json: field names case-sensitive, integers kept
// as integers, strictness on demand), at a fraction of the first decode's
// cost.
//
// A process's first decode into a PodSpec with encoding/json or
// sigs.k8s.io/json builds the field tables and the encoders of every type
// the PodSpec reaches, used or not: about a twentieth of a small render's
// CPU in the per-render process. github.com/go-json-experiment/json (the
// json/v2 of Go's proposal) builds a type's tables only when the data holds
// one. So each decode tries json/v2 first, with options at least as strict
// as sigs.k8s.io/json's and no interface value (json/v2 would read its
// integers as float64), and runs sigs.k8s.io/json only when json/v2
// refuses: the result and every message are sigs.k8s.io/json's, and
// TestAgreement and FuzzAgreement hold json/v2's acceptance to a subset of
// sigs.k8s.io/json's with the same decoded value.
package apijson

import (
	"errors"
	"reflect"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	sigsjson "sigs.k8s.io/json"
)

// Decode decodes data into dst, a pointer to a zero API value, as
// sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts does.
func Decode(data []byte, dst any) error {
	if decodeFast(data, dst) == nil {
		return nil
	}
	reset(dst)
	return sigsjson.UnmarshalCaseSensitivePreserveInts(data, dst)
}

// DecodeStrict decodes data into dst, a pointer to a zero API value, as
// sigs.k8s.io/json's UnmarshalStrict with DisallowDuplicateFields and
// DisallowUnknownFields does: strict lists the unknown and duplicate
// fields, err is the first error that stopped the decoding.
func DecodeStrict(data []byte, dst any) (strict []error, err error) {
	if decodeStrictFast(data, dst) == nil {
		return nil, nil
	}
	reset(dst)
	return sigsjson.UnmarshalStrict(data, dst, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
}

// errReadOtherwise stops json/v2 where sigs.k8s.io/json reads the value
// otherwise: an interface (sigs.k8s.io/json keeps integers as int64,
// json/v2 makes them float64).
var errReadOtherwise = errors.New("read by sigs.k8s.io/json")

var (
	// fastOptions are decodeFast's: case-sensitive names, duplicate names
	// and invalid UTF-8 refused (json/v2's defaults), and no interface.
	fastOptions = jsonv2.WithUnmarshalers(jsonv2.UnmarshalFromFunc(func(*jsontext.Decoder, *any) error {
		return errReadOtherwise
	}))
	// strictFastOptions are decodeStrictFast's: fastOptions, and unknown
	// names refused.
	strictFastOptions = jsonv2.JoinOptions(fastOptions, jsonv2.RejectUnknownMembers(true))
)

// decodeFast is Decode's json/v2 step.
func decodeFast(data []byte, dst any) error {
	return jsonv2.Unmarshal(data, dst, fastOptions)
}

// decodeStrictFast is DecodeStrict's json/v2 step.
func decodeStrictFast(data []byte, dst any) error {
	return jsonv2.Unmarshal(data, dst, strictFastOptions)
}

// reset zeroes what json/v2 may have half-filled before it refused.
func reset(dst any) {
	if v := reflect.ValueOf(dst); v.Kind() == reflect.Pointer && !v.IsNil() {
		v.Elem().SetZero()
	}
}
