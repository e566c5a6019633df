package sidecarcmd

import (
	"io"

	"github.com/codeloc/codeloc/internal/cli"
)

// run is codeloc-sidecar's main in-process: Root run with args, its exit
// code.
func run(args []string, stdout, stderr io.Writer) int {
	return cli.Run(Root(stderr), args, stdout, stderr)
}
