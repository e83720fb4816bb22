package classify

import (
	"fmt"
	"strconv"
	"strings"
)

// XargsOptions is an xargs command line as GNU xargs (findutils 4.9) reads
// it. tandem's own xargs runs what it says and the classifier judges the
// same reading, so the two cannot disagree on which option is which.
type XargsOptions struct {
	Delim      int    // the input delimiter (-0, -d); -1: blanks, quotes and backslashes
	ArgFile    string // -a FILE: items from FILE instead of the input
	EOF        string // -E, -e: the word that ends blank-separated input
	Replace    string // -I, -i: the string each item replaces in the command
	HasReplace bool
	MaxLines   int // -L, -l
	MaxArgs    int // -n
	MaxChars   int // -s; 0 for the default
	NoEmpty    bool
	Trace      bool
	Exit       bool // -x: end when a command line would be over -s
	Procs      int  // -P
	// Options tandem's xargs does not run, as written (-a, -p, -o,
	// --show-limits, --process-slot-var, --help, --version).
	Unrun []string
	// Command is the program and its arguments (echo when none is given).
	Command []string
	// Warnings are the lines GNU xargs prints for options that exclude
	// each other, in order.
	Warnings []string
}

// XargsUsageError is a command line GNU xargs refuses before running
// anything: its message, and whether GNU follows it with a pointer to
// --help.
type XargsUsageError struct {
	Msg string
	Try bool
}

func (e *XargsUsageError) Error() string {
	if e.Try {
		return "xargs: " + e.Msg + "\nTry 'xargs --help' for more information."
	}
	return "xargs: " + e.Msg
}

// xargsShort is GNU's getopt string: ':' a required value, '::' an
// optional one (only attached).
const xargsShort = "0a:E:e::i::I:l::L:n:oprs:txP:d:"

// xargsLong is GNU's long option table: the name, its short letter (or a
// word of its own), and "", "=" (required) or "?" (optional) value.
var xargsLong = []struct{ name, key, val string }{
	{"null", "0", ""}, {"arg-file", "a", "="}, {"delimiter", "d", "="}, {"eof", "e", "?"},
	{"replace", "I", "?"}, {"max-lines", "l", "?"}, {"max-args", "n", "="}, {"open-tty", "o", ""},
	{"interactive", "p", ""}, {"no-run-if-empty", "r", ""}, {"max-chars", "s", "="},
	{"verbose", "t", ""}, {"show-limits", "show-limits", ""}, {"exit", "x", ""},
	{"max-procs", "P", "="}, {"process-slot-var", "process-slot-var", "="},
	{"version", "version", ""}, {"help", "help", ""},
}

// ParseXargs reads xargs's arguments (without argv[0]) as GNU getopt_long
// does with "+": grouped short options, a value attached or in the next
// word, optional values only attached, long options by a unique prefix,
// and the first operand ends the options.
func ParseXargs(args []string) (XargsOptions, error) {
	o := XargsOptions{Delim: -1}
	fail := func(msg string) (XargsOptions, error) {
		return o, &XargsUsageError{Msg: msg, Try: true}
	}
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		if strings.HasPrefix(a, "--") {
			name, val, attached := strings.Cut(a[2:], "=")
			var cands []int
			for k, l := range xargsLong {
				if l.name == name {
					cands = []int{k}
					break
				}
				if strings.HasPrefix(l.name, name) {
					cands = append(cands, k)
				}
			}
			switch {
			case len(cands) == 0:
				return fail(fmt.Sprintf("unrecognized option '%s'", a))
			case len(cands) > 1:
				var names []string
				for _, k := range cands {
					names = append(names, "'--"+xargsLong[k].name+"'")
				}
				return fail(fmt.Sprintf("option '--%s' is ambiguous; possibilities: %s", name, strings.Join(names, " ")))
			}
			l := xargsLong[cands[0]]
			switch {
			case l.val == "" && attached:
				return fail(fmt.Sprintf("option '--%s' doesn't allow an argument", l.name))
			case l.val == "=" && !attached:
				if i+1 >= len(args) {
					return fail(fmt.Sprintf("option '--%s' requires an argument", l.name))
				}
				i++
				val, attached = args[i], true
			}
			if err := o.set(l.key, val, attached); err != nil {
				return o, err
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			k := strings.IndexByte(xargsShort, c)
			if k < 0 || c == ':' {
				return fail(fmt.Sprintf("invalid option -- '%c'", c))
			}
			takes := k+1 < len(xargsShort) && xargsShort[k+1] == ':'
			optional := takes && k+2 < len(xargsShort) && xargsShort[k+2] == ':'
			if !takes {
				if err := o.set(string(c), "", false); err != nil {
					return o, err
				}
				continue
			}
			val, attached := a[j+1:], j+1 < len(a)
			if !attached && !optional {
				if i+1 >= len(args) {
					return fail(fmt.Sprintf("option requires an argument -- '%c'", c))
				}
				i++
				val, attached = args[i], true
			}
			if err := o.set(string(c), val, attached); err != nil {
				return o, err
			}
			break
		}
	}
	o.Command = args[i:]
	if len(o.Command) == 0 {
		o.Command = []string{"echo"}
	}
	if o.EOF != "" && o.Delim >= 0 {
		o.Warnings = append(o.Warnings, "warning: the -E option has no effect if -0 or -d is used.\n")
	}
	return o, nil
}

// set applies one option as GNU's xargs.c does, warnings included.
func (o *XargsOptions) set(key, val string, has bool) error {
	warn := func(prev, cur string) {
		o.Warnings = append(o.Warnings, fmt.Sprintf("warning: options %s and %s are mutually exclusive, ignoring previous %s value", prev, cur, prev))
	}
	var err error
	switch key {
	case "0":
		o.Delim = 0
	case "d":
		o.Delim, err = xargsDelimiter(val)
	case "a":
		o.ArgFile = val
		o.Unrun = append(o.Unrun, "-a")
	case "E":
		o.EOF = val
	case "e":
		o.EOF = val // -e alone: no end-of-input word
	case "I", "i":
		if o.MaxArgs != 0 {
			warn("--max-args", "--replace/-I/-i")
			o.MaxArgs = 0
		}
		if o.MaxLines != 0 {
			warn("--max-lines", "--replace/-I/-i")
			o.MaxLines = 0
		}
		o.Replace, o.HasReplace = "{}", true
		if has {
			o.Replace = val
		}
	case "L", "l":
		n := 1
		if key == "L" || has {
			if n, err = xargsNum(val, key, 1); err != nil {
				return err
			}
		}
		name := "--max-lines/-l"
		if key == "L" {
			name = "-L"
		}
		if o.MaxArgs != 0 {
			warn("--max-args", name)
			o.MaxArgs = 0
		}
		if o.HasReplace {
			warn("--replace", name)
			o.HasReplace, o.Replace = false, ""
		}
		o.MaxLines = n
	case "n":
		if o.MaxArgs, err = xargsNum(val, key, 1); err != nil {
			return err
		}
		if o.MaxLines != 0 {
			warn("--max-lines", "--max-args/-n")
			o.MaxLines = 0
		}
		if o.HasReplace && o.MaxArgs != 1 { // -i -n1 is what -i means
			warn("--replace", "--max-args/-n")
			o.HasReplace, o.Replace = false, ""
		}
	case "s":
		o.MaxChars, err = xargsNum(val, key, 1)
	case "P":
		o.Procs, err = xargsNum(val, key, 0)
	case "r":
		o.NoEmpty = true
	case "t":
		o.Trace = true
	case "x":
		o.Exit = true
	case "p", "o":
		o.Unrun = append(o.Unrun, "-"+key)
	default: // show-limits, process-slot-var, version, help
		o.Unrun = append(o.Unrun, "--"+key)
	}
	return err
}

// xargsNum reads the number of option -key as GNU's parse_num does.
func xargsNum(v, key string, min int) (int, error) {
	n, err := strconv.Atoi(strings.TrimLeft(v, " \t\n"))
	switch {
	case err != nil && !strings.Contains(err.Error(), "range"):
		return 0, &XargsUsageError{Msg: fmt.Sprintf("invalid number %q for -%s option", v, key), Try: true}
	case err != nil || n < min:
		return 0, &XargsUsageError{Msg: fmt.Sprintf("value %s for -%s option should be >= %d", v, key, min), Try: true}
	}
	return n, nil
}

// xargsDelimiter reads -d's value as GNU does: one character, or an escape
// (\n, \t, …, \0NNN octal, \xHH hexadecimal).
func xargsDelimiter(v string) (int, error) {
	bad := &XargsUsageError{Msg: fmt.Sprintf("Invalid input delimiter specification %s: the delimiter must be either a single character or an escape sequence starting with \\.", v)}
	if len(v) == 1 {
		return int(v[0]), nil
	}
	if len(v) < 2 || v[0] != '\\' {
		return 0, bad
	}
	if c := strings.IndexByte(`abfnrtv\`, v[1]); c >= 0 && len(v) == 2 {
		return int("\a\b\f\n\r\t\v\\"[c]), nil
	}
	base, digits := 8, v[1:]
	if v[1] == 'x' {
		base, digits = 16, v[2:]
	}
	n, err := strconv.ParseUint(digits, base, 8)
	if err != nil || digits == "" {
		return 0, bad
	}
	return int(n), nil
}
