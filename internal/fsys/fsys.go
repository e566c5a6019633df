// Package fsys is the file system a render reads: kustomize's
// filesys.FileSystem, which the kustomize build reads through, plus what
// the render needs to tell symbolic links apart (a link out of the
// kustomize root is refused with its own message). Disk is the local disk
// (the CLI, `codeloc generate`); the sidecar unpacks each request into
// memory instead, so that no file is created per request.
package fsys

import (
	"io/fs"
	"os"
	"path/filepath"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// FS is a file system a render reads. Paths are absolute and clean, or
// relative to the working directory (Disk only). Every method but Lstat
// follows symbolic links, as the disk does.
type FS interface {
	filesys.FileSystem
	// Lstat describes path without following a final symbolic link.
	Lstat(path string) (fs.FileInfo, error)
	// EvalSymlinks is path, absolute and clean, with every symbolic link
	// resolved; an error when a link on the way dangles or loops.
	EvalSymlinks(path string) (string, error)
}

// Disk is the local disk.
func Disk() FS { return disk{FileSystem: filesys.MakeFsOnDisk()} }

type disk struct{ filesys.FileSystem }

func (disk) Lstat(path string) (fs.FileInfo, error) { return os.Lstat(path) }

func (disk) EvalSymlinks(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}
