package classify

import "strings"

// opts describes a command's options the way getopt_long reads them: short
// letters in groups (a letter followed by ':' takes a value, from the rest of
// its group or the next word), long options by any unambiguous prefix
// ("name" a flag, "name=" a value that may be the next word, "name?" a value
// only when attached with '='). An option the table does not know takes the
// next word as its value when none is attached: then the count of path
// operands errs low, which only widens the working-directory rule.
type opts struct {
	short string
	long  []string
	// posix stops at the first operand, as wrappers read their options
	// (timeout 5 rm -f x: -f is rm's).
	posix bool
}

// parsed is an argv read by opts.
type parsed struct {
	ops  []string            // operands, in order
	vals []string            // option values, in order
	has  map[string][]string // "-x" or "--name" → the values it was given ("" for a flag)
}

func (p parsed) set(key string) bool { _, ok := p.has[key]; return ok }

// val is the last value given to key.
func (p parsed) val(key string) string {
	v := p.has[key]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// merge is a followed by b, as if b's words came after a's (a config
// file's options before the command line's).
func merge(a, b parsed) parsed {
	out := parsed{ops: append(append([]string(nil), a.ops...), b.ops...),
		vals: append(append([]string(nil), a.vals...), b.vals...), has: map[string][]string{}}
	for _, x := range []parsed{a, b} {
		for k, v := range x.has {
			out.has[k] = append(out.has[k], v...)
		}
	}
	return out
}

func (o opts) shortTakes(l byte) (known, value bool) {
	i := strings.IndexByte(o.short, l)
	if i < 0 || l == ':' {
		return false, false
	}
	return true, i+1 < len(o.short) && o.short[i+1] == ':'
}

// longMatches gives the long options a written name can mean: the exact
// name, else every option it is a prefix of (getopt_long takes a unique
// prefix; for an ambiguous one every candidate counts, which errs toward the
// worse reading).
func (o opts) longMatches(name string) []string {
	var cands []string
	for _, l := range o.long {
		n := strings.TrimRight(l, "=?")
		if n == name {
			return []string{l}
		}
		if strings.HasPrefix(n, name) {
			cands = append(cands, l)
		}
	}
	return cands
}

func (o opts) parse(args []string) parsed {
	p := parsed{has: map[string][]string{}}
	put := func(k, v string, isVal bool) {
		p.has[k] = append(p.has[k], v)
		if isVal {
			p.vals = append(p.vals, v)
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			p.ops = append(p.ops, args[i+1:]...)
			return p
		case strings.HasPrefix(a, "--"):
			name, val, attached := strings.Cut(a[2:], "=")
			cands := o.longMatches(name)
			if len(cands) == 0 {
				if !attached && i+1 < len(args) {
					i++
					val, attached = args[i], true
				}
				put("--"+name, val, attached)
				continue
			}
			takes := false
			for _, l := range cands {
				takes = takes || strings.HasSuffix(l, "=")
			}
			if takes && !attached && i+1 < len(args) {
				i++
				val, attached = args[i], true
			}
			for _, l := range cands {
				put("--"+strings.TrimRight(l, "=?"), val, false)
			}
			if attached {
				p.vals = append(p.vals, val)
			}
		case len(a) > 1 && a[0] == '-' && isDigits(a[1:]):
			// -5: the obsolete count form (head -5, nice -5); it takes no word.
			put(a, "", false)
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				l := a[j]
				known, value := o.shortTakes(l)
				last := j == len(a)-1
				if value || !known && last {
					v := a[j+1:]
					if last {
						if i+1 >= len(args) {
							put("-"+string(l), "", false)
							break
						}
						i++
						v = args[i]
					}
					put("-"+string(l), v, true)
					break
				}
				put("-"+string(l), "", false)
			}
		default:
			if o.posix {
				p.ops = append(p.ops, args[i:]...)
				return p
			}
			p.ops = append(p.ops, a)
		}
	}
	return p
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
