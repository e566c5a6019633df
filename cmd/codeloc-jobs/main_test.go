package main

import (
	"bytes"
	"testing"
)

// runCLI runs codeloc-jobs in-process and returns its exit code and
// outputs.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}
