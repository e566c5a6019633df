package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path"
	"strings"
	"time"

	"github.com/codeloc/codeloc/validate"
)

// Index is the --head value that means the staged change: the tree git
// would commit now (`git write-tree`), what a pre-commit hook checks.
const Index = ":index"

// Bounds of what a check reads from git.
const (
	// MaxChangedFiles bounds the paths a change may touch.
	MaxChangedFiles = 20_000
	// MaxTreeBytes bounds the bytes of files exported for one revision.
	MaxTreeBytes = 512 << 20
	// MaxTreeEntries bounds the files, links and folders exported for one
	// revision.
	MaxTreeEntries = 200_000
	// GitTimeout bounds each git command.
	GitTimeout = 2 * time.Minute
	// maxGitOutput bounds what a git command other than archive prints.
	maxGitOutput = 64 << 20
)

// git runs the git CLI in one repo, without network and without reading
// anything but the repo.
type git struct {
	dir string
}

// output runs git with args and returns its stdout, bounded.
func (g git) output(ctx context.Context, args ...string) ([]byte, error) {
	var out bytes.Buffer
	if err := g.stream(ctx, &limitedWriter{w: &out, n: maxGitOutput}, args...); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// stream runs git with args, its stdout to w.
func (g git) stream(ctx context.Context, w io.Writer, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, GitTimeout)
	defer cancel()
	full := append([]string{"-C", g.dir, "-c", "core.quotePath=false", "-c", "protocol.allow=never", "-c", "core.fsmonitor=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = append(cmd.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "GIT_EXTERNAL_DIFF=")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &limitedWriter{w: &stderr, n: 4096}
	if err := cmd.Run(); err != nil {
		if errors.Is(err, errTooMuch) {
			return fmt.Errorf("git %s: %w", args[0], errTooMuch)
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("git %s: %s", args[0], firstLine(msg))
	}
	return nil
}

// resolve returns the tree id rev names: a commit's tree (a tree-ish that
// is not a commit, such as HEAD:folder, is refused), or the index's tree
// for Index. A rev that starts with "-" is refused before git sees it.
func (g git) resolve(ctx context.Context, rev string) (string, error) {
	if rev == Index {
		out, err := g.output(ctx, "write-tree")
		return strings.TrimSpace(string(out)), err
	}
	if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\x00\n") {
		return "", fmt.Errorf("revision %q is not a revision name", rev)
	}
	out, err := g.output(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}^{tree}")
	if err != nil {
		return "", fmt.Errorf("revision %q: not a commit of the repo", rev)
	}
	return strings.TrimSpace(string(out)), nil
}

// changed lists the paths that differ between the trees base and head,
// within MaxChangedFiles.
func (g git) changed(ctx context.Context, base, head string) ([]string, error) {
	out, err := g.output(ctx, "diff-tree", "-r", "-z", "--name-only", "--no-renames", "--no-textconv", base, head)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) == 0 {
			continue
		}
		if len(paths) == changedFilesLimit {
			return nil, fmt.Errorf("the change touches more than %d files: check a smaller change", changedFilesLimit)
		}
		paths = append(paths, string(p))
	}
	return paths, nil
}

// The bounds in force; tests lower them.
var (
	changedFilesLimit = MaxChangedFiles
	treeBytesLimit    = int64(MaxTreeBytes)
	treeEntriesLimit  = MaxTreeEntries
)

var errTooMuch = errors.New("output too large")

// limitedWriter fails once more than n bytes are written.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if len(p) > l.n {
		return 0, errTooMuch
	}
	l.n -= len(p)
	return l.w.Write(p)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// listTree lists the files of the tree (blobs, links), within the bounds.
func (g git) listTree(ctx context.Context, tree string) ([]string, error) {
	out, err := g.output(ctx, "ls-tree", "-r", "-z", "--name-only", "--full-tree", tree)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) == 0 {
			continue
		}
		if len(files) == treeEntriesLimit {
			return nil, fmt.Errorf("the revision holds more than %d files and folders", treeEntriesLimit)
		}
		files = append(files, string(p))
	}
	return files, nil
}

// codeLocationDirs lists the code-location folders among files, as
// appofapps.CodeLocationDirs finds them on disk (a folder holding a
// declaration; hidden folders, node_modules, vendor and a code-location's
// own subfolders skipped): nothing needs exporting to know them.
func codeLocationDirs(files []string) map[string]bool {
	found := map[string]bool{}
	for _, p := range files {
		if d, ok := declarationDir(p); ok {
			found[d] = true
		}
	}
	dirs := map[string]bool{}
	for d := range found {
		if !nested(d, found) {
			dirs[d] = true
		}
	}
	return dirs
}

// declarationDir is the folder of p when p is a declaration the walk of
// the repo root would find.
func declarationDir(p string) (string, bool) {
	if path.Base(p) != validate.ManifestFile {
		return "", false
	}
	d := path.Dir(p)
	for _, c := range strings.Split(d, "/") {
		if c != "." && (strings.HasPrefix(c, ".") || c == "node_modules" || c == "vendor") {
			return "", false
		}
	}
	return d, true
}

// nested says whether a folder above d is in found.
func nested(d string, found map[string]bool) bool {
	for a := d; a != "." && a != "/"; {
		a = path.Dir(a)
		if found[a] {
			return true
		}
	}
	return false
}
