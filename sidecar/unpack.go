package sidecar

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"
	"syscall"

	"github.com/codeloc/codeloc/internal/fsys"
)

// unpacker writes the entries of an archive into an in-memory file system
// under dest as they are read: folders, regular files and symbolic links
// that stay inside dest. It never writes through a link (an entry below a
// link, or in a link's place, is refused), and refuses hard links, device
// files, fifos and any other kind of entry. Permissions are not kept:
// nothing a render reads depends on them, and nothing is executed
// (plugin.yaml's preserveFileMode matters only to a plugin that runs a
// committed script).
type unpacker struct {
	fs     *fsys.Memory
	dest   string // the folder Argo CD sent, in fs: memRepo/its repo path
	prefix string // dest's repo path, for messages
	dirs   map[string]bool
	links  []string
	buf    *[]byte
}

// copyBuffers hold the buffers file contents are read through: most
// repository files fit in one, so that each is stored with one allocation
// of its own size.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// newUnpacker prepares to unpack into mem under memRepo/prefix, which must
// exist; release gives its buffer back.
func newUnpacker(mem *fsys.Memory, prefix string) *unpacker {
	return &unpacker{fs: mem, dest: path.Join(memRepo, prefix), prefix: prefix,
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
	switch h.Typeflag {
	case tar.TypeDir:
		return u.mkdir(name)
	case tar.TypeReg:
		return u.file(name, h.Size, r)
	case tar.TypeSymlink:
		return u.symlink(name, h.Linkname)
	case tar.TypeLink:
		return fmt.Errorf("%w: %s is a hard link, which a repository stream may not carry (commit the file itself)", errRepo, u.shown(name))
	case tar.TypeChar, tar.TypeBlock:
		return fmt.Errorf("%w: %s is a device file, which a repository stream may not carry", errRepo, u.shown(name))
	case tar.TypeFifo:
		return fmt.Errorf("%w: %s is a fifo, which a repository stream may not carry", errRepo, u.shown(name))
	}
	return fmt.Errorf("%w: %s is a tar entry of type %q, which a repository stream may not carry", errRepo, u.shown(name), h.Typeflag)
}

// at is name's path in the file system.
func (u *unpacker) at(name string) string { return path.Join(u.dest, name) }

// shown is name's repo path, for messages.
func (u *unpacker) shown(name string) string {
	return shown(path.Join(u.prefix, name))
}

// mkdir makes the folder name and the missing folders above it, once.
func (u *unpacker) mkdir(name string) error {
	if u.dirs[name] {
		return nil
	}
	if d := path.Dir(name); d != "." {
		if err := u.mkdir(d); err != nil {
			return err
		}
	}
	// Folders made here are tracked: one that exists already is a link or
	// a file of the archive, and nothing is written through those.
	if err := u.fs.Mkdir(u.at(name)); err != nil {
		return u.writeError(name, err)
	}
	u.dirs[name] = true
	return nil
}

// parent makes name's folder.
func (u *unpacker) parent(name string) error {
	if d := path.Dir(name); d != "." {
		return u.mkdir(d)
	}
	return nil
}

// file stores a regular file of size bytes read from r, without following
// a link where the file goes (a link or a folder there is a clash; an
// earlier file of the same name is replaced, as on the disk). The content
// is read through one buffer and stored with one allocation when it fits
// in it.
func (u *unpacker) file(name string, size int64, r io.Reader) error {
	if err := u.parent(name); err != nil {
		return err
	}
	p := u.at(name)
	if fi, err := u.fs.Lstat(p); err == nil {
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return u.writeError(name, syscall.ELOOP) // what O_NOFOLLOW says
		case fi.IsDir():
			return u.writeError(name, syscall.EISDIR)
		}
	}
	f, err := u.fs.Create(p)
	if err != nil {
		return u.writeError(name, err)
	}
	defer f.Close()
	buf := *u.buf
	for size > 0 {
		n := int(min(size, int64(len(buf))))
		if _, err := io.ReadFull(r, buf[:n]); err != nil {
			return err // reading the archive failed
		}
		if _, err := f.Write(buf[:n]); err != nil {
			return u.writeError(name, err)
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
func (u *unpacker) symlink(name, link string) error {
	if path.IsAbs(link) {
		return fmt.Errorf("%w: symbolic link %s points outside the repository", errRepo, u.shown(name))
	}
	if err := u.parent(name); err != nil {
		return err
	}
	link = path.Clean(link) // any .. leads: none follows a name that could be a link
	if to := path.Join(path.Dir(name), link); to == ".." || strings.HasPrefix(to, "../") {
		return fmt.Errorf("%w: illegal filepath in symlink: %s -> %s leaves the folder Argo CD sent", errRepo, u.shown(name), shown(link))
	}
	p := u.at(name)
	if err := u.fs.Symlink(link, p); err != nil {
		return u.writeError(name, err)
	}
	u.links = append(u.links, name)
	return nil
}

// checkLinks checks, once every link exists, that each resolves inside
// the folder sent (a chain of links is only known at the end); a dangling
// link is left to the reader, whose message names the missing file.
func (u *unpacker) checkLinks() error {
	for _, name := range u.links {
		target, err := u.fs.EvalSymlinks(u.at(name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return fmt.Errorf("%w: symbolic link %s cannot be resolved: %w", errRepo, u.shown(name), err)
		case !within(target, u.dest):
			return fmt.Errorf("%w: symbolic link %s points outside the repository", errRepo, u.shown(name))
		}
	}
	return nil
}

// writeError explains a failure to write name: an entry that clashes with
// an earlier one is the archive's fault; anything else is the server's.
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

// within reports whether the slash path p is root or below it.
func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, root+"/")
}

// serverError is a failure of the server itself while it unpacks.
type serverError struct{ err error }

func (e *serverError) Error() string { return e.err.Error() }
func (e *serverError) Unwrap() error { return e.err }
