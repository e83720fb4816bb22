package documents

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/tandemdev/tandem/refusal"
)

// Matcher finds the lines of a text that match a pattern, in the shared line
// model: a line's text excludes its ending, so "$" matches before "\r\n".
//
// It searches whole buffers, not line by line: the longest literal the
// pattern requires is found with bytes.Index (or a case-folding scan), and
// only the line around each hit is checked with the regexp. A pattern with no
// required literal runs a candidate regexp over the whole buffer whose
// matches are a superset of the line matches, then checks each line.
type Matcher struct {
	re   *regexp.Regexp // the pattern, applied to one line's text
	lit  []byte         // a literal every match contains, or nil
	fold bool           // lit matches ASCII case-insensitively
	rare int            // index in lit of the byte the fold scan looks for
	pure bool           // a line matches iff it contains lit
	cand *regexp.Regexp // whole-buffer candidates when lit is nil
}

// Compile builds a Matcher for grep's pattern and flags.
func Compile(pattern string, ignoreCase, literal bool) (*Matcher, error) {
	expr := pattern
	if literal {
		expr = regexp.QuoteMeta(pattern)
	}
	if ignoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf(
			"The pattern %q is not a valid regular expression (%v). Fix it, or pass literal: true to search for the text as written.",
			pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: ")))
	}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	m := &Matcher{re: re}
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
		if fold {
			m.rare = rarest(m.lit)
		}
	default:
		m.cand = regexp.MustCompile(lineSuperset(tree).String())
	}
	return m, nil
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

// rarest picks the byte of lit least common in source text, so the fold
// scan stops at few false candidates.
func rarest(lit []byte) int {
	const common = " etaoinsrhldcumfpgwybvkxjqz" // most to least common letters
	best, bestRank := 0, -1
	for i, c := range lit {
		rank := len(common) + 1 // punctuation and digits: rarer than letters
		if lc := c | 0x20; c == ' ' || lc >= 'a' && lc <= 'z' {
			rank = strings.IndexByte(common, lc&^0x20|0x20)
			if c == ' ' {
				rank = 0
			}
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	return best
}

// Hit is one matching line: its 1-based number and the byte range of its
// text (without the ending) in the searched body.
type Hit struct {
	N          int
	Start, End int
}

// Search walks the matching lines of one body in order.
type Search struct {
	m     *Matcher
	body  []byte
	from  int // a line start: the search goes on from here
	line  int // the number of the line starting at from
	fold  foldScan
	ended bool
}

// Search starts a search of body (the text after any BOM).
func (m *Matcher) Search(body []byte) *Search {
	return &Search{m: m, body: body, line: 1}
}

// Next returns the next matching line, or false when there is none.
func (s *Search) Next() (Hit, bool) {
	m, body := s.m, s.body
	for !s.ended && s.from < len(body) {
		var at int
		switch {
		case m.lit != nil && m.fold:
			at = s.fold.index(body, s.from, m.lit, m.rare)
		case m.lit != nil:
			if at = bytes.Index(body[s.from:], m.lit); at >= 0 {
				at += s.from
			}
		default:
			at = -1
			if loc := m.cand.FindIndex(body[s.from:]); loc != nil {
				at = s.from + loc[0]
			}
		}
		// A match at the very end belongs to a last line without ending;
		// after a final newline there is no line.
		if at < 0 || at == len(body) && body[len(body)-1] == '\n' {
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
		n := s.line
		s.from, s.line = next, s.line+1
		if m.pure || m.re.Match(body[start:text]) {
			return Hit{N: n, Start: start, End: text}, true
		}
	}
	s.ended = true
	return Hit{}, false
}

// foldScan finds an ASCII case-insensitive literal: it jumps between
// occurrences of its rarest byte in either case (memchr speed), then
// compares the window around each. It remembers the next position of each
// case, so a search costs one pass per case however many hits it has.
type foldScan struct {
	lo, up int // next positions of the rare byte's two cases (-1: none left)
	ready  bool
}

func (s *foldScan) index(body []byte, from int, lit []byte, rare int) int {
	c := lit[rare]
	lower, upper := c, c
	if lc := c | 0x20; lc >= 'a' && lc <= 'z' {
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
	p := from + rare
	if !s.ready {
		s.lo, s.up, s.ready = next(lower, p), next(upper, p), true
	}
	for {
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
		start := q - rare
		if start+len(lit) <= len(body) && asciiEqualFold(body[start:start+len(lit)], lit) {
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
