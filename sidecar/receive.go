package sidecar

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
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

// receive reads a request's repository stream into a fresh folder under
// the server's work dir with Argo CD's own cmp.ReceiveRepoStream. The
// caller removes the returned folder (also on error).
func (s *Server) receive(ctx context.Context, stream cmp.StreamReceiver) (dir string, repo *unpacked, err error) {
	dir, err = os.MkdirTemp(s.workDir, "req-")
	if err != nil {
		return "", nil, fmt.Errorf("creating the request folder: %w", err)
	}
	header, err := stream.Recv()
	if err != nil {
		return dir, nil, fmt.Errorf("receiving the stream header: %w", err)
	}
	md := header.GetMetadata()
	if md == nil {
		return dir, nil, fmt.Errorf("%w: the stream does not start with metadata", errRepo)
	}
	// Argo CD may send only a sub-folder (manifest-generate-paths): unpack
	// it where it lives in the repo.
	prefix := plugin.SentRootPrefix(envValue(md.GetEnv(), plugin.EnvAppSourcePath), md.GetAppRelPath())
	dest := filepath.Join(dir, filepath.FromSlash(prefix))
	if err := os.MkdirAll(dest, 0o700); err != nil {
		return dir, nil, fmt.Errorf("creating the request folder: %w", err)
	}
	if _, err := cmp.ReceiveRepoStream(ctx, &replay{first: header, rest: stream}, dest, s.cfg.Spec.PreserveFileMode); err != nil {
		if ctx.Err() != nil {
			return dir, nil, ctx.Err()
		}
		return dir, nil, fmt.Errorf("%w: %w", errRepo, err)
	}
	appDir := filepath.Join(dest, filepath.FromSlash(md.GetAppRelPath()))
	if !inside(appDir, dest) {
		return dir, nil, fmt.Errorf("%w: the application path %q leaves the repository", errRepo, md.GetAppRelPath())
	}
	if err := checkLinks(dest); err != nil {
		return dir, nil, fmt.Errorf("%w: %w", errRepo, err)
	}
	return dir, &unpacked{root: dir, appDir: appDir, env: md.GetEnv()}, nil
}

// replay gives back the header already read, then the rest of the stream.
type replay struct {
	first *apiclient.AppStreamRequest
	rest  cmp.StreamReceiver
}

func (r *replay) Recv() (*apiclient.AppStreamRequest, error) {
	if f := r.first; f != nil {
		r.first = nil
		return f, nil
	}
	return r.rest.Recv()
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

// checkLinks refuses a symbolic link that resolves outside root. Argo CD's
// Untgz already checks each link as it creates it; this checks the result,
// once every link exists (a chain of links is only known at the end).
func checkLinks(root string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return err
		}
		target, err := filepath.EvalSymlinks(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // dangling: reading it fails, with the reader's message
		}
		if err != nil || !inside(target, realRoot) {
			rel, _ := filepath.Rel(root, p)
			return fmt.Errorf("symbolic link %s points outside the repository", filepath.ToSlash(rel))
		}
		return nil
	})
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
// the Application's path). The checksum is verified as ReceiveRepoStream
// does. Discovery needs no file content: nothing touches the disk.
func scanRepo(ctx context.Context, stream cmp.StreamReceiver, pattern string) (bool, error) {
	header, err := stream.Recv()
	if err != nil {
		return false, fmt.Errorf("receiving the stream header: %w", err)
	}
	md := header.GetMetadata()
	if md == nil {
		return false, fmt.Errorf("%w: the stream does not start with metadata", errRepo)
	}
	full := path.Join(path.Clean("/"+filepath.ToSlash(md.GetAppRelPath())), pattern)
	r := &chunkReader{ctx: ctx, stream: stream, hash: sha256.New()}
	matched, err := scanTgz(r, full)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, fmt.Errorf("%w: %w", errRepo, err)
	}
	if _, err := io.Copy(io.Discard, r); err != nil { // the rest, for the checksum
		return false, err
	}
	if hex.EncodeToString(r.hash.Sum(nil)) != md.GetChecksum() {
		return false, fmt.Errorf("%w: file checksum validation error", errRepo)
	}
	return matched, nil
}

// scanTgz walks a gzipped tarball's headers for an entry matching full.
func scanTgz(r io.Reader, full string) (bool, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return false, err
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	matched := false
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return matched, nil
		}
		if err != nil {
			return false, err
		}
		if ok, _ := path.Match(full, path.Clean("/"+h.Name)); ok {
			matched = true
		}
	}
}

// chunkReader reads the file chunks of a repository stream, hashing them.
type chunkReader struct {
	ctx    context.Context
	stream cmp.StreamReceiver
	hash   hash.Hash
	buf    []byte
	eof    bool
}

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.eof {
			return 0, io.EOF
		}
		if err := c.ctx.Err(); err != nil {
			return 0, err
		}
		req, err := c.stream.Recv()
		if errors.Is(err, io.EOF) {
			c.eof = true
			continue
		}
		if err != nil {
			return 0, err
		}
		f := req.GetFile()
		if f == nil {
			return 0, errors.New("stream request file is nil")
		}
		c.hash.Write(f.GetChunk())
		c.buf = f.GetChunk()
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}
