package edits

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/sys/unix"

	"github.com/tandemdev/tandem/documents"
)

// FS is the filesystem work of a commit. Each step that can fail on its own
// is one method, so that tests can make each one fail in turn. Reads and
// locks use the OS directly.
type FS interface {
	// CreateTemp creates a new file at path (which must not exist) with perm.
	CreateTemp(path string, perm fs.FileMode) (*os.File, error)
	Write(f *os.File, b []byte) error
	Sync(f *os.File) error
	Rename(from, to string) error
	// Link gives the file at from the new name to; it fails if to exists.
	Link(from, to string) error
	Remove(path string) error
	SyncDir(dir string) error
}

// OS is the real filesystem.
type OS struct{}

// CreateTemp creates path exclusively.
func (OS) CreateTemp(path string, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
}

// Write writes all of b.
func (OS) Write(f *os.File, b []byte) error { _, err := f.Write(b); return err }

// Sync flushes f to stable storage.
func (OS) Sync(f *os.File) error { return f.Sync() }

// Rename atomically replaces to with from.
func (OS) Rename(from, to string) error { return os.Rename(from, to) }

// Link makes a hard link; where the filesystem has none it falls back to a
// rename that refuses an existing name (renameNoReplace), so a move never
// replaces a file either way.
func (OS) Link(from, to string) error { return linkOrRename(os.Link, from, to) }

func linkOrRename(link func(from, to string) error, from, to string) error {
	err := link(from, to)
	if err == nil || errors.Is(err, fs.ErrExist) || !linkUnsupported(err) {
		return err
	}
	if err := renameNoReplace(from, to); err != nil {
		return &os.LinkError{Op: "rename (no replace)", Old: from, New: to, Err: err}
	}
	return errLinkedByRename
}

// errLinkedByRename reports that Link moved from to to instead of linking;
// the caller must not remove from then.
var errLinkedByRename = errors.New("linked by a no-replace rename")

func linkUnsupported(err error) bool {
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EXDEV) ||
		errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EMLINK)
}

// Remove removes a name.
func (OS) Remove(path string) error { return os.Remove(path) }

// SyncDir flushes a directory, so a rename or link in it survives a crash.
func (OS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// tempPrefixOf is the prefix of every temporary file of target: the shared
// prefix grep and glob hide, then a hash of the target's name, so a long
// name still fits and a sweep finds exactly its own target's files.
func tempPrefixOf(target string) string {
	return fmt.Sprintf("%s%016x-", documents.TempPrefix, xxhash.Sum64String(filepath.Base(target)))
}

// tempName is a fresh name for a temporary file of target, beside it.
func tempName(target string) string {
	return filepath.Join(filepath.Dir(target), tempPrefixOf(target)+randomHex())
}

// createTemp creates the temporary file name, which must not exist, and
// locks it. The lock is held until the file is closed: a sweep never
// removes it.
func createTemp(fsys FS, name string, perm fs.FileMode) (*os.File, error) {
	f, err := fsys.CreateTemp(name, perm)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		os.Remove(name)
		return nil, fmt.Errorf("locking %s: %w", name, err)
	}
	return f, nil
}

// sweep removes the temporary files of the targets that no live writer
// locks (a crashed writer left them), reading each directory once. It never
// touches another target's files.
func sweep(targets []string) {
	own := map[string]map[string]bool{} // directory → its targets' prefixes
	var dirs []string
	for _, t := range targets {
		dir := filepath.Dir(t)
		if own[dir] == nil {
			own[dir] = map[string]bool{}
			dirs = append(dirs, dir)
		}
		own[dir][tempPrefixOf(t)] = true
	}
	for _, dir := range dirs {
		sweepDir(dir, own[dir])
	}
}

func sweepDir(dir string, prefixes map[string]bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	n := len(tempPrefixOf(dir)) // every prefix has this length
	for _, e := range entries {
		if len(e.Name()) < n || !prefixes[e.Name()[:n]] || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
			os.Remove(p)
		}
		f.Close()
	}
}

// dirLocks serialises writers of the same directories, in this process and
// across processes: each directory is locked with flock in one global
// (sorted) order, so two commits never deadlock.
type dirLocks struct{ files []*os.File }

var lockPoll = 2 * time.Millisecond

func lockDirs(ctx context.Context, dirs []string) (*dirLocks, error) {
	l := &dirLocks{}
	for _, d := range dirs {
		f, err := os.Open(d)
		if err != nil {
			l.unlock()
			return nil, err
		}
		for {
			err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
			if !errors.Is(err, unix.EWOULDBLOCK) {
				break
			}
			select {
			case <-ctx.Done():
				f.Close()
				l.unlock()
				return nil, ctx.Err()
			case <-time.After(lockPoll):
			}
		}
		if err != nil {
			f.Close()
			l.unlock()
			return nil, fmt.Errorf("locking %s: %w", d, err)
		}
		l.files = append(l.files, f)
	}
	return l, nil
}

func (l *dirLocks) unlock() {
	for _, f := range l.files {
		f.Close() // closing the last descriptor releases the flock
	}
	l.files = nil
}

func randomHex() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
