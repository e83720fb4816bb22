package edits

import "github.com/tandemdev/tandem/documents"

// A newLine is one line of an edited file: a line kept from the version the
// edit was applied to (origin is its 0-based index there), or a line the edit
// wrote (origin -1).
type newLine struct {
	text   []byte
	origin int
}

// A splice replaces the base lines [start, end) (0-based) by lines. An
// insertion has start == end.
type splice struct {
	start, end int
	lines      [][]byte
}

// spliceLines applies splices, sorted by start and not overlapping, to base.
func spliceLines(base documents.Lines, sps []splice) []newLine {
	out := make([]newLine, 0, base.Len())
	next := 0
	keep := func(to int) {
		for ; next < to; next++ {
			out = append(out, newLine{text: base.Text(next + 1), origin: next})
		}
	}
	for _, sp := range sps {
		keep(sp.start)
		for _, l := range sp.lines {
			out = append(out, newLine{text: l, origin: -1})
		}
		next = max(next, sp.end)
	}
	keep(base.Len())
	return out
}

// firstEnding returns the carry a file starts from (see weave): its first
// line ending, or LF when it has none.
func firstEnding(base documents.Lines) []byte {
	for i := range base.Lines {
		if e := base.Ending(i + 1); len(e) > 0 {
			return e
		}
	}
	return []byte("\n")
}

// weave writes an edited file: the base's BOM, then each line followed by
// its ending. The carry is the line ending written last (at the start, the
// file's first ending).
//
//   - A kept line that is not last keeps its own ending, when it has one.
//   - Any other line that is not last ends with the carry.
//   - The last line ends as the base's last line did: a kept line with its
//     own ending; a written line with the carry when the base ended with an
//     ending (or was empty) or the line is empty, and with none otherwise.
//
// Every byte outside the edited lines is therefore kept.
func weave(base documents.Lines, lines []newLine) []byte {
	size := len(base.Body) + 3
	for _, l := range lines {
		if l.origin < 0 {
			size += len(l.text) + 2
		}
	}
	out := make([]byte, 0, size)
	if base.BOM {
		out = append(out, 0xEF, 0xBB, 0xBF)
	}
	carry := firstEnding(base)
	finalEnding := base.Len() == 0 || len(base.Ending(base.Len())) > 0
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		// A run of kept lines, in their old order, none of them last,
		// keeps its bytes as they are: copy it whole.
		if j := keptRun(base, lines, i); j > i {
			first, last := base.Lines[l.origin], base.Lines[lines[j].origin]
			out = append(out, base.Body[first.Start:last.End+last.EndLen]...)
			carry = base.Ending(lines[j].origin + 1)
			i = j
			continue
		}
		out = append(out, l.text...)
		var own []byte
		if l.origin >= 0 {
			own = base.Ending(l.origin + 1)
		}
		switch {
		case i < len(lines)-1 && len(own) > 0:
			carry = own
			out = append(out, own...)
		case l.origin >= 0 && i == len(lines)-1:
			out = append(out, own...)
		case i < len(lines)-1 || finalEnding || len(l.text) == 0:
			// (An empty last line needs its ending to be a line at all.)
			out = append(out, separator(l.text, carry)...)
		}
	}
	return out
}

// separator returns the ending to write after text: the carry, except for
// a text ending in a lone "\r" when the carry is "\n". That "\r" followed
// by "\n" would read back as one CRLF ending and lose the "\r", so such a
// text gets "\r\n"; the carry itself does not change.
func separator(text, carry []byte) []byte {
	if len(text) > 0 && text[len(text)-1] == '\r' && string(carry) == "\n" {
		return []byte("\r\n")
	}
	return carry
}

// keptRun returns the last index j >= i such that lines[i..j] are kept lines
// with consecutive origins, each with its own ending, and j is not the last
// line; i when there is no such run of two or more.
func keptRun(base documents.Lines, lines []newLine, i int) int {
	j := i
	for j+1 < len(lines)-1 && lines[j].origin >= 0 && lines[j+1].origin == lines[j].origin+1 &&
		base.Lines[lines[j+1].origin].EndLen > 0 {
		j++
	}
	if j == i || base.Lines[lines[i].origin].EndLen == 0 {
		return i
	}
	return j
}
