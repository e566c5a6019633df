// Package cmptest builds what Argo CD's repo-server sends a plugin, for
// tests and benchmarks that talk to a plugin server directly: the
// repository as a tgz, written as Argo CD's util/io/files.Tgz writes it
// (every directory, regular file and symbolic link under the root, names
// relative to it), and the stream's metadata message.
package cmptest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/codeloc/codeloc/sidecar/cmpapi"
)

// CompressRepo tars and gzips root and returns it with the metadata
// message for the Application at appPath (a folder under root) and env
// (NAME=VALUE entries), as Argo CD's cmp.GetCompressedRepoAndMetadata.
func CompressRepo(root, appPath string, env []string) ([]byte, *cmpapi.AppStreamRequest, error) {
	var buf bytes.Buffer
	n, err := tgz(root, &buf)
	if err != nil {
		return nil, nil, err
	}
	if n == 0 {
		return nil, nil, fmt.Errorf("no files to send(%s)", root)
	}
	rel, err := filepath.Rel(root, appPath)
	if err != nil {
		return nil, nil, err
	}
	sum := sha256.Sum256(buf.Bytes())
	md := cmpapi.MetadataRequest(filepath.Base(appPath), filepath.ToSlash(rel), hex.EncodeToString(sum[:]), int64(buf.Len()), EnvEntries(env))
	return buf.Bytes(), md, nil
}

// EnvEntries turns NAME=VALUE strings into entries, skipping any without
// '=' (Argo CD's toEnvEntry).
func EnvEntries(env []string) []*cmpapi.EnvEntry {
	out := make([]*cmpapi.EnvEntry, 0, len(env))
	for _, e := range env {
		if name, value, ok := strings.Cut(e, "="); ok {
			out = append(out, &cmpapi.EnvEntry{Name: name, Value: value})
		}
	}
	return out
}

// tgz writes root as a gzipped tar and returns the regular files written.
func tgz(root string, w io.Writer) (int, error) {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		mode := fi.Mode()
		if !mode.IsDir() && !mode.IsRegular() && mode&fs.ModeSymlink == 0 {
			return nil // Argo CD sends no other kind
		}
		link := ""
		if mode&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		}
		h, err := tar.FileInfoHeader(fi, link)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		h.Name = filepath.ToSlash(rel)
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if !mode.IsRegular() {
			return nil
		}
		files++
		return copyFile(tw, p)
	})
	if err != nil {
		return 0, err
	}
	if err := tw.Close(); err != nil {
		return 0, err
	}
	return files, gz.Close()
}

func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// Send sends the metadata message then data in chunks of chunkSize, as
// the repo-server streams a repository.
func Send(s cmpapi.StreamSender, md *cmpapi.AppStreamRequest, data []byte, chunkSize int) error {
	if err := s.Send(md); err != nil {
		return fmt.Errorf("error sending generate manifest metadata to cmp-server: %w", err)
	}
	for rest := data; len(rest) > 0; {
		n := min(chunkSize, len(rest))
		if err := s.Send(cmpapi.FileRequest(rest[:n])); err != nil {
			return fmt.Errorf("error sending tgz file to cmp-server: %w", err)
		}
		rest = rest[n:]
	}
	return nil
}
