// Package edits changes files for an agent: line operations anchored on a
// tagged version the model read, a string-replace and a unified-diff form
// over the same checks, whole-file writes and moves. Every form goes through
// one seen guard (only lines the model was shown may be anchors), one
// rebase of stale edits through an exact line diff, and one multi-file
// commit that lands all files or, on a conflict, none — on disk and in
// editor buffers.
//
// Tags, rows and seen lines are package documents' terms. An anchor is a
// line an op relies on (Anchor). A change is staged when its new content
// is computed on the bytes the file holds at that moment; the commit then
// checks that the file still holds them before it writes anything.
package edits

import (
	"context"

	"github.com/tandemdev/tandem/documents"
)

// Env is what an edit works with: the session's roots and memory of what
// the model saw, the editor's open buffers, the editor that applies changes
// to them, and the filesystem.
type Env struct {
	Roots   []string
	Seen    *documents.Store
	Buffers *documents.Overlay // never nil
	Editor  Editor             // nil when no editor is attached
	FS      FS                 // nil means the real filesystem
	// Journal is the private directory where a commit on disk keeps its
	// intent record while it runs (see journal.go); commits and Recover
	// settle there what a crashed process left. If it is empty, a commit
	// still lands or fails whole while tandem runs, but a crash between
	// two of its files leaves some old and some new.
	Journal string
	// Allow is asked about each path a call would write (every changed,
	// created or removed file and every move destination) before anything
	// is written. It is the session's gate, which asks the user about a
	// secret and about whatever its auto set leaves out. An error refuses
	// the whole call. If Allow is nil, every path is allowed.
	Allow func(ctx context.Context, abs string) error
	// Landed is called after a commit for each file whose new content
	// landed, with its bytes before and after; the agent shows them as a
	// diff and keeps them as a checkpoint. If it is nil, they are ignored.
	Landed func(FileChange)
}

// FileChange is one file an edit or a write changed.
type FileChange struct {
	Path   string // absolute; after a move, the destination
	From   string // a move's source (absolute), else ""
	Before []byte // nil for a created file
	After  []byte // nil for a removed file (a restore of one the agent created)
}

// allow asks Allow about every path the changes would write.
func (e *Env) allow(ctx context.Context, cs []*change) error {
	if e.Allow == nil {
		return nil
	}
	for _, c := range cs {
		if c.already {
			continue
		}
		for _, p := range []string{c.path, c.dest} {
			if p == "" {
				continue
			}
			if err := e.Allow(ctx, p); err != nil {
				return err
			}
		}
	}
	return nil
}

func (e *Env) fs() FS {
	if e.FS == nil {
		return OS{}
	}
	return e.FS
}
