package edits

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/tandemdev/tandem/documents"
)

// change is one file's part of a commit: its new content, staged (computed)
// on base, bytes the commit checks the file still holds before it writes.
type change struct {
	path, show     string // the file edited (the source of a move)
	target         string // where its bytes live on disk (symlinks followed)
	dest, showDest string // a move's destination, else ""
	create         bool   // the file must not exist yet
	base           []byte // the bytes the edit was staged on
	buffer         bool   // base is an open editor buffer
	next           []byte // the new content
	lines          []newLine
	seenBase       []bool // whether each line of base (0-based) was seen
	wroteAll       bool   // the model wrote every line (write, create)
	notes          []string
	already        bool // the edit is already in the file: nothing to write
	remove         bool // the file goes (a restore of a file the agent created)
	baseLines      *documents.Lines
}

// scanned is the line model of base, scanned once.
func (c *change) scanned() documents.Lines {
	if c.baseLines == nil {
		ls := documents.Scan(c.base)
		c.baseLines = &ls
	}
	return *c.baseLines
}

// landedChange is what the change did once it landed. Before and After are
// nil only when there is no file. An empty file holds zero bytes but is
// not nil, so that a restore never takes it for a missing file.
func (c *change) landedChange() FileChange {
	path, _ := c.final()
	fc := FileChange{Path: path, Before: c.base, After: c.next}
	if c.dest != "" {
		fc.From = c.path
	}
	if fc.Before == nil && !c.create {
		fc.Before = []byte{}
	}
	if fc.After == nil && !c.remove {
		fc.After = []byte{}
	}
	return fc
}

// final returns the path, and its display form, where the change's content
// ends up: a move's destination, else the file's own path.
func (c *change) final() (string, string) {
	if c.dest != "" {
		return c.dest, c.showDest
	}
	return c.path, c.show
}

// where says where a landed change went.
type where int

const (
	onDisk           where = iota // written to the file
	inBuffer                      // changed in the editor buffer only (it has unsaved changes)
	inBufferDiskSame              // changed in the editor buffer, whose text the file on disk holds too
	inBufferSaved                 // changed in the editor buffer, which the editor saved
	inBufferOnDisk                // changed in the editor buffer and written to the file
)

// outcome is what a commit did with one change.
type outcome struct {
	tried    bool
	landed   bool
	where    where
	warnings []string
	err      string // why it did not land
}

// conflictError is a failed check: the file is not what the edit was staged on.
type conflictError struct {
	index   int    // the change that failed the check
	reason  string // one sentence
	current []byte // the file's current bytes, when it has any
}

func (e *conflictError) Error() string { return e.reason }

// commit writes changes all or nothing. It locks every directory
// involved, in one global order, and checks every change against the bytes
// it was staged on (and that a move's destination is free). Only when
// every check passes does it apply them: open buffers through the editor
// first (in one transactional request where the editor supports it), then
// the files on disk together, journaled (land), so that a failure or a
// crash leaves all of them old or all new.
func commit(ctx context.Context, env *Env, cs []*change) ([]outcome, error) {
	fsys := env.fs()
	// A commit another process left cut short is settled first, so this
	// one checks its files against whole states.
	for _, r := range Recover(env.Journal, env.Roots) {
		cs[0].notes = append(cs[0].notes, r.String())
	}
	locks, err := lockDirs(ctx, lockSet(cs))
	if err != nil {
		return nil, err
	}
	defer locks.unlock()

	clean := make([]bool, len(cs)) // whether an open buffer equals its file, and so is saved after the edit
	for i, c := range cs {
		ok, err := check(env, c)
		if err != nil {
			err.index = i
			return nil, err
		}
		clean[i] = ok
	}

	out := make([]outcome, len(cs))
	stop := func(from int, reason string) {
		for k := from; k < len(cs); k++ {
			if !out[k].tried {
				out[k].err = reason
			}
		}
	}

	// Editor buffers first: the editor refuses when the user typed since the
	// check, and then nothing at all has been written.
	var bufs []int
	for i, c := range cs {
		if c.buffer && !c.already {
			bufs = append(bufs, i)
		}
	}
	if len(bufs) > 0 {
		if env.Editor == nil {
			return nil, errors.New("open editor buffers but no editor connection")
		}
		groups := [][]int{bufs}
		if !env.Editor.Transactional() {
			groups = nil
			for _, i := range bufs {
				groups = append(groups, []int{i})
			}
		}
		for k, g := range groups {
			reason, ce := applyBuffers(ctx, env, cs, g)
			if ce != nil && k == 0 {
				return nil, ce // nothing was written yet
			}
			if ce != nil {
				reason = ce.reason
			}
			for _, i := range g {
				out[i].tried = true
				if reason != "" {
					out[i].err = reason
				} else {
					out[i].landed, out[i].where = true, inBuffer
					if disk, err := os.ReadFile(cs[i].target); err == nil && sameText(disk, cs[i].next) {
						// The editor wrote the file as well (an ACP client's
						// fs/write_text_file does): the reply says so.
						out[i].where = inBufferDiskSame
					}
				}
			}
			if reason != "" {
				stop(0, fmt.Sprintf("not tried, because the editor did not apply the change to %s", cs[g[0]].show))
				return out, nil
			}
		}
	}

	// Before any target is written, its stale temporary files are removed.
	var targets []string
	for i, c := range cs {
		if !c.already && (!c.buffer || clean[i]) {
			final, _ := c.final()
			if c.dest == "" {
				final = c.target
			}
			targets = append(targets, final)
		}
	}
	sweep(targets)

	var steps []*step
	for i, c := range cs {
		if c.already {
			out[i] = outcome{tried: true, landed: true, where: onDisk}
			continue
		}
		if c.buffer && !clean[i] {
			continue // a buffer with unsaved changes is never written to disk
		}
		if c.buffer {
			warn := saveBuffer(ctx, env, fsys, c, &out[i])
			out[i].warnings = append(out[i].warnings, warn...)
			continue
		}
		out[i].tried = true
		steps = append(steps, stepOf(c, i, c.base, c.next))
	}
	err = land(fsys, env.Journal, steps)
	for _, s := range steps {
		o := &out[s.change]
		o.landed, o.warnings = s.landed, append(o.warnings, s.warnings...)
		switch {
		case s.landed:
			o.where = onDisk
		case err != nil:
			o.err = err.Error()
		}
	}
	return out, nil
}

// check compares a change's file with the bytes it was staged on. It
// reports whether an open buffer equals its file on disk (then the edited
// buffer is saved too).
func check(env *Env, c *change) (clean bool, _ *conflictError) {
	if c.dest != "" {
		if _, err := os.Lstat(c.dest); !errors.Is(err, fs.ErrNotExist) {
			return false, &conflictError{reason: fmt.Sprintf("%s already exists, and a move never replaces a file", c.showDest)}
		}
		if _, open := env.Buffers.Get(c.dest); open {
			return false, &conflictError{reason: fmt.Sprintf("%s is open in the editor, and a move never replaces a document", c.showDest)}
		}
	}
	if reason, lost := env.Buffers.Lost(c.path); lost {
		return false, &conflictError{reason: fmt.Sprintf("tandem lost track of the editor's unsaved text of %s (%s) since the edit was staged; the user must close and reopen it", c.show, reason)}
	}
	if c.buffer {
		b, open := env.Buffers.Get(c.path)
		if !open {
			return false, &conflictError{reason: fmt.Sprintf("%s was closed in the editor since the edit was staged", c.show)}
		}
		if !bytes.Equal(b.Text, c.base) {
			return false, &conflictError{reason: fmt.Sprintf("%s changed in the editor since you read it", c.show), current: b.Text}
		}
		disk, err := os.ReadFile(c.target)
		return err == nil && sameText(disk, c.base), nil
	}
	if b, open := env.Buffers.Get(c.path); open {
		// The editor opened the file after the change was staged. Its
		// buffer, which the user may be editing, is now the text the agent
		// would have had to see.
		return false, &conflictError{reason: fmt.Sprintf("%s was opened in the editor since the edit was staged", c.show), current: b.Text}
	}
	if c.create {
		disk, err := os.ReadFile(c.target)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return false, nil
		case err == nil:
			return false, &conflictError{reason: fmt.Sprintf("%s exists now, and creating a file never replaces one", c.show), current: disk}
		}
		return false, &conflictError{reason: fmt.Sprintf("%s cannot be checked (%v)", c.show, err)}
	}
	same, err := fileHolds(c.target, c.base)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, &conflictError{reason: fmt.Sprintf("%s was deleted since you read it", c.show)}
	case err != nil:
		return false, &conflictError{reason: fmt.Sprintf("%s cannot be read (%v)", c.show, err)}
	case !same:
		disk, _ := os.ReadFile(c.target)
		return false, &conflictError{reason: fmt.Sprintf("%s changed on disk since you read it", c.show), current: disk}
	}
	return false, nil
}

// fileHolds reports whether the file at path holds exactly want. It compares
// as it reads, in pieces, so the check of a large file allocates nothing.
func fileHolds(path string, want []byte) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := io.ReadFull(f, buf)
		if n > len(want) || !bytes.Equal(buf[:n], want[:n]) {
			return false, nil
		}
		want = want[n:]
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return len(want) == 0, nil
		case err != nil:
			return false, err
		}
	}
}

// lockSet lists the directories a commit locks, sorted: each change's
// directory and its destination's, or their nearest existing ancestor.
func lockSet(cs []*change) []string {
	var paths []string
	for _, c := range cs {
		paths = append(paths, c.target)
		if c.dest != "" {
			paths = append(paths, c.dest)
		}
	}
	return lockSetOf(paths)
}

// lockSetOf lists the directories of paths, or their nearest existing
// ancestors, sorted and once each.
func lockSetOf(paths []string) []string {
	seen := map[string]bool{}
	var dirs []string
	for _, p := range paths {
		d := filepath.Dir(p)
		for {
			if info, err := os.Stat(d); err == nil && info.IsDir() {
				break
			}
			up := filepath.Dir(d)
			if up == d {
				break
			}
			d = up
		}
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	return dirs
}

// stepOf is change i's step on disk: before is what its file holds,
// content its new bytes. A replaced or moved file keeps its mode; a new one
// gets 0666 less the umask.
func stepOf(c *change, i int, before, content []byte) *step {
	s := &step{Op: opReplace, Path: c.target, Mode: 0o666, change: i, show: c.show, before: before, next: content}
	final := c.target
	switch {
	case c.remove:
		s.Op = opRemove
	case c.dest != "":
		s.Op, s.Dest, final = opMove, c.dest, c.dest
	case c.create:
		s.Op = opCreate
	}
	if info, err := os.Stat(c.target); err == nil && !c.create {
		s.Mode, s.keepMode = info.Mode().Perm(), true
	}
	if s.Op != opCreate {
		s.Old = digestOf(before)
		if s.before == nil {
			s.before = []byte{} // an empty file, not none
		}
	}
	if s.Op != opRemove {
		s.After, s.Temp = digestOf(content), tempName(final)
	}
	return s
}

// land puts steps on disk all or nothing, journaled (see journal.go): the
// record, then every temporary file written and flushed, then each put in
// place, then the directories flushed. A failure before everything is in
// place puts back what had landed, and land returns why; a step whose
// undoing failed too stays landed, with a warning. A failed directory
// flush is a warning on the steps landed there.
func land(fsys FS, journal string, steps []*step) error {
	if len(steps) == 0 {
		return nil
	}
	rec, err := begin(fsys, journal, steps)
	if err != nil {
		return fmt.Errorf("recording the edit in tandem's journal failed (%v), so no file was written", err)
	}
	defer rec.end()
	defer func() {
		for _, s := range steps {
			if s.temp != nil {
				s.temp.Close()
			}
		}
	}()
	for _, s := range steps {
		if err := s.prepare(fsys); err != nil {
			return undo(fsys, steps, fmt.Errorf("writing %s failed: %v", s.show, err))
		}
	}
	for _, s := range steps {
		warn, err := advance(fsys, s)
		s.warnings = warn
		if err != nil {
			return undo(fsys, steps, fmt.Errorf("putting %s in place failed: %v", s.show, err))
		}
	}
	syncDirs(fsys, steps)
	for _, s := range steps {
		s.landed = true
	}
	return nil
}

// prepare writes and flushes a step's new content to its locked temporary
// file, making the directories it goes in.
func (s *step) prepare(fsys FS) error {
	if s.Op == opRemove {
		return nil
	}
	dir := filepath.Dir(s.Temp)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("creating the directory %s failed: %v", dir, err)
	}
	f, err := createTemp(fsys, s.Temp, s.Mode)
	if err != nil {
		return fmt.Errorf("creating a temporary file failed: %v", err)
	}
	s.temp = f
	if s.keepMode {
		if err := f.Chmod(s.Mode); err != nil {
			return fmt.Errorf("setting the mode failed: %v", err)
		}
	}
	if err := fsys.Write(f, s.next); err != nil {
		return fmt.Errorf("writing failed: %v", err)
	}
	if err := fsys.Sync(f); err != nil {
		return fmt.Errorf("flushing to disk failed: %v", err)
	}
	return nil
}

// advance puts one prepared step in place: the temporary file renamed over
// the file, or linked to a new name (which never replaces a file), a
// removed file or a move's source removed. A move whose source could not
// be removed has landed, with a warning.
func advance(fsys FS, s *step) (warnings []string, err error) {
	switch s.Op {
	case opReplace:
		if err := fsys.Rename(s.Temp, s.Path); err != nil {
			return nil, fmt.Errorf("renaming into place failed: %v", err)
		}
	case opCreate, opMove:
		final := s.Path
		if s.Op == opMove {
			final = s.Dest
		}
		err := fsys.Link(s.Temp, final)
		switch {
		case errors.Is(err, errLinkedByRename):
			warnings = append(warnings, "this filesystem has no hard links, so the file was put in place by a rename that refuses an existing name")
		case errors.Is(err, fs.ErrExist):
			return nil, fmt.Errorf("%s appeared meanwhile, and it was not replaced", filepath.Base(final))
		case err != nil:
			return nil, fmt.Errorf("linking into place failed: %v", err)
		default:
			fsys.Remove(s.Temp) // the new name keeps the bytes
		}
		if s.Op == opMove {
			if err := fsys.Remove(s.Path); err != nil {
				warnings = append(warnings, fmt.Sprintf("the old name %s stayed (%v): remove it yourself", s.show, err))
			}
		}
	case opRemove:
		if err := fsys.Remove(s.Path); err != nil {
			return nil, fmt.Errorf("removing failed: %v", err)
		}
	}
	return warnings, nil
}

// undo puts back the old state of every step after a failure (why), and
// returns why. A step left in its new state is landed, with a warning.
func undo(fsys FS, steps []*step, why error) error {
	for _, s := range steps {
		s.state = s.classify()
	}
	err := settle(fsys, steps, false)
	syncDirs(fsys, steps)
	for _, s := range steps {
		if st := s.classify(); st == stateNew || st == stateHalf {
			s.landed = true
			s.warnings = append(s.warnings, fmt.Sprintf("the edit failed (%v) and undoing this file failed too (%v), so it keeps its new content", why, err))
		}
	}
	return fmt.Errorf("%v, so no file of this edit was changed on disk", why)
}

// syncDirs flushes each directory the steps changed, once (a directory
// flush costs about what a file's does). A failed flush is a warning on
// every step there.
func syncDirs(fsys FS, steps []*step) {
	for _, d := range stepDirs(steps) {
		err := fsys.SyncDir(d)
		if err == nil {
			continue
		}
		for _, s := range steps {
			if filepath.Dir(s.Path) == d || s.Dest != "" && filepath.Dir(s.Dest) == d {
				s.warnings = append(s.warnings, fmt.Sprintf("flushing the directory %s failed (%v): the change is in place but may not survive a crash", filepath.Base(d), err))
			}
		}
	}
}

// confirmWait is how long a commit waits for the editor's didChange that
// shows an applied edit in the mirrored buffer.
var confirmWait = 3 * time.Second

// applyBuffers sends the changes at idx to the editor in one request and
// waits until every buffer shows its new text. It returns why they did not
// land, or "", or the conflict the editor found.
func applyBuffers(ctx context.Context, env *Env, cs []*change, idx []int) (string, *conflictError) {
	docs := make([]DocumentEdit, 0, len(idx))
	for _, i := range idx {
		c := cs[i]
		b, _ := env.Buffers.Get(c.path)
		docs = append(docs, DocumentEdit{Path: c.path, Version: b.Version, Edits: TextEdits(c.base, c.next)})
	}
	applied, reason, err := env.Editor.ApplyEdit(ctx, "tandem edit", docs)
	var conflict *Conflict
	switch {
	case errors.As(err, &conflict):
		for _, i := range idx {
			if cs[i].path == conflict.Path {
				return "", &conflictError{index: i, reason: fmt.Sprintf("%s changed in the editor since you read it", cs[i].show), current: conflict.Current}
			}
		}
		return fmt.Sprintf("the editor could not be asked (%v)", err), nil
	case err != nil:
		return fmt.Sprintf("the editor could not be asked (%v)", err), nil
	case !applied && reason != "":
		return fmt.Sprintf("the editor refused the change: %s", reason), nil
	case !applied:
		return "the editor refused the change", nil
	}
	deadline := time.Now().Add(confirmWait)
	for _, i := range idx {
		for {
			b, open := env.Buffers.Get(cs[i].path)
			if open && bytes.Equal(b.Text, cs[i].next) {
				break
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				return "the editor reported the change applied, but its buffer does not show the expected text (it may have been typed in meanwhile); read the file to see what it holds — the editor's undo reverts the change if it landed", nil
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return "", nil
}

// saveBuffer puts a clean buffer's new text on disk after the editor applied
// it, so builds and tests see it: through the editor's save when it offers
// one, else by writing the same bytes as a commit of its own (land). The
// buffer change has landed either way; a failed save is a warning.
func saveBuffer(ctx context.Context, env *Env, fsys FS, c *change, o *outcome) (warnings []string) {
	if env.Editor.CanSave() {
		err := env.Editor.Save(ctx, c.path)
		disk, rerr := os.ReadFile(c.target)
		switch {
		case rerr == nil && sameText(disk, c.next):
			o.where = inBufferSaved
			return nil
		case rerr == nil && !sameText(disk, c.base):
			// The editor wrote something else (a format on save, say):
			// that is the user's editor's doing, and tandem leaves it.
			return []string{"the editor's save put other text on disk than the edit's (a format on save?); read the file to see it"}
		case err != nil:
			warnings = append(warnings, fmt.Sprintf("the editor did not save it (%v), so tandem wrote it", err))
		}
	}
	// The file keeps its byte order mark, which editors hold outside the
	// buffer's text.
	content := c.next
	disk, err := os.ReadFile(c.target)
	if err == nil && bytes.HasPrefix(disk, utf8BOM) && !bytes.HasPrefix(content, utf8BOM) {
		content = append(append([]byte(nil), utf8BOM...), content...)
	}
	s := stepOf(c, 0, disk, content)
	if err := land(fsys, env.Journal, []*step{s}); err != nil {
		return append(warnings, fmt.Sprintf("saving it to disk failed (%v): the change is in the editor buffer only", err))
	}
	env.Buffers.Saved(c.path)
	o.where = inBufferOnDisk
	return append(warnings, s.warnings...)
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// sameText reports whether a file on disk holds a buffer's text: the same
// bytes, or the same after the file's byte order mark, which editors keep
// outside the buffer.
func sameText(disk, buffer []byte) bool {
	return bytes.Equal(disk, buffer) ||
		(bytes.HasPrefix(disk, utf8BOM) && !bytes.HasPrefix(buffer, utf8BOM) && bytes.Equal(disk[len(utf8BOM):], buffer))
}
