// Copyright (c) 2026, tandem's authors
// See LICENSE for licensing information

package interp

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/expand"
)

// printfRun formats as bash 5.2's printf builtin does: the format is reused
// while arguments remain, each conversion reads its arguments as bash does
// (C's strtoimax, strtoumax and strtold, a leading quote giving a
// character's code), and a bad argument is reported and printed as far as
// it was read, failing the builtin but not stopping it. A bad conversion
// stops it at once, keeping what was written. Output to stdout is written
// as bash's line-buffered stdout writes it: a diagnostic comes before the
// line being formatted, after the lines finished before it.
type printfRun struct {
	r        *Runner
	args     []string
	used     int  // arguments consumed by this pass over the format
	failed   bool // an argument was not a valid number
	out      strings.Builder
	toStdout bool
	flushed  int // how much of out was written
}

// errStopPrintf ends a printf run: a `\c` in `%b`, or a bad conversion.
type errStopPrintf struct{ failed bool }

func (errStopPrintf) Error() string { return "printf stopped" }

// printf runs the builtin's format over args; status is its exit status.
// It returns the output, or with toStdout what it has not written yet.
func (r *Runner) printf(format string, args []string, toStdout bool) (string, uint8, error) {
	p := &printfRun{r: r, args: args, toStdout: toStdout}
	for {
		p.used = 0
		err := p.pass(format)
		if stop, ok := err.(errStopPrintf); ok {
			p.failed = p.failed || stop.failed
			break
		}
		if err != nil {
			return "", 1, err
		}
		if p.used == 0 || len(p.args) == 0 {
			break
		}
	}
	status := uint8(0)
	if p.failed {
		status = 1
	}
	return p.out.String()[p.flushed:], status, nil
}

func (p *printfRun) errf(format string, a ...any) {
	if p.toStdout {
		pending := p.out.String()[p.flushed:]
		if i := strings.LastIndexByte(pending, '\n'); i >= 0 {
			p.r.out(pending[:i+1])
			p.flushed += i + 1
		}
	}
	p.r.errf("printf: "+format+"\n", a...)
}

func (p *printfRun) warn(msg string) { p.errf("%s", msg) }

// next takes the next argument; ok is false when none is left.
func (p *printfRun) next() (string, bool) {
	if len(p.args) == 0 {
		return "", false
	}
	arg := p.args[0]
	p.args = p.args[1:]
	p.used++
	return arg, true
}

// grow checks that n more bytes stay within the runner's bound.
func (p *printfRun) grow(n int) error {
	if max := p.r.ecfg.MaxBytes; max > 0 && p.out.Len()+n > max {
		return &expand.LimitError{Limit: expand.BytesLimit, Max: max}
	}
	return nil
}

// printfSpec is one conversion: its flags, width and precision as bash
// read them, `*` values included.
type printfSpec struct {
	flags     string
	width     int
	hasWidth  bool
	prec      int
	hasPrec   bool
	verb      byte
	timeFmt   string
	specStart int // the `%`'s index in the format, for messages
}

func (p *printfRun) pass(format string) error {
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c == '\\' {
			s, n, _ := backslashEscape(format[i+1:], escFormat, p.warn)
			if err := p.grow(len(s)); err != nil {
				return err
			}
			p.out.WriteString(s)
			i += n
			continue
		}
		if c != '%' {
			p.out.WriteByte(c)
			continue
		}
		if i+1 < len(format) && format[i+1] == '%' {
			p.out.WriteByte('%')
			i++
			continue
		}
		spec, end, err := p.parseSpec(format, i)
		if err != nil {
			return err
		}
		if spec == nil { // an invalid %(…) spec: the `%` is printed
			p.out.WriteByte('%')
			continue
		}
		if err := p.convert(spec); err != nil {
			return err
		}
		i = end
	}
	return nil
}

// parseSpec reads the conversion starting at format[start] == '%'. It
// returns the index of its last byte.
func (p *printfRun) parseSpec(format string, start int) (*printfSpec, int, error) {
	spec := &printfSpec{specStart: start}
	i := start + 1
	digits := func() int {
		n := 0
		for i < len(format) && format[i] >= '0' && format[i] <= '9' {
			n = min(n*10+int(format[i]-'0'), math.MaxInt32)
			i++
		}
		return n
	}
	for i < len(format) && strings.IndexByte("#'-+ 0", format[i]) >= 0 {
		spec.flags += format[i : i+1]
		i++
	}
	if i < len(format) && format[i] == '*' {
		i++
		spec.width, spec.hasWidth = p.intArg(), true
		if spec.width < 0 {
			spec.flags += "-"
			spec.width = -spec.width
		}
	} else if i < len(format) && format[i] >= '0' && format[i] <= '9' {
		spec.width, spec.hasWidth = digits(), true
	}
	if i < len(format) && format[i] == '.' {
		i++
		spec.hasPrec = true
		switch {
		case i < len(format) && format[i] == '*':
			i++
			spec.prec = p.intArg()
		case i < len(format) && format[i] == '-':
			i++
			spec.prec = -digits()
		default:
			spec.prec = digits()
		}
		if spec.prec < 0 { // as if no precision was given
			spec.hasPrec, spec.prec = false, 0
		}
	}
	for i < len(format) && strings.IndexByte("hjlLtz", format[i]) >= 0 {
		i++
	}
	if i >= len(format) {
		p.errf("`%s': missing format character", format[start:])
		return nil, 0, errStopPrintf{failed: true}
	}
	spec.verb = format[i]
	if spec.verb == '(' {
		depth, j := 1, i+1
		for ; j < len(format); j++ {
			if format[j] == '(' {
				depth++
			} else if format[j] == ')' {
				if depth--; depth == 0 {
					break
				}
			}
		}
		if j+1 >= len(format) || format[j+1] != 'T' {
			next := ""
			if j+1 < len(format) {
				next = format[j+1 : j+2]
			}
			p.errf("warning: `%s': invalid time format specification", next)
			return nil, start, nil
		}
		spec.timeFmt, spec.verb, i = format[i+1:j], 'T', j+1
	}
	return spec, i, nil
}

func (p *printfRun) convert(spec *printfSpec) error {
	switch spec.verb {
	case 'c':
		arg, _ := p.next()
		var b []byte
		if arg == "" {
			b = []byte{0}
		} else {
			b = []byte{arg[0]}
		}
		return p.pad(spec, string(b))
	case 's':
		arg, _ := p.next()
		return p.pad(spec, p.truncate(spec, arg))
	case 'b':
		arg, _ := p.next()
		s, stop := expandEscapes(arg, escArg, p.warn)
		if err := p.pad(spec, p.truncate(spec, s)); err != nil {
			return err
		}
		if stop {
			return errStopPrintf{}
		}
	case 'q', 'Q':
		arg, _ := p.next()
		if spec.verb == 'Q' {
			arg = p.truncate(spec, arg)
		}
		s := expand.QuoteWord(arg)
		if spec.verb == 'q' {
			s = p.truncate(spec, s)
		}
		return p.pad(spec, s)
	case 'T':
		sec := int64(-1)
		if arg, ok := p.next(); ok {
			sec = p.parseInt(arg)
		}
		t := time.Now()
		switch sec {
		case -1:
		case -2:
			t = p.r.startTime
		default:
			t = time.Unix(sec, 0)
		}
		layout := cmp.Or(spec.timeFmt, "%X")
		s := strftime(layout, t.In(p.r.timeLocation()))
		if len(s) >= 128 { // bash's buffer: a longer result is empty
			s = ""
		}
		return p.pad(spec, p.truncate(spec, s))
	case 'd', 'i':
		n := int64(0)
		if arg, ok := p.next(); ok {
			n = p.parseInt(arg)
		}
		return p.number(spec, "+- 0", 'd', n)
	case 'o', 'u', 'x', 'X':
		n := uint64(0)
		if arg, ok := p.next(); ok {
			n = p.parseUint(arg)
		}
		flags := "-0#"
		if n == 0 && spec.verb != 'o' { // C prints no 0x for zero
			flags = "-0"
		}
		verb := spec.verb
		if verb == 'u' {
			verb, flags = 'd', "-0"
		}
		return p.number(spec, flags, verb, n)
	case 'e', 'E', 'f', 'F', 'g', 'G', 'a', 'A':
		f := 0.0
		if arg, ok := p.next(); ok {
			f = p.parseFloat(arg)
		}
		return p.float(spec, f)
	default:
		p.errf("`%c': invalid format character", spec.verb)
		return errStopPrintf{failed: true}
	}
	return nil
}

// truncate applies a string conversion's precision, in bytes as in C.
func (p *printfRun) truncate(spec *printfSpec, s string) string {
	if spec.hasPrec && spec.prec < len(s) {
		return s[:spec.prec]
	}
	return s
}

// pad writes s in its field, counting bytes as C does.
func (p *printfRun) pad(spec *printfSpec, s string) error {
	fill := max(spec.width-len(s), 0)
	if err := p.grow(fill + len(s)); err != nil {
		return err
	}
	if strings.Contains(spec.flags, "-") {
		p.out.WriteString(s)
		p.out.WriteString(strings.Repeat(" ", fill))
	} else {
		p.out.WriteString(strings.Repeat(" ", fill))
		p.out.WriteString(s)
	}
	return nil
}

// number formats an integer with the flags of spec that verb takes in C.
func (p *printfRun) number(spec *printfSpec, allowed string, verb byte, n any) error {
	var f strings.Builder
	f.WriteByte('%')
	for _, c := range []byte(spec.flags) {
		if strings.IndexByte(allowed, c) >= 0 {
			f.WriteByte(c)
		}
	}
	if err := p.grow(spec.width + spec.prec + 24); err != nil {
		return err
	}
	if spec.hasWidth {
		f.WriteString(strconv.Itoa(spec.width))
	}
	if spec.hasPrec {
		fmt.Fprintf(&f, ".%d", spec.prec)
	}
	f.WriteByte(verb)
	fmt.Fprintf(&p.out, f.String(), n)
	return nil
}

// float formats as C's printf: inf and nan in its words, and a default
// precision of 6 for %g, where Go would print the shortest form.
func (p *printfRun) float(spec *printfSpec, f float64) error {
	upper := spec.verb >= 'A' && spec.verb <= 'Z'
	if math.IsInf(f, 0) || math.IsNaN(f) {
		s := "inf"
		if math.IsNaN(f) {
			s = "nan"
		}
		switch {
		case math.Signbit(f):
			s = "-" + s
		case strings.Contains(spec.flags, "+"):
			s = "+" + s
		case strings.Contains(spec.flags, " "):
			s = " " + s
		}
		if upper {
			s = strings.ToUpper(s)
		}
		return p.pad(&printfSpec{flags: spec.flags, width: spec.width}, s)
	}
	verb := spec.verb
	prec := spec.prec
	if !spec.hasPrec && verb != 'a' && verb != 'A' {
		prec = 6
	}
	if verb == 'a' || verb == 'A' {
		verb += 'x' - 'a'
	}
	var f2 strings.Builder
	f2.WriteByte('%')
	for _, c := range []byte(spec.flags) {
		if c != '\'' {
			f2.WriteByte(c)
		}
	}
	if err := p.grow(spec.width + prec + 32); err != nil {
		return err
	}
	if spec.hasWidth {
		f2.WriteString(strconv.Itoa(spec.width))
	}
	if spec.hasPrec || (verb != 'x' && verb != 'X') {
		fmt.Fprintf(&f2, ".%d", prec)
	}
	f2.WriteByte(verb)
	s := fmt.Sprintf(f2.String(), f)
	if verb == 'x' || verb == 'X' { // C's exponent has no leading zero
		if k := strings.LastIndexAny(s, "pP"); k >= 0 && k+2 < len(s) && s[k+2] == '0' && k+3 < len(s) {
			s = s[:k+2] + s[k+3:]
		}
	}
	p.out.WriteString(s)
	return nil
}

// intArg reads a `*` width or precision.
func (p *printfRun) intArg() int {
	arg, ok := p.next()
	if !ok {
		return 0
	}
	n := p.parseInt(arg)
	if n > math.MaxInt32 || n < math.MinInt32 {
		p.errf("warning: %s: Numerical result out of range", arg)
		n = max(min(n, math.MaxInt32), math.MinInt32)
	}
	return int(n)
}

// charCode is the value of an argument starting with a quote: the code of
// the character after it, or of its first byte when that is not UTF-8.
func charCode(arg string) (int64, bool) {
	if arg == "" || (arg[0] != '\'' && arg[0] != '"') {
		return 0, false
	}
	r, size := utf8.DecodeRuneInString(arg[1:])
	if size == 0 {
		return 0, true
	}
	if r == utf8.RuneError && size == 1 {
		return int64(arg[1]), true
	}
	return int64(r), true
}

// invalidNumber reports arg as bash's sh_invalidnum does.
func (p *printfRun) invalidNumber(arg string) {
	p.failed = true
	switch {
	case len(arg) > 1 && arg[0] == '0' && arg[1] >= '0' && arg[1] <= '9':
		p.errf("%s: invalid octal number", arg)
	case len(arg) > 1 && arg[0] == '0' && arg[1] == 'x':
		p.errf("%s: invalid hex number", arg)
	default:
		p.errf("%s: invalid number", arg)
	}
}

// parseInt reads arg as strtoimax(arg, &end, 0) does, clamping on overflow.
func (p *printfRun) parseInt(arg string) int64 {
	if n, ok := charCode(arg); ok {
		return n
	}
	neg, mag, overflow, rest := scanInteger(arg)
	var n int64
	switch {
	case !neg && (overflow || mag > math.MaxInt64):
		n, overflow = math.MaxInt64, true
	case neg && (overflow || mag > 1<<63):
		n, overflow = math.MinInt64, true
	case neg:
		n = -int64(mag)
	default:
		n = int64(mag)
	}
	p.checkNumber(arg, rest, overflow)
	return n
}

// parseUint reads arg as strtoumax does: a negative value wraps around.
func (p *printfRun) parseUint(arg string) uint64 {
	if n, ok := charCode(arg); ok {
		return uint64(n)
	}
	neg, mag, overflow, rest := scanInteger(arg)
	switch {
	case overflow:
		mag = math.MaxUint64
	case neg:
		mag = -mag
	}
	p.checkNumber(arg, rest, overflow)
	return mag
}

func (p *printfRun) checkNumber(arg, rest string, overflow bool) {
	if rest != "" {
		p.invalidNumber(arg)
	} else if overflow {
		p.errf("warning: %s: Numerical result out of range", arg)
	}
}

// scanInteger reads the longest prefix of s that C's strtoumax(s, &end, 0)
// takes: blanks, a sign, then a hexadecimal (0x), octal (0) or decimal
// number. rest is what it leaves, all of s when it reads no digit.
func scanInteger(s string) (neg bool, mag uint64, overflow bool, rest string) {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	base := uint64(10)
	if i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && i+2 < len(s) && hexDigit(s[i+2]) >= 0 {
		base, i = 16, i+2
	} else if i < len(s) && s[i] == '0' {
		base = 8
	}
	start := i
	for ; i < len(s); i++ {
		d := hexDigit(s[i])
		if d < 0 || uint64(d) >= base {
			break
		}
		if mag > (math.MaxUint64-uint64(d))/base {
			overflow = true
		}
		mag = mag*base + uint64(d)
	}
	if i == start {
		return false, 0, false, s
	}
	return neg, mag, overflow, s[i:]
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// parseFloat reads arg as strtold does, as far as it is a number.
func (p *printfRun) parseFloat(arg string) float64 {
	if n, ok := charCode(arg); ok {
		return float64(n)
	}
	s := strings.TrimLeft(arg, " \t\n\v\f\r")
	for end := len(s); end > 0; end-- {
		if f, ok := cFloat(s[:end]); ok {
			if end < len(s) {
				p.invalidNumber(arg)
			}
			return f
		}
	}
	if s != "" {
		p.invalidNumber(arg)
	}
	return 0
}

// cFloat parses s whole as a C floating constant: Go's syntax, but a
// hexadecimal one needs no exponent and no `_` is taken.
func cFloat(s string) (float64, bool) {
	if strings.Contains(s, "_") {
		return 0, false
	}
	body := strings.TrimLeft(s, "+-")
	if len(body) > 2 && (body[:2] == "0x" || body[:2] == "0X") && !strings.ContainsAny(body, "pP") {
		s += "p0"
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !strings.Contains(err.Error(), "range") {
		return 0, false
	}
	return f, true
}

// escapeMode is where a backslash escape is read: the three differ in
// their octal escapes, `\c` and `\'`.
type escapeMode int

const (
	escFormat escapeMode = iota // printf's format: `\NNN`
	escArg                      // a %b argument: `\NNN`, `\0NNN`, `\c` stops
	escEcho                     // echo -e: `\0NNN` only, `\c` stops
)

// backslashEscape reads the escape at the start of s (the text after the
// backslash) as bash reads it in mode. It returns what the escape writes,
// how many bytes of s it used, and whether it was `\c`, which ends the
// output. warn, when not nil, reports a `\x` or `\u` without digits.
func backslashEscape(s string, mode escapeMode, warn func(string)) (string, int, bool) {
	if s == "" {
		return `\`, 0, false
	}
	c := s[0]
	if i := strings.IndexByte("abeEfnrtv\\", c); i >= 0 {
		return "\a\b\x1b\x1b\f\n\r\t\v\\"[i : i+1], 1, false
	}
	switch c {
	case '\'', '"', '?':
		if mode == escFormat {
			return s[:1], 1, false
		}
	case 'c':
		if mode != escFormat {
			return "", 1, true
		}
	case '0', '1', '2', '3', '4', '5', '6', '7':
		digits, from := 3, 0
		switch {
		case mode == escEcho && c != '0':
			return `\` + s[:1], 1, false
		case mode != escFormat && c == '0':
			digits, from = 3, 1
		}
		n, i := 0, from
		for ; i < from+digits && i < len(s) && s[i] >= '0' && s[i] <= '7'; i++ {
			n = n*8 + int(s[i]-'0')
		}
		return string([]byte{byte(n)}), i, false
	case 'x', 'u', 'U':
		digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
		n, i := 0, 1
		for ; i <= digits && i < len(s) && hexDigit(s[i]) >= 0; i++ {
			n = n*16 + hexDigit(s[i])
		}
		switch {
		case i > 1 && c == 'x':
			return string([]byte{byte(n)}), i, false
		case i > 1:
			return string(rune(n)), i, false
		case warn == nil:
		case c == 'x':
			warn(`missing hex digit for \x`)
		default:
			warn(`missing unicode digit for \` + s[:1])
		}
	}
	return `\` + s[:1], 1, false
}

// expandEscapes expands the backslash escapes of s read in mode; stop
// tells that it held `\c`, which ends the output there.
func expandEscapes(s string, mode escapeMode, warn func(string)) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		e, n, stop := backslashEscape(s[i+1:], mode, warn)
		b.WriteString(e)
		if stop {
			return b.String(), true
		}
		i += n
	}
	return b.String(), false
}
