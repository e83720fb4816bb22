package edits

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tandemdev/tandem/documents"
)

// Op is one operation of a file edit, as a model writes it: exactly one of
// replace, delete, insertAfter, insertBefore, prepend, append, or old (with
// new). Line numbers are those of the tagged version the model read.
type Op struct {
	Replace      *Anchor `json:"replace,omitempty"`
	Delete       *Anchor `json:"delete,omitempty"`
	InsertAfter  *Anchor `json:"insertAfter,omitempty"`
	InsertBefore *Anchor `json:"insertBefore,omitempty"`
	Prepend      *string `json:"prepend,omitempty"`
	Append       *string `json:"append,omitempty"`
	Text         *string `json:"text,omitempty"`
	Old          *string `json:"old,omitempty"`
	New          *string `json:"new,omitempty"`
}

// Anchor is a line ("12"), a range ("12-14"), or a row pasted from a read
// ("12:func main() {"); a JSON number is a line too. A pasted row's text must
// be the text of that line, which catches an anchor on the wrong line.
type Anchor string

// UnmarshalJSON accepts a string or a number.
func (a *Anchor) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*a = Anchor(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("an anchor is a line number such as 12, a range such as \"12-14\", or a row such as \"12:text\"")
	}
	*a = Anchor(n.String())
	return nil
}

// anchorRE reads an anchor; a "+" before the number is tolerated, since the
// rows of an edit reply read "+N:text".
var anchorRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\+?\s*[Ll]?(\d+)\s*(?:-\s*[Ll]?(\d+))?\s*(?::((?s).*))?$`)
})

// rowPrefixRE is the "N:" prefix of a row of read or grep, or the "+N:" or
// " N:" of a row of an edit reply.
var rowPrefixRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[+ ]?(\d+):`) })

// opShape says what an op relies on, for the seen guard and the rebase.
type opShape int

const (
	shapeRange  opShape = iota // replaces or deletes lines from..to
	shapeAfter                 // inserts after line from
	shapeBefore                // inserts before line from
	shapeStart                 // inserts at the start of the file
	shapeEnd                   // inserts at the end of the file
)

// planned is an op resolved against the tagged version.
type planned struct {
	index    int // 1-based position in the model's list, for messages
	shape    opShape
	from, to int // 1-based lines (range), or the anchor line (after, before)
	lines    [][]byte
	bare     bool   // anchored on a bare line number, whose text nothing checked
	note     string // what the reply must say of the op's text (pasted row prefixes)
	// endQuoted: a range anchor quoted its last row too, so its end is
	// checked and a repeat of the line after it is meant.
	endQuoted bool
	repeats   int            // a replace's text repeats this neighbour of its range (0: none)
	within    documents.Span // old/new inside one line: the columns old covers
}

// anchors lists the lines of the tagged version the op relies on.
func (p planned) anchors() []int {
	switch p.shape {
	case shapeRange:
		out := make([]int, 0, p.to-p.from+1)
		for n := p.from; n <= p.to; n++ {
			out = append(out, n)
		}
		return out
	case shapeAfter, shapeBefore:
		return []int{p.from}
	}
	return nil
}

// span is the splice the op makes on a file of n lines.
func (p planned) span(n int) (start, end int) {
	switch p.shape {
	case shapeRange:
		return p.from - 1, p.to
	case shapeAfter:
		return p.from, p.from
	case shapeBefore:
		return p.from - 1, p.from - 1
	case shapeStart:
		return 0, 0
	}
	return n, n
}

// opError is a problem with the model's ops; it becomes an invalid refusal.
type opError struct{ msg string }

func (e *opError) Error() string { return e.msg }

func opErrorf(format string, args ...any) error { return &opError{fmt.Sprintf(format, args...)} }

// plan resolves ops against base, the version named by the tag, and checks
// that they do not overlap.
func plan(base documents.Lines, ops []Op) ([]planned, error) {
	if len(ops) == 0 {
		return nil, opErrorf("the file has no ops")
	}
	out := make([]planned, 0, len(ops))
	for i, op := range ops {
		p, err := planOne(base, i+1, op)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, overlaps(out)
}

func planOne(base documents.Lines, index int, op Op) (planned, error) {
	n := base.Len()
	set := 0
	for _, on := range []bool{op.Replace != nil, op.Delete != nil, op.InsertAfter != nil, op.InsertBefore != nil,
		op.Prepend != nil, op.Append != nil, op.Old != nil} {
		if on {
			set++
		}
	}
	if set != 1 {
		return planned{}, opErrorf("op %d must have exactly one of replace, delete, insertAfter, insertBefore, prepend, append, old (it has %d)", index, set)
	}
	p := planned{index: index}
	needText := func(what string) ([][]byte, error) {
		if op.Text == nil {
			return nil, opErrorf("op %d (%s) needs \"text\", the new lines", index, what)
		}
		return splitText(*op.Text), nil
	}
	var err error
	switch {
	case op.Old != nil:
		if op.Text != nil {
			return planned{}, opErrorf("op %d replaces a string: give \"new\", not \"text\"", index)
		}
		if op.New == nil {
			return planned{}, opErrorf("op %d has \"old\" but no \"new\"", index)
		}
		return planSwap(base, index, *op.Old, *op.New)
	case op.New != nil:
		return planned{}, opErrorf("op %d has \"new\" without \"old\"", index)
	case op.Replace != nil:
		p.shape = shapeRange
		if p.from, p.to, p.endQuoted, err = parseAnchor(base, index, *op.Replace, true); err != nil {
			return planned{}, err
		}
		p.bare = isBare(*op.Replace)
		if p.lines, err = needText("replace"); err != nil {
			return planned{}, err
		}
		p.lines, p.note = pastedPrefixes(base, index, p.lines, p.from, p.to)
		p.repeats = repeatedNeighbour(base, p)
		if p.note != "" {
			break
		}
		if first, ok := otherRows(p.lines); ok {
			return planned{}, opErrorf("op %d's text carries the row prefixes of lines %d-%d, not of the lines it replaces (%d-%d); they would be written into the file. Send the text without the \"N:\" prefixes (if they are part of the text, write it with old/new, which keeps text as given)", index, first, first+len(p.lines)-1, p.from, p.to)
		}
	case op.Delete != nil:
		p.shape = shapeRange
		if op.Text != nil {
			return planned{}, opErrorf("op %d deletes lines: it takes no \"text\" (use replace to change them)", index)
		}
		if p.from, p.to, p.endQuoted, err = parseAnchor(base, index, *op.Delete, true); err != nil {
			return planned{}, err
		}
		p.bare = isBare(*op.Delete)
	case op.InsertAfter != nil:
		p.shape = shapeAfter
		if strings.TrimSpace(string(*op.InsertAfter)) == "0" {
			p.shape = shapeStart
		} else if p.from, _, _, err = parseAnchor(base, index, *op.InsertAfter, false); err != nil {
			return planned{}, err
		} else {
			p.bare = isBare(*op.InsertAfter)
		}
		if p.lines, err = needText("insertAfter"); err != nil {
			return planned{}, err
		}
	case op.InsertBefore != nil:
		p.shape = shapeBefore
		if strings.TrimSpace(string(*op.InsertBefore)) == strconv.Itoa(n+1) {
			p.shape = shapeEnd
		} else if p.from, _, _, err = parseAnchor(base, index, *op.InsertBefore, false); err != nil {
			return planned{}, err
		} else {
			p.bare = isBare(*op.InsertBefore)
		}
		if p.lines, err = needText("insertBefore"); err != nil {
			return planned{}, err
		}
	case op.Prepend != nil:
		p.shape, p.lines = shapeStart, splitText(*op.Prepend)
	case op.Append != nil:
		p.shape, p.lines = shapeEnd, splitText(*op.Append)
	}
	if op.Text != nil && (op.Prepend != nil || op.Append != nil) {
		return planned{}, opErrorf("op %d: prepend and append carry their text themselves; drop \"text\"", index)
	}
	return p, nil
}

// parseAnchor reads an anchor against base. A range is allowed only where
// the op covers lines. A range may quote its first row ("3-6:const (") or
// its first and last, split by "|" ("3-6:const (|)"), since the end of a
// range is what a model miscounts most; endQuoted says it quoted the last.
func parseAnchor(base documents.Lines, index int, a Anchor, rangeOK bool) (from, to int, endQuoted bool, err error) {
	m := anchorRE().FindStringSubmatch(string(a))
	if m == nil {
		return 0, 0, false, opErrorf("op %d: anchor %q is not a line number; write 12, \"12-14\", or the row \"12:text\" as read showed it", index, clip(string(a), 80))
	}
	from, _ = strconv.Atoi(m[1])
	to = from
	if m[2] != "" {
		if !rangeOK {
			return 0, 0, false, opErrorf("op %d: anchor %q is a range, but an insert anchors on one line", index, string(a))
		}
		to, _ = strconv.Atoi(m[2])
	}
	n := base.Len()
	switch {
	case from < 1 || to < from:
		return 0, 0, false, opErrorf("op %d: anchor %q is not a range of lines from 1 up", index, string(a))
	case to > n:
		return 0, 0, false, opErrorf("op %d: anchor %q is past the end of the file, which has %d lines in that version", index, string(a), n)
	}
	if !strings.Contains(string(a), ":") {
		return from, to, false, nil
	}
	// A row, or a range quoting its first row, or its first and last.
	if quotes(base, from, m[3]) {
		return from, to, false, nil
	}
	if m[2] != "" {
		for i := 0; i < len(m[3]); i++ {
			if m[3][i] != '|' || !quotes(base, from, m[3][:i]) {
				continue
			}
			if last := m[3][i+1:]; !quotes(base, to, last) {
				return 0, 0, false, opErrorf("op %d: anchor %q quotes a last row that is not line %d; that line reads %q. Count the range's end again from your read: the anchor is \"FIRST-LAST:first row|last row\"",
					index, clip(string(a), 120), to, clip(string(base.Text(to)), 200))
			}
			return from, to, true, nil
		}
	}
	return 0, 0, false, opErrorf("op %d: anchor %q quotes a row that is not line %d; that line reads %q. Take the number from your read, as it showed the line (ops of one call use the numbers of the version you read, not shifted for earlier ops)",
		index, clip(string(a), 120), from, clip(string(base.Text(from)), 200))
}

// quotes reports whether pasted is line n's text as a row shows it: spaces
// around it aside, and a row cut for its length quoting the line's head.
func quotes(base documents.Lines, n int, pasted string) bool {
	pasted = strings.TrimSpace(pasted)
	actual := strings.TrimSpace(string(base.Text(n)))
	if cut, _, ok := strings.Cut(pasted, " … [line cut"); ok {
		pasted = strings.TrimSpace(cut)
		actual = actual[:min(len(actual), len(pasted))]
	}
	return pasted == actual
}

// repeatedNeighbour finds a replacement that would leave a line twice: its
// text's last line is the line right after the range (or its first the
// line right before), which the range leaves in place, while the replaced
// line there differs — a range that ends one line short ("3-5" for 3-6)
// leaves a duplicate ")". Lines compare exactly, indentation included, so
// a nested block's closing brace is no repeat; blank lines never are. A
// range that quotes its last row has had its end checked: the repeat is
// meant.
func repeatedNeighbour(base documents.Lines, p planned) int {
	if p.endQuoted || len(p.lines) == 0 {
		return 0
	}
	same := func(line []byte, neighbour, replaced int) bool {
		return neighbour >= 1 && neighbour <= base.Len() && len(bytes.TrimSpace(line)) > 0 &&
			bytes.Equal(line, base.Text(neighbour)) && !bytes.Equal(line, base.Text(replaced))
	}
	switch {
	case same(p.lines[len(p.lines)-1], p.to+1, p.to):
		return p.to + 1
	case same(p.lines[0], p.from-1, p.from):
		return p.from - 1
	}
	return 0
}

// isBare reports whether an anchor is a line number with no row text to
// check.
func isBare(a Anchor) bool { return !strings.Contains(string(a), ":") }

// splitText turns a model's text into lines by the shared line model: "\n"
// or "\r\n" ends a line, a final ending does not start an empty line, and
// the endings written are the file's, never the model's.
func splitText(text string) [][]byte {
	ls := documents.Scan([]byte(text))
	out := make([][]byte, ls.Len())
	for i := range out {
		out[i] = ls.Text(i + 1)
	}
	if ls.BOM {
		// A BOM inside the new text is text the model wrote; keep it.
		if len(out) == 0 {
			return [][]byte{{0xEF, 0xBB, 0xBF}}
		}
		out[0] = append([]byte{0xEF, 0xBB, 0xBF}, out[0]...)
	}
	return out
}

// pastedPrefixes decides whether a replacement's text is rows pasted from a
// read, prefixes and all, and drops the prefixes only when that is certain:
// every line carries one ("N:", "+N:" or " N:"), numbered on by one from the
// first replaced line, and where a replaced line's own text starts like a
// row ("3:00 start"), the text's line carries a row prefix before it
// ("3:3:30 start", as its row shows it); a lone "3:30 start" there is text.
// Either way the note tells the model what was written and how to get the
// other, since the reply's rows alone do not show where a prefix ended.
func pastedPrefixes(base documents.Lines, index int, lines [][]byte, from, to int) (out [][]byte, note string) {
	if len(lines) == 0 {
		return lines, ""
	}
	out = make([][]byte, len(lines))
	ambiguous := 0 // a line of the range whose own text starts like a row
	for i, l := range lines {
		m := rowPrefixRE().FindSubmatch(l)
		if m == nil || string(m[1]) != strconv.Itoa(from+i) {
			return lines, ""
		}
		out[i] = l[len(m[0]):]
		if n := from + i; n <= to && rowPrefixRE().Match(base.Text(n)) && !rowPrefixRE().Match(out[i]) && ambiguous == 0 {
			ambiguous = n
		}
	}
	if ambiguous > 0 {
		return lines, fmt.Sprintf("op %d: its text starts with %q, the number of the line it replaces, but line %d's own text starts so too, so the text was written as given: the first line written reads %q. If %q was a pasted row prefix, replace the line again without it",
			index, rowPrefixRE().Find(lines[0]), ambiguous, clip(string(lines[0]), 120), rowPrefixRE().Find(lines[0]))
	}
	note = fmt.Sprintf("op %d: every line of its text started with the number of the line it replaces (%q…), as rows pasted from a read do, so those prefixes were dropped: the first line written reads %q",
		index, rowPrefixRE().Find(lines[0]), clip(string(out[0]), 120))
	if !rowPrefixRE().Match(out[0]) { // else the text was sent as rows of row-like lines: what it meant
		note += fmt.Sprintf(". If they are part of the text, replace the lines again writing each as its row shows it, row number first (%q for row %d)", clip(fmt.Sprintf("%d:%s", from, lines[0]), 120), from)
	}
	return out, note
}

// otherRows reports whether lines look pasted from read rows of other
// lines than the ones they replace (what pastedPrefixes leaves): at least
// two lines, every one with a prefix, the numbers counting up by one. It
// gives the first number.
func otherRows(lines [][]byte) (first int, ok bool) {
	if len(lines) < 2 {
		return 0, false
	}
	for i, l := range lines {
		m := rowPrefixRE().FindSubmatch(l)
		if m == nil {
			return 0, false
		}
		n, _ := strconv.Atoi(string(m[1]))
		if i == 0 {
			first = n
		} else if n != first+i {
			return 0, false
		}
	}
	return first, true
}

// pastedRows reports whether every line of text carries a row prefix, the
// numbers counting up by one. If so, it returns the text without the
// prefixes, and the first number.
func pastedRows(text string) (string, int, bool) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	bs := make([][]byte, len(lines))
	for i, l := range lines {
		bs[i] = []byte(l)
	}
	first, ok := otherRows(bs)
	if !ok && len(bs) == 1 {
		if m := rowPrefixRE().FindSubmatch(bs[0]); m != nil {
			first, _ = strconv.Atoi(string(m[1]))
			ok = true
		}
	}
	if !ok {
		return "", 0, false
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l[len(rowPrefixRE().FindString(l)):]
	}
	stripped := strings.Join(out, "\n")
	if strings.HasSuffix(text, "\n") {
		stripped += "\n"
	}
	return stripped, first, true
}

// nearMiss finds where old occurs except for whitespace (tabs for spaces, a
// trailing space, another indent) and says what differs; "" when it does
// not occur that way either.
func nearMiss(base documents.Lines, old string) string {
	want := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	if squash(strings.Join(want, " ")) == "" {
		return ""
	}
	var places []string
	var differ string
	for i := 0; i+len(want) <= base.Len() && len(places) < 3; i++ {
		match, first := true, ""
		for k, w := range want {
			got := string(base.Text(i + k + 1))
			if squash(got) != squash(w) {
				match = false
				break
			}
			if first == "" && got != w {
				first = fmt.Sprintf("line %d reads %q where \"old\" has %q", i+k+1, clip(got, 120), clip(w, 120))
			}
		}
		if !match {
			continue
		}
		if len(want) == 1 {
			places = append(places, strconv.Itoa(i+1))
		} else {
			places = append(places, fmt.Sprintf("%d-%d", i+1, i+len(want)))
		}
		if differ == "" {
			differ = first
		}
	}
	if len(places) == 0 {
		return ""
	}
	return fmt.Sprintf("but it does at line%s %s apart from whitespace (%s)", plural(len(places)*len(want)), strings.Join(places, ", "), differ)
}

// squash is a line apart from its whitespace: runs of it as one space, none
// at the ends. Two lines with the same squash differ in whitespace only.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// overlaps refuses ops that touch the same line, since their order would be
// a guess.
func overlaps(ps []planned) error {
	if a, b, line, ok := clash(ps); ok {
		return opErrorf("ops %d and %d both touch line %d; merge them into one op", min(a.index, b.index), max(a.index, b.index), line)
	}
	return nil
}

// clash finds two ops that touch one line: a replaced or deleted range that
// shares a line with another range or holds another op's anchor. Inserts
// never clash with each other, and a start or end insert with nothing. One
// sweep in line order finds a clash, so a call with many thousands of ops
// costs n log n, not the n² of trying every pair.
func clash(ps []planned) (a, b planned, line int, ok bool) {
	type lines struct {
		lo, hi int
		p      planned
	}
	var spans []lines
	for _, p := range ps {
		switch p.shape {
		case shapeRange:
			spans = append(spans, lines{p.from, p.to, p})
		case shapeAfter, shapeBefore:
			spans = append(spans, lines{p.from, p.from, p})
		}
	}
	// By first line, and a range before an insert anchored on that line, so
	// the range already covers the insert when its turn comes.
	slices.SortStableFunc(spans, func(x, y lines) int {
		if c := cmp.Compare(x.lo, y.lo); c != 0 {
			return c
		}
		return cmp.Compare(insertRank(x.p), insertRank(y.p))
	})
	cover := -1 // the range reaching furthest down so far
	for i, s := range spans {
		if cover >= 0 && spans[cover].hi >= s.lo {
			return spans[cover].p, s.p, s.lo, true
		}
		if s.p.shape == shapeRange && (cover < 0 || s.hi > spans[cover].hi) {
			cover = i
		}
	}
	return planned{}, planned{}, 0, false
}

// insertRank orders a range before an insert on the same line.
func insertRank(p planned) int {
	if p.shape == shapeRange {
		return 0
	}
	return 1
}

// splices orders planned ops into splices: by position, an insertion before
// a replacement at the same place, otherwise in the model's order.
func splices(n int, ps []planned) []splice {
	out := make([]splice, len(ps))
	for i, p := range ps {
		s, e := p.span(n)
		out[i] = splice{start: s, end: e, lines: p.lines}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].start != out[j].start {
			return out[i].start < out[j].start
		}
		return out[i].end == out[i].start && out[j].end > out[j].start
	})
	return out
}

// planSwap resolves a string replacement: old must occur exactly once in
// the tagged version. Line endings compare as the line model reads them, so
// an old string written with "\n" finds text in a CRLF file. The op becomes
// a replacement of the lines the occurrence touches.
func planSwap(base documents.Lines, index int, old, repl string) (planned, error) {
	old = strings.ReplaceAll(old, "\r\n", "\n")
	repl = strings.ReplaceAll(repl, "\r\n", "\n")
	if old == "" {
		return planned{}, opErrorf("op %d: \"old\" is empty; quote the exact text to replace", index)
	}
	if old == repl {
		return planned{}, opErrorf("op %d: \"old\" and \"new\" are the same text, so there is nothing to change", index)
	}
	// The text as the model reads it: lines joined by "\n".
	var norm strings.Builder
	starts := make([]int, base.Len()+1)
	for i := 0; i < base.Len(); i++ {
		starts[i] = norm.Len()
		norm.Write(base.Text(i + 1))
		if len(base.Ending(i+1)) > 0 {
			norm.WriteByte('\n')
		}
	}
	starts[base.Len()] = norm.Len()
	text := norm.String()
	var at []int
	for from := 0; ; {
		i := strings.Index(text[from:], old)
		if i < 0 {
			break
		}
		at = append(at, from+i)
		from += i + 1
	}
	lineOf := func(off int) int { // 0-based line holding byte off
		return sort.Search(base.Len(), func(i int) bool { return starts[i+1] > off })
	}
	if len(at) == 0 {
		// Rows pasted whole, prefixes and all, that quote lines of this
		// version in order: the text without the prefixes is what was meant.
		if stripped, first, ok := pastedRows(old); ok {
			if p, err := planSwap(base, index, stripped, repl); err == nil && p.from == first {
				return p, nil
			}
		}
		if near := nearMiss(base, old); near != "" {
			return planned{}, opErrorf("op %d: \"old\" does not occur in that version of the file, %s. Quote the lines exactly as read showed them (without the \"N:\" prefixes), or anchor on their rows", index, near)
		}
	}
	switch len(at) {
	case 0:
		return planned{}, opErrorf("op %d: \"old\" does not occur in that version of the file. Quote the text exactly as read showed it, without the \"N:\" row prefixes", index)
	case 1:
	default:
		var lines []string
		for _, p := range at[:min(len(at), 10)] {
			lines = append(lines, strconv.Itoa(lineOf(p)+1))
		}
		return planned{}, opErrorf("op %d: \"old\" occurs %d times (at lines %s); include more of the surrounding text so it occurs once, or use a line op", index, len(at), strings.Join(lines, ", "))
	}
	p, q := at[0], at[0]+len(old)
	a := lineOf(p)
	e := lineOf(q - 1)
	var within documents.Span // the columns of line a+1 old covers, when it lies in it
	if a == e && q <= starts[a]+len(base.Text(a+1)) {
		within = documents.Span{From: p - starts[a] + 1, To: q - starts[a]}
	}
	lineEnd := func(l int) int { return starts[l] + len(base.Text(l+1)) }
	tail, consumed := "", q > lineEnd(e)
	if consumed {
		// old ends with the ending of line e: the next line stays unless
		// new does not end with an ending, in which case new joins it.
		if !strings.HasSuffix(repl, "\n") && e+1 < base.Len() {
			e++
			tail, consumed = text[starts[e]:lineEnd(e)], false
		}
	} else {
		tail = text[q:lineEnd(e)]
	}
	joined := text[starts[a]:p] + repl + tail
	parts := strings.Split(joined, "\n")
	if consumed && (joined == "" || strings.HasSuffix(joined, "\n")) {
		parts = parts[:len(parts)-1]
	}
	lines := make([][]byte, len(parts))
	for i, s := range parts {
		lines[i] = []byte(s)
	}
	return planned{index: index, shape: shapeRange, from: a + 1, to: e + 1, lines: lines, within: within}, nil
}

// inSeenWindow reports whether the op is an old/new inside one line too
// long for a row, and old lies in columns of it a read's window showed:
// the rest of the line is kept byte for byte, so nothing unseen changes.
func (p planned) inSeenWindow(store *documents.Store, path string, tag documents.Tag, base documents.Lines) bool {
	return p.within.To > 0 && p.from == p.to && !documents.ShowsWhole(base.Text(p.from)) &&
		store.SeenWindow(path, tag, p.from, p.within.From, p.within.To)
}

// clip cuts s to n bytes on a rune boundary for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
