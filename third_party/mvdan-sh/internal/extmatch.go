// Copyright (c) 2026, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

package internal

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/pattern"
)

// A pattern holding !(…) cannot become a Go regexp, which has no negation;
// it is matched as bash's extmatch does, by trying where each part of the
// pattern could end. (tandem: upstream took only one !(…) between fixed
// text, so `*.!(md)` and `!(b)@(b|c)` failed.)

// extNode is one part of a pattern: a character, a wildcard, a bracket
// expression, or an extended group.
type extNode struct {
	kind byte // 'c' a character, '?' or '*' a wildcard, '[' a bracket, 'g' a group
	r    rune
	rx   *regexp.Regexp // of a bracket expression, matching one character
	op   byte           // of a group: one of ?*+@!
	alts [][]extNode    // of a group
}

// parseExt reads pat from i up to the end, or with inGroup up to the `|` or
// `)` that ends an alternative of a group; it returns the parts and where
// it stopped.
func parseExt(pat string, i int, mode pattern.Mode, inGroup bool) ([]extNode, int, error) {
	var nodes []extNode
	for i < len(pat) {
		c := pat[i]
		switch {
		case inGroup && (c == '|' || c == ')'):
			return nodes, i, nil
		case c == '\\' && i+1 < len(pat):
			r, size := utf8.DecodeRuneInString(pat[i+1:])
			nodes = append(nodes, extNode{kind: 'c', r: r})
			i += 1 + size
			continue
		case strings.IndexByte("?*+@!", c) >= 0 && i+1 < len(pat) && pat[i+1] == '(':
			if g, end, ok, err := parseGroup(pat, i, mode); err != nil {
				return nil, 0, err
			} else if ok {
				nodes = append(nodes, g)
				i = end
				continue
			}
		case c == '?' || c == '*':
			nodes = append(nodes, extNode{kind: c})
			i++
			continue
		case c == '[':
			if end := bracketEnd(pat, i); end > 0 {
				expr, err := pattern.Regexp(pat[i:end], (mode&pattern.NoGlobCase)|pattern.EntireString)
				if err != nil {
					return nil, 0, err
				}
				rx, err := regexp.Compile(expr)
				if err != nil {
					return nil, 0, err
				}
				nodes = append(nodes, extNode{kind: '[', rx: rx})
				i = end
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(pat[i:])
		nodes = append(nodes, extNode{kind: 'c', r: r})
		i += size
	}
	return nodes, i, nil
}

// parseGroup reads the group starting at pat[i], `@(a|b)` and the like;
// ok is false when no `)` closes it, and it is then text.
func parseGroup(pat string, i int, mode pattern.Mode) (g extNode, end int, ok bool, err error) {
	g = extNode{kind: 'g', op: pat[i]}
	j := i + 2
	for {
		alt, stop, err := parseExt(pat, j, mode, true)
		if err != nil {
			return g, 0, false, err
		}
		if stop >= len(pat) {
			return g, 0, false, nil
		}
		g.alts = append(g.alts, alt)
		if pat[stop] == ')' {
			return g, stop + 1, true, nil
		}
		j = stop + 1
	}
}

// bracketEnd returns the index after the `]` closing the bracket
// expression at pat[i], or 0 when none does.
func bracketEnd(pat string, i int) int {
	j := i + 1
	if j < len(pat) && (pat[j] == '!' || pat[j] == '^') {
		j++
	}
	if j < len(pat) && pat[j] == ']' {
		j++ // a `]` first is a member
	}
	for j < len(pat) {
		switch {
		case pat[j] == '\\':
			j++
		case pat[j] == '[' && j+1 < len(pat) && strings.IndexByte(":.=", pat[j+1]) >= 0:
			if end := strings.Index(pat[j+2:], string(pat[j+1])+"]"); end >= 0 {
				j += end + 4
				continue
			}
		case pat[j] == ']':
			return j + 1
		}
		j++
	}
	return 0
}

// extMatcher matches a whole string against pat.
func extMatcher(pat string, mode pattern.Mode) (func(string) bool, error) {
	nodes, _, err := parseExt(pat, 0, mode, false)
	if err != nil {
		return nil, err
	}
	return func(s string) bool {
		if mode&pattern.Filenames != 0 && mode&pattern.GlobLeadingDot == 0 && strings.HasPrefix(s, ".") &&
			(len(nodes) == 0 || nodes[0].kind != 'c' || nodes[0].r != '.') {
			return false // a leading dot is matched only by a dot
		}
		m := extMatch{s: s, fold: mode&pattern.NoGlobCase != 0, files: mode&pattern.Filenames != 0, seen: map[extState]bool{}}
		return m.seq(nodes, 0, len(s))
	}, nil
}

type extMatch struct {
	s     string
	fold  bool // nocasematch or nocaseglob
	files bool // a wildcard matches no `/`
	// seen holds what seq answered, so that the tries stay polynomial in
	// the string's length.
	seen map[extState]bool
}

// extState is a question seq answers: whether the parts from first on
// match s[pos:end].
type extState struct {
	first       *extNode
	n, pos, end int
}

// seq reports whether nodes match s[pos:end] whole.
func (m *extMatch) seq(nodes []extNode, pos, end int) bool {
	if len(nodes) == 0 {
		return pos == end
	}
	key := extState{&nodes[0], len(nodes), pos, end}
	if ok, seen := m.seen[key]; seen {
		return ok
	}
	ok := m.seq1(nodes, pos, end)
	m.seen[key] = ok
	return ok
}

func (m *extMatch) seq1(nodes []extNode, pos, end int) bool {
	n, rest := nodes[0], nodes[1:]
	switch n.kind {
	case 'c', '?', '[':
		r, size := utf8.DecodeRuneInString(m.s[pos:end])
		if size == 0 {
			return false
		}
		switch n.kind {
		case 'c':
			if r != n.r && !(m.fold && strings.EqualFold(string(r), string(n.r))) {
				return false
			}
		case '?':
			if m.files && r == '/' {
				return false
			}
		case '[':
			if !n.rx.MatchString(string(r)) {
				return false
			}
		}
		return m.seq(rest, pos+size, end)
	case '*':
		for e := end; e >= pos; e-- {
			if m.boundary(e) && !(m.files && strings.Contains(m.s[pos:e], "/")) && m.seq(rest, e, end) {
				return true
			}
		}
		return false
	}
	for e := pos; e <= end; e++ {
		if m.boundary(e) && m.group(n, pos, e) && m.seq(rest, e, end) {
			return true
		}
	}
	return false
}

// boundary reports whether i starts a character of s (or is its end).
func (m *extMatch) boundary(i int) bool {
	return i == len(m.s) || utf8.RuneStart(m.s[i])
}

// group reports whether the group n matches s[pos:end] whole.
func (m *extMatch) group(n extNode, pos, end int) bool {
	switch n.op {
	case '@':
		return m.anyAlt(n.alts, pos, end)
	case '?':
		return pos == end || m.anyAlt(n.alts, pos, end)
	case '*':
		return pos == end || m.repeat(n.alts, pos, end)
	case '+':
		return m.repeat(n.alts, pos, end)
	default: // '!'
		return !(m.files && strings.Contains(m.s[pos:end], "/")) && !m.anyAlt(n.alts, pos, end)
	}
}

func (m *extMatch) anyAlt(alts [][]extNode, pos, end int) bool {
	for _, alt := range alts {
		if m.seq(alt, pos, end) {
			return true
		}
	}
	return false
}

// repeat reports whether s[pos:end] is one or more matches of alts.
func (m *extMatch) repeat(alts [][]extNode, pos, end int) bool {
	if pos == end {
		return m.anyAlt(alts, pos, end)
	}
	for mid := pos + 1; mid <= end; mid++ {
		if m.boundary(mid) && m.anyAlt(alts, pos, mid) && (mid == end || m.repeat(alts, mid, end)) {
			return true
		}
	}
	return false
}
