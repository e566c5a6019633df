package sqllint

import (
	"testing"

	pgq "github.com/pganalyze/pg_query_go/v6"
)

// TestTokenNumbers checks the token numbers the lint reads against
// pg_query_go's, generated from the same pg_query.proto as the module.
func TestTokenNumbers(t *testing.T) {
	for got, want := range map[int]pgq.Token{
		tokComma: pgq.Token_ASCII_44, tokOpen: pgq.Token_ASCII_40, tokClose: pgq.Token_ASCII_41, tokSemicolon: pgq.Token_ASCII_59,
		'%': pgq.Token_ASCII_37, '*': pgq.Token_ASCII_42, '+': pgq.Token_ASCII_43, '-': pgq.Token_ASCII_45, '/': pgq.Token_ASCII_47,
		'<': pgq.Token_ASCII_60, '=': pgq.Token_ASCII_61, '>': pgq.Token_ASCII_62, '^': pgq.Token_ASCII_94,
		tokOp: pgq.Token_Op, tokTypecast: pgq.Token_TYPECAST, tokLessEquals: pgq.Token_LESS_EQUALS,
		tokGreaterEquals: pgq.Token_GREATER_EQUALS, tokNotEquals: pgq.Token_NOT_EQUALS, tokSQLComment: pgq.Token_SQL_COMMENT,
		tokAt: pgq.Token_AT, tokBetween: pgq.Token_BETWEEN, tokCollate: pgq.Token_COLLATE, tokILike: pgq.Token_ILIKE,
		tokIn: pgq.Token_IN_P, tokIs: pgq.Token_IS, tokIsNull: pgq.Token_ISNULL, tokLike: pgq.Token_LIKE, tokNot: pgq.Token_NOT,
		tokNotNull: pgq.Token_NOTNULL, tokOperator: pgq.Token_OPERATOR, tokSimilar: pgq.Token_SIMILAR,
	} {
		if got != int(want) {
			t.Errorf("token %s is %d in pg_query.proto, not %d", want, want, got)
		}
	}
}
