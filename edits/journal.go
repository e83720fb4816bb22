package edits

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/sys/unix"
)

// A commit on disk is journaled the way a database's is, so that kill -9 or
// a power loss at any moment leaves every file of it old or every file new:
//
//  1. the intent record — each file, its temporary file's name, its mode,
//     the old and the new content's length and hash, and the old bytes
//     when there is more than one file — is written to a new file of the
//     journal directory, flushed, and the directory flushed;
//  2. every temporary file is written and flushed;
//  3. the temporary files are renamed (or linked) into place, sources of
//     moves and deleted files removed;
//  4. every directory changed is flushed;
//  5. the record is removed and the journal directory flushed.
//
// The writer holds an exclusive flock on its record from its creation to
// its removal. A record whose lock is free belongs to a process that ended
// mid-commit; the next start in the workspace (Recover) rolls it forward
// when every file can reach its new state — each temporary file complete,
// by its hash — and back to the recorded old bytes otherwise, then removes
// the temporary files and the record. The record comes before the
// temporary files so that a crash while they are written leaves no file
// nobody knows of.

// recordVersion is the layout of the records this tandem writes.
const recordVersion = 1

// recordExt ends the name of every commit record in the journal directory.
const recordExt = ".commit"

// op is what a step does on disk.
type op string

const (
	opReplace op = "replace" // the temporary file is renamed over path
	opCreate  op = "create"  // the temporary file is linked to path, which must not exist
	opMove    op = "move"    // the temporary file is linked to dest, then path is removed
	opRemove  op = "remove"  // path is removed
)

// step is one file's part of a commit on disk, as its record names it.
type step struct {
	Op   op          `json:"op"`
	Path string      `json:"path"`           // the file replaced, created or removed; a move's source
	Dest string      `json:"dest,omitempty"` // a move's destination
	Temp string      `json:"temp,omitempty"` // holds the new content; none for a removal
	Mode fs.FileMode `json:"mode"`           // the mode of the new file, and of old bytes put back
	// Old names the old content; nil when there was no file (a creation).
	Old *digest `json:"old,omitempty"`
	// Before is where the old bytes are in the record's body, kept when
	// a roll back could need them: in a commit of more than one step. A
	// lone step never goes back once it landed (its rename is atomic).
	Before *span `json:"before,omitempty"`
	// After names the new content; nil when no file is left (a removal).
	After *digest `json:"after,omitempty"`

	change   int       // the index of the change in its commit
	show     string    // the file's name as the model knows it
	keepMode bool      // Mode is an existing file's, set past the umask
	before   []byte    // the old bytes
	next     []byte    // the new content
	temp     *os.File  // the temporary file, open and locked while the commit runs
	state    stepState // what is on disk now, when settling
	landed   bool
	warnings []string
}

type span struct {
	Off int64 `json:"off"`
	Len int64 `json:"len"`
}

type digest struct {
	Len int64  `json:"len"`
	Sum string `json:"xxh64"`
}

func digestOf(b []byte) *digest {
	return &digest{Len: int64(len(b)), Sum: strconv.FormatUint(xxhash.Sum64(b), 16)}
}

func (d *digest) matches(b []byte) bool {
	return d != nil && int64(len(b)) == d.Len && strconv.FormatUint(xxhash.Sum64(b), 16) == d.Sum
}

// record is the intent of one commit.
type record struct {
	Version int       `json:"version"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Steps   []*step   `json:"steps"`
}

// encode lays the record out as one JSON line, the old bytes after it, and
// a trailer holding the hash of all that, so a torn record is known.
func (r *record) encode() []byte {
	var body []byte
	for _, s := range r.Steps {
		s.Before = nil
		if len(r.Steps) > 1 && s.Op != opCreate {
			s.Before = &span{Off: int64(len(body)), Len: int64(len(s.before))}
			body = append(body, s.before...)
		}
	}
	head, _ := json.Marshal(r)
	out := make([]byte, 0, len(head)+1+len(body)+trailerLen)
	out = append(append(append(out, head...), '\n'), body...)
	return fmt.Appendf(out, "\nend %016x\n", xxhash.Sum64(out))
}

const trailerLen = len("\nend 0123456789abcdef\n")

// decodeRecord reads a record; a torn one (its writer died while writing
// it, before any temporary file was made) is an error.
func decodeRecord(data []byte) (*record, error) {
	if len(data) < trailerLen {
		return nil, errTorn
	}
	content, trailer := data[:len(data)-trailerLen], data[len(data)-trailerLen:]
	if string(trailer) != fmt.Sprintf("\nend %016x\n", xxhash.Sum64(content)) {
		return nil, errTorn
	}
	head, body, ok := bytes.Cut(content, []byte("\n"))
	if !ok {
		return nil, errTorn
	}
	var r record
	if err := json.Unmarshal(head, &r); err != nil {
		return nil, err
	}
	if r.Version != recordVersion {
		return nil, fmt.Errorf("it is of version %d, which this tandem does not know; a newer tandem settles it", r.Version)
	}
	for _, s := range r.Steps {
		if b := s.Before; b != nil {
			if b.Off < 0 || b.Len < 0 || b.Off+b.Len > int64(len(body)) {
				return nil, fmt.Errorf("the old bytes of %s lie outside the record", s.Path)
			}
			s.before = body[b.Off : b.Off+b.Len]
		}
	}
	return &r, nil
}

var errTorn = errors.New("the record is incomplete")

// journal is one running commit's record.
type journal struct {
	fsys FS
	dir  string
	f    *os.File // open and locked until the commit ends
}

// begin writes and flushes the record of steps in the journal directory
// dir, and returns it locked. With no directory there is no record: each
// file still lands by one atomic rename, but a crash between two of them
// leaves the set part old, part new.
func begin(fsys FS, dir string, steps []*step) (*journal, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := createRecord(fsys, dir)
	if err != nil {
		return nil, err
	}
	j := &journal{fsys: fsys, dir: dir, f: f}
	rec := &record{Version: recordVersion, PID: os.Getpid(), Started: time.Now().UTC(), Steps: steps}
	if err := fsys.Write(f, rec.encode()); err != nil {
		j.end()
		return nil, err
	}
	if err := fsys.Sync(f); err != nil {
		j.end()
		return nil, err
	}
	if err := fsys.SyncDir(dir); err != nil {
		j.end()
		return nil, err
	}
	return j, nil
}

// createRecord creates a new record file in dir and locks it. A recovery
// takes the directory's lock exclusively while it picks records whose lock
// is free: holding it shared until the record is locked means a record in
// its first moment is never taken for a dead one.
func createRecord(fsys FS, dir string) (*os.File, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if err := unix.Flock(int(d.Fd()), unix.LOCK_SH); err != nil {
		return nil, err
	}
	f, err := fsys.CreateTemp(filepath.Join(dir, randomHex()+recordExt), 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// end removes the record once the commit is settled, flushes its
// directory (a record that came back after a power loss would be settled
// again, against files changed since), and lets its lock go.
func (j *journal) end() {
	if j == nil {
		return
	}
	if j.fsys.Remove(j.f.Name()) == nil {
		_ = j.fsys.SyncDir(j.dir)
	}
	j.f.Close()
}
