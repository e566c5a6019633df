package sqllint

import (
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// node is one object of libpg_query's JSON parse tree. The tree is read as
// JSON rather than through pg_query_go's protobuf types: those register
// some 250 message descriptors at every process start (about 0.8 ms and
// half a megabyte), and the CLI links this package for every render, with
// migrations or not.
type node map[string]any

// kind returns the type of a wrapped node ({"IndexStmt": {...}}) and the
// node itself.
func kind(v any) (string, node) {
	m, _ := v.(map[string]any)
	for k, inner := range m {
		n, _ := inner.(map[string]any)
		return k, n
	}
	return "", nil
}

// get returns the wrapped node of type k at key, or nil.
func (n node) get(key string) node {
	m, _ := n[key].(map[string]any)
	return m
}

// is returns the node inside a wrapper of type k, or nil.
func is(v any, k string) node {
	if got, n := kind(v); got == k {
		return n
	}
	return nil
}

func (n node) str(key string) string {
	s, _ := n[key].(string)
	return s
}

func (n node) bool(key string) bool {
	b, _ := n[key].(bool)
	return b
}

// int returns a number, or def when the tree omits it (libpg_query leaves
// out zeros).
func (n node) int(key string, def int) int {
	f, ok := n[key].(float64)
	if !ok {
		return def
	}
	return int(f)
}

func (n node) list(key string) []any {
	l, _ := n[key].([]any)
	return l
}

// location is a node's byte offset, -1 when libpg_query recorded none (a
// location of 0 is left out of the tree like every zero).
func (n node) location() int { return n.int("location", 0) }

// parseTree decodes libpg_query's JSON parse tree.
func parseTree(js string) ([]node, error) {
	var tree struct {
		Stmts []node `json:"stmts"`
	}
	if err := json.Unmarshal([]byte(js), &tree); err != nil {
		return nil, fmt.Errorf("the parse tree does not decode: %w", err)
	}
	return tree.Stmts, nil
}

// token is one token of libpg_query's scanner.
type token struct {
	start, end int
	kind       int // pg_query.Token
}

// libpg_query's token numbers (pg_query.proto, PostgreSQL 17), checked
// against pg_query_go's by TestTokenNumbers.
const (
	tokComma         = 44 // ','
	tokOpen          = 40 // '('
	tokClose         = 41 // ')'
	tokSemicolon     = 59 // ';'
	tokOp            = 265
	tokTypecast      = 268
	tokLessEquals    = 272
	tokGreaterEquals = 273
	tokNotEquals     = 274
	tokSQLComment    = 275
	tokAt            = 302
	tokBetween       = 309
	tokCollate       = 335
	tokILike         = 453
	tokIn            = 458
	tokIs            = 481
	tokIsNull        = 482
	tokLike          = 509
	tokNot           = 549
	tokNotNull       = 552
	tokOperator      = 567
	tokSimilar       = 663
)

// scanTokens decodes libpg_query's protobuf ScanResult: field 2 repeats
// ScanToken {1 start, 2 end, 4 token}.
func scanTokens(b []byte) ([]token, error) {
	var out []token
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		if num != 2 || typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return nil, protowire.ParseError(n)
			}
			b = b[n:]
			continue
		}
		msg, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		var t token
		for len(msg) > 0 {
			fnum, ftyp, m := protowire.ConsumeTag(msg)
			if m < 0 {
				return nil, protowire.ParseError(m)
			}
			msg = msg[m:]
			if ftyp != protowire.VarintType {
				if m = protowire.ConsumeFieldValue(fnum, ftyp, msg); m < 0 {
					return nil, protowire.ParseError(m)
				}
				msg = msg[m:]
				continue
			}
			v, m := protowire.ConsumeVarint(msg)
			if m < 0 {
				return nil, protowire.ParseError(m)
			}
			msg = msg[m:]
			switch fnum {
			case 1:
				t.start = int(int32(v))
			case 2:
				t.end = int(int32(v))
			case 4:
				t.kind = int(v)
			}
		}
		out = append(out, t)
	}
	return out, nil
}
