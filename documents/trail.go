package documents

import (
	"bytes"
	"regexp/syntax"
	"sort"
	"unicode/utf8"
)

// classRun is a pattern that is one class of runes repeated at least min
// times with no upper bound, then its literal: `\w+\(\)`, `\w+Engine`,
// `[A-Z]\S*Error`. A line holds a match iff, at one of the literal's
// places, the min runes before it are in the class, which is decided by
// decoding those runes backwards, where the regexp package would run the
// whole pattern from every byte of the line (with Unicode classes, Go's
// slowest programs).
type classRun struct {
	min   int
	ascii [2]uint64 // the ASCII runes of the class, as bits
	wide  []rune    // the class's ranges past ASCII, as lo, hi pairs in order
}

// trailingClass returns the classRun t is when its literal is lit and
// case-sensitive, else nil.
func trailingClass(t *syntax.Regexp, lit string) *classRun {
	for t.Op == syntax.OpCapture {
		t = t.Sub[0]
	}
	if t.Op != syntax.OpConcat || len(t.Sub) != 2 {
		return nil
	}
	run, last := t.Sub[0], t.Sub[1]
	if last.Op != syntax.OpLiteral || last.Flags&syntax.FoldCase != 0 || string(last.Rune) != lit {
		return nil
	}
	c := &classRun{}
	switch run.Op {
	case syntax.OpStar:
	case syntax.OpPlus:
		c.min = 1
	case syntax.OpRepeat:
		if run.Max != -1 {
			return nil
		}
		c.min = run.Min
	default:
		return nil
	}
	var ranges []rune
	switch class := run.Sub[0]; class.Op {
	case syntax.OpCharClass:
		ranges = class.Rune
	case syntax.OpAnyCharNotNL:
		ranges = []rune{0, '\n' - 1, '\n' + 1, utf8.MaxRune}
	case syntax.OpAnyChar:
		ranges = []rune{0, utf8.MaxRune}
	default:
		return nil
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for r := lo; r <= min(hi, utf8.RuneSelf-1); r++ {
			c.ascii[r/64] |= 1 << (r % 64)
		}
		if hi >= utf8.RuneSelf {
			c.wide = append(c.wide, max(lo, utf8.RuneSelf), hi)
		}
	}
	return c
}

// has reports whether r is in the class. An invalid byte decodes as
// utf8.RuneError, as the regexp package reads it.
func (c *classRun) has(r rune) bool {
	if r < utf8.RuneSelf {
		return c.ascii[r/64]&(1<<(r%64)) != 0
	}
	i := sort.Search(len(c.wide)/2, func(i int) bool { return c.wide[2*i+1] >= r })
	return i < len(c.wide)/2 && c.wide[2*i] <= r
}

// start returns where the leftmost match in line starts, given the first
// place q of lit from the line's start (it may be past the line's text, in
// its ending), or -1 when line holds no match.
func (c *classRun) start(line []byte, q int, lit []byte) int {
	for {
		if q+len(lit) > len(line) {
			return -1
		}
		p, n := q, 0
		for ; n < c.min && p > 0; n++ {
			r, size := utf8.DecodeLastRune(line[:p])
			if !c.has(r) {
				break
			}
			p -= size
		}
		if n == c.min {
			// No match starts before the class's run that ends at q: a
			// rune outside the class stands between.
			for p > 0 {
				r, size := utf8.DecodeLastRune(line[:p])
				if !c.has(r) {
					break
				}
				p -= size
			}
			return p
		}
		i := bytes.Index(line[q+1:], lit)
		if i < 0 {
			return -1
		}
		q += 1 + i
	}
}
