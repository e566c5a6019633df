// Package layers holds no code: its test, TestLayers, lists the module's
// packages with go list and enforces which codeloc package may import
// which (the table of rules in layers_test.go), so that a leaf stays a
// leaf, validate stays below render, render below the plugin and the
// sidecar, the command packages stay out of the libraries, and the
// per-render CLI links no Argo CD, client-go or pgx. Test files are not
// held to the rules: what they import links into no binary.
package layers
