package edits

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandemdev/tandem/documents"
)

// stepState is what a step's files hold when a commit is settled.
type stepState int

const (
	stateOld   stepState = iota // the old state, and the step can still land: its temporary file is complete
	stateStuck                  // the old state, and the step cannot land: its temporary file is missing or incomplete
	stateHalf                   // a move linked to its destination whose source is still there
	stateNew                    // the new state
	stateOther                  // neither: changed since, and left as it is
)

// classify finds what s's files hold, by their bytes: the old bytes
// exactly, or the new content's length and hash.
func (s *step) classify() stepState {
	tempComplete := func() bool {
		b, err := os.ReadFile(s.Temp)
		return err == nil && s.After.matches(b)
	}
	read := func(p string) (b []byte, gone bool, err error) {
		b, err = os.ReadFile(p)
		return b, errors.Is(err, fs.ErrNotExist), err
	}
	cur, gone, err := read(s.Path)
	holdsOld := err == nil && s.Old.matches(cur)
	switch s.Op {
	case opReplace, opCreate:
		switch {
		case err == nil && s.After.matches(cur):
			return stateNew
		case s.Op == opReplace && holdsOld, s.Op == opCreate && gone:
			if tempComplete() {
				return stateOld
			}
			return stateStuck
		}
	case opMove:
		dest, destGone, derr := read(s.Dest)
		destNew := derr == nil && s.After.matches(dest)
		switch {
		case destNew && gone:
			return stateNew
		case destNew && holdsOld:
			return stateHalf
		case destGone && holdsOld && tempComplete():
			return stateOld
		case destGone && holdsOld:
			return stateStuck
		}
	case opRemove:
		switch {
		case gone:
			return stateNew
		case holdsOld:
			return stateOld
		}
	}
	return stateOther
}

// settle brings every step to its new state (forward) or its old one, as
// far as its files still hold one of the two, then removes the temporary
// files. It classifies the steps first (their state field) and returns the
// first failure.
func settle(fsys FS, steps []*step, forward bool) error {
	var first error
	fail := func(err error) {
		if first == nil {
			first = err
		}
	}
	for _, s := range steps {
		switch {
		case forward && s.state == stateHalf:
			fail(fsys.Remove(s.Path))
		case forward && s.state == stateOld:
			_, err := advance(fsys, s)
			fail(err)
		case !forward && (s.state == stateNew || s.state == stateHalf):
			fail(retreat(fsys, s))
		}
	}
	for _, s := range steps {
		if s.Temp != "" {
			if err := fsys.Remove(s.Temp); err != nil && !errors.Is(err, fs.ErrNotExist) {
				fail(err)
			}
		}
	}
	return first
}

// retreat puts a landed step's old state back: the old bytes where a file
// was, no file where there was none. A move's source comes back before its
// destination goes, so that a crash in between leaves a state settled again.
func retreat(fsys FS, s *step) error {
	if s.before == nil && s.Op != opCreate {
		return fmt.Errorf("the old bytes of %s were not kept", s.Path)
	}
	switch s.Op {
	case opReplace:
		return putBack(fsys, s.Path, s.before, s.Mode, true)
	case opCreate:
		return fsys.Remove(s.Path)
	case opMove:
		if s.state == stateNew {
			if err := putBack(fsys, s.Path, s.before, s.Mode, false); err != nil {
				return err
			}
		}
		return fsys.Remove(s.Dest)
	case opRemove:
		return putBack(fsys, s.Path, s.before, s.Mode, false)
	}
	return nil
}

// putBack writes content to path through a flushed temporary file, renamed
// over it (replace) or linked to its name, which must be free.
func putBack(fsys FS, path string, content []byte, mode fs.FileMode, replace bool) error {
	name := tempName(path)
	f, err := createTemp(fsys, name, mode)
	if err != nil {
		return err
	}
	defer f.Close()
	err = f.Chmod(mode)
	if err == nil {
		err = fsys.Write(f, content)
	}
	if err == nil {
		err = fsys.Sync(f)
	}
	switch {
	case err == nil && replace:
		if err = fsys.Rename(name, path); err == nil {
			return nil
		}
	case err == nil:
		err = fsys.Link(name, path)
		if errors.Is(err, errLinkedByRename) {
			return nil
		}
	}
	fsys.Remove(name)
	return err
}

// stepDirs lists the directories a commit's steps change, in order, once.
func stepDirs(steps []*step) []string {
	var dirs []string
	for _, s := range steps {
		for _, p := range []string{s.Path, s.Dest} {
			if d := filepath.Dir(p); p != "" && !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	return dirs
}

// Recovery is what the recovery of one commit cut short did.
type Recovery struct {
	Forward bool     // rolled forward to the new state, else back to the old
	Files   []string // the files the commit changes, as the model names them; a move's destination after its source
	Kept    []string // those that held neither state and were left as they were
	Err     error    // why it could not be settled; its record stays for the next start
}

// String says in one sentence what the recovery did.
func (r Recovery) String() string {
	way := "rolled back: every file is as it was before the edit"
	if r.Forward {
		way = "rolled forward: every file is as the edit makes it"
	}
	edit := "An edit"
	if len(r.Files) > 0 {
		edit += " of " + strings.Join(r.Files, ", ")
	}
	if r.Err != nil {
		return fmt.Sprintf("%s was cut short by a crash and could not be settled (%v); tandem tries again at its next start.", edit, r.Err)
	}
	s := fmt.Sprintf("%s was cut short by a crash and has been %s", edit, way)
	if len(r.Kept) > 0 {
		s += fmt.Sprintf(", except %s, changed since and left as it is", strings.Join(r.Kept, ", "))
	}
	return s + "."
}

// Recover settles the commits in the journal directory dir that a process
// which ended (killed, crashed, powered off) left cut short, when one of
// their files lies in one of roots: each is rolled forward when every file
// can reach its new state, else back, and its temporary files and record
// are removed. A commit still running, in this process or another, holds
// its record's lock and is left alone. A torn record, whose writer died
// before any file was touched, is removed.
func Recover(dir string, roots []string) []Recovery {
	var out []Recovery
	for _, f := range claimDead(dir) {
		if r, ok := recoverRecord(OS{}, f, roots); ok {
			out = append(out, r)
		}
		f.Close()
	}
	return out
}

// journalDirWait bounds how long a recovery waits for the journal
// directory's lock.
var journalDirWait = time.Second

// claimDead locks and returns the records in dir whose lock is free. It
// holds the directory's lock while it looks (see begin).
func claimDead(dir string) []*os.File {
	if dir == "" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	// A writer holds the directory only while it creates and locks its
	// record; one held longer is stuck (a hung file system), and the dead
	// records wait for the next start or commit.
	for waited := time.Duration(0); ; waited += lockPoll {
		err := unix.Flock(int(d.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) || waited >= journalDirWait {
			return nil
		}
		time.Sleep(lockPoll)
	}
	entries, _ := d.ReadDir(-1)
	var dead []*os.File
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), recordExt) {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
			f.Close() // a commit in progress
			continue
		}
		dead = append(dead, f)
	}
	return dead
}

// recoverRecord settles the commit of one dead record; ok is false when
// there was nothing to report (the record was gone, torn, or of another
// workspace).
func recoverRecord(fsys FS, f *os.File, roots []string) (_ Recovery, ok bool) {
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil || st.Nlink == 0 {
		return Recovery{}, false // its writer finished and removed it
	}
	dir := filepath.Dir(f.Name())
	data, err := io.ReadAll(f)
	if err != nil {
		return Recovery{}, false
	}
	rec, err := decodeRecord(data)
	if errors.Is(err, errTorn) {
		fsys.Remove(f.Name())
		return Recovery{}, false
	}
	if err != nil {
		return Recovery{Err: fmt.Errorf("its record %s cannot be read: %v", f.Name(), err)}, true
	}
	var r Recovery
	var paths []string
	for _, s := range rec.Steps {
		for _, p := range []string{s.Path, s.Dest} {
			if p != "" {
				r.Files = append(r.Files, documents.Display(roots, p))
				paths = append(paths, p)
			}
		}
	}
	if !slices.ContainsFunc(paths, func(p string) bool {
		return slices.ContainsFunc(roots, func(root string) bool { return documents.Inside(root, p) })
	}) {
		return Recovery{}, false
	}
	locks, err := lockDirs(context.Background(), lockSetOf(paths))
	if err != nil {
		r.Err = err
		return r, true
	}
	defer locks.unlock()
	r.Forward = true
	for _, s := range rec.Steps {
		s.state = s.classify()
		switch s.state {
		case stateStuck:
			r.Forward = false
		case stateOther:
			r.Kept = append(r.Kept, documents.Display(roots, s.Path))
		}
	}
	r.Err = settle(fsys, rec.Steps, r.Forward)
	for _, d := range stepDirs(rec.Steps) {
		if err := fsys.SyncDir(d); err != nil && r.Err == nil {
			r.Err = err
		}
	}
	if r.Err == nil {
		(&journal{fsys: fsys, dir: dir, f: f}).end()
	}
	return r, true
}
