package classify

import (
	"strings"

	"github.com/tandemdev/tandem/approvals"
)

// sedOpts are the options a sed step may have and stay classified; any
// other (-f, --debug, --follow-symlinks, -l, --sandbox, …) is exec.
var sedOpts = opts{long: []string{"quiet", "silent", "regexp-extended",
	"separate", "unbuffered", "null-data", "zero-terminated", "expression=", "in-place?", "posix"}}

var sedKnownShort = "nErsuzie"

// sedRow classifies sed: each script must be a known-safe form, else the
// step is exec. -i with safe scripts writes the files it names.
func sedRow(c *classifier, args []string, dir string) {
	var scripts, files []string
	inPlace := false
	exec := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, val, attached := strings.Cut(a[2:], "=")
			cands := sedOpts.longMatches(name)
			if len(cands) != 1 {
				exec = true
				continue
			}
			switch strings.TrimRight(cands[0], "=?") {
			case "expression":
				if !attached && i+1 < len(args) {
					i++
					val = args[i]
				}
				scripts = append(scripts, val)
			case "in-place":
				inPlace = true
				if attached {
					c.sedSuffix(dir, val)
				}
			}
		case len(a) > 1 && a[0] == '-':
		letters:
			for j := 1; j < len(a); j++ {
				l := a[j]
				switch {
				case l == 'e':
					if j+1 < len(a) {
						scripts = append(scripts, a[j+1:])
					} else if i+1 < len(args) {
						i++
						scripts = append(scripts, args[i])
					}
					break letters
				case l == 'i':
					inPlace = true
					if j+1 < len(a) {
						c.sedSuffix(dir, a[j+1:])
					}
					break letters
				case strings.IndexByte(sedKnownShort, l) < 0:
					exec = true
				}
			}
		default:
			files = append(files, a)
		}
	}
	if len(scripts) == 0 && len(files) > 0 {
		scripts, files = files[:1], files[1:]
	}
	for _, s := range scripts {
		if !sedSafe(s) {
			exec = true
		}
		c.read(dir, s)
	}
	c.add(approvals.Read)
	if exec {
		c.add(approvals.Exec)
	}
	c.words(dir, files, inPlace)
}

// sedSuffix judges an -i backup suffix: one holding '/' names a directory
// the backups are written to.
func (c *classifier) sedSuffix(dir, suffix string) {
	if strings.Contains(suffix, "/") {
		c.write(dir, suffix)
	}
}

// sedSafe reports whether a sed script uses only the safe commands:
// p P d D q Q = n N g G h H x { }, s with flags g i I m M p and a number, y;
// addresses N, $, /regex/ and \cregexc, ranges, and !. Anything else (e, w,
// r, R, W, s///e, s///w, labels, …) is not safe.
func sedSafe(s string) bool {
	p := &sedScript{s: s}
	return p.parse()
}

type sedScript struct {
	s string
	i int
}

func (p *sedScript) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *sedScript) blanks() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *sedScript) parse() bool {
	depth := 0
	for {
		for p.i < len(p.s) && strings.IndexByte(" \t\n;", p.s[p.i]) >= 0 {
			p.i++
		}
		if p.i >= len(p.s) {
			return depth == 0
		}
		if p.peek() == '}' {
			if depth == 0 {
				return false
			}
			depth--
			p.i++
			continue
		}
		if !p.address() {
			return false
		}
		p.blanks()
		if p.peek() == ',' {
			p.i++
			p.blanks()
			if !p.address() {
				return false
			}
			p.blanks()
		}
		for p.peek() == '!' {
			p.i++
			p.blanks()
		}
		cmd := p.peek()
		p.i++
		switch cmd {
		case '{':
			depth++
			continue
		case 'p', 'P', 'd', 'D', '=', 'n', 'N', 'g', 'G', 'h', 'H', 'x':
		case 'q', 'Q':
			p.blanks()
			for p.peek() >= '0' && p.peek() <= '9' {
				p.i++
			}
		case 's':
			if !p.substitute() {
				return false
			}
		case 'y':
			if !p.twoParts() {
				return false
			}
		default:
			return false
		}
		p.blanks()
		switch p.peek() {
		case 0, ';', '\n', '}':
		default:
			return false
		}
	}
}

// address reads an optional address: a number (with first~step), $,
// /regex/ or \cregexc, each with optional I or M flags.
func (p *sedScript) address() bool {
	switch c := p.peek(); {
	case c >= '0' && c <= '9':
		for p.peek() >= '0' && p.peek() <= '9' || p.peek() == '~' {
			p.i++
		}
	case c == '$':
		p.i++
	case c == '/':
		p.i++
		if !p.delimited('/') {
			return false
		}
		p.regexFlags()
	case c == '\\':
		p.i++
		d := p.peek()
		if d == 0 || d == '\n' || d == '\\' {
			return false
		}
		p.i++
		if !p.delimited(d) {
			return false
		}
		p.regexFlags()
	}
	return true
}

func (p *sedScript) regexFlags() {
	for p.peek() == 'I' || p.peek() == 'M' {
		p.i++
	}
}

// delimited reads up to the unescaped delimiter d and past it.
func (p *sedScript) delimited(d byte) bool {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\\':
			p.i += 2
		case c == d:
			p.i++
			return true
		case c == '\n':
			return false
		default:
			p.i++
		}
	}
	return false
}

// twoParts reads the delimiter of s or y and the two parts after it, each
// up to the delimiter: s's regex and replacement, y's source and
// destination characters.
func (p *sedScript) twoParts() bool {
	d := p.peek()
	if d == 0 || d == '\n' || d == '\\' {
		return false
	}
	p.i++
	if !p.delimited(d) { // the regex, or the source characters
		return false
	}
	return p.delimited(d) // the replacement, or the destination characters
}

func (p *sedScript) substitute() bool {
	if !p.twoParts() {
		return false
	}
	for {
		c := p.peek()
		switch {
		case c == 'g' || c == 'i' || c == 'I' || c == 'm' || c == 'M' || c == 'p' || c >= '0' && c <= '9':
			p.i++
		default:
			return true
		}
	}
}
