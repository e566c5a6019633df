package graphql

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
)

// response is what the webserver answers: the data asked for and/or
// GraphQL errors.
type response struct {
	Data *struct {
		Reload *reloadResult `json:"reloadRepositoryLocation"`
	} `json:"data"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

// pythonError is Dagster's PythonError, without its stack.
type pythonError struct {
	Message string `json:"message"`
	Cause   *struct {
		Message string `json:"message"`
	} `json:"cause"`
}

// text is the error's first line, then its cause's first line.
func (p pythonError) text() string {
	s := firstLine(p.Message)
	if p.Cause != nil {
		if c := firstLine(p.Cause.Message); c != "" {
			s += " (caused by " + c + ")"
		}
	}
	return bound(s)
}

// reloadResult is one member of ReloadRepositoryLocationMutationResult;
// __typename tells which, and which fields are set.
type reloadResult struct {
	Typename string `json:"__typename"`
	// Error types (ReloadNotSupported, RepositoryLocationNotFound,
	// UnauthorizedError, PythonError).
	pythonError
	// WorkspaceLocationEntry.
	Name                string `json:"name"`
	LoadStatus          string `json:"loadStatus"`
	LocationOrLoadError *struct {
		Typename string `json:"__typename"`
		pythonError
		Name         string `json:"name"`
		Repositories []struct {
			Name string `json:"name"`
		} `json:"repositories"`
	} `json:"locationOrLoadError"`
}

// decode turns an answer to reloadRepositoryLocation into a LocationEntry
// or an *Error. The body is read as GraphQL whatever the status: Dagster
// answers a PythonError with 500.
func decode(resp *http.Response, data []byte) (LocationEntry, *Error) {
	status := resp.StatusCode
	var r response
	isJSON := json.Unmarshal(data, &r) == nil
	switch {
	case isJSON && r.Data != nil && r.Data.Reload != nil:
		res, err := union(r.Data.Reload)
		if err != nil {
			err.HTTPStatus = status
		}
		return res, err
	case isJSON && len(r.Errors) > 0:
		msg := firstLine(r.Errors[0].Message)
		if n := len(r.Errors) - 1; n > 0 {
			msg += fmt.Sprintf(" (and %d more)", n)
		}
		return LocationEntry{}, &Error{Kind: GraphQLErrors, HTTPStatus: status,
			Message: fmt.Sprintf("Dagster answered HTTP %d with GraphQL errors: %s", status, bound(msg))}
	case status < 200 || status > 299:
		return LocationEntry{}, httpError(resp, data)
	case !isJSON:
		return LocationEntry{}, &Error{Kind: NotGraphQL, HTTPStatus: status,
			Message: "the answer is not JSON: " + bound(firstLine(string(data)))}
	default:
		return LocationEntry{}, &Error{Kind: NotGraphQL, HTTPStatus: status,
			Message: "the answer has no data.reloadRepositoryLocation and no errors"}
	}
}

// httpError is a non-2xx answer without a GraphQL body.
func httpError(resp *http.Response, data []byte) *Error {
	e := &Error{Kind: HTTPStatus, HTTPStatus: resp.StatusCode, Message: "HTTP " + resp.Status}
	if line := firstLine(string(data)); line != "" {
		e.Message += ": " + bound(line)
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		e.Redirect = resp.Header.Get("Location")
	}
	return e
}

// union decodes ReloadRepositoryLocationMutationResult by __typename.
func union(u *reloadResult) (LocationEntry, *Error) {
	switch u.Typename {
	case "WorkspaceLocationEntry":
		l := u.LocationOrLoadError
		switch {
		case l == nil:
			// locationOrLoadError is nullable: no location and no error
			// yet, the entry is still LOADING.
			return LocationEntry{}, &Error{Kind: Loading,
				Message: fmt.Sprintf("Dagster has neither loaded %s nor failed to (loadStatus %s)", u.Name, u.LoadStatus)}
		case l.Typename == "RepositoryLocation":
			return LocationEntry{Name: cmp.Or(l.Name, u.Name), LoadStatus: u.LoadStatus, Repositories: len(l.Repositories)}, nil
		case l.Typename == "PythonError":
			// The code server could not be loaded: an error in the user
			// code, or the server not reachable yet.
			return LocationEntry{}, &Error{Kind: LoadError, Message: "Dagster could not load the code-location: " + l.text()}
		default:
			return LocationEntry{}, &Error{Kind: BadResponse, Message: fmt.Sprintf("locationOrLoadError has an unknown __typename %q", l.Typename)}
		}
	case "RepositoryLocationNotFound":
		// Dagster answers it when its current workspace has no entry of
		// that name, and the workspace is what the webserver last read of
		// workspace.yaml.
		return LocationEntry{}, &Error{Kind: LocationNotFound, Message: bound(firstLine(u.Message))}
	case "ReloadNotSupported":
		return LocationEntry{}, &Error{Kind: ReloadNotSupported, Message: bound(firstLine(u.Message))}
	case "UnauthorizedError":
		return LocationEntry{}, &Error{Kind: Unauthorized, Message: bound(firstLine(u.Message))}
	case "PythonError":
		// An exception in the webserver while reloading (answered with
		// HTTP 500).
		return LocationEntry{}, &Error{Kind: PythonError, Message: "the webserver failed: " + u.text()}
	default:
		return LocationEntry{}, &Error{Kind: BadResponse, Message: fmt.Sprintf("reloadRepositoryLocation answered an unknown __typename %q", u.Typename)}
	}
}
