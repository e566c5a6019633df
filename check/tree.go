package check

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/codeloc/codeloc/internal/problem"
)

// export writes the files of the tree id that pathspecs select into dir (which exists and is
// empty), within MaxTreeBytes and MaxTreeEntries. Symbolic links that stay
// inside the tree are made as links (the render refuses them where it
// refuses links); one pointing outside is not made and comes back as a
// problem.
func (g git) export(ctx context.Context, tree, dir string, pathspecs []string) (problem.Problems, error) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := g.stream(ctx, pw, append([]string{"archive", "--format=tar", tree, "--"}, pathspecs...)...)
		pw.CloseWithError(err)
		done <- err
	}()
	problems, err := untar(pr, dir)
	if err == nil {
		// The archive's padding after its end marker: a record at most.
		_, err = io.Copy(io.Discard, io.LimitReader(pr, 1<<20))
	}
	pr.CloseWithError(errors.New("export stopped"))
	gitErr := <-done
	if err != nil {
		return nil, err
	}
	return problems, gitErr
}

// untar writes the archive r into dir.
func untar(r io.Reader, dir string) (problem.Problems, error) {
	tr := tar.NewReader(r)
	var problems problem.Problems
	var links []string
	bytesLeft := treeBytesLimit
	for entries := 0; ; entries++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return append(problems, unlinkEscaping(dir, links)...), nil
		}
		if err != nil {
			return nil, err
		}
		if entries == treeEntriesLimit {
			return nil, fmt.Errorf("the revision holds more than %d files and folders", treeEntriesLimit)
		}
		name, ok := cleanName(h.Name)
		if !ok {
			return nil, fmt.Errorf("git archive gave the path %q, outside the tree", h.Name)
		}
		target := filepath.Join(dir, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(target, 0o755)
		case tar.TypeReg:
			if h.Size > bytesLeft {
				return nil, fmt.Errorf("the revision's files hold more than %d bytes", treeBytesLimit)
			}
			bytesLeft -= h.Size
			err = writeFile(target, tr, h.FileInfo().Mode().Perm())
		case tar.TypeSymlink:
			if escapes(name, h.Linkname) {
				problems = append(problems, problem.Problem{Code: CodeSymlinkEscapes, File: name,
					Message: fmt.Sprintf("symbolic link to %q, outside the repo", h.Linkname),
					Hint:    "commit the file itself inside the code-location's folder"})
				continue
			}
			links = append(links, name)
			err = os.Symlink(h.Linkname, target)
		default:
			continue // pax headers and the like
		}
		if err != nil {
			return nil, err
		}
	}
}

// cleanName is the archive path name, slash-separated and relative, when
// it stays inside the tree.
func cleanName(name string) (string, bool) {
	c := path.Clean(strings.TrimSuffix(name, "/"))
	if c == "." || path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	return c, true
}

// escapes says whether the link at name (relative to the tree) with
// target leads outside the tree.
func escapes(name, target string) bool {
	if path.IsAbs(target) || filepath.IsAbs(target) {
		return true
	}
	_, ok := cleanName(path.Join(path.Dir(name), target))
	return !ok
}

func writeFile(target string, r io.Reader, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm|0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// unlinkEscaping removes the links (paths relative to dir) that, resolved
// through the other links, lead outside dir: each link's target alone may
// look inside and a chain still climb out.
func unlinkEscaping(dir string, links []string) problem.Problems {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	var problems problem.Problems
	for _, name := range links {
		target := filepath.Join(dir, filepath.FromSlash(name))
		dest, err := os.Readlink(target)
		if err != nil {
			continue // removed as a link of an earlier one
		}
		where := dest
		if !filepath.IsAbs(dest) {
			where = filepath.Dir(target) + string(filepath.Separator) + dest
		}
		resolved, ok := resolveNearest(where)
		if !ok {
			continue
		}
		if rel, err := filepath.Rel(real, resolved); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		_ = os.Remove(target)
		problems = append(problems, problem.Problem{Code: CodeSymlinkEscapes, File: name,
			Message: fmt.Sprintf("symbolic link to %q leads outside the repo", dest),
			Hint:    "commit the file itself inside the code-location's folder"})
	}
	return problems
}

// resolveNearest resolves p through every link, or, when its end does
// not exist (a dangling link), the longest prefix of p that does: a
// dangling link still says where it leads. The prefix is cut component by
// component, never cleaned: ".." after a link is the link's target's
// parent.
func resolveNearest(p string) (string, bool) {
	for q := p; q != ""; {
		if r, err := filepath.EvalSymlinks(q); err == nil {
			return r, true
		}
		i := strings.LastIndexByte(q, filepath.Separator)
		if i <= 0 {
			return "", false
		}
		q = q[:i]
	}
	return "", false
}
