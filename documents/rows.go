package documents

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tandemdev/tandem/refusal"
)

// Bounds of one read's output. A result over them keeps its head and its tail
// and marks the cut middle with the count and the selector that reads it.
const (
	maxRows     = 2000
	maxBytes    = 100_000
	maxRowBytes = 4000 // a longer line is cut and not marked seen
	// GapMarker stands before every span of rows that does not start right
	// after the span before it.
	GapMarker = "..."
)

// Span is an inclusive range of 1-based line numbers.
type Span struct{ From, To int }

// toEnd is the To of an open span ("N-"): it reaches the end of any file.
const toEnd = math.MaxInt

// ParseSelector reads a lines selector: comma-separated "N", "N-M" or "N-"
// (to the end). The spans come back sorted and merged, so "5-10,1-2" reads
// 1-2 then 5-10 and "1-5,3-8" reads 1-8.
func ParseSelector(sel string) ([]Span, error) {
	var spans []Span
	for _, part := range strings.Split(sel, ",") {
		part = strings.TrimSpace(part)
		from, to, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(from))
		b := a
		if err == nil && isRange {
			if strings.TrimSpace(to) == "" {
				b = toEnd
			} else {
				b, err = strconv.Atoi(strings.TrimSpace(to))
			}
		}
		if err != nil || a < 1 || b < a {
			return nil, refusal.New(refusal.Invalid, fmt.Sprintf(
				"The lines selector %q is not valid at %q: use 1-based ranges such as \"5\", \"10-20\", \"40-\" or \"1-5,30-40\". Fix it and read again.", sel, part))
		}
		spans = append(spans, Span{a, b})
	}
	return MergeSpans(spans), nil
}

// MergeSpans sorts spans and joins those that overlap or touch.
func MergeSpans(spans []Span) []Span {
	out := append([]Span(nil), spans...)
	sort.Slice(out, func(i, j int) bool { return out[i].From < out[j].From })
	merged := out[:0]
	for _, s := range out {
		if n := len(merged); n > 0 && s.From <= merged[n-1].To+1 {
			if s.To > merged[n-1].To {
				merged[n-1].To = s.To
			}
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// FormatSpans writes spans back as a selector.
func FormatSpans(spans []Span) string {
	parts := make([]string, len(spans))
	for i, s := range spans {
		if s.From == s.To {
			parts[i] = strconv.Itoa(s.From)
		} else {
			parts[i] = fmt.Sprintf("%d-%d", s.From, s.To)
		}
	}
	return strings.Join(parts, ",")
}

// Row renders line n as the model sees it, in read and in grep alike:
// "N:text". A line longer than maxRowBytes is cut on a rune boundary and
// says so; whole reports whether the row shows the whole line (only whole
// rows are marked seen).
func Row(n int, text []byte) (row string, whole bool) { return rowOf(n, text, len(text)) }

// ShowsWhole reports whether a row can show the line text whole, so that
// the line can become seen: a longer line is only ever shown in part.
func ShowsWhole(text []byte) bool { return len(text) <= maxRowBytes }

// rowOf is Row for a line of size bytes of which text may hold only the
// head: all of it when size is within maxRowBytes, else at least
// maxRowBytes+1 bytes, enough to cut on a rune boundary.
func rowOf(n int, text []byte, size int) (row string, whole bool) {
	if size <= maxRowBytes {
		return strconv.Itoa(n) + ":" + string(text), true
	}
	cut := maxRowBytes
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return fmt.Sprintf("%d:%s … [line cut: %d more bytes not shown (read them with \"lines\":\"%d\",\"columns\":\"%d-\"); this line is not marked seen]",
		n, text[:cut], size-cut, n, cut+1), false
}

// The window a row shows of a line longer than maxRowBytes around a match:
// windowBytes bytes, windowBefore of them before the match.
const (
	windowBytes  = 400
	windowBefore = 100
)

// window returns the bytes from..to of a long line that a row around a
// match at byte col shows, cut on rune boundaries.
func window(line []byte, col int) (from, to int) {
	to = min(len(line), max(col-windowBefore, 0)+windowBytes)
	from = max(0, to-windowBytes)
	for from > 0 && !utf8.RuneStart(line[from]) {
		from--
	}
	for to < len(line) && !utf8.RuneStart(line[to]) {
		to++
	}
	return from, to
}

// windowRow renders the row of line n, size bytes long, that shows only its
// bytes from from on (text): "N:…text…" with "…" where the line goes on,
// then which columns it shows, where the match at byte col starts (col <
// 0: none), and the read that shows more of it. Columns count bytes from 1,
// as rg --column does. Such a row never shows its line whole.
func windowRow(n int, text []byte, from, size int, path string, col int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d:", n)
	if from > 0 {
		b.WriteString("…")
	}
	b.Write(text)
	to := from + len(text)
	if to < size {
		b.WriteString("…")
	}
	fmt.Fprintf(&b, " [line %d is %d bytes; shown: columns %d-%d", n, size, from+1, to)
	// The next read: around the match, else what follows (or, at the
	// end, what precedes) the window.
	a, z := to+1, min(size, to+columnsRead)
	switch {
	case col >= 0:
		fmt.Fprintf(&b, ", the match at column %d", col+1)
		a = max(1, col+1-columnsRead/2)
		z = min(size, a+columnsRead-1)
	case to == size:
		a, z = max(1, from+1-columnsRead), from
	}
	fmt.Fprintf(&b, "; read more with {\"path\":%s,\"lines\":\"%d\",\"columns\":\"%d-%d\"}; this line is not marked seen]", strconv.Quote(path), n, a, z)
	return b.String()
}

// columnsRead is how many bytes of a line a window row proposes to read
// next.
const columnsRead = 4000

// hitRowCost estimates the bytes of a matching row that shows shown bytes
// of a line of size bytes: a window row says where it is.
func hitRowCost(n, shown, size int) int {
	if shown < size {
		return digits(n) + shown + 200
	}
	return rowCost(n, size)
}

// rowCost estimates the bytes the row of line n, size bytes long, takes in
// the output.
func rowCost(n, size int) int {
	return digits(n) + 2 + min(size, maxRowBytes+80)
}

// item is a row a read selected: its line, its size in the output.
type item struct {
	n, size int  // size: the row's bytes with its newline
	gap     bool // a gap marker goes before this row
}

// SpansOf joins ascending numbers into spans: 1,2,3,5 is 1-3 and 5.
func SpansOf(ns []int) []Span {
	var spans []Span
	for _, n := range ns {
		if k := len(spans); k > 0 && spans[k-1].To+1 == n {
			spans[k-1].To = n
		} else {
			spans = append(spans, Span{n, n})
		}
	}
	return spans
}

// RowsView is the body of a read: its text (rows, gap markers, the cut
// marker) and the lines whose whole rows it shows.
type RowsView struct {
	Text  string
	Shown []int
}

// Pager names, for the notices of a view, what its rows are lines of and
// the call that shows other rows: a file and read, a page and fetch.
type Pager struct{ Unit, Call string }

// FilePager is read's.
var FilePager = Pager{Unit: "file", Call: "read"}

// ViewRows renders the given spans (sorted, merged, each line in range) of
// the lines text returns. When the rows exceed the bound, the head and the
// tail are kept and the middle is replaced by one marker giving the count
// and the selector of the cut lines.
func ViewRows(text func(n int) []byte, spans []Span) RowsView {
	return viewRows(FilePager, func(n int) ([]byte, int) { t := text(n); return t, len(t) }, spans)
}

// viewRows is ViewRows over lines given as their head and their size (see
// rowOf), so a read can show a line far longer than it keeps in memory.
func viewRows(pager Pager, line func(n int) (head []byte, size int), spans []Span) RowsView {
	itemAt := func(i, n int) item {
		_, size := line(n)
		return item{n: n, size: rowCost(n, size), gap: i > 0 && n == spans[i].From && spans[i].From != spans[i-1].To+1}
	}
	rows := 0
	for _, s := range spans {
		rows += s.To - s.From + 1
	}
	// A long file's middle is never rendered, nor even listed: the head
	// and the tail are taken from either end, and the cut between them is
	// told as spans.
	if rows <= maxRows {
		var all []item
		total := 0
		forwardRows(spans, func(i, n int) bool {
			all = append(all, itemAt(i, n))
			total += all[len(all)-1].size
			return true
		})
		if total <= maxBytes {
			return renderRows(pager, line, all, nil, nil)
		}
	}
	// take collects rows from one end, up to half of each bound.
	take := func(walk func([]Span, func(i, n int) bool), room int) []item {
		var got []item
		b := 0
		walk(spans, func(i, n int) bool {
			if len(got) == min(maxRows/2, room) {
				return false
			}
			it := itemAt(i, n)
			if b += it.size; b > maxBytes/2 && len(got) > 0 {
				return false
			}
			got = append(got, it)
			return true
		})
		return got
	}
	head := take(forwardRows, rows)
	tail := take(backwardRows, rows-len(head))
	slices.Reverse(tail)
	var cut []Span
	if len(head)+len(tail) < rows {
		cut = clipSpans(spans, head[len(head)-1].n+1, tail[0].n-1)
	}
	return renderRows(pager, line, head, tail, cut)
}

// renderRows writes the rows of head, the marker of the cut lines (when
// any) and the rows of tail.
func renderRows(pager Pager, line func(n int) (head []byte, size int), head, tail []item, cut []Span) RowsView {
	var out strings.Builder
	var v RowsView
	emit := func(it item) {
		if it.gap {
			out.WriteString(GapMarker + "\n")
		}
		text, size := line(it.n)
		row, whole := rowOf(it.n, text, size)
		out.WriteString(row)
		out.WriteByte('\n')
		if whole {
			v.Shown = append(v.Shown, it.n)
		}
	}
	for _, it := range head {
		emit(it)
	}
	if len(cut) > 0 {
		count, sel := 0, FormatSpans(cut)
		for _, s := range cut {
			count += s.To - s.From + 1
		}
		// The next read's selector must fit one read, or it is cut again.
		fit, b := 0, 0
		forwardRows(cut, func(_, n int) bool {
			_, size := line(n)
			if fit == maxRows {
				return false
			}
			if b += rowCost(n, size); b > maxBytes && fit > 0 {
				return false
			}
			fit++
			return true
		})
		if fit == count {
			fmt.Fprintf(&out, "... %d lines cut here by the output bound (%s): %s them with lines %q\n", count, sel, pager.Call, sel)
		} else {
			first := FormatSpans(clipSpans(cut, cut[0].From, nthRow(cut, fit)))
			fmt.Fprintf(&out, "... %d lines cut here by the output bound (%s): %s them a page at a time, starting with lines %q\n", count, sel, pager.Call, first)
		}
	}
	for i, it := range tail {
		// The cut marker already stands before the first row of the tail.
		it.gap = it.gap && (i > 0 || len(cut) == 0)
		emit(it)
	}
	v.Text = out.String()
	return v
}

// forwardRows calls see with each line spans select, first to last, and
// the index of its span, until see returns false.
func forwardRows(spans []Span, see func(i, n int) bool) {
	for i, s := range spans {
		for n := s.From; n <= s.To; n++ {
			if !see(i, n) {
				return
			}
		}
	}
}

// backwardRows is forwardRows from the last line to the first.
func backwardRows(spans []Span, see func(i, n int) bool) {
	for i := len(spans) - 1; i >= 0; i-- {
		for n := spans[i].To; n >= spans[i].From; n-- {
			if !see(i, n) {
				return
			}
		}
	}
}

// clipSpans returns the part of spans from line from to line to.
func clipSpans(spans []Span, from, to int) []Span {
	var out []Span
	for _, s := range spans {
		if s := (Span{max(s.From, from), min(s.To, to)}); s.From <= s.To {
			out = append(out, s)
		}
	}
	return out
}

// nthRow returns the line of the k-th (1-based) row that spans select.
func nthRow(spans []Span, k int) int {
	for _, s := range spans {
		if k <= s.To-s.From+1 {
			return s.From + k - 1
		}
		k -= s.To - s.From + 1
	}
	return spans[len(spans)-1].To
}

// digits returns the number of decimal digits of n.
func digits(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}
