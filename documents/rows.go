package documents

import (
	"fmt"
	"math"
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
	return fmt.Sprintf("%d:%s … [line cut: %d more bytes not shown; this line is not marked seen]",
		n, text[:cut], size-cut), false
}

// rowCost is about the bytes the row of line n, size bytes long, takes in
// the output.
func rowCost(n, size int) int {
	return digits(n) + 2 + min(size, maxRowBytes+80)
}

// item is a row a read selected: its line, its size in the output.
type item struct {
	n, size int  // size: the row's bytes with its newline
	gap     bool // a gap marker goes before this row
}

// itemSpans is the selector of the rows items hold.
func itemSpans(items []item) string {
	ns := make([]int, len(items))
	for i, it := range items {
		ns[i] = it.n
	}
	return FormatSpans(SpansOf(ns))
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

// ViewRows renders the given spans (sorted, merged, each line in range) of
// the lines text returns. When the rows exceed the bound, the head and the tail are kept and the
// middle is replaced by one marker giving the count and the selector of the
// cut lines.
func ViewRows(text func(n int) []byte, spans []Span) RowsView {
	return viewRows(func(n int) ([]byte, int) { t := text(n); return t, len(t) }, spans)
}

// viewRows is ViewRows over lines given as their head and their size (see
// rowOf), so a read can show a line far longer than it keeps in memory.
func viewRows(line func(n int) (head []byte, size int), spans []Span) RowsView {
	// Sizes first, rows only for what is kept: a long file's middle is
	// never rendered.
	rows := 0
	for _, s := range spans {
		rows += s.To - s.From + 1
	}
	items := make([]item, 0, rows)
	total := 0
	for i, s := range spans {
		for n := s.From; n <= s.To; n++ {
			_, lineSize := line(n)
			size := rowCost(n, lineSize)
			items = append(items, item{n: n, size: size, gap: i > 0 && n == s.From && s.From != spans[i-1].To+1})
			total += size
		}
	}
	keepHead, keepTail := len(items), 0
	if len(items) > maxRows || total > maxBytes {
		keepHead, keepTail = 0, 0
		for b := 0; keepHead < maxRows/2 && keepHead < len(items); keepHead++ {
			if b += items[keepHead].size; b > maxBytes/2 && keepHead > 0 {
				break
			}
		}
		for b := 0; keepTail < maxRows/2 && keepHead+keepTail < len(items); keepTail++ {
			if b += items[len(items)-1-keepTail].size; b > maxBytes/2 && keepTail > 0 {
				break
			}
		}
	}
	var out strings.Builder
	var v RowsView
	emit := func(it item) {
		if it.gap {
			out.WriteString(GapMarker + "\n")
		}
		head, size := line(it.n)
		row, whole := rowOf(it.n, head, size)
		out.WriteString(row)
		out.WriteByte('\n')
		if whole {
			v.Shown = append(v.Shown, it.n)
		}
	}
	for _, it := range items[:keepHead] {
		emit(it)
	}
	cut := items[keepHead : len(items)-keepTail]
	if len(cut) > 0 {
		sel := itemSpans(cut)
		// The next read's selector must fit one read, or it is cut again.
		fit, b := 0, 0
		for fit < len(cut) && fit < maxRows {
			if b += cut[fit].size; b > maxBytes && fit > 0 {
				break
			}
			fit++
		}
		if fit == len(cut) {
			fmt.Fprintf(&out, "... %d lines cut here by the output bound (%s): read them with lines %q\n", len(cut), sel, sel)
		} else {
			fmt.Fprintf(&out, "... %d lines cut here by the output bound (%s): read them a page at a time, starting with lines %q\n", len(cut), sel, itemSpans(cut[:fit]))
		}
	}
	for i, it := range items[len(items)-keepTail:] {
		// The cut marker already stands before the first row of the tail.
		it.gap = it.gap && (i > 0 || len(cut) == 0)
		emit(it)
	}
	v.Text = out.String()
	return v
}

// digits is the length of n in decimal.
func digits(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}
