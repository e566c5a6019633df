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
	"path"
	"strconv"
	"strings"
	"unicode"

	"github.com/codeloc/codeloc/sidecar/cmpapi"
)

// archive reads the .tar.gz of a repository stream in one pass, under the
// limits: the compressed bytes as the chunks arrive, the uncompressed
// bytes as gzip yields them, and each entry's header (its name, depth and
// size) before a byte of its content is read. Nothing is buffered beyond
// what gzip and tar read ahead.
type archive struct {
	ctx      context.Context
	limits   Limits
	prefix   string // repo path of the folder Argo CD sent ("" = the repo root)
	chunks   *chunkReader
	expanded *countingReader
	gz       *gzip.Reader
	tr       *tar.Reader
	entries  int64
}

// openArchive starts reading the chunks that follow the stream's header.
func openArchive(ctx context.Context, stream cmpapi.StreamReceiver, limits Limits, prefix string) (*archive, error) {
	a := &archive{ctx: ctx, limits: limits, prefix: prefix}
	a.chunks = &chunkReader{ctx: ctx, stream: stream, hash: sha256.New(), max: limits.RepoBytes, over: limits.repoBytesError}
	gz, err := gzip.NewReader(a.chunks)
	if err != nil {
		return nil, a.fail(err)
	}
	a.gz = gz
	a.expanded = &countingReader{r: gz, max: limits.ExpandedBytes, over: limits.expandedBytesError}
	a.tr = tar.NewReader(a.expanded)
	return a, nil
}

// next returns the next entry's header and its clean name, relative to the
// folder Argo CD sent, or io.EOF after the last. It refuses a name that is
// absolute or goes up (..), and an entry past a limit; it skips the
// archive's root folder and PAX global headers.
func (a *archive) next() (*tar.Header, string, error) {
	for {
		h, err := a.tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, "", io.EOF
		}
		if err != nil {
			return nil, "", a.fail(err)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		if a.entries++; a.entries > a.limits.Entries {
			return nil, "", a.limits.entriesError()
		}
		name, err := cleanName(h.Name)
		if err != nil {
			return nil, "", err
		}
		if name == "" {
			continue // the root folder: nothing to do
		}
		if err := a.admit(h, name); err != nil {
			return nil, "", err
		}
		return h, name, nil
	}
}

// admit checks an entry's depth and, for a file, its size against the
// limits, before its content is read.
func (a *archive) admit(h *tar.Header, name string) error {
	repoPath := a.repoPath(name)
	if int64(strings.Count(repoPath, "/")+1) > a.limits.Depth {
		return a.limits.depthError(repoPath)
	}
	if h.Typeflag != tar.TypeReg {
		return nil
	}
	if h.Size > a.limits.FileBytes {
		return a.limits.fileBytesError(repoPath, h.Size)
	}
	if h.Size > a.limits.ExpandedBytes-a.expanded.n {
		return a.limits.expandedBytesError()
	}
	return nil
}

// repoPath is where name lives in the repository, for messages.
func (a *archive) repoPath(name string) string {
	if a.prefix == "" {
		return name
	}
	return a.prefix + "/" + name
}

// finish reads the archive to its end (gzip's trailer checks the content)
// and the stream to its end, then checks the stream's checksum.
func (a *archive) finish(checksum string) error {
	if _, err := io.Copy(io.Discard, a.expanded); err != nil {
		return a.fail(err)
	}
	return a.skip(checksum)
}

// skip reads the rest of the stream without decompressing it, then checks
// the stream's checksum.
func (a *archive) skip(checksum string) error {
	if _, err := io.Copy(io.Discard, a.chunks); err != nil {
		return a.fail(err)
	}
	if hex.EncodeToString(a.chunks.hash.Sum(nil)) != checksum {
		return fmt.Errorf("%w: the repository stream does not match its checksum (file checksum validation error)", errRepo)
	}
	return nil
}

// fail classifies a read error: a limit, the request's end, the stream's
// own failure, else a malformed archive.
func (a *archive) fail(err error) error {
	var le *limitError
	var re *recvError
	var se *serverError
	switch {
	case errors.As(err, &le):
		return le
	case a.ctx.Err() != nil:
		return a.ctx.Err()
	case errors.As(err, &re):
		return re
	case errors.Is(err, errRepo) || errors.As(err, &se):
		return err
	}
	return fmt.Errorf("%w: the repository archive is not a valid .tar.gz: %w", errRepo, err)
}

// cleanName returns a tar entry's name as a clean slash path relative to
// the archive's root ("" for the root itself), refusing an absolute name
// and a name with a ".." element.
func cleanName(name string) (string, error) {
	if strings.HasPrefix(name, "/") {
		return "", fmt.Errorf("%w: illegal filepath in archive: %s is an absolute path", errRepo, shown(name))
	}
	for _, e := range strings.Split(name, "/") {
		if e == ".." {
			return "", fmt.Errorf("%w: illegal filepath in archive: %s goes up out of the repository", errRepo, shown(name))
		}
	}
	if c := path.Clean(name); c != "." {
		return c, nil
	}
	return "", nil
}

// shown quotes a name from the archive when it would not read as one
// plain line, and shortens a very long one.
func shown(name string) string {
	const most = 200
	if len(name) > most {
		name = name[:most] + "..."
	}
	for _, r := range name {
		if !unicode.IsPrint(r) || r == unicode.ReplacementChar {
			return strconv.Quote(name)
		}
	}
	return name
}

// chunkReader reads the file chunks of a repository stream, hashing them
// and refusing more than max bytes.
type chunkReader struct {
	ctx    context.Context
	stream cmpapi.StreamReceiver
	hash   hash.Hash
	max    int64
	over   func() error
	n      int64
	buf    []byte
	eof    bool
}

// recvError is a failure of the stream itself (the client went away), as
// opposed to what it carries.
type recvError struct{ err error }

func (e *recvError) Error() string { return e.err.Error() }
func (e *recvError) Unwrap() error { return e.err }

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.eof {
			return 0, io.EOF
		}
		if err := c.ctx.Err(); err != nil {
			return 0, err
		}
		if err := c.recv(); err != nil {
			return 0, err
		}
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}

// recv receives the next chunk.
func (c *chunkReader) recv() error {
	req, err := c.stream.Recv()
	if errors.Is(err, io.EOF) {
		c.eof = true
		return nil
	}
	if err != nil {
		return &recvError{err}
	}
	f := req.GetFile()
	if f == nil {
		return fmt.Errorf("%w: the repository stream carries a second header where file chunks belong", errRepo)
	}
	if c.n += int64(len(f.GetChunk())); c.n > c.max {
		return c.over()
	}
	c.hash.Write(f.GetChunk())
	c.buf = f.GetChunk()
	return nil
}

// countingReader counts what it reads and refuses more than max bytes.
type countingReader struct {
	r    io.Reader
	max  int64
	over func() error
	n    int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n >= c.max {
		// One byte past the limit tells a stream that ends exactly there
		// from a longer one.
		p = p[:min(len(p), 1)]
	}
	n, err := c.r.Read(p)
	if c.n += int64(n); c.n > c.max {
		return 0, c.over()
	}
	return n, err
}
