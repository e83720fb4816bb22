package edits

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/refusal"
)

// maxDiffRows bounds the rows of one file's compact diff in a reply.
const maxDiffRows = 200

// reply renders what a commit did, file by file, and records what the model
// now knows: each landed file's new version, with the lines seen before,
// the lines the edit wrote and the rows the reply shows marked seen.
// It says "Applied to" exactly the files whose new content landed, and an
// error only when none did.
func reply(env *Env, cs []*change, outs []outcome) (string, error) {
	var landed, missed []string
	for i, c := range cs {
		_, show := c.final()
		if outs[i].landed {
			landed = append(landed, show)
			if env.Landed != nil && !c.already {
				env.Landed(c.landedChange())
			}
		} else {
			missed = append(missed, show)
		}
	}
	var b strings.Builder
	switch {
	case len(missed) == 0:
		fmt.Fprintf(&b, "Applied to %s.\n", strings.Join(landed, ", "))
	case len(landed) == 0:
		fmt.Fprintf(&b, "NOT applied to %s; nothing was written.\n", strings.Join(missed, ", "))
	default:
		fmt.Fprintf(&b, "Applied to %s; NOT applied to %s.\n", strings.Join(landed, ", "), strings.Join(missed, ", "))
	}
	for i, c := range cs {
		o := outs[i]
		_, show := c.final()
		if !o.landed {
			fmt.Fprintf(&b, "%s: NOT applied: %s.\n", show, o.err)
			continue
		}
		b.WriteString(landedFile(env, c, o))
	}
	if len(landed) == 0 {
		b.WriteString("Fix what failed, then call again.")
		return "", refusal.New(refusal.Failed, b.String())
	}
	if len(missed) > 0 {
		b.WriteString("The files applied keep their new text; read the others and redo their changes.\n")
	}
	return b.String(), nil
}

// landedFile records and renders one landed change.
func landedFile(env *Env, c *change, o outcome) string {
	path, show := c.final()
	if c.remove {
		return fmt.Sprintf("[%s] deleted (it had %d line%s)\n", show, c.scanned().Len(), plural(c.scanned().Len()))
	}
	tag := env.Seen.Saw(path, c.next)
	// Mark runs of seen lines: a large file with a small change is a few runs.
	from := 0 // 1-based start of the current run, 0 for none
	for i, l := range c.lines {
		// A written line too long for a row may hold bytes never shown (an
		// old/new inside a window): only the model's own whole text is seen.
		written := l.origin < 0 && (c.wroteAll || documents.ShowsWhole(l.text))
		seen := c.wroteAll || written || (l.origin >= 0 && c.seenBase != nil && c.seenBase[l.origin])
		switch {
		case seen && from == 0:
			from = i + 1
		case !seen && from != 0:
			env.Seen.MarkSeenRange(path, tag, from, i)
			from = 0
		}
	}
	if from != 0 {
		env.Seen.MarkSeenRange(path, tag, from, len(c.lines))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[%s#%s] %s", show, tag, whereText(c, o.where))
	if c.dest != "" {
		fmt.Fprintf(&b, ", moved from %s", c.show)
	}
	if c.dest == "" && throughLink(env.Roots, c.path, c.target) {
		// A symbolic link: the bytes that changed are the real file's.
		fmt.Fprintf(&b, " (through a symbolic link: the file written is %s)", documents.Display(env.Roots, c.target))
	}
	b.WriteString("\n")
	for _, n := range c.notes {
		fmt.Fprintf(&b, "(%s)\n", n)
	}
	for _, w := range o.warnings {
		fmt.Fprintf(&b, "(warning: %s)\n", w)
	}
	if !c.already {
		rows, shown := diffRows(c.scanned(), c.lines)
		b.WriteString(rows)
		env.Seen.MarkSeen(path, tag, shown...)
	}
	return b.String()
}

func whereText(c *change, w where) string {
	switch {
	case c.already:
		return "unchanged"
	case w == inBuffer:
		return "changed in the editor buffer, which has unsaved changes of the user's, so the file on disk was not written"
	case w == inBufferDiskSame:
		return "changed in the editor buffer, and the file on disk holds the same text"
	case w == inBufferSaved:
		return "changed in the editor buffer, and the editor saved it"
	case w == inBufferOnDisk:
		return "changed in the editor buffer and written to disk"
	case c.create:
		return "created"
	}
	return "written"
}

// diffRows renders a compact diff of an edit: "+N:text" for a written line,
// "-text" for a removed one, " N:text" for one line of context around each
// change, "..." between changes. Numbers are the new version's, so the rows
// can be anchors of the next edit. It returns the numbered rows it showed.
// It streams: a large file with a small change costs no row per line.
func diffRows(base documents.Lines, lines []newLine) (string, []int) {
	type row struct {
		kind byte // ' ', '+', '-'
		n    int  // new line number, 0 for a removed line
		text []byte
		at   int // position in the whole sequence of rows
	}
	var b strings.Builder
	var shown []int
	count, last, after, rest := 0, -1, 0, 0
	var prev row
	hasPrev := false
	show := func(r row) {
		if count == maxDiffRows {
			rest++
			return
		}
		if last >= 0 && r.at != last+1 {
			b.WriteString(documents.GapMarker + "\n")
		}
		last = r.at
		count++
		b.WriteByte(r.kind)
		if r.kind == '-' {
			b.Write(r.text)
			b.WriteByte('\n')
			return
		}
		text, whole := documents.Row(r.n, r.text)
		b.WriteString(text)
		b.WriteByte('\n')
		if whole {
			shown = append(shown, r.n)
		}
	}
	at := 0
	emit := func(r row) {
		r.at = at
		at++
		if r.kind == ' ' {
			if after > 0 {
				show(r)
				after--
			} else {
				prev, hasPrev = r, true
			}
			return
		}
		if hasPrev && prev.at > last {
			show(prev)
		}
		hasPrev = false
		show(r)
		after = 1
	}
	next := 0
	removed := func(to int) {
		for ; next < to; next++ {
			emit(row{kind: '-', text: base.Text(next + 1)})
		}
	}
	for i := 0; i < len(lines); i++ {
		if lines[i].origin < 0 {
			// A run of written lines i..w-1: the base lines removed
			// before the next kept one show before the lines that
			// replace them.
			w := i
			for w < len(lines) && lines[w].origin < 0 {
				w++
			}
			if w < len(lines) {
				removed(lines[w].origin)
			} else {
				removed(base.Len())
			}
			for j := i; j < w; j++ {
				emit(row{kind: '+', n: j + 1, text: lines[j].text})
			}
			i = w - 1
			continue
		}
		removed(lines[i].origin)
		// A run of kept lines i..k in their old order: only its first
		// rows (context after a change) and its last (context before the
		// next) can show, so the rows between are counted, not built.
		k := i
		for k+1 < len(lines) && lines[k+1].origin == lines[k].origin+1 {
			k++
		}
		for ; i <= k && after > 0; i++ {
			emit(row{kind: ' ', n: i + 1, text: lines[i].text})
		}
		if i <= k {
			at += k - i
			emit(row{kind: ' ', n: k + 1, text: lines[k].text})
		}
		i, next = k, lines[k].origin+1
	}
	removed(base.Len())
	if rest > 0 {
		fmt.Fprintf(&b, "... %d more rows of this change are not shown; read the file to see them\n", rest)
	}
	if count == 0 {
		b.WriteString("(no line changed)\n")
	}
	return b.String(), shown
}

// changedSpans returns where current differs from base, as spans of current
// lines with one unchanged line around each change; none when the diff is
// over its bound.
func changedSpans(base, current []byte) []documents.Span {
	cur := documents.Scan(current)
	match, err := lineMatch(documents.Scan(base), cur)
	if err != nil {
		return nil
	}
	var spans []documents.Span
	for i := 0; i < len(match); {
		if match[i] >= 0 {
			i++
			continue
		}
		j := i
		for j < len(match) && match[j] < 0 {
			j++
		}
		if lo, hi := currentRegion(match, i+1, j, cur.Len()); lo <= hi {
			spans = append(spans, documents.Span{From: lo, To: hi})
		}
		i = j
	}
	// Lines added where none was removed: the gaps between kept lines, and
	// before the first and after the last.
	prev := -1
	for _, j := range append(append([]int(nil), match...), cur.Len()) {
		if j < 0 {
			continue
		}
		if j > prev+1 {
			spans = append(spans, documents.Span{From: max(prev+1, 1), To: min(j+1, cur.Len())})
		}
		prev = j
	}
	return documents.MergeSpans(spans)
}

// conflictRefusal reports a failed commit check: nothing was written. It
// shows the changed file's current text where it differs from what the edit
// was staged on, marked seen under its new tag, so the model can redo the
// edit at once.
func conflictRefusal(env *Env, cs []*change, ce *conflictError) error {
	c := cs[ce.index]
	var b strings.Builder
	var names []string
	for _, c := range cs {
		_, show := c.final()
		names = append(names, show)
	}
	fmt.Fprintf(&b, "NOT applied to %s; nothing was written: %s.\n", strings.Join(names, ", "), ce.reason)
	var spans []documents.Span
	if ce.current != nil {
		spans = changedSpans(c.base, ce.current)
	}
	if len(spans) > 0 {
		// The rows shown are of the current version: it is seen, like a
		// partial read.
		tag := env.Seen.Saw(c.path, ce.current)
		cur := documents.Scan(ce.current)
		fmt.Fprintf(&b, "[%s#%s] now reads, where it changed:\n", c.show, tag)
		shown := 0
		for k, s := range spans {
			if k > 0 {
				b.WriteString(documents.GapMarker + "\n")
			}
			for n := s.From; n <= s.To && shown < revealLines; n, shown = n+1, shown+1 {
				row, whole := cutRow(n, cur.Text(n))
				b.WriteString(row + "\n")
				if whole {
					env.Seen.MarkSeen(c.path, tag, n)
				}
			}
		}
		if shown == revealLines {
			b.WriteString("(more changed lines are not shown)\n")
		}
		fmt.Fprintf(&b, "Redo the edit on %s#%s (read more of it if you need to), then call again.", c.show, tag)
	} else {
		b.WriteString("Read the files again, then call again.")
	}
	return refusal.New(refusal.Conflict, b.String())
}

// throughLink reports whether path reaches target through a symbolic link
// of its own — the file, or a directory below a workspace root — rather
// than only through links above the roots (/tmp on macOS), which every
// path shares and which would make the note noise.
func throughLink(roots []string, path, target string) bool {
	for _, r := range roots {
		if rel, err := filepath.Rel(r, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			if realRoot, err := filepath.EvalSymlinks(r); err == nil {
				return filepath.Join(realRoot, rel) != target
			}
		}
	}
	realDir, err := filepath.EvalSymlinks(filepath.Dir(path))
	return err == nil && filepath.Join(realDir, filepath.Base(path)) != target
}
