package reload

import "sync"

// Stable codes of a failed reload. Like validate's and preflight's codes
// they are part of codeloc's interface: never renamed, never reused. Each
// failure is an *Error carrying one of them.
const (
	CodeUnreachable      = "reload-unreachable"
	CodeTimeout          = "reload-timeout"
	CodeHTTPError        = "reload-http-error"
	CodeGraphQLError     = "reload-graphql-error"
	CodeBadResponse      = "reload-bad-response"
	CodeLocationNotFound = "reload-location-not-found"
	CodeNotSupported     = "reload-not-supported"
	CodeUnauthorized     = "reload-unauthorized"
	CodePythonError      = "reload-python-error"
	CodeLoadError        = "reload-load-error"
)

// CodeDocs describes each code in a sentence (docs/codes/reload.md). The map is shared: read it only.
func CodeDocs() map[string]string { return codeDocs() }

// codeDocs builds CodeDocs' map at first use, not in the init every
// process runs.
var codeDocs = sync.OnceValue(func() map[string]string {
	return map[string]string{
		CodeUnreachable:      "The Dagster webserver could not be reached (connection refused, unknown host, reset). Retried.",
		CodeTimeout:          "The Dagster webserver did not answer within the request timeout, or the run's deadline passed. Retried while time is left.",
		CodeHTTPError:        "The webserver (or a proxy before it) answered a non-2xx HTTP status without a GraphQL answer: a wrong URL or path prefix (404), a gateway error (5xx, retried).",
		CodeGraphQLError:     "Dagster answered with a GraphQL errors array: the query does not fit this Dagster's schema (400, not retried) or a resolver failed (5xx, retried).",
		CodeBadResponse:      "The answer is not what Dagster's GraphQL schema says (not JSON, no reloadRepositoryLocation, an unknown __typename).",
		CodeLocationNotFound: "RepositoryLocationNotFound: the webserver's workspace does not list the code-location (retried: the webserver may not have read the new workspace yet).",
		CodeNotSupported:     "ReloadNotSupported: the workspace entry of the code-location cannot be reloaded. Not retried.",
		CodeUnauthorized:     "UnauthorizedError: the webserver refuses the reload (started with --read-only, or access control). Not retried.",
		CodePythonError:      "PythonError: the webserver raised an exception while reloading (Dagster answers it with HTTP 500). Retried; the message's first line is kept, never the stack.",
		CodeLoadError:        "The code server failed to load: WorkspaceLocationEntry.locationOrLoadError is a PythonError (or the location is still loading). Retried; Dagster's message is reported.",
	}
})
