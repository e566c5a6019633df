// Package docs holds codeloc's documentation pages and their link check;
// it has no code of its own. Two references are generated: codes/ (one
// page per stage, error-codes.md pointing the old links there) from the
// codes the packages listed in cmd/gendocs declare (the policy's from its
// rules' Codes), and cli/ from the three binaries' cobra commands
// (cmd/genclidocs). After adding or changing a code, a command or a flag,
// run
//
//	go generate ./docs
//
// and commit the pages with the change (a test fails while one is stale).
package docs

//go:generate go run ../cmd/gendocs -root ..
//go:generate go run ../cmd/genclidocs -root ..
