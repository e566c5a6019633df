package jobscmd

import (
	"bytes"
	"io"
	"testing"

	"github.com/codeloc/codeloc/internal/cli"
)

// run is codeloc-jobs's main in-process: Root run with args, its exit
// code.
func run(args []string, stdout, stderr io.Writer) int {
	return cli.Run(Root(), args, stdout, stderr)
}

// runCLI runs codeloc-jobs in-process and returns its exit code and
// outputs.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}
