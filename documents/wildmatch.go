package documents

// wildmatch is git's glob matcher (wildmatch.c), the one its ignore rules
// use: "?", "*" and bracket classes (ranges, "!" or "^" to negate, POSIX
// "[:alpha:]" names, "\" escapes), and with pathname set "*", "?" and
// classes stop at "/" while a "**" standing between slashes, or at either
// end, crosses them. Anything but this exact behaviour would let the walk
// disagree with git about which files a repository ignores.

// wild is the outcome of matching the rest of a pattern. The two aborts
// prune the retries of the stars further out, as git's do.
type wild int8

const (
	wildMatch           wild = iota
	wildNoMatch              // no match here; a star further out may try on
	wildAbortAll             // the text ran out: no star further out can help
	wildAbortToStarStar      // only a "**" further out may try on
)

// wildmatch reports whether text matches pattern p. With fold (git's
// WM_CASEFOLD) the caller has put text and p in lower case as foldGlob
// does, and only what lower case cannot say is left here: a range also
// takes a letter whose upper case is in it, and [:upper:] takes any letter.
func wildmatch(p, text string, pathname, fold bool) bool {
	return dowild(p, text, pathname, fold) == wildMatch
}

func dowild(p, text string, pathname, fold bool) wild {
	// at reads like C's NUL-terminated strings: 0 past the end.
	at := func(s string, i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc, tc := p[pi], at(text, ti)
		if ti >= len(text) && pc != '*' {
			return wildAbortAll
		}
		switch pc {
		case '\\':
			// The next byte literally; a "\" ending the pattern matches nothing.
			pi++
			if tc != at(p, pi) {
				return wildNoMatch
			}
		case '?':
			if pathname && tc == '/' {
				return wildNoMatch
			}
		case '*':
			crossSlash := !pathname
			if pi++; at(p, pi) == '*' {
				before := pi - 2 // the byte before the stars, -1 at the start
				for pi < len(p) && p[pi] == '*' {
					pi++
				}
				if pathname && (before < 0 || p[before] == '/') &&
					(pi == len(p) || p[pi] == '/' || p[pi] == '\\' && at(p, pi+1) == '/') {
					// "**/" may match no directory at all: "a/**/b" matches "a/b".
					if at(p, pi) == '/' && dowild(p[pi+1:], text[ti:], pathname, fold) == wildMatch {
						return wildMatch
					}
					crossSlash = true
				}
				if !pathname {
					crossSlash = true
				}
			}
			if pi == len(p) {
				// A trailing "*" matches the rest of one name, "**" the rest.
				if !crossSlash && indexByte(text[ti:], '/') >= 0 {
					return wildNoMatch
				}
				return wildMatch
			}
			if !crossSlash && p[pi] == '/' {
				// "*/" takes the rest of this name; the loop then steps over
				// the "/" in both.
				slash := indexByte(text[ti:], '/')
				if slash < 0 {
					return wildNoMatch
				}
				ti += slash
				continue
			}
			for ti < len(text) {
				tc = text[ti]
				// A literal after the star: skip to where it occurs.
				if next := p[pi]; !globSpecial(next) {
					for ti < len(text) && (crossSlash || text[ti] != '/') && text[ti] != next {
						ti++
					}
					tc = at(text, ti)
					if tc != next {
						return wildNoMatch
					}
				}
				if m := dowild(p[pi:], text[ti:], pathname, fold); m != wildNoMatch {
					if !crossSlash || m != wildAbortToStarStar {
						return m
					}
				} else if !crossSlash && tc == '/' {
					return wildAbortToStarStar
				}
				ti++
			}
			return wildAbortAll
		case '[':
			n, ok := matchClass(p, pi, tc, fold)
			if n < 0 {
				return wildAbortAll
			}
			if !ok || pathname && tc == '/' {
				return wildNoMatch
			}
			pi = n
		default:
			if tc != pc {
				return wildNoMatch
			}
		}
	}
	if ti < len(text) {
		return wildNoMatch
	}
	return wildMatch
}

// matchClass matches c against the bracket class opening at p[open]. It
// returns the index of the class's closing "]" (-1 when the class is not
// closed or names an unknown POSIX class) and whether c is in it.
func matchClass(p string, open int, c byte, fold bool) (end int, in bool) {
	at := func(i int) byte {
		if i < len(p) {
			return p[i]
		}
		return 0
	}
	i := open + 1
	negated := false
	if at(i) == '!' || at(i) == '^' {
		negated = true
		i++
	}
	var prev byte // the last single byte, a range's start; 0 after a range or a named class
	for first := true; first || at(i) != ']'; first = false {
		pc := at(i)
		switch {
		case pc == 0:
			return -1, false
		case pc == '\\':
			i++
			if pc = at(i); pc == 0 {
				return -1, false
			}
			in = in || c == pc
		case pc == '-' && prev != 0 && at(i+1) != 0 && at(i+1) != ']':
			i++
			hi := at(i)
			if hi == '\\' {
				i++
				if hi = at(i); hi == 0 {
					return -1, false
				}
			}
			in = in || prev <= c && c <= hi || fold && 'a' <= c && c <= 'z' && prev <= c-'a'+'A' && c-'a'+'A' <= hi
			pc = 0
		case pc == '[' && at(i+1) == ':':
			name := i + 2
			close := name
			for at(close) != 0 && at(close) != ']' {
				close++
			}
			if at(close) == 0 {
				return -1, false
			}
			if close-name-1 < 0 || p[close-1] != ':' {
				// No ":]": the "[" is an ordinary member.
				in = in || c == '['
				break
			}
			member, known := posixClass(p[name:close-1], c, fold)
			if !known {
				return -1, false
			}
			in = in || member
			i, pc = close, 0
		default:
			in = in || c == pc
		}
		prev = pc
		i++
	}
	return i, in != negated
}

// posixClass reports whether c is in the named class, in the C locale;
// with fold, [:upper:] and [:lower:] take letters of either case.
func posixClass(name string, c byte, fold bool) (in, known bool) {
	upper, lower, digit := 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9'
	punct := '!' <= c && c <= '/' || ':' <= c && c <= '@' || '[' <= c && c <= '`' || '{' <= c && c <= '~'
	switch name {
	case "alnum":
		return upper || lower || digit, true
	case "alpha":
		return upper || lower, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < ' ' || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return '!' <= c && c <= '~', true
	case "lower":
		return lower || fold && upper, true
	case "print":
		return ' ' <= c && c <= '~', true
	case "punct":
		return punct, true
	case "space":
		return c == ' ' || '\t' <= c && c <= '\r', true
	case "upper":
		return upper || fold && lower, true
	case "xdigit":
		return digit || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F', true
	}
	return false, false
}

// globSpecial reports whether c has a meaning in a glob (git's
// is_glob_special).
func globSpecial(c byte) bool { return c == '*' || c == '?' || c == '[' || c == '\\' }

// literalLen is the length of p's leading run of bytes without a meaning
// (git's simple_length).
func literalLen(p string) int {
	for i := 0; i < len(p); i++ {
		if globSpecial(p[i]) {
			return i
		}
	}
	return len(p)
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// foldGlob is glob as git's WM_CASEFOLD reads it against lower-cased text:
// a letter standing for itself is lowered, but an escaped letter and a
// class's members are compared as written, so that "\M" and "[M]" match
// no lower-cased name at all, in git as here.
func foldGlob(glob string) string {
	b := []byte(glob)
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\\':
			i++
		case c == '[':
			end, _ := matchClass(glob, i, 0, true)
			if end < 0 {
				return string(b) // the class never closes: nothing matches
			}
			i = end
		case 'A' <= c && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}
