package graphql

// ReloadLocationOperation names the reloadRepositoryLocation mutation's
// operation in the request.
const ReloadLocationOperation = "CodelocReloadRepositoryLocation"

// ReloadLocationMutation is the GraphQL document ReloadLocation sends:
// Dagster's reloadRepositoryLocation with the location name as a variable
// (never spliced into the text). Every member of the result union is asked
// for its __typename and message; PythonError for its message and its
// cause's, never its stack.
const ReloadLocationMutation = `mutation ` + ReloadLocationOperation + `($repositoryLocationName: String!) {
  reloadRepositoryLocation(repositoryLocationName: $repositoryLocationName) {
    __typename
    ... on WorkspaceLocationEntry {
      name
      loadStatus
      locationOrLoadError {
        __typename
        ... on RepositoryLocation {
          name
          repositories {
            name
          }
        }
        ... on PythonError {
          message
          cause {
            message
          }
        }
      }
    }
    ... on ReloadNotSupported {
      message
    }
    ... on RepositoryLocationNotFound {
      message
    }
    ... on UnauthorizedError {
      message
    }
    ... on PythonError {
      message
      cause {
        message
      }
    }
  }
}`

// ReloadWorkspaceOperation names the reloadWorkspace mutation's operation.
const ReloadWorkspaceOperation = "CodelocReloadWorkspace"

// ReloadWorkspaceMutation makes the webserver read its workspace.yaml again
// (dagster-graphql schema/roots/mutation.py: reloadWorkspace, whose result
// is Workspace, UnauthorizedError or PythonError).
const ReloadWorkspaceMutation = `mutation ` + ReloadWorkspaceOperation + ` {
  reloadWorkspace {
    __typename
    ... on PythonError { message }
    ... on UnauthorizedError { message }
  }
}`

// request is the body of a GraphQL POST, as the webserver's
// graphql_http_endpoint reads it.
type request struct {
	Query         string            `json:"query"`
	Variables     map[string]string `json:"variables"`
	OperationName string            `json:"operationName"`
}
