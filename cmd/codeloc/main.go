// Command codeloc validates an atlas code-location against the cluster
// contract and renders its final manifests: the CLI of local previews, of
// the app-of-apps (application) and of Argo CD's stock plugin server
// (generate, at every render).
//
// It must stay lean: it links no Argo CD, client-go or pgx package. The
// commands are package cli's; the PreSync Jobs' commands live in
// codeloc-jobs, and `validate --live` hands over to it.
package main

import (
	"io"
	"os"
	"runtime/debug"

	"github.com/codeloc/codeloc/internal/cli"
)

func main() {
	// One render per process, a few MiB of heap: collecting at the default
	// 100% would run the collector once or twice for nothing (about a tenth
	// of the process's CPU, measured by bench/compare.sh). $GOGC still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the CLI and returns its exit code.
func run(args []string, stdout, stderr io.Writer) int {
	return cli.Run(cli.Codeloc(), args, stdout, stderr)
}
