package edits

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/refusal"
)

// Revert is one file a restore puts back.
type Revert struct {
	Path   string // absolute
	Expect []byte // what the agent last left there; nil: the agent left no file
	Want   []byte // what to put back; nil: no file (the agent created it)
}

// Restore puts files back to what they held before the agent changed them,
// all or nothing for conflicts, through the editor for open documents. A
// file that no longer holds what the agent left there — the user (or a
// formatter, a build) changed it since — is kept as it is and named: a
// restore never destroys work done after the agent's. So is a file the
// agent created that is open in the editor, which tandem cannot remove.
// Every file restored is told to env.Landed, so a restore can itself be
// restored.
func Restore(ctx context.Context, env *Env, reverts []Revert) (string, error) {
	var cs []*change
	var kept []string
	for _, r := range reverts {
		show := documents.Display(env.Roots, r.Path)
		cur, open, exists, err := current(env, r.Path)
		_, lost := env.Buffers.Lost(r.Path)
		switch {
		case lost:
			kept = append(kept, show+" (its editor buffer is out of step with tandem; reopen it)")
			continue
		case err != nil:
			kept = append(kept, fmt.Sprintf("%s (it cannot be read: %v)", show, err))
			continue
		case exists != (r.Expect != nil) || !bytes.Equal(cur, r.Expect):
			kept = append(kept, show+" (changed since the agent wrote it)")
			continue
		case r.Want == nil && open:
			kept = append(kept, show+" (open in the editor; close it to have it removed)")
			continue
		case r.Expect == nil && r.Want == nil:
			continue
		}
		c := &change{path: r.Path, show: show, target: r.Path, base: r.Expect, next: r.Want, buffer: open, wroteAll: true}
		if real, err := filepath.EvalSymlinks(r.Path); err == nil {
			c.target = real
		}
		c.create, c.remove = r.Expect == nil, r.Want == nil
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		if len(kept) == 0 {
			return "Nothing to restore: the agent changed no file from that turn on.\n", nil
		}
		return "", refusal.New(refusal.Conflict, "Nothing was restored: every file the agent changed from that turn on was changed since, and is kept: "+strings.Join(kept, ", ")+".")
	}
	if err := env.allow(ctx, cs); err != nil {
		return "", err
	}
	outs, err := commit(ctx, env, cs)
	var ce *conflictError
	if errors.As(err, &ce) {
		return "", refusal.New(refusal.Conflict, fmt.Sprintf("Nothing was restored: %s while the restore ran. Restore again to skip it.", ce.reason))
	}
	if err != nil {
		return "", refusal.New(refusal.Failed, fmt.Sprintf("Nothing was restored: %v. Try again.", err))
	}
	var done, missed []string
	for i, c := range cs {
		if !outs[i].landed {
			missed = append(missed, c.show+" ("+outs[i].err+")")
			continue
		}
		done = append(done, c.show)
		if env.Landed != nil {
			env.Landed(FileChange{Path: c.path, Before: c.base, After: c.next})
		}
	}
	var b strings.Builder
	if len(done) > 0 {
		fmt.Fprintf(&b, "Restored %s.\n", strings.Join(done, ", "))
	}
	if len(missed) > 0 {
		fmt.Fprintf(&b, "NOT restored: %s.\n", strings.Join(missed, ", "))
	}
	if len(kept) > 0 {
		fmt.Fprintf(&b, "Kept as they are: %s.\n", strings.Join(kept, ", "))
	}
	if len(done) == 0 {
		return "", refusal.New(refusal.Failed, b.String())
	}
	return b.String(), nil
}
