package edits

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/internal/lawhit"
)

// region replaces lines [s, e) of a version (0-based) by lines.
type region struct {
	s, e  int
	lines []string
}

// regions draws runs to replace in a version of n lines, in order, apart
// by at least one line, each changing something; tag names the new lines,
// distinct from every other line.
func regions(rt *rapid.T, n, least, most int, tag string) []region {
	var out []region
	at := 0
	for k := range rapid.IntRange(least, most).Draw(rt, tag+" runs") {
		at += rapid.IntRange(0, min(6, n)).Draw(rt, fmt.Sprintf("%s gap %d", tag, k))
		if k > 0 {
			at++ // apart from the previous run
		}
		if at > n {
			break
		}
		r := region{s: at, e: at + rapid.IntRange(0, min(2, n-at)).Draw(rt, fmt.Sprintf("%s len %d", tag, k))}
		for j := range rapid.IntRange(0, 2).Draw(rt, fmt.Sprintf("%s new %d", tag, k)) {
			r.lines = append(r.lines, fmt.Sprintf("%s%d.%d", tag, k, j))
		}
		if r.s == r.e && len(r.lines) == 0 {
			r.lines = []string{fmt.Sprintf("%s%d", tag, k)}
		}
		out = append(out, r)
		at = r.e
	}
	return out
}

// apply replaces each region of lines by its new lines.
func apply(lines []string, rs []region) []string {
	var out []string
	next := 0
	for _, r := range rs {
		out = append(out, lines[next:r.s]...)
		out = append(out, r.lines...)
		next = r.e
	}
	return append(out, lines[next:]...)
}

func text(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// meets says whether a later change of the lines [us, ue) of what the agent
// left touches or borders the agent's change of [s, e) there.
func meets(us, ue, s, e int) bool { return !(ue < s || e < us) }

// TestLaw_undo_hunks_keeps_later_changes: an agent's change of a file (runs
// of distinct lines replaced), the user's later changes on top of it, then
// an undo of some of the agent's hunks as the review does it (UndoHunks,
// then Restore around later changes). Hunks lists each hunk as applied
// exactly when no later change touches or borders it. When none of the
// hunks undone meets a later change, the file is what the user made with
// only those hunks put back as they were before, every other line byte for
// byte, and those hunks then read as undone; when one meets, nothing is
// written and the file is named (or, when the later change already made the
// file what the undo would, nothing is to do).
func TestLaw_undo_hunks_keeps_later_changes(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"undone around later changes": 12, "refused where they meet": 12, "no later change": 5})
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 24).Draw(rt, "lines")
		var before []string
		for i := range n {
			before = append(before, fmt.Sprintf("line %d", i))
		}
		agent := regions(rt, n, 1, 3, "agent")
		if len(agent) == 0 {
			return
		}
		after := apply(before, agent)
		// The agent's runs, placed on what it left.
		var placed []region
		shift := 0
		for _, r := range agent {
			placed = append(placed, region{s: r.s + shift, e: r.s + shift + len(r.lines), lines: before[r.s:r.e]})
			shift += len(r.lines) - (r.e - r.s)
		}
		user := regions(rt, len(after), 0, 2, "user")
		cur := apply(after, user)
		w := newWSIn(rt, t.TempDir(), map[string]string{"f.txt": text(cur)})
		path := w.abs("f.txt")

		hs, err := Hunks(w.env, path, []byte(text(before)), []byte(text(after)))
		if err != nil || len(hs) != len(placed) {
			rt.Fatalf("hunks %+v (%v), want %d", hs, err, len(placed))
		}
		for k, p := range placed {
			met := false
			for _, u := range user {
				met = met || meets(u.s, u.e, p.s, p.e)
			}
			if (hs[k].State == HunkApplied) == met || hs[k].After != [2]int{p.s, p.e} {
				rt.Fatalf("hunk %d %+v of %+v, later changes %+v", k, hs[k], p, user)
			}
		}

		var which []int
		var undone []region
		met := false
		first := rapid.IntRange(0, len(placed)-1).Draw(rt, "undo first")
		for k, p := range placed {
			if k == first || k > first && rapid.Bool().Draw(rt, fmt.Sprintf("undo %d", k)) {
				which = append(which, k)
				undone = append(undone, p)
				for _, u := range user {
					met = met || meets(u.s, u.e, p.s, p.e)
				}
			}
		}
		if len(which) == 0 {
			return
		}
		want, err := UndoHunks([]byte(text(before)), []byte(text(after)), which)
		if err != nil {
			rt.Fatal(err)
		}
		_, err = Restore(context.Background(), w.env, []Revert{{Path: path, Expect: []byte(text(after)), Want: want}}, true)
		got := w.file("f.txt")
		if met {
			hits.Hit("refused where they meet")
			// (Unless the later change already made the file what the undo would.)
			refused := err != nil && strings.Contains(err.Error(), "f.txt (your later changes overlap the agent's") ||
				err == nil && string(want) == text(cur)
			if !refused || got != text(cur) {
				rt.Fatalf("undo of %v meeting later changes %+v: %v; file %q, want it kept %q", which, user, err, got, text(cur))
			}
			return
		}
		if len(user) == 0 {
			hits.Hit("no later change")
		} else {
			hits.Hit("undone around later changes")
		}
		// What the user made, with the hunks undone put back: both sets of
		// runs are on what the agent left and never meet.
		all := append(append([]region{}, user...), undone...)
		for i := range all {
			for j := i + 1; j < len(all); j++ {
				if all[j].s < all[i].s || all[j].s == all[i].s && all[j].e < all[i].e {
					all[i], all[j] = all[j], all[i]
				}
			}
		}
		if err != nil || got != text(apply(after, all)) {
			rt.Fatalf("undo of %v under later changes %+v: %v; file %q, want %q", which, user, err, got, text(apply(after, all)))
		}
		hs, _ = Hunks(w.env, path, []byte(text(before)), []byte(text(after)))
		for _, k := range which {
			if hs[k].State != HunkUndone {
				rt.Fatalf("hunk %d reads %s after its undo", k, hs[k].State)
			}
		}
		if _, err := os.Stat(path); err != nil {
			rt.Fatal(err)
		}
	})
}
