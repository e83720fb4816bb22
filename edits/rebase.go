package edits

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/refusal"
)

// rebase applies ops written against base, a version the model saw, to the
// file's current text c.base, which differs. An edit whose result is already
// the current text was applied before (a retry): nothing is written. Else an
// exact line diff maps each op's anchors to the current version; an op whose
// anchored lines changed is refused with their current text, marked seen,
// so the model redoes it in one step.
func rebase(env *Env, c *change, tag documents.Tag, base documents.Lines, ps []planned) (*change, *problem) {
	onBase := spliceLines(base, splices(base.Len(), ps))
	if bytes.Equal(weave(base, onBase), c.base) {
		c.already, c.next = true, c.base
		cur := documents.Scan(c.base)
		// Line i of the current text is line i of the edited base.
		c.lines = keptLines(cur)
		seen := env.Seen.SeenLines(c.path, tag, base.Len())
		c.seenBase = make([]bool, len(onBase))
		for i, l := range onBase {
			c.seenBase[i] = l.origin < 0 || seen[l.origin]
		}
		c.notes = append(c.notes, fmt.Sprintf("this edit is already in the file (it was applied to %s#%s before); nothing was written", c.show, tag))
		return c, nil
	}
	cur := c.scanned()
	match, err := lineMatch(base, cur)
	if err != nil {
		// Nothing of the current text is shown here, so no version of it
		// is recorded as seen.
		return nil, problemf(refusal.Conflict, "%s changed in too many lines since %s#%s to carry your edit over (%v). Read it again, then redo the edit on what you read.", c.show, c.show, tag, err)
	}
	moved := make([]planned, 0, len(ps))
	var bad, fit []planned // fit: the ops that carried over, as planned on base
	for _, p := range ps {
		q, ok := mapOp(p, match)
		if !ok {
			bad = append(bad, p)
			continue
		}
		moved = append(moved, q)
		fit = append(fit, p)
	}
	if len(bad) > 0 {
		return nil, staleConflict(env, c, tag, cur, match, bad, fit)
	}
	if err := overlaps(moved); err != nil {
		return nil, staleConflict(env, c, tag, cur, match, ps, nil)
	}
	c.lines = spliceLines(cur, splices(cur.Len(), moved))
	c.next = weave(cur, c.lines)
	back := make([]int, cur.Len())
	for i := range back {
		back[i] = -1
	}
	changed := 0
	for i, j := range match {
		if j >= 0 {
			back[j] = i
		} else {
			changed++
		}
	}
	curTag := documents.TagOf(c.base)
	c.seenBase = env.Seen.SeenLines(c.path, curTag, cur.Len())
	baseSeen := env.Seen.SeenLines(c.path, tag, base.Len())
	for i, j := range back {
		c.seenBase[i] = c.seenBase[i] || (j >= 0 && baseSeen[j])
	}
	c.notes = append(c.notes, fmt.Sprintf("the file changed since %s#%s (%d of its lines were changed or removed, %d added); your edit was carried over to the current text",
		c.show, tag, changed, cur.Len()-(base.Len()-changed)))
	return c, nil
}

// mapOp moves an op from base line numbers to the current ones. It fails
// when a line the op relies on changed, or when lines were inserted inside
// the range it replaces.
func mapOp(p planned, match []int) (planned, bool) {
	q := p
	switch p.shape {
	case shapeRange:
		for k := p.from; k <= p.to; k++ {
			if match[k-1] < 0 || match[k-1]-match[p.from-1] != k-p.from {
				return p, false
			}
		}
		q.from, q.to = match[p.from-1]+1, match[p.to-1]+1
	case shapeAfter, shapeBefore:
		if match[p.from-1] < 0 {
			return p, false
		}
		q.from = match[p.from-1] + 1
	}
	return q, true
}

// staleConflict refuses ops whose anchors changed since the version the
// model saw, showing the current text of those places (marked seen under
// the current tag) so the model can redo them at once. The ops that did
// carry over (fit) get their line numbers in the current version, and what
// the model saw of their lines stays seen there, so the next call — all
// the ops on the current tag — is right as a whole.
func staleConflict(env *Env, c *change, tag documents.Tag, cur documents.Lines, match []int, bad, fit []planned) *problem {
	var spans []documents.Span
	for _, p := range bad {
		if p.shape == shapeStart || p.shape == shapeEnd {
			continue
		}
		to := p.to
		if p.shape != shapeRange {
			to = p.from
		}
		if lo, hi := currentRegion(match, p.from, to, cur.Len()); lo <= hi {
			spans = append(spans, documents.Span{From: lo, To: hi})
		}
	}
	if len(spans) == 0 {
		return problemf(refusal.Conflict, "%s changed since %s#%s where your edit anchors. Read it again, then redo the edit on what you read.", c.show, c.show, tag)
	}
	// The rows shown are of the current version: it is seen, like a
	// partial read.
	curTag := env.Seen.Saw(c.path, c.base)
	var b strings.Builder
	fmt.Fprintf(&b, "%s changed since %s#%s where your edit anchors. Its current text there:\n[%s#%s]\n", c.show, c.show, tag, c.show, curTag)
	shown := 0
	for k, s := range documents.MergeSpans(spans) {
		if k > 0 {
			b.WriteString(documents.GapMarker + "\n")
		}
		for n := s.From; n <= s.To && shown < revealLines; n++ {
			row, whole := cutRow(n, cur.Text(n))
			b.WriteString(row + "\n")
			if whole {
				env.Seen.MarkSeen(c.path, curTag, n)
			}
			shown++
		}
	}
	fmt.Fprintf(&b, "Those rows are now seen: redo the edit with tag %s and these line numbers.", curTag)
	if len(fit) > 0 {
		baseSeen := env.Seen.SeenLines(c.path, tag, len(match))
		var at []string
		for _, p := range fit {
			q, _ := mapOp(p, match)
			for _, k := range p.anchors() {
				if baseSeen[k-1] {
					env.Seen.MarkSeen(c.path, curTag, match[k-1]+1)
				}
			}
			at = append(at, fmt.Sprintf("op %d %s", p.index, placeOf(q)))
		}
		fmt.Fprintf(&b, " Your other ops still fit; on %s#%s they are: %s.", c.show, curTag, strings.Join(at, ", "))
	}
	return &problem{code: refusal.Conflict, text: b.String()}
}

// placeOf says where an op acts, in words and line numbers.
func placeOf(p planned) string {
	switch p.shape {
	case shapeRange:
		if p.from == p.to {
			return fmt.Sprintf("on line %d", p.from)
		}
		return fmt.Sprintf("on lines %d-%d", p.from, p.to)
	case shapeAfter:
		return fmt.Sprintf("after line %d", p.from)
	case shapeBefore:
		return fmt.Sprintf("before line %d", p.from)
	case shapeStart:
		return "at the start"
	}
	return "at the end"
}

// currentRegion is the span of current lines that replaced base lines
// from..to, widened by one unchanged line on each side, within 1..n.
func currentRegion(match []int, from, to, n int) (int, int) {
	lo := 0 // 0-based current line of the nearest unchanged line before
	for j := from - 2; j >= 0; j-- {
		if match[j] >= 0 {
			lo = match[j]
			break
		}
	}
	hi := n - 1
	for j := to; j < len(match); j++ {
		if match[j] >= 0 {
			hi = match[j]
			break
		}
	}
	if n == 0 {
		return 1, 0
	}
	return max(lo+1, 1), min(hi+1, n)
}
