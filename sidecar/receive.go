package sidecar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/codeloc/codeloc/internal/fsys"
	"github.com/codeloc/codeloc/plugin"

	"github.com/codeloc/codeloc/sidecar/cmpapi"
)

// unpacked is one request's copy of the repository, in memory.
type unpacked struct {
	// fs holds the files Argo CD sent at their path in the repo under
	// memRepo, which stands for the repo root, so that messages show repo
	// paths.
	fs *fsys.Memory
	// appDir is the Application's path in fs.
	appDir string
	// env is what the repo-server sent.
	env []*cmpapi.EnvEntry
}

// memRepo is the folder of an unpacked request's file system that stands
// for the repo root. It is not the file system's root "/", so that the
// render can take it off the paths in its messages as it takes off a
// folder on the disk; its name is one no message carries otherwise.
const memRepo = "/codeloc-repo"

// errRepo marks a refused or malformed repository stream.
var errRepo = errors.New("repository refused")

// receive unpacks a request's repository stream into a fresh in-memory
// file system, in one pass and under the server's limits (see archive and
// unpacker): nothing is written to the disk.
func (s *Server) receive(ctx context.Context, stream cmpapi.StreamReceiver) (*unpacked, error) {
	repo, err := s.receiveInto(ctx, stream)
	discardRefused(ctx, stream, err)
	return repo, err
}

// discardRefused reads what is left of a refused stream: Argo CD's client
// sends its whole repository before it reads the answer, and a call that
// stops reading early makes its sending fail, so that the refusal's message
// would never reach the user. What is left is only read, neither hashed,
// nor decompressed, nor kept; the request's deadline bounds it.
func discardRefused(ctx context.Context, stream cmpapi.StreamReceiver, err error) {
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
func (s *Server) receiveInto(ctx context.Context, stream cmpapi.StreamReceiver) (*unpacked, error) {
	md, err := s.receiveHeader(stream)
	if err != nil {
		return nil, err
	}
	// Argo CD may send only a sub-folder (manifest-generate-paths): unpack
	// it where it lives in the repo.
	prefix := plugin.SentRootPrefix(envValue(md.GetEnv(), plugin.EnvAppSourcePath), md.GetAppRelPath())
	rel := path.Join(".", md.GetAppRelPath()) // relative to the folder sent, clean
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, fmt.Errorf("%w: the application path %q leaves the repository", errRepo, md.GetAppRelPath())
	}
	mem := fsys.NewMemory()
	if err := mem.MkdirAll(path.Join(memRepo, prefix)); err != nil {
		return nil, &serverError{fmt.Errorf("preparing the folder sent: %w", err)}
	}
	if err := s.unpack(ctx, stream, mem, prefix, md.GetChecksum()); err != nil {
		return nil, err
	}
	return &unpacked{fs: mem, appDir: path.Join(memRepo, prefix, rel), env: md.GetEnv()}, nil
}

// receiveHeader reads the stream's metadata and refuses at once a stream
// announced larger than the limit.
func (s *Server) receiveHeader(stream cmpapi.StreamReceiver) (*cmpapi.ManifestRequestMetadata, error) {
	header, err := stream.Recv()
	if err != nil {
		return nil, fmt.Errorf("receiving the stream header: %w", err)
	}
	md := header.GetMetadata()
	if md == nil {
		return nil, fmt.Errorf("%w: the stream does not start with metadata", errRepo)
	}
	if md.GetSize() > s.limits.RepoBytes {
		return nil, s.limits.repoBytesError()
	}
	return md, nil
}

// unpack writes the archive that follows the header into mem, under
// memRepo/prefix (which exists).
func (s *Server) unpack(ctx context.Context, stream cmpapi.StreamReceiver, mem *fsys.Memory, prefix, checksum string) error {
	a, err := openArchive(ctx, stream, s.limits, prefix)
	if err != nil {
		return err
	}
	u := newUnpacker(mem, prefix)
	defer u.release()
	if err := u.unpackAll(a); err != nil {
		return err
	}
	return a.finish(checksum)
}

// drain reads a stream to its end without keeping it.
func drain(stream cmpapi.StreamReceiver) error {
	for {
		if _, err := stream.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func envValue(env []*cmpapi.EnvEntry, name string) string {
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
// environValue is name's value in "NAME=value" entries, the last one
// winning as in a process environment.
func environValue(environ []string, name string) string {
	v := ""
	for _, kv := range environ {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

func environ(entries []*cmpapi.EnvEntry) []string {
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
func scanRepo(ctx context.Context, stream cmpapi.StreamReceiver, pattern string, limits Limits) (bool, error) {
	matched, err := scanStream(ctx, stream, pattern, limits)
	discardRefused(ctx, stream, err)
	return matched, err
}

// scanStream is scanRepo, before a refused stream's rest is discarded.
func scanStream(ctx context.Context, stream cmpapi.StreamReceiver, pattern string, limits Limits) (bool, error) {
	header, err := stream.Recv()
	if err != nil {
		return false, fmt.Errorf("receiving the stream header: %w", err)
	}
	md := header.GetMetadata()
	switch {
	case md == nil:
		return false, fmt.Errorf("%w: the stream does not start with metadata", errRepo)
	case md.GetSize() > limits.RepoBytes:
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
