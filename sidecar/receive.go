package sidecar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/argoproj/argo-cd/v2/cmpserver/apiclient"
	"github.com/argoproj/argo-cd/v2/util/cmp"

	"github.com/codeloc/codeloc/plugin"
)

// unpacked is one request's copy of the repository.
type unpacked struct {
	// root stands for the repo root: the files Argo CD sent are under it at
	// their path in the repo, so that messages show repo paths.
	root string
	// appDir is the Application's path.
	appDir string
	// env is what the repo-server sent.
	env []*apiclient.EnvEntry
}

// errRepo marks a refused or malformed repository stream.
var errRepo = errors.New("repository refused")

// receive unpacks a request's repository stream into a fresh folder under
// the server's work dir, in one pass and under the server's limits (see
// archive and unpacker). The caller removes the returned folder, when
// there is one (also on error).
func (s *Server) receive(ctx context.Context, stream cmp.StreamReceiver) (dir string, repo *unpacked, err error) {
	dir, repo, err = s.receiveInto(ctx, stream)
	discardRefused(ctx, stream, err)
	return dir, repo, err
}

// discardRefused reads what is left of a refused stream: Argo CD's client
// sends its whole repository before it reads the answer, and a call that
// stops reading early makes its sending fail, so that the refusal's message
// would never reach the user. What is left is only read, neither hashed,
// nor decompressed, nor written; the request's deadline bounds it.
func discardRefused(ctx context.Context, stream cmp.StreamReceiver, err error) {
	if !errors.Is(err, errRepo) {
		return
	}
	for ctx.Err() == nil {
		if _, err := stream.Recv(); err != nil {
			return
		}
	}
}

// receiveInto is receive, before a refused stream's rest is discarded.
func (s *Server) receiveInto(ctx context.Context, stream cmp.StreamReceiver) (dir string, repo *unpacked, err error) {
	md, err := s.receiveHeader(stream)
	if err != nil {
		return "", nil, err
	}
	// Argo CD may send only a sub-folder (manifest-generate-paths): unpack
	// it where it lives in the repo.
	prefix := plugin.SentRootPrefix(envValue(md.GetEnv(), plugin.EnvAppSourcePath), md.GetAppRelPath())
	if dir, err = os.MkdirTemp(s.workDir, "req-"); err != nil {
		return "", nil, fmt.Errorf("creating the request folder: %w", err)
	}
	dest := filepath.Join(dir, filepath.FromSlash(prefix))
	appDir := filepath.Join(dest, filepath.FromSlash(md.GetAppRelPath()))
	if !inside(appDir, dest) {
		return dir, nil, fmt.Errorf("%w: the application path %q leaves the repository", errRepo, md.GetAppRelPath())
	}
	if err := os.MkdirAll(dest, 0o700); err != nil {
		return dir, nil, fmt.Errorf("creating the request folder: %w", err)
	}
	if err := s.unpack(ctx, stream, dest, prefix, md.GetChecksum()); err != nil {
		return dir, nil, err
	}
	return dir, &unpacked{root: dir, appDir: appDir, env: md.GetEnv()}, nil
}

// receiveHeader reads the stream's metadata and refuses at once a stream
// announced larger than the limit.
func (s *Server) receiveHeader(stream cmp.StreamReceiver) (*apiclient.ManifestRequestMetadata, error) {
	header, err := stream.Recv()
	if err != nil {
		return nil, fmt.Errorf("receiving the stream header: %w", err)
	}
	md := header.GetMetadata()
	if md == nil {
		return nil, fmt.Errorf("%w: the stream does not start with metadata", errRepo)
	}
	if md.GetSize_() > s.limits.RepoBytes {
		return nil, s.limits.repoBytesError()
	}
	return md, nil
}

// unpack writes the archive that follows the header under dest.
func (s *Server) unpack(ctx context.Context, stream cmp.StreamReceiver, dest, prefix, checksum string) error {
	a, err := openArchive(ctx, stream, s.limits, prefix)
	if err != nil {
		return err
	}
	// The folders from the work dir down are the server's own: only the
	// work dir may sit behind a link.
	rel, err := filepath.Rel(s.workDir, dest)
	if err != nil {
		return err
	}
	u := newUnpacker(dest, filepath.Join(s.realWorkDir, rel), prefix, s.cfg.Spec.PreserveFileMode)
	defer u.release()
	if err := u.unpackAll(a); err != nil {
		return err
	}
	return a.finish(checksum)
}

// drain reads a stream to its end without keeping it.
func drain(stream cmp.StreamReceiver) error {
	for {
		if _, err := stream.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// checkLink refuses the link p when it resolves outside root (realRoot
// after links) or does not resolve at all (a loop); a dangling link is
// left to the reader, whose message names the missing file.
func checkLink(root, realRoot, p string) error {
	target, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	rel, _ := filepath.Rel(root, p)
	if err != nil {
		return fmt.Errorf("symbolic link %s cannot be resolved: %v", shown(filepath.ToSlash(rel)), trimDir(err, root))
	}
	if !inside(target, realRoot) {
		return fmt.Errorf("symbolic link %s points outside the repository", shown(filepath.ToSlash(rel)))
	}
	return nil
}

// trimDir says err without the server's folder dir.
func trimDir(err error, dir string) string {
	return strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
}

// inside reports whether p is root or below it.
func inside(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func envValue(env []*apiclient.EnvEntry, name string) string {
	v := ""
	for _, e := range env {
		if e.GetName() == name {
			v = e.GetValue()
		}
	}
	return v
}

// environ mirrors the stock cmp-server: the server's own environment, then
// the request's non-empty entries (later entries win).
func environ(entries []*apiclient.EnvEntry) []string {
	env := os.Environ()
	for _, e := range entries {
		if e != nil && e.Name != "" && e.Value != "" {
			env = append(env, e.Name+"="+e.Value)
		}
	}
	return env
}

// scanRepo reads a repository stream without unpacking it and reports
// whether an entry matches pattern (a filepath.Match pattern relative to
// the Application's path). It reads entry headers under the limits until
// one matches, then only hashes the rest of the stream for its checksum:
// discovery needs no file content, and nothing touches the disk.
func scanRepo(ctx context.Context, stream cmp.StreamReceiver, pattern string, limits Limits) (bool, error) {
	matched, err := scanStream(ctx, stream, pattern, limits)
	discardRefused(ctx, stream, err)
	return matched, err
}

// scanStream is scanRepo, before a refused stream's rest is discarded.
func scanStream(ctx context.Context, stream cmp.StreamReceiver, pattern string, limits Limits) (bool, error) {
	header, err := stream.Recv()
	if err != nil {
		return false, fmt.Errorf("receiving the stream header: %w", err)
	}
	md := header.GetMetadata()
	switch {
	case md == nil:
		return false, fmt.Errorf("%w: the stream does not start with metadata", errRepo)
	case md.GetSize_() > limits.RepoBytes:
		return false, limits.repoBytesError()
	}
	full := path.Join(path.Clean("/"+filepath.ToSlash(md.GetAppRelPath())), pattern)
	prefix := plugin.SentRootPrefix(envValue(md.GetEnv(), plugin.EnvAppSourcePath), md.GetAppRelPath())
	a, err := openArchive(ctx, stream, limits, prefix)
	if err != nil {
		return false, err
	}
	for {
		_, name, err := a.next()
		if errors.Is(err, io.EOF) {
			return false, a.finish(md.GetChecksum())
		}
		if err != nil {
			return false, err
		}
		if ok, _ := path.Match(full, "/"+name); ok {
			return true, a.skip(md.GetChecksum())
		}
	}
}
