package documents

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tandemdev/tandem/refusal"
)

// Matcher finds the lines of a text that match a pattern, in the shared line
// model: a line's text excludes its ending, so "$" matches before "\r\n".
//
// It searches whole buffers, not line by line: the longest literal the
// pattern requires is found by a scan for its rarest byte, and
// only the line around each hit is checked with the regexp. A pattern with no
// required literal runs a candidate regexp over the whole buffer whose
// matches are a superset of the line matches, then checks each line.
type Matcher struct {
	re   *regexp.Regexp // the pattern, applied to one line's text
	lit  []byte         // a literal every match contains, or nil
	fold bool           // lit matches ASCII case-insensitively
	rare int            // index in lit of the byte the literal scan looks for
	pair bool           // it looks for the two bytes from rare (in any case: a superset, checked)
	pure bool           // a line matches iff it contains lit
	// also: other literals every match contains, case-sensitively: a
	// line without one of them is not run through the regexp (the
	// "_ops" of "struct \w+_ops", on a tenth of the lines with "struct ").
	also [][]byte
	// local: the pattern has no anchor nor word boundary, so a match in
	// part of a line is a match in the line.
	local bool
	// atFirst and atNext, when every match starts with lit (after
	// anchors and boundaries): the pattern anchored at the start of a
	// line, and after one rune (the one before lit, for its boundaries).
	atFirst, atNext *regexp.Regexp
	// trail, when the pattern is a class repeated, then lit: a line is
	// decided at each of lit's places by the runes before it.
	trail *classRun
	cand  *regexp.Regexp // whole-buffer candidates when lit is nil
	// The sizes of the programs of re and cand, in instructions: a bound,
	// up to a constant, on their work per byte searched.
	reSize, candSize int
}

// Compile builds a Matcher for grep's pattern and flags.
func Compile(pattern string, ignoreCase, literal bool) (*Matcher, error) {
	expr := ripgrepClasses(pattern)
	if literal {
		expr = regexp.QuoteMeta(pattern)
	}
	if ignoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		// Told of the pattern as written, not of its Unicode classes.
		if _, asWritten := regexp.Compile(pattern); asWritten != nil {
			err = asWritten
		}
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf(
			"The pattern %q is not a valid regular expression (%v). Fix it, or pass literal: true to search for the text as written.",
			pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: ")))
	}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	m := &Matcher{re: re, reSize: progSize(tree), local: !asserts(tree)}
	lit, fold := required(tree)
	if fold {
		lit = foldSafe(lit)
	}
	switch {
	case strings.Contains(lit, "\n"):
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf(
			"The pattern %q needs a newline, but grep matches one line at a time. Search for one line of it, then read around the match.", pattern))
	case len(lit) > 0:
		m.lit, m.fold = []byte(lit), fold
		pureLit := tree.Op == syntax.OpLiteral && !strings.Contains(lit, "\r")
		m.pure = pureLit && (!fold || string(tree.Rune) == lit)
		m.rare = rarest(m.lit, fold)
		// A two-byte literal is its own pair: a scan for its rarer byte
		// stops at each of that byte's many occurrences (")" of "()" in
		// C, one byte in fifty), the pair scan only at the literal. With
		// vector instructions the pair scan runs as fast as one for a
		// byte, and stops far less often (at the "uc" of "struct ", not
		// at each "u" of C).
		if fold && len(m.lit) > 1 || len(m.lit) == 2 || hasAVX2 && len(m.lit) > 1 {
			m.rare, m.pair = rarestPair(m.lit), true
		}
		if !m.pure {
			m.also = alsoRequired(tree, lit)
		}
		if !m.pure && !fold {
			m.trail = trailingClass(tree, lit)
		}
		if !m.pure && !fold && leads(tree, lit) {
			m.atFirst = regexp.MustCompile(`^(?:` + expr + `)`)
			m.atNext = regexp.MustCompile(`^(?s:.)(?:` + expr + `)`)
		}
	default:
		superset := lineSuperset(tree)
		m.cand, m.candSize = regexp.MustCompile(superset.String()), progSize(superset)
	}
	return m, nil
}

// leads reports whether every match of t starts with lit, after only
// anchors and word boundaries.
func leads(t *syntax.Regexp, lit string) bool {
	switch t.Op {
	case syntax.OpLiteral:
		return t.Flags&syntax.FoldCase == 0 && strings.HasPrefix(string(t.Rune), lit)
	case syntax.OpCapture:
		return leads(t.Sub[0], lit)
	case syntax.OpConcat:
		for _, sub := range t.Sub {
			switch sub.Op {
			case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
				continue
			}
			return leads(sub, lit)
		}
	}
	return false
}

// leading reports whether a match of a pattern that starts with its
// literal starts at one of the literal's places in line, the first at q:
// the regexp runs anchored at each, from the rune before it, instead of
// from every byte of the line (the backtracker's cost on every line that
// holds a common word, such as "struct ").
func (s *Search) leading(line []byte, q int) bool {
	m := s.m
	for {
		var ok bool
		if q == 0 {
			ok = bounded(s, m.reSize, line, m.atFirst.Match, m.atFirst.MatchReader)
		} else {
			_, size := utf8.DecodeLastRune(line[:q])
			ok = bounded(s, m.reSize, line[q-size:], m.atNext.Match, m.atNext.MatchReader)
		}
		if ok || s.limit.err != nil || q >= len(line) {
			return ok
		}
		i := bytes.Index(line[q+1:], m.lit)
		if i < 0 {
			return false
		}
		q += 1 + i
	}
}

// probeBytes is how far either side of its literal a long line is first
// searched for a match.
const probeBytes = 4 << 10

// asserts reports whether t has an anchor or a word boundary, which can
// hold at the edge of part of a line and not in the line.
func asserts(t *syntax.Regexp) bool {
	switch t.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, sub := range t.Sub {
		if asserts(sub) {
			return true
		}
	}
	return false
}

// progSize is the number of instructions of the program the regexp package
// runs for t. Its matcher keeps at most one thread per instruction, so the
// work of a byte grows with the size: (?i)[a-z]{999} makes about a thousand
// and costs microseconds a byte, where common patterns cost nanoseconds.
func progSize(t *syntax.Regexp) int {
	p, _ := syntax.Compile(t.Simplify()) // no error: regexp compiled the same tree
	return len(p.Inst)
}

// required returns the longest literal every match of t contains, and
// whether it is case-folded.
func required(t *syntax.Regexp) (string, bool) {
	switch t.Op {
	case syntax.OpLiteral:
		return string(t.Rune), t.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return required(t.Sub[0])
	case syntax.OpRepeat:
		if t.Min >= 1 {
			return required(t.Sub[0])
		}
	case syntax.OpConcat:
		best, bestFold := "", false
		for _, s := range t.Sub {
			if l, f := required(s); len(l) > len(best) {
				best, bestFold = l, f
			}
		}
		return best, bestFold
	}
	return "", false
}

// alsoRequired returns the literals, other than lit, that the parts of
// a concatenation t require case-sensitively: each is in every match.
func alsoRequired(t *syntax.Regexp, lit string) [][]byte {
	for t.Op == syntax.OpCapture {
		t = t.Sub[0]
	}
	if t.Op != syntax.OpConcat {
		return nil
	}
	var also [][]byte
	for _, sub := range t.Sub {
		if l, fold := required(sub); len(l) > 0 && !fold && !strings.Contains(lit, l) {
			also = append(also, []byte(l))
		}
	}
	return also
}

// holdsAlso reports whether line contains every literal of m.also.
func (m *Matcher) holdsAlso(line []byte) bool {
	for _, l := range m.also {
		if !bytes.Contains(line, l) {
			return false
		}
	}
	return true
}

// foldSafe keeps the longest run of a case-folded literal that an ASCII
// case-insensitive comparison decides exactly: ASCII bytes other than k and
// s, whose case folds include non-ASCII runes (K and ſ).
func foldSafe(lit string) string {
	best, cur := "", []byte{}
	for i := 0; i <= len(lit); i++ {
		if i < len(lit) {
			c := lit[i]
			if c < utf8.RuneSelf && c|0x20 != 'k' && c|0x20 != 's' {
				cur = append(cur, c)
				continue
			}
		}
		if len(cur) > len(best) {
			best = string(cur)
		}
		cur = cur[:0]
	}
	return best
}

// lineSuperset rewrites t for a whole-buffer search whose matches include
// every line match: text anchors become line anchors, and "$" may be
// preceded by the "\r" of a CRLF ending.
func lineSuperset(t *syntax.Regexp) *syntax.Regexp {
	t = cloneRegexp(t)
	var walk func(*syntax.Regexp) *syntax.Regexp
	walk = func(r *syntax.Regexp) *syntax.Regexp {
		switch r.Op {
		case syntax.OpBeginText:
			return &syntax.Regexp{Op: syntax.OpBeginLine}
		case syntax.OpEndText, syntax.OpEndLine:
			cr := &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune{'\r'}}
			return &syntax.Regexp{Op: syntax.OpConcat, Sub: []*syntax.Regexp{
				{Op: syntax.OpQuest, Sub: []*syntax.Regexp{cr}},
				{Op: syntax.OpEndLine},
			}}
		}
		for i, s := range r.Sub {
			r.Sub[i] = walk(s)
		}
		return r
	}
	return walk(t)
}

func cloneRegexp(r *syntax.Regexp) *syntax.Regexp {
	c := *r
	c.Sub = make([]*syntax.Regexp, len(r.Sub))
	for i, s := range r.Sub {
		c.Sub[i] = cloneRegexp(s)
	}
	return &c
}

// byteFrequency is how often each ASCII byte occurs in source text, per
// million bytes (counted over the Go source tree). Bytes past ASCII are
// rarer than any.
var byteFrequency = [utf8.RuneSelf]uint32{
	0, 0, 0, 0, 0, 0, 0, 0, 0, 36464, 30009, 0, 0, 3, 0, 0,
	0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	143300, 1198, 8784, 299, 565, 813, 1182, 987, 11611, 11604, 1899, 1337, 22930, 2505, 13720, 11863,
	34051, 13973, 10840, 7832, 8107, 5190, 7427, 4394, 6348, 4567, 9693, 1343, 1088, 8602, 955, 85,
	69, 11087, 3710, 5492, 4797, 6703, 3704, 2091, 1832, 5519, 490, 1021, 3903, 4380, 3604, 5351,
	4790, 1235, 6371, 7708, 6759, 2351, 3806, 1410, 3824, 1294, 664, 2532, 5070, 2526, 124, 7205,
	435, 29342, 8208, 18133, 15801, 48668, 16435, 9956, 9041, 27639, 751, 4116, 18026, 10541, 30856, 25177,
	12448, 831, 32104, 26016, 40043, 14824, 6263, 3889, 20678, 6584, 1194, 6262, 1291, 6239, 47, 0,
}

// rarest picks the byte of lit least common in source text (both cases of a
// letter when fold), so the literal scan stops at few false candidates: the
// first byte of "return nil" is six times as common as its "u".
func rarest(lit []byte, fold bool) int {
	best, bestFreq := 0, uint32(math.MaxUint32)
	for i, c := range lit {
		var f uint32 // past ASCII
		if c < utf8.RuneSelf {
			f = byteFrequency[c]
			if lc := c | 0x20; fold && lc >= 'a' && lc <= 'z' {
				f = byteFrequency[lc] + byteFrequency[lc&^0x20]
			}
		}
		if f < bestFreq {
			best, bestFreq = i, f
		}
	}
	return best
}

// rarestPair picks the two adjacent bytes of a folded lit least likely
// together in source text, by the product of their frequencies in either
// case, and returns the index of the first. A scan for a letter in both
// cases stops at every one of them, and in source text "u" or "x" is one
// byte in forty: the "xp" of "unexpected" is one in two thousand.
func rarestPair(lit []byte) int {
	freq := func(c byte) uint64 {
		if c >= utf8.RuneSelf {
			return 0
		}
		if lc := c | 0x20; lc >= 'a' && lc <= 'z' {
			return uint64(byteFrequency[lc]) + uint64(byteFrequency[lc&^0x20])
		}
		return uint64(byteFrequency[c])
	}
	best, bestFreq := 0, uint64(math.MaxUint64)
	for i := 0; i+1 < len(lit); i++ {
		if f := freq(lit[i]) * freq(lit[i+1]); f < bestFreq {
			best, bestFreq = i, f
		}
	}
	return best
}

// foldPairIndex returns the first i where b[i]|0x20 == a and
// b[i+1]|0x20 == c, or -1: for a letter both its cases, for other bytes a
// few more (a caller compares what it finds). It tests sixteen positions a
// step, eight to a word, where two scans for each case of one byte would
// stop at each of its many occurrences. Where the CPU has vector
// instructions (foldPairBlocks), they scan all but b's tail.
func foldPairIndex(b []byte, a, c byte) int {
	at, i := foldPairBlocks(b, a, c)
	if at >= 0 {
		return at
	}
	return foldPairIndexFrom(b, a, c, i)
}

// foldPairIndexFrom is foldPairIndex in plain Go, from place i on.
func foldPairIndexFrom(b []byte, a, c byte, i int) int {
	const ones, highs, lower = 0x0101010101010101, 0x8080808080808080, 0x2020202020202020
	wa, wc := ones*uint64(a), ones*uint64(c)
	// pairs flags the places in the eight bytes from w[0] where a pair
	// starts: a zero byte of x and of y at the same place. The test for
	// zero bytes may also flag a byte above a zero one.
	pairs := func(w []byte) uint64 {
		x := (binary.LittleEndian.Uint64(w[:8]) | lower) ^ wa
		y := (binary.LittleEndian.Uint64(w[1:9]) | lower) ^ wc
		return (x - ones) &^ x & (y - ones) &^ y & highs
	}
	for ; i+17 <= len(b); i += 16 {
		w := b[i : i+17 : i+17]
		m0, m1 := pairs(w[:9]), pairs(w[8:])
		for m := m0; m != 0; m &= m - 1 {
			if j := i + bits.TrailingZeros64(m)/8; b[j]|0x20 == a && b[j+1]|0x20 == c {
				return j
			}
		}
		for m := m1; m != 0; m &= m - 1 {
			if j := i + 8 + bits.TrailingZeros64(m)/8; b[j]|0x20 == a && b[j+1]|0x20 == c {
				return j
			}
		}
	}
	for ; i+1 < len(b); i++ {
		if b[i]|0x20 == a && b[i+1]|0x20 == c {
			return i
		}
	}
	return -1
}

// Hit is one matching line: its 1-based number and the byte range of its
// text (without the ending) in the searched body.
type Hit struct {
	N          int
	Start, End int
	// Col is where a match starts in the line's text, in bytes, when the
	// line is longer than a row shows whole (its row is a window around
	// the match); else 0. It is the first match's, unless that one spans
	// more than probeBytes beside the line's first literal.
	Col int
}

// checkWork is how much regexp work (bytes searched times program
// instructions) a search does between two looks at its context and time
// limit. At the slowest measured, about 8 ns a byte and instruction, that is
// under 10 ms: a cancelled search ends that fast whatever its pattern.
const checkWork = 1 << 20

// searchTimeLimit is how long the search of one file may run. A pattern that
// costly (a huge repeat on long lines) would take minutes on a large file;
// the search stops and grep says the file was searched only in part.
var searchTimeLimit = 3 * time.Second

// errTooSlow is why a search stopped at its time limit.
var errTooSlow = errors.New("the search of the file passed its time limit")

// Search walks the matching lines of one body in order.
type Search struct {
	m     *Matcher
	body  []byte
	from  int // a line start: the search goes on from here
	line  int // the number of the line starting at from
	scan  literalScan
	ended bool

	limit limit
	work  int // regexp work since the last look at the limit
	every int // the work between two looks: checkWork
}

// limit is when a search must stop: when its context is done or its time
// is up. The clock starts at the first look, so the many searches that
// never get there (small files, cheap patterns) do not read it.
type limit struct {
	ctx      context.Context
	deadline time.Time // zero until the first look
	err      error     // why the search stopped early
}

// Search starts a search of body (the text after any BOM). It stops early
// when ctx is done or the search passes searchTimeLimit; Err says which.
func (m *Matcher) Search(ctx context.Context, body []byte) *Search {
	return &Search{m: m, body: body, line: 1, limit: limit{ctx: ctx}, every: checkWork}
}

// Continue goes on with the next body of the same text (the next chunk of
// a file): its lines are numbered from 1 again, and the time limit and
// work count go on from where the search left them.
func (s *Search) Continue(body []byte) {
	*s = Search{m: s.m, body: body, line: 1, limit: s.limit, work: s.work, every: s.every}
}

// Next returns the next matching line, or false when there is none or the
// search stopped early.
func (s *Search) Next() (Hit, bool) {
	m, body := s.m, s.body
	for !s.ended && s.from < len(body) {
		var at int
		switch {
		case m.lit != nil:
			at = s.scan.index(body, s.from, m, &s.limit)
		default:
			at = s.candidate()
		}
		// A match at the very end belongs to a last line without ending;
		// after a final newline there is no line.
		if s.limit.err != nil || at < 0 || at == len(body) && body[len(body)-1] == '\n' {
			break
		}
		start := bytes.LastIndexByte(body[s.from:at], '\n') + 1 + s.from
		s.line += bytes.Count(body[s.from:start], []byte{'\n'})
		end, next := len(body), len(body)
		if i := bytes.IndexByte(body[at:], '\n'); i >= 0 {
			end, next = at+i, at+i+1
		}
		text := end
		if end > start && end < len(body) && body[end-1] == '\r' {
			text = end - 1
		}
		line, col := body[start:text], 0
		matched := m.pure
		switch {
		case !m.holdsAlso(line):
		case m.trail != nil:
			if p := m.trail.start(line, at-start, m.lit); p >= 0 {
				matched = true
				if len(line) > maxRowBytes {
					col = p
				}
			}
		case len(line) <= maxRowBytes && m.atFirst != nil:
			matched = s.leading(line, at-start)
		case len(line) <= maxRowBytes && !m.pure:
			matched = bounded(s, m.reSize, line, m.re.Match, m.re.MatchReader)
		case len(line) > maxRowBytes && m.pure:
			col = at - start
		case len(line) > maxRowBytes:
			// A row shows a window of a long line around its match. Where
			// a match in part of the line is one in the line, the part
			// around the literal is tried first: a regexp over a line of
			// megabytes runs on Go's slowest engine.
			var loc []int
			from := start
			if m.local && m.lit != nil {
				from = max(start, at-probeBytes)
				loc = bounded(s, m.reSize, body[from:min(text, at+len(m.lit)+probeBytes)], m.re.FindIndex, m.re.FindReaderIndex)
			}
			if loc == nil && s.limit.err == nil {
				from = start
				loc = bounded(s, m.reSize, line, m.re.FindIndex, m.re.FindReaderIndex)
			}
			if matched = loc != nil; matched {
				col = from - start + loc[0]
			}
		}
		if s.limit.err != nil {
			break
		}
		n := s.line
		s.from, s.line = next, s.line+1
		if matched {
			return Hit{N: n, Start: start, End: text, Col: col}, true
		}
	}
	s.ended = true
	return Hit{}, false
}

// candidate returns where the first match of the candidate regexp from
// s.from starts, or -1. It searches the body in windows of whole lines, so
// that a costly pattern is stopped between two windows (and, through
// bounded, inside a line too long for one window). A window holds at least
// half the work allowed between two looks at the limit; with the rest of
// its last line it most often stays within that work, and the regexp then
// runs on the bytes directly. Windows find what the whole body would: a
// line match lies inside its line, and a window's lines have the same
// neighbours as in the body, so a window holds a candidate at or before
// each of its matching lines.
func (s *Search) candidate() int {
	for from := s.from; from < len(s.body); {
		end := len(s.body)
		if w := from + s.every/s.m.candSize/2; w < end {
			if i := bytes.IndexByte(s.body[w:], '\n'); i >= 0 {
				end = w + i + 1
			}
		}
		if loc := bounded(s, s.m.candSize, s.body[from:end], s.m.cand.FindIndex, s.m.cand.FindReaderIndex); loc != nil {
			return from + loc[0]
		}
		if s.limit.err != nil {
			break
		}
		from = end
	}
	return -1
}

// Err returns why the search ended before the end of its body: the context's
// error, or errTooSlow. It is nil when the whole body was searched.
func (s *Search) Err() error { return s.limit.err }

// Line returns the number of the first line not searched whole: past the
// last line when the search ended normally, else the line where it stopped.
func (s *Search) Line() int { return s.line }

// bounded runs a regexp whose program has size instructions on b: directly
// when the work fits between two looks, else through a checkedReader, so a
// costly pattern stops even inside one long line. Its answer is meaningless
// once the limit has stopped the search.
func bounded[T any](s *Search, size int, b []byte, direct func([]byte) T, viaReader func(io.RuneReader) T) T {
	work := len(b) * size
	if s.work += work; s.work > s.every {
		s.work = 0
		s.limit.look()
	}
	var v T
	switch {
	case s.limit.err != nil:
	case work <= s.every:
		v = direct(b)
	default:
		// The reader gets a copy of the limit, so that only it, not the
		// search, goes to the heap with it.
		step := max(s.every/size, 1)
		r := &checkedReader{limit: s.limit, b: b, step: step, next: step}
		v = viaReader(r)
		s.limit = r.limit
	}
	return v
}

// look sets err when the context is done or the time is up.
func (l *limit) look() {
	switch {
	case l.err != nil:
	case l.ctx.Err() != nil:
		l.err = l.ctx.Err()
	case l.deadline.IsZero():
		l.deadline = time.Now().Add(searchTimeLimit)
	case time.Now().After(l.deadline):
		l.err = errTooSlow
	}
}

// checkedReader gives a body to the regexp package rune by rune, as it
// reads bytes, and looks at the limit every step bytes. Once the limit
// stopped the search, it ends the input, so the regexp returns at once.
type checkedReader struct {
	limit      limit
	b          []byte
	i          int
	step, next int // look every step bytes; next is where the next look is due
}

func (r *checkedReader) ReadRune() (rune, int, error) {
	if r.i >= r.next {
		r.limit.look()
		r.next = r.i + r.step
	}
	if r.i >= len(r.b) || r.limit.err != nil {
		return 0, 0, io.EOF
	}
	if c := r.b[r.i]; c < utf8.RuneSelf {
		r.i++
		return rune(c), 1, nil
	}
	c, n := utf8.DecodeRune(r.b[r.i:])
	r.i += n
	return c, n, nil
}

// literalScan finds a literal, exactly or ASCII case-insensitively: it
// jumps between occurrences of its rarest byte (in either case when
// folding) at memchr speed, then compares the window around each. Keyed on
// the first byte instead, as bytes.Index is, a common one ("r" of "return")
// makes it ten times slower. It remembers the next position of each case,
// so a search costs one pass per case however many hits it has. A long
// literal whose rare byte is everywhere costs up to its length at every
// byte, so the scan looks at the search's limit as the regexp does.
type literalScan struct {
	lo, up int // next positions of the rare byte's two cases (-1: none left)
	ready  bool
}

func (s *literalScan) index(body []byte, from int, m *Matcher, l *limit) int {
	lit, fold, rare := m.lit, m.fold, m.rare
	c := lit[rare]
	lower, upper := c, c
	if lc := c | 0x20; fold && lc >= 'a' && lc <= 'z' {
		lower, upper = lc, lc&^0x20
	}
	next := func(b byte, p int) int {
		if p >= len(body) {
			return -1
		}
		if i := bytes.IndexByte(body[p:], b); i >= 0 {
			return p + i
		}
		return -1
	}
	p, work := from+rare, 0
	if m.pair {
		s.ready, s.up = true, -1
	}
	if !s.ready {
		s.lo, s.up, s.ready = next(lower, p), -1, true
		if upper != lower {
			s.up = next(upper, p)
		}
	}
	for {
		if m.pair {
			s.lo = -1
			if i := foldPairIndex(body[min(p, len(body)):], lit[rare]|0x20, lit[rare+1]|0x20); i >= 0 {
				s.lo = p + i
			}
		}
		if s.lo >= 0 && s.lo < p {
			s.lo = next(lower, p)
		}
		if s.up >= 0 && s.up < p {
			s.up = next(upper, p)
		}
		q := s.lo
		if q < 0 || (s.up >= 0 && s.up < q) {
			q = s.up
		}
		if q < 0 {
			return -1
		}
		if work += len(lit); work > checkWork {
			work = 0
			if l.look(); l.err != nil {
				return -1
			}
		}
		start := q - rare
		if start+len(lit) <= len(body) && (fold && asciiEqualFold(body[start:start+len(lit)], lit) || !fold && bytes.Equal(body[start:start+len(lit)], lit)) {
			return start
		}
		p = q + 1
	}
}

func asciiEqualFold(a, b []byte) bool {
	for i := range a {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x|0x20 != y|0x20 || x|0x20 < 'a' || x|0x20 > 'z' {
			return false
		}
	}
	return true
}
