package graphql

import (
	"strings"
	"unicode"

	"github.com/codeloc/codeloc/internal/names"
)

// MaxMessageBytes bounds the part of a message (Dagster's, or an HTTP
// body's) that goes into an Error's Message.
const MaxMessageBytes = 300

// Kind says what failed in a request: the transport, the HTTP answer, or
// which member of Dagster's result union came back.
type Kind int

// Kinds of Error.
const (
	// RequestFailed: the request could not be built.
	RequestFailed Kind = iota + 1
	// Unreachable: the webserver could not be reached (connection refused,
	// unknown host, reset).
	Unreachable
	// Canceled: the caller's context ended before the answer came.
	Canceled
	// Timeout: no answer within the client's request timeout.
	Timeout
	// HTTPStatus: a non-2xx answer without a GraphQL body (Redirect holds a
	// 3xx answer's Location).
	HTTPStatus
	// GraphQLErrors: a GraphQL errors array and no data: a query the schema
	// rejects (400) or a resolver that failed (5xx).
	GraphQLErrors
	// NotGraphQL: a 2xx answer that is not JSON, or has neither data nor
	// errors: not Dagster's webserver.
	NotGraphQL
	// BadResponse: an answer outside Dagster's schema (an unknown
	// __typename) or larger than any of its answers.
	BadResponse
	// LocationNotFound: RepositoryLocationNotFound, the webserver's
	// workspace has no location of that name.
	LocationNotFound
	// ReloadNotSupported: the location's workspace entry cannot reload.
	ReloadNotSupported
	// Unauthorized: UnauthorizedError.
	Unauthorized
	// PythonError: the webserver raised an exception while reloading.
	PythonError
	// Loading: the entry has neither a location nor a load error yet.
	Loading
	// LoadError: the code server could not be loaded (locationOrLoadError
	// is a PythonError).
	LoadError
)

// Error is a failed request: its Kind, and what failed on one bounded
// line (Dagster's message, without any stack trace, or the transport's).
type Error struct {
	Kind Kind
	// Message says what failed, on one line.
	Message string
	// HTTPStatus is the answer's status; 0 when none came.
	HTTPStatus int
	// Redirect is a 3xx answer's Location header.
	Redirect string
}

// Error is the message.
func (e *Error) Error() string { return e.Message }

// firstLine is s's first non-blank line, with control characters turned
// into spaces: a Python message's first line never holds its traceback.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// oneLine folds a whole text onto one line, bounded.
func oneLine(s string) string {
	return bound(strings.Join(strings.Fields(s), " "))
}

// bound cuts s to MaxMessageBytes, marking the cut.
func bound(s string) string {
	if len(s) <= MaxMessageBytes {
		return s
	}
	return names.TruncateUTF8(s, MaxMessageBytes-len("…")) + "…"
}
