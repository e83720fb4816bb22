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
// restore never destroys work done after the agent's. With around, such a
// file is restored around the later changes instead (see restoreAround),
// and kept only when they touch the agent's. A file the agent created that
// is open in the editor is kept too, since tandem cannot remove it. Every
// file restored is told to env.Landed with what it held and now holds, so a
// restore can itself be restored.
func Restore(ctx context.Context, env *Env, reverts []Revert, around bool) (string, error) {
	var cs []*change
	var kept, already []string
	merged := map[*change]bool{} // restored around later changes
	hint := ""                   // what to do about the files kept as changed
	for _, r := range reverts {
		show := documents.Display(env.Roots, r.Path)
		cur, open, exists, err := current(env, r.Path)
		_, lost := env.Buffers.Lost(r.Path)
		base, next, isMerged := r.Expect, r.Want, false
		switch {
		case lost:
			kept = append(kept, show+" (its editor buffer is out of step with tandem; reopen it)")
			continue
		case err != nil:
			kept = append(kept, fmt.Sprintf("%s (it cannot be read: %v)", show, err))
			continue
		case exists == (r.Want != nil) && bytes.Equal(cur, r.Want):
			already = append(already, show) // restored before, or put back by hand
			continue
		case exists != (r.Expect != nil) || !bytes.Equal(cur, r.Expect):
			if !around {
				kept = append(kept, show+" (changed since the agent wrote it)")
				hint = "Restore again around later changes to undo the agent's changes in the files kept as changed, where the later changes do not touch them."
				continue
			}
			var why string
			if next, why = aroundLater(r, cur, exists); why != "" {
				kept = append(kept, show+" ("+why+")")
				hint = "Undo by hand what is left of the agent's changes in the files kept."
				continue
			}
			base, isMerged = cur, true
		case r.Want == nil && open:
			kept = append(kept, show+" (open in the editor; close it to have it removed)")
			continue
		case r.Expect == nil && r.Want == nil:
			continue
		}
		c := &change{path: r.Path, show: show, target: r.Path, base: base, next: next, buffer: open, wroteAll: true}
		if real, err := filepath.EvalSymlinks(r.Path); err == nil {
			c.target = real
		}
		c.create, c.remove = r.Expect == nil, r.Want == nil
		merged[c] = isMerged
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		switch {
		case len(kept) == 0 && len(already) == 0:
			return "Nothing to restore: the agent changed no file from that turn on.\n", nil
		case len(kept) == 0:
			return fmt.Sprintf("Nothing changed: already as before that turn: %s.\n", strings.Join(already, ", ")), nil
		}
		return "", refusal.New(refusal.Conflict, strings.TrimSpace("Nothing was restored: every file the agent changed from that turn on was changed since, and is kept: "+strings.Join(kept, ", ")+". "+hint))
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
	var done, aroundDone, missed []string
	for i, c := range cs {
		switch {
		case !outs[i].landed:
			missed = append(missed, c.show+" ("+outs[i].err+")")
			continue
		case merged[c]:
			aroundDone = append(aroundDone, c.show)
		default:
			done = append(done, c.show)
		}
		if env.Landed != nil {
			env.Landed(c.landedChange())
		}
	}
	var b strings.Builder
	if len(done) > 0 {
		fmt.Fprintf(&b, "Restored %s.\n", strings.Join(done, ", "))
	}
	if len(aroundDone) > 0 {
		fmt.Fprintf(&b, "Restored around your later changes, which stay: %s.\n", strings.Join(aroundDone, ", "))
	}
	if len(missed) > 0 {
		fmt.Fprintf(&b, "NOT restored: %s.\n", strings.Join(missed, ", "))
	}
	if len(kept) > 0 {
		fmt.Fprintf(&b, "Kept as they are: %s.\n", strings.Join(kept, ", "))
	}
	if len(already) > 0 {
		fmt.Fprintf(&b, "Already as before: %s.\n", strings.Join(already, ", "))
	}
	if hint != "" {
		b.WriteString(hint + "\n")
	}
	if len(done)+len(aroundDone) == 0 {
		return "", refusal.New(refusal.Failed, b.String())
	}
	return b.String(), nil
}

// aroundLater is for a file changed since the agent wrote it. It returns
// what the file holds once the agent's changes are undone around the later
// ones, or why the file is kept as it is.
func aroundLater(r Revert, cur []byte, exists bool) ([]byte, string) {
	switch {
	case !exists:
		return nil, "removed since the agent wrote it"
	case r.Expect == nil:
		return nil, "made again since the agent removed it"
	case r.Want == nil:
		return nil, "changed since the agent created it; remove it by hand to undo that"
	}
	return restoreAround(r.Expect, cur, r.Want)
}

// restoreAround undoes the agent's changes from want (what was there
// before) to left (what the agent left) on cur, a later version of left: a
// three-way line merge that keeps every later change byte for byte and puts
// back the lines the agent changed, each taken whole from the version it
// comes from. When a later change touches or borders a line the agent
// changed, which of the two should win would be a guess: then there is no
// merge, and why names the lines of cur where the changes meet.
func restoreAround(left, cur, want []byte) ([]byte, string) {
	l, c, w := documents.Scan(left), documents.Scan(cur), documents.Scan(want)
	toCur, err := lineMatch(l, c)
	if err != nil {
		return nil, "changed in too many lines since the agent wrote it to restore around"
	}
	toWant, err := lineMatch(l, w)
	if err != nil {
		return nil, "the agent changed it in too many lines to restore around later changes"
	}
	later, undo := hunks(toCur, c.Len()), hunks(toWant, w.Len())
	var out []byte
	bom := w.BOM
	if c.BOM != l.BOM {
		bom = c.BOM // the BOM merges like a line: a later change to it stays
	}
	if bom {
		out = append(out, 0xEF, 0xBB, 0xBF)
	}
	piece := func(ls documents.Lines, from, to int) []byte {
		return ls.Body[lineStart(ls, from):lineStart(ls, to)]
	}
	next := 0 // the first line of left not written yet
	for len(later) > 0 || len(undo) > 0 {
		var h hunk
		from := c
		switch {
		case len(undo) == 0 || len(later) > 0 && later[0].a1 < undo[0].a0:
			h, later = later[0], later[1:]
		case len(later) == 0 || undo[0].a1 < later[0].a0:
			h, undo, from = undo[0], undo[1:], w
		default:
			return nil, meeting(toCur, min(later[0].a0, undo[0].a0), max(later[0].a1, undo[0].a1), c.Len())
		}
		out = append(out, piece(l, next, h.a0)...)
		out = append(out, piece(from, h.b0, h.b1)...)
		next = h.a1
	}
	return append(out, piece(l, next, l.Len())...), ""
}

// meeting says where, on cur (a version of n lines), a later change meets
// the agent's change to lines [a0, a1) of what the agent left. toCur maps
// each line of what the agent left to its line in cur, or -1. The text
// names the lines of cur that stand in that place or, when none do, the
// lines around it.
func meeting(toCur []int, a0, a1, n int) string {
	lo, hi := 0, n // 0-based, cur's lines in the place: [lo, hi)
	for j := a0 - 1; j >= 0; j-- {
		if toCur[j] >= 0 {
			lo = toCur[j] + 1
			break
		}
	}
	for j := a1; j < len(toCur); j++ {
		if toCur[j] >= 0 {
			hi = toCur[j]
			break
		}
	}
	from, to := lo+1, hi
	if lo == hi {
		from, to = max(lo, 1), min(hi+1, n)
	}
	switch {
	case from > to: // cur is empty
		return "your later changes overlap the agent's"
	case from == to:
		return fmt.Sprintf("your later changes overlap the agent's at line %d", from)
	}
	return fmt.Sprintf("your later changes overlap the agent's at lines %d–%d", from, to)
}
