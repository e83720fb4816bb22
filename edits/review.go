package edits

import (
	"fmt"

	"github.com/tandemdev/tandem/documents"
)

// Review: one file's change split into hunks a person keeps or undoes one
// by one. A hunk is undone through Restore, like a whole file: the file
// goes back to what the agent left with only that hunk put back, merged
// around whatever changed the file since (restoreAround), so undoing a
// hunk never loses a later change and refuses, naming the lines, where one
// meets it.

// Hunk is one run of lines an agent's change replaced: lines Before of
// what the file held before (0-based, end excluded) became lines After of
// what the agent left. Now is where the hunk's lines stand in the file as
// it is now, with State: "applied" (the agent's lines are there, Now is
// their place), "undone" (the lines from before are there again, Now is
// their place), or "changed" (neither: something changed them or the lines
// beside them since; Now is absent).
type Hunk struct {
	Before [2]int  `json:"before"`
	After  [2]int  `json:"after"`
	Now    *[2]int `json:"now,omitempty"`
	State  string  `json:"state"`
}

// The states of a hunk.
const (
	HunkApplied = "applied"
	HunkUndone  = "undone"
	HunkChanged = "changed"
)

// Hunks lists the hunks of the change of path from before to after (nil:
// no file), each with where it stands in what path holds now (the editor's
// buffer, else the disk).
func Hunks(env *Env, path string, before, after []byte) ([]Hunk, error) {
	cur, _, _, err := current(env, path)
	if err != nil {
		return nil, err
	}
	b, a, c := documents.Scan(before), documents.Scan(after), documents.Scan(cur)
	toBefore, err := lineMatch(a, b)
	if err != nil {
		return nil, fmt.Errorf("the agent changed it in too many lines to list its hunks")
	}
	// Where each line of either version stands now; a version too far
	// from the file now maps nowhere, so its hunks read as changed.
	place := func(v documents.Lines) []int {
		m, err := lineMatch(v, c)
		if err != nil {
			m = make([]int, v.Len())
			for i := range m {
				m[i] = -1
			}
		}
		return m
	}
	afterNow, beforeNow := place(a), place(b)
	var out []Hunk
	for _, h := range hunks(toBefore, b.Len()) {
		hk := Hunk{Before: [2]int{h.b0, h.b1}, After: [2]int{h.a0, h.a1}, State: HunkChanged}
		if lo, hi, ok := stands(afterNow, h.a0, h.a1, c.Len()); ok {
			hk.State, hk.Now = HunkApplied, &[2]int{lo, hi}
		} else if lo, hi, ok := stands(beforeNow, h.b0, h.b1, c.Len()); ok {
			hk.State, hk.Now = HunkUndone, &[2]int{lo, hi}
		}
		out = append(out, hk)
	}
	return out, nil
}

// stands reports whether lines [s, e) of a version, with the lines on
// either side of them, stand unchanged and together in the file now (toNow
// maps the version's lines to the file's n lines, -1 for none), and where.
func stands(toNow []int, s, e, n int) (lo, hi int, ok bool) {
	lo, hi = 0, n
	if s > 0 {
		if toNow[s-1] < 0 {
			return 0, 0, false
		}
		lo = toNow[s-1] + 1
	}
	if e < len(toNow) {
		if toNow[e] < 0 {
			return 0, 0, false
		}
		hi = toNow[e]
	}
	if hi-lo != e-s {
		return 0, 0, false
	}
	for i := s; i < e; i++ {
		if toNow[i] != lo+i-s {
			return 0, 0, false
		}
	}
	return lo, hi, true
}

// UndoHunks is what the agent left (after) with the hunks which (indices
// into Hunks' list) put back as they were before: what a file holds once
// those hunks alone are undone (before itself when they are all of them).
func UndoHunks(before, after []byte, which []int) ([]byte, error) {
	b, a := documents.Scan(before), documents.Scan(after)
	toBefore, err := lineMatch(a, b)
	if err != nil {
		return nil, fmt.Errorf("the agent changed it in too many lines to undo one hunk")
	}
	hs := hunks(toBefore, b.Len())
	undo := map[int]bool{}
	for _, i := range which {
		if i < 0 || i >= len(hs) {
			return nil, fmt.Errorf("there is no hunk %d; the change has hunks 0 to %d", i, len(hs)-1)
		}
		undo[i] = true
	}
	if len(undo) == len(hs) {
		return before, nil // all of it: the file as it was, or none
	}
	piece := func(ls documents.Lines, from, to int) []byte {
		return ls.Body[lineStart(ls, from):lineStart(ls, to)]
	}
	var out []byte
	if a.BOM {
		out = append(out, 0xEF, 0xBB, 0xBF)
	}
	next := 0 // the first line of after not written yet
	for i, h := range hs {
		if !undo[i] {
			continue
		}
		out = append(out, piece(a, next, h.a0)...)
		out = append(out, piece(b, h.b0, h.b1)...)
		next = h.a1
	}
	return append(out, piece(a, next, a.Len())...), nil
}
