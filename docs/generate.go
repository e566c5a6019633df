// Package docs holds codeloc's documentation pages; it has no code of its
// own. codes/ (one page per stage) and error-codes.md (pointing the old
// links there) are generated from the CodeDocs maps of the packages listed
// in cmd/gendocs (the policy's derived from its rules' Codes): after adding
// or changing a problem code, run
//
//	go generate ./docs
//
// and commit the pages with the change (a test fails while one is stale).
package docs

//go:generate go run ../cmd/gendocs
//go:generate go run ../cmd/genclidocs
