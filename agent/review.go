package agent

import (
	"context"
	"fmt"
	"slices"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/edits"
)

// Review: what one turn changed, file by file and hunk by hunk, so a
// person keeps or undoes each piece. An undo is a restore of part of one
// turn (putBack), always around later changes: it never loses a change
// made since, and is itself a turn that can be restored.

// FileReview is one file a turn changed: what it held before the turn
// (Before; absent when the turn created it) and the turn's hunks, each
// with where it stands in the file now.
type FileReview struct {
	Path    string       `json:"path"`
	Before  *string      `json:"before"`
	Deleted bool         `json:"deleted,omitempty"` // the turn removed it (or moved it away)
	Hunks   []edits.Hunk `json:"hunks"`
	Kept    []int        `json:"kept"`              // the hunks the user kept (Keep), indices into Hunks
	Problem string       `json:"problem,omitempty"` // why its hunks are not listed
}

// Changes lists the files turn changed, in order, with their hunks.
func (c *Chat) Changes(turn int) ([]FileReview, error) {
	c.ckMu.Lock()
	if turn < 0 || turn >= len(c.turns) {
		c.ckMu.Unlock()
		return nil, fmt.Errorf("there is no turn %d; the chat has turns 0 to %d", turn, len(c.turns)-1)
	}
	reverts := revertsFrom(c.turns[turn : turn+1])
	kept := c.kept(turn)
	c.ckMu.Unlock()
	out := []FileReview{}
	for _, r := range reverts {
		if r.Expect == nil && r.Want == nil {
			continue // made and removed in the turn
		}
		fr := FileReview{Path: r.Path, Deleted: r.Expect == nil, Hunks: []edits.Hunk{}, Kept: []int{}}
		if r.Want != nil {
			s := string(r.Want)
			fr.Before = &s
		}
		hs, err := c.opts.Session.Hunks(r.Path, r.Want, r.Expect)
		if err != nil {
			fr.Problem = err.Error()
		} else {
			fr.Hunks = hs
		}
		for i := range fr.Hunks {
			if kept[r.Path][i] {
				fr.Kept = append(fr.Kept, i)
			}
		}
		out = append(out, fr)
	}
	return out, nil
}

// kept is, by file, the hunks of turn the user kept. ckMu is held.
func (c *Chat) kept(turn int) map[string]map[int]bool {
	out := map[string]map[int]bool{}
	for _, n := range c.notices {
		if n.Kind == noticeKeep && n.Turn != nil && *n.Turn == turn {
			if out[n.Path] == nil {
				out[n.Path] = map[int]bool{}
			}
			for _, h := range n.Hunks {
				out[n.Path][h] = true
			}
		}
	}
	return out
}

// Keep records that the user kept hunks of what turn changed in path
// (indices into Changes' list), so a reopened chat's review is where the
// live one was. Nothing changes in the file.
func (c *Chat) Keep(turn int, path string, hunks []int) error {
	if len(hunks) == 0 {
		return fmt.Errorf("hunks is empty; name the hunks kept, as %s lists them", MethodChanges)
	}
	abs, err := documents.Resolve(c.opts.Session.Roots, path)
	if err != nil {
		return err
	}
	c.ckMu.Lock()
	var changed bool
	if turn >= 0 && turn < len(c.turns) {
		changed = slices.ContainsFunc(revertsFrom(c.turns[turn:turn+1]), func(r edits.Revert) bool { return r.Path == abs })
	}
	c.ckMu.Unlock()
	if !changed {
		return fmt.Errorf("turn %d did not change %s; %s lists the files it changed", turn, path, MethodChanges)
	}
	// Between turns, the chat's file is taken as for a restore; during one
	// (the review is of an earlier turn), the running turn holds it.
	if c.mu.TryLock() {
		defer c.mu.Unlock()
		if err := c.begin(func(acp.SessionUpdate) {}); err != nil {
			return err
		}
		defer c.end()
	}
	c.keep(notice{Kind: noticeKeep, Turn: &turn, Path: abs, Hunks: slices.Sorted(slices.Values(hunks))})
	return nil
}

// Undo undoes what turn alone did: to every file it changed, or to path
// only, and there to the hunks listed (indices into Changes' list) only
// when hunks is not empty. Each file is put back around whatever changed
// it since (later turns, the user), and kept and named where those changes
// meet the part undone.
func (c *Chat) Undo(ctx context.Context, turn int, path string, hunks []int) (Restored, error) {
	if len(hunks) > 0 && path == "" {
		return Restored{}, fmt.Errorf("hunks name the hunks of one file: give its path too")
	}
	return c.putBack(ctx, turn, true, func(from [][]turnChange) ([]edits.Revert, error) {
		reverts := revertsFrom(from[:1])
		if path == "" {
			return reverts, nil
		}
		abs, err := documents.Resolve(c.opts.Session.Roots, path)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(reverts, func(r edits.Revert) bool { return r.Path == abs })
		if i < 0 {
			return nil, fmt.Errorf("turn %d did not change %s; %s lists the files it changed", turn, path, MethodChanges)
		}
		r := reverts[i]
		if len(hunks) > 0 {
			want, err := edits.UndoHunks(r.Want, r.Expect, hunks)
			if err != nil {
				return nil, err
			}
			r.Want = want
		}
		return []edits.Revert{r}, nil
	}, "(The user undid your changes of turn %d, in whole or in part, in these files: %s. Read them again before you edit them.)")
}
