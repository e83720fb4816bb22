package approvals

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// The shell's classifier looks at a few files to judge a step: the entries
// a glob of a nested script matches, the names a --files0-from list holds,
// the symlinks under a tree a recursive command follows. It looks only
// through these methods, and each takes a RealPath — what Resolve or Examine
// made of a written path — for two reasons: what the classifier reads is
// the very path the policy judged, never a second resolution of the written
// word; and the classifier's whole view of the filesystem passes through
// the policy, so a narrower view (a sandbox's) is decided here, not in the
// classifier.

// errProgramProc refuses to look at a program's own /proc entries
// (ResolveForProgram): they are not tandem's to look at, and tandem's own
// would be the wrong ones.
var errProgramProc = errors.New("a program's own /proc entry")

// errNotRegular refuses to read a FIFO or a device: it has no content to
// judge beforehand, and opening a FIFO would wait for a writer.
var errNotRegular = errors.New("not a regular file")

// ReadDir lists the directory at r.
func (p *Policy) ReadDir(r RealPath) ([]fs.DirEntry, error) {
	if InProgramProc(r.Path) {
		return nil, &fs.PathError{Op: "readdir", Path: r.Path, Err: errProgramProc}
	}
	return os.ReadDir(r.Path)
}

// ReadFile reads at most limit bytes of the regular file at r.
func (p *Policy) ReadFile(r RealPath, limit int64) ([]byte, error) {
	if InProgramProc(r.Path) {
		return nil, &fs.PathError{Op: "open", Path: r.Path, Err: errProgramProc}
	}
	f, err := os.OpenFile(r.Path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: r.Path, Err: errors.Join(err, errNotRegular)}
	}
	return io.ReadAll(io.LimitReader(f, limit))
}

// WalkDir walks the tree at r as filepath.WalkDir does: a symlink under it
// is reported, not followed.
func (p *Policy) WalkDir(r RealPath, fn fs.WalkDirFunc) error {
	if InProgramProc(r.Path) {
		return &fs.PathError{Op: "walk", Path: r.Path, Err: errProgramProc}
	}
	return filepath.WalkDir(r.Path, fn)
}
