package sidecar

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// unpacker writes the entries of an archive under dest as they are read:
// folders, regular files and symbolic links that stay inside dest. It
// never writes through a link (an entry below a link, or in a link's
// place, is refused), and refuses hard links, device files, fifos and any
// other kind of entry.
type unpacker struct {
	dest     string // the folder Argo CD sent, on disk (absolute, clean)
	realDest string // dest after symbolic links
	prefix   string // dest's repo path, for messages
	keepMode bool   // plugin.yaml's preserveFileMode
	dirs     map[string]bool
	links    []string
	buf      *[]byte
}

// copyBuffers hold the buffers files are copied through: most repository
// files fit in one, so that each is written with one system call.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// newUnpacker prepares to unpack under dest, which must exist (realDest:
// dest after symbolic links); release gives its buffer back.
func newUnpacker(dest, realDest, prefix string, keepMode bool) *unpacker {
	return &unpacker{dest: dest, realDest: realDest, prefix: prefix, keepMode: keepMode,
		dirs: map[string]bool{}, buf: copyBuffers.Get().(*[]byte)}
}

func (u *unpacker) release() { copyBuffers.Put(u.buf) }

// unpackAll writes every entry of a, then checks the links it made.
func (u *unpacker) unpackAll(a *archive) error {
	for {
		h, name, err := a.next()
		if errors.Is(err, io.EOF) {
			return u.checkLinks()
		}
		if err != nil {
			return err
		}
		if err := u.entry(h, name, a.tr); err != nil {
			return a.fail(err)
		}
	}
}

// entry writes one entry; r reads its content.
func (u *unpacker) entry(h *tar.Header, name string, r io.Reader) error {
	target := filepath.Join(u.dest, filepath.FromSlash(name))
	switch h.Typeflag {
	case tar.TypeDir:
		return u.mkdir(name, u.mode(h, 0o755)|0o700) // the unpacking writes in it
	case tar.TypeReg:
		return u.file(target, name, u.mode(h, 0o644), h.Size, r)
	case tar.TypeSymlink:
		return u.symlink(target, name, h.Linkname)
	case tar.TypeLink:
		return fmt.Errorf("%w: %s is a hard link, which a repository stream may not carry (commit the file itself)", errRepo, u.shown(name))
	case tar.TypeChar, tar.TypeBlock:
		return fmt.Errorf("%w: %s is a device file, which a repository stream may not carry", errRepo, u.shown(name))
	case tar.TypeFifo:
		return fmt.Errorf("%w: %s is a fifo, which a repository stream may not carry", errRepo, u.shown(name))
	}
	return fmt.Errorf("%w: %s is a tar entry of type %q, which a repository stream may not carry", errRepo, u.shown(name), h.Typeflag)
}

// mode is an entry's permissions when plugin.yaml preserves them, else def.
func (u *unpacker) mode(h *tar.Header, def fs.FileMode) fs.FileMode {
	if u.keepMode {
		return fs.FileMode(h.Mode).Perm()
	}
	return def
}

// shown is name's repo path, for messages.
func (u *unpacker) shown(name string) string {
	return shown(path.Join(u.prefix, name))
}

// mkdir makes the folder name and the missing folders above it, once:
// one system call per new folder when its parent is known to exist.
func (u *unpacker) mkdir(name string, mode fs.FileMode) error {
	if u.dirs[name] {
		return nil
	}
	if d := path.Dir(name); d != "." {
		if err := u.mkdir(d, 0o755); err != nil {
			return err
		}
	}
	// Folders made here are tracked: one that exists already is a link or
	// a file of the archive, and nothing is written through those.
	if err := os.Mkdir(filepath.Join(u.dest, filepath.FromSlash(name)), mode); err != nil {
		return u.writeError(name, err)
	}
	u.dirs[name] = true
	return nil
}

// parent makes name's folder.
func (u *unpacker) parent(name string) error {
	if d := path.Dir(name); d != "." {
		return u.mkdir(d, 0o755)
	}
	return nil
}

// file writes a regular file of size bytes read from r, through one
// buffer (most files take one write), without following a link where the
// file goes. It uses the system calls directly: an os.File would also set
// the descriptor up for the runtime's poller, which a regular file does
// not use.
func (u *unpacker) file(target, name string, mode fs.FileMode, size int64, r io.Reader) error {
	if err := u.parent(name); err != nil {
		return err
	}
	fd, err := syscall.Open(target, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, uint32(mode))
	if err != nil {
		return u.writeError(name, err)
	}
	err = copyTo(fd, r, size, *u.buf)
	if cerr := syscall.Close(fd); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil {
		return nil
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return u.writeError(name, err)
	}
	return err // reading the archive failed
}

// copyTo copies size bytes from r to the file descriptor fd through buf.
func copyTo(fd int, r io.Reader, size int64, buf []byte) error {
	for size > 0 {
		n := int(min(size, int64(len(buf))))
		if _, err := io.ReadFull(r, buf[:n]); err != nil {
			return err
		}
		for p := buf[:n]; len(p) > 0; {
			w, err := syscall.Write(fd, p)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if err != nil {
				return err
			}
			p = p[w:]
		}
		size -= int64(n)
	}
	return nil
}

// symlink makes a link with its target as committed (cleaned), when the
// target, taken from the link's folder, stays inside the folder sent: the
// folders above a link are real folders (nothing is written through a
// link), so the link resolves where its text says. A link whose target is
// absolute is refused. checkLinks looks at every link again at the end.
func (u *unpacker) symlink(target, name, link string) error {
	if path.IsAbs(link) || filepath.IsAbs(link) {
		return fmt.Errorf("%w: symbolic link %s points outside the repository", errRepo, u.shown(name))
	}
	if err := u.parent(name); err != nil {
		return err
	}
	link = path.Clean(link) // any .. leads: none follows a name that could be a link
	if to := path.Join(path.Dir(name), link); to == ".." || strings.HasPrefix(to, "../") {
		return fmt.Errorf("%w: illegal filepath in symlink: %s -> %s leaves the folder Argo CD sent", errRepo, u.shown(name), shown(link))
	}
	if err := os.Symlink(filepath.FromSlash(link), target); err != nil {
		return u.writeError(name, err)
	}
	u.links = append(u.links, target)
	return nil
}

// checkLinks checks, once every link exists, that each resolves inside
// the folder sent (a chain of links is only known at the end).
func (u *unpacker) checkLinks() error {
	for _, l := range u.links {
		if err := checkLink(u.dest, u.realDest, l); err != nil {
			return fmt.Errorf("%w: %w", errRepo, err)
		}
	}
	return nil
}

// writeError explains a failure to write name: an entry that clashes with
// an earlier one is the archive's fault; anything else (a full disk) is
// the server's, said without the server's paths.
func (u *unpacker) writeError(name string, err error) error {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return &serverError{fmt.Errorf("writing %s: %w", u.shown(name), err)}
	}
	switch errno {
	case syscall.EEXIST, syscall.ENOTDIR, syscall.EISDIR, syscall.ELOOP:
		return fmt.Errorf("%w: %s clashes with an earlier entry of the archive (%w)", errRepo, u.shown(name), errno)
	}
	return &serverError{fmt.Errorf("writing %s: %w", u.shown(name), errno)}
}

// serverError is a failure of the server itself while it unpacks.
type serverError struct{ err error }

func (e *serverError) Error() string { return e.err.Error() }
func (e *serverError) Unwrap() error { return e.err }
