// Command codeloc-sidecar serves codeloc as an Argo CD Config Management
// Plugin beside the repo-server: a long-lived gRPC server on the plugin
// socket that renders each Application in-process. The command is package
// sidecarcmd's.
package main

import (
	"os"

	"github.com/codeloc/codeloc/internal/cli"
	"github.com/codeloc/codeloc/internal/cli/sidecarcmd"
)

func main() {
	os.Exit(cli.Run(sidecarcmd.Root(os.Stderr), os.Args[1:], os.Stdout, os.Stderr))
}
