package documents

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// ripgrepClasses rewrites the Perl classes of a pattern to what they mean
// in ripgrep, whose regexes are Unicode-aware unless a (?-u) flag turns
// that off: \w is a Unicode word character (Alphabetic, M, Nd, Pc,
// Join_Control), \d a Unicode decimal digit (Nd), \s Unicode White_Space,
// and \W, \D, \S their complements — where Go's regexp gives all six their
// ASCII meaning. It rewrites them outside and inside brackets, leaves
// escapes (\Q…\E, \p{…}, \x{…}) and POSIX classes as they are, follows the
// u flag through groups, and drops the flag, which Go does not know. \b
// and \B stay Go's, ASCII (see docs/tools.md).
func ripgrepClasses(pattern string) string {
	var out strings.Builder
	unicodeOn := true
	var outer []bool // the u flag outside each open group
	inClass := false
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			e := pattern[i+1]
			switch {
			case e == 'Q':
				end := strings.Index(pattern[i:], `\E`)
				if end < 0 {
					end = len(pattern) - i
				} else {
					end += 2
				}
				out.WriteString(pattern[i : i+end])
				i += end
				continue
			case (e == 'p' || e == 'P' || e == 'x') && i+2 < len(pattern) && pattern[i+2] == '{':
				end := strings.IndexByte(pattern[i:], '}')
				if end < 0 {
					end = len(pattern) - i - 1
				}
				out.WriteString(pattern[i : i+end+1])
				i += end + 1
				continue
			case unicodeOn && strings.IndexByte("dDsSwW", e) >= 0:
				out.WriteString(perlClass(e, inClass))
				i += 2
				continue
			}
			_, size := utf8.DecodeRuneInString(pattern[i+1:])
			out.WriteString(pattern[i : i+1+size])
			i += 1 + size
			continue
		case inClass && c == '[' && strings.HasPrefix(pattern[i:], "[:"):
			if end := strings.Index(pattern[i+2:], ":]"); end >= 0 {
				out.WriteString(pattern[i : i+2+end+2])
				i += 2 + end + 2
				continue
			}
		case inClass && c == ']':
			inClass = false
		case !inClass && c == '[':
			// A "]" right after "[" or "[^" is a member, not the end.
			j := i + 1
			if j < len(pattern) && pattern[j] == '^' {
				j++
			}
			if j < len(pattern) && pattern[j] == ']' {
				j++
			}
			out.WriteString(pattern[i:j])
			i, inClass = j, true
			continue
		case !inClass && c == '(':
			flags, rest, ok := groupFlags(pattern[i+1:])
			if !ok {
				outer = append(outer, unicodeOn)
				break
			}
			kept, on := dropUnicodeFlag(flags, unicodeOn)
			if strings.HasPrefix(rest, ":") {
				outer = append(outer, unicodeOn)
				out.WriteString("(?" + kept + ":")
			} else if kept != "" {
				out.WriteString("(?" + kept + ")")
			}
			unicodeOn = on
			i += 1 + 1 + len(flags) + 1
			continue
		case !inClass && c == ')' && len(outer) > 0:
			unicodeOn, outer = outer[len(outer)-1], outer[:len(outer)-1]
		}
		out.WriteByte(c)
		i++
	}
	return out.String()
}

// groupFlags reads the flags of a group that sets them, "(?i-u)" or
// "(?i-u:", from just after its "(": the flags and the rest from its ")"
// or ":" on.
func groupFlags(s string) (flags, rest string, ok bool) {
	if !strings.HasPrefix(s, "?") {
		return "", "", false
	}
	end := strings.IndexAny(s[1:], ":)")
	if end < 0 {
		return "", "", false
	}
	flags = s[1 : 1+end]
	if flags == "" && s[1+end] == ')' { // "(?)": Go's parser tells what is wrong
		return "", "", false
	}
	for _, f := range flags {
		if !strings.ContainsRune("imsUu-", f) {
			return "", "", false
		}
	}
	return flags, s[1+end:], true
}

// dropUnicodeFlag removes the u flag from flags, which Go does not know,
// and returns the rest (without a dangling "-") and whether Unicode is on
// after them.
func dropUnicodeFlag(flags string, on bool) (string, bool) {
	set, clear, _ := strings.Cut(flags, "-")
	if strings.Contains(set, "u") {
		on = true
	}
	if strings.Contains(clear, "u") {
		on = false
	}
	set, clear = strings.ReplaceAll(set, "u", ""), strings.ReplaceAll(clear, "u", "")
	if clear == "" {
		return set, on
	}
	return set + "-" + clear, on
}

// perlClass is the Unicode form of \d, \s, \w (e) or their negations
// (upper case), for use inside brackets or on its own.
func perlClass(e byte, inClass bool) string {
	switch e {
	case 'd':
		return `\p{Nd}`
	case 'D':
		return `\P{Nd}`
	}
	sets := unicodeSets()
	members := sets[e|0x20]
	switch {
	case e >= 'a' && inClass:
		return members.in
	case e >= 'a':
		return "[" + members.in + "]"
	case inClass:
		return members.out
	}
	return "[^" + members.in + "]"
}

// classText is a class's members written for a bracket expression, and
// its complement's.
type classText struct{ in, out string }

// unicodeSets are \w's and \s's members, built once from Go's tables.
var unicodeSets = sync.OnceValue(func() map[byte]classText {
	word := []*unicode.RangeTable{unicode.L, unicode.Nl, unicode.Other_Alphabetic, unicode.M, unicode.Nd, unicode.Pc, unicode.Join_Control}
	return map[byte]classText{'w': classOf(word...), 's': classOf(unicode.White_Space)}
})

// classOf writes the union of tables, and its complement, as ranges.
func classOf(tables ...*unicode.RangeTable) classText {
	type span struct{ lo, hi rune }
	var spans []span
	add := func(lo, hi, stride rune) {
		if stride == 1 {
			spans = append(spans, span{lo, hi})
			return
		}
		for c := lo; c <= hi; c += stride {
			spans = append(spans, span{c, c})
		}
	}
	for _, t := range tables {
		for _, r := range t.R16 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
		for _, r := range t.R32 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	var merged []span
	for _, s := range spans {
		if n := len(merged); n > 0 && s.lo <= merged[n-1].hi+1 {
			merged[n-1].hi = max(merged[n-1].hi, s.hi)
			continue
		}
		merged = append(merged, s)
	}
	write := func(b *strings.Builder, lo, hi rune) {
		if lo == hi {
			fmt.Fprintf(b, `\x{%x}`, lo)
		} else {
			fmt.Fprintf(b, `\x{%x}-\x{%x}`, lo, hi)
		}
	}
	var in, out strings.Builder
	next := rune(0)
	for _, s := range merged {
		write(&in, s.lo, s.hi)
		if s.lo > next {
			write(&out, next, s.lo-1)
		}
		next = s.hi + 1
	}
	if next <= unicode.MaxRune {
		write(&out, next, unicode.MaxRune)
	}
	return classText{in.String(), out.String()}
}
