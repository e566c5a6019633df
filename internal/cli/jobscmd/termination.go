package jobscmd

import (
	"io"
	"os"

	"github.com/codeloc/codeloc/internal/names"
)

// defaultTerminationLog is where Kubernetes reads a container's
// termination message.
const defaultTerminationLog = "/dev/termination-log"

// writeTermination replaces the content of the termination message file
// path ("" = none) with msg, cut to what Kubernetes keeps without splitting
// a character: the one line Argo CD shows when the hook fails. A file that
// cannot be opened is skipped; the default /dev/termination-log is never
// created (on a laptop /dev is not ours), any other file is.
func writeTermination(path, msg string) {
	if path == "" {
		return
	}
	flags := os.O_WRONLY | os.O_TRUNC
	if path != defaultTerminationLog {
		flags |= os.O_CREATE
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = io.WriteString(f, names.TruncateUTF8(msg+"\n", names.MaxTerminationMessage))
}
