package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	acp "github.com/coder/acp-go-sdk"
	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/edits"
	"github.com/tandemdev/tandem/refusal"
	"github.com/tandemdev/tandem/tools"
)

// Checkpoints: every turn records, per file it changed, the bytes before
// and after. Restoring a turn puts back every file the agent changed in that
// turn and later, as one all-or-nothing commit through the edit machinery
// (open documents through the editor). A file changed since the agent's
// last write there is kept and named, or on request restored around those
// later changes by a three-way line merge: a restore never destroys the
// user's later work. The restore is itself recorded as a turn, so it can be
// undone the same way.

// Checkpoint is one turn's changes, as a client lists them.
type Checkpoint struct {
	Turn  int      `json:"turn"`
	Files []string `json:"files"` // absolute paths the turn changed, in order
}

// turnChange is one file a turn changed, with the tool call that changed
// it (none for a restore), so a reloaded chat shows each call's diff.
type turnChange struct {
	edits.FileChange
	Call string `json:"call,omitempty"`
}

// callChanges tags a call's changes with its id.
func callChanges(call string, changes []edits.FileChange) []turnChange {
	out := make([]turnChange, len(changes))
	for i, fc := range changes {
		out[i] = turnChange{FileChange: fc, Call: call}
	}
	return out
}

// restoreCall names a restore's changes in the chat's file.
const restoreCall = "restore"

// recordCall adds a call's changes (none for a call that changed nothing)
// to turn's checkpoint and to the chat's file, where they confirm the
// call's before record.
func (c *Chat) recordCall(turn int, call string, changes []turnChange, emit func(acp.SessionUpdate)) {
	c.ckMu.Lock()
	for len(c.turns) <= turn {
		c.turns = append(c.turns, nil)
	}
	c.turns[turn] = append(c.turns[turn], changes...)
	c.ckMu.Unlock()
	if len(changes) > 0 || call != "" {
		c.save(record{Checkpoint: &checkpointRecord{Turn: turn, Call: call, Changes: changes}}, false, emit)
	}
}

// beforeRecord is what the files an edit call names hold just before it
// runs, synced to the chat's file first: a turn a crash cut can still be
// restored. A checkpoint record of the same call confirms it; without
// one, the next load takes each file that no longer holds its bytes as
// changed by the call (recovered).
type beforeRecord struct {
	Turn  int          `json:"turn"`
	Call  string       `json:"call"`
	Files []beforeFile `json:"files"`
}

// beforeFile is one file's bytes; nil when there is no file.
type beforeFile struct {
	Path  string `json:"path"`
	Bytes []byte `json:"bytes"`
}

// saveBefore records, durably, what the files paths name hold now, before
// call (of turn) changes them.
func (c *Chat) saveBefore(turn int, call string, paths []string, emit func(acp.SessionUpdate)) error {
	if c.journal == nil {
		return nil
	}
	b := beforeRecord{Turn: turn, Call: call}
	for _, p := range paths {
		abs, err := documents.Resolve(c.opts.Session.Roots, p)
		if err != nil {
			continue // refused by the tool, which changes nothing
		}
		data, err := os.ReadFile(abs)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			continue // not a file the tool can change
		}
		b.Files = append(b.Files, beforeFile{Path: abs, Bytes: data})
	}
	return c.save(record{Before: &b}, true, emit)
}

// recovered is what a call a crash cut did: each file it named that no
// longer holds its before-bytes, changed to what it holds now.
func recovered(b beforeRecord) []turnChange {
	var out []turnChange
	for _, f := range b.Files {
		now, err := os.ReadFile(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			now = nil
		} else if err != nil {
			continue
		}
		if (now == nil) == (f.Bytes == nil) && bytes.Equal(now, f.Bytes) {
			continue
		}
		out = append(out, turnChange{FileChange: edits.FileChange{Path: f.Path, Before: f.Bytes, After: now}, Call: b.Call})
	}
	return out
}

// Checkpoints lists the turns that changed files.
func (c *Chat) Checkpoints() []Checkpoint {
	c.ckMu.Lock()
	defer c.ckMu.Unlock()
	var out []Checkpoint
	for i, t := range c.turns {
		if len(t) == 0 {
			continue
		}
		cp := Checkpoint{Turn: i}
		seen := map[string]bool{}
		for _, fc := range t {
			for _, p := range []string{fc.From, fc.Path} {
				if p != "" && !seen[p] {
					seen[p] = true
					cp.Files = append(cp.Files, p)
				}
			}
		}
		out = append(out, cp)
	}
	return out
}

// Restored is what a restore did, and the turn it was recorded as: the
// turn to restore to undo it (-1 when it changed no file).
type Restored struct {
	tools.Result
	Turn int
}

// Restore puts back every file the agent changed from turn on, as it was
// before that turn, keeping (and naming) any file changed since the agent
// wrote it — or, with around, restoring such a file around those later
// changes where they do not touch the agent's. It refuses while a turn
// runs. The reply ends with how to undo the restore; the model is told at
// the start of the next prompt which files went back.
func (c *Chat) Restore(ctx context.Context, turn int, around bool) (Restored, error) {
	return c.putBack(ctx, turn, around, func(from [][]turnChange) ([]edits.Revert, error) {
		return revertsFrom(from), nil
	}, "(The user undid your changes from turn %d on in these files: %s. Read them again before you edit them.)")
}

// putBack runs a restore: pick chooses the reverts from the turns from
// turn on. What the files hold first is synced to the chat's file, and
// the restore is recorded as a turn of its own, so it can be restored in
// turn; note (with the turn and the files) is told to the model.
func (c *Chat) putBack(ctx context.Context, turn int, around bool, pick func(from [][]turnChange) ([]edits.Revert, error), note string) (Restored, error) {
	if !c.mu.TryLock() {
		return Restored{}, fmt.Errorf("a turn is running; stop it, then restore")
	}
	defer c.mu.Unlock()
	if err := c.begin(func(acp.SessionUpdate) {}); err != nil {
		return Restored{}, err
	}
	defer c.end()
	c.ckMu.Lock()
	if turn < 0 || turn >= len(c.turns) {
		c.ckMu.Unlock()
		return Restored{}, fmt.Errorf("there is no turn %d; the chat has turns 0 to %d", turn, len(c.turns)-1)
	}
	reverts, err := pick(c.turns[turn:])
	restored := len(c.turns) // the restore is a turn of its own: undoable
	c.ckMu.Unlock()
	if err != nil {
		return Restored{}, err
	}
	var paths []string
	for _, r := range reverts {
		paths = append(paths, r.Path)
	}
	quiet := func(acp.SessionUpdate) {}
	if err := c.saveBefore(restored, restoreCall, paths, quiet); err != nil {
		return Restored{}, refusal.New(refusal.Failed, fmt.Sprintf("the chat could not record what the files hold now (%v), so the restore could not be undone; nothing was restored; make room on the disk, then restore again", err))
	}
	res := c.opts.Session.Restore(ctx, reverts, around)
	c.recordCall(restored, restoreCall, callChanges("", res.Changes), quiet)
	out := Restored{Result: res, Turn: -1}
	if len(res.Changes) > 0 {
		paths = paths[:0]
		for _, fc := range res.Changes {
			paths = append(paths, fc.Path)
		}
		c.notes = append(c.notes, fmt.Sprintf(note, turn, strings.Join(paths, ", ")))
		out.Text += fmt.Sprintf("Restore turn %d to undo this restore.\n", restored)
		out.Turn = restored
	}
	c.keep(notice{Kind: noticeRestore, Text: strings.TrimSuffix(out.Text, "\n"), Turn: &turn})
	return out, nil
}

// revertsFrom is what undoing turns means for each file they touched: put
// back what it held before the first of them touched it, provided it still
// holds what the last of them left.
func revertsFrom(turns [][]turnChange) []edits.Revert {
	var order []string
	first := map[string][]byte{} // before the first change
	last := map[string][]byte{}  // after the last change
	touched := map[string]bool{}
	note := func(path string, before, after []byte) {
		if !touched[path] {
			touched[path] = true
			order = append(order, path)
			first[path] = before
		}
		last[path] = after
	}
	for _, t := range turns {
		for _, fc := range t {
			if fc.From != "" {
				note(fc.From, fc.Before, nil) // the source is gone after a move
				note(fc.Path, nil, fc.After)
				continue
			}
			note(fc.Path, fc.Before, fc.After)
		}
	}
	out := make([]edits.Revert, 0, len(order))
	for _, p := range order {
		out = append(out, edits.Revert{Path: p, Expect: last[p], Want: first[p]})
	}
	return out
}
