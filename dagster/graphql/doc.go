// Package graphql is a client of the GraphQL API of Dagster's webserver,
// for the two mutations codeloc sends: reloadRepositoryLocation, which
// reloads one code-location, and reloadWorkspace, which makes the
// webserver read its workspace.yaml again. A request is an HTTP POST of
// {"query", "variables", "operationName"} to <webserverURL>/graphql; the
// answer's result union is decoded by __typename into a LocationEntry or an
// *Error of a Kind, with Dagster's message bounded to one line and never a
// stack trace. Whether and how to retry is the caller's (package reload).
//
// The schema followed is Dagster's, read from its sources
// (github.com/dagster-io/dagster, python_modules/):
//
//   - dagster-graphql/dagster_graphql/schema/roots/mutation.py: the field
//     Mutation.reloadRepositoryLocation(repositoryLocationName: String!),
//     non-null, of the union ReloadRepositoryLocationMutationResult =
//     WorkspaceLocationEntry | ReloadNotSupported |
//     RepositoryLocationNotFound | UnauthorizedError | PythonError; its
//     resolver answers RepositoryLocationNotFound when the current workspace
//     has no entry of that name, ReloadNotSupported when the entry's origin
//     cannot reload, else reloads and returns the new WorkspaceLocationEntry;
//     @capture_error turns an exception into a PythonError.
//   - dagster-graphql/dagster_graphql/schema/external.py:
//     WorkspaceLocationEntry {name, loadStatus: RepositoryLocationLoadStatus
//     (LOADING | LOADED), locationOrLoadError: RepositoryLocationOrLoadError
//     (nullable) = RepositoryLocation | PythonError}, RepositoryLocation
//     {name, repositories {name}}.
//   - dagster-graphql/dagster_graphql/schema/errors.py: every error type
//     has message (ReloadNotSupported "Location X does not support
//     reloading.", RepositoryLocationNotFound "Location X does not exist.",
//     UnauthorizedError "Authorization failed" by default); PythonError also
//     has stack, cause, errorChain. The stack is never asked for.
//   - dagster-graphql/dagster_graphql/implementation/utils.py:
//     capture_error reports the exception to ErrorCapture's observer;
//     UnauthorizedError is raised as a UserFacingGraphQLError and returned
//     as data.
//   - dagster-webserver/dagster_webserver/graphql.py: graphql_http_endpoint
//     takes a POST whose Content-Type contains application/json, reads
//     query, variables and operationName; a parse or validation error is
//     HTTP 400 {"data": null, "errors": [...]}; an execution is HTTP 500
//     when an exception was captured (so a PythonError result arrives with
//     status 500 and its data), 400 for other errors, else 200.
//   - dagster-graphql/dagster_graphql/client/client_queries.py:
//     RELOAD_REPOSITORY_LOCATION_MUTATION, Dagster's own client query, whose
//     shape ReloadLocationMutation follows.
package graphql
