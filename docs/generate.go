// Package docs holds codeloc's documentation pages; it has no code of its
// own. error-codes.md is generated from the CodeDocs maps of the packages
// listed in cmd/gendocs: after adding or changing a problem code, run
//
//	go generate ./docs
//
// and commit the page with the change (a test fails while it is stale).
package docs

//go:generate go run ../cmd/gendocs
//go:generate go run ../cmd/genclidocs
