package shell

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tandemdev/tandem/shell/classify"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/interp"
)

// xargs and find -exec run a program once per input item. tandem runs both
// fan-outs itself so that each program they start is dispatched — and gated
// — with its real argv, like any other step.

// xargsMaxChars bounds one command line of xargs, like GNU's default.
const xargsMaxChars = 128 << 10

// xargs runs xargs as GNU's does (its options read by classify.ParseXargs,
// as the classifier reads them): items from stdin, each command through
// program. -P runs the commands one after another.
func (x *Run) xargs(ctx context.Context, hc interp.HandlerContext, l launch) error {
	o, err := classify.ParseXargs(l.argv[1:])
	if err != nil {
		fmt.Fprintln(l.stderr, err)
		return interp.ExitStatus(1)
	}
	if len(o.Unrun) > 0 {
		return usage(l, "option %s is not supported by tandem's xargs; %s", o.Unrun[0], xargsInstead[o.Unrun[0]])
	}
	for _, w := range o.Warnings {
		fmt.Fprintf(l.stderr, "xargs: %s\n", w)
	}
	var (
		delim      = o.Delim
		maxArgs    = o.MaxArgs
		maxLines   = o.MaxLines
		replace    = o.Replace
		hasReplace = o.HasReplace
		noEmpty    = o.NoEmpty
		trace      = o.Trace
		maxChars   = xargsMaxChars
		eofStr     = o.EOF
		cmd        = o.Command
	)
	if o.MaxChars > 0 {
		maxChars = o.MaxChars
	}
	var in io.Reader = strings.NewReader("")
	if l.stdin != nil {
		b, err := readInput(ctx, l.stdin, XargsInputBytes) // the items before a read error still run
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if le, ok := asLimit(err); ok {
			return le
		}
		in = bytes.NewReader(b)
	}
	var items [][]string // each entry: the items of one input line (or one item)
	br := bufio.NewReader(in)
	switch {
	case hasReplace:
		for {
			line, err := br.ReadString('\n')
			if t := strings.TrimLeft(strings.TrimSuffix(line, "\n"), " \t"); t != "" || (err == nil && delim >= 0) {
				if delim < 0 && t == eofStr && eofStr != "" {
					break
				}
				items = append(items, []string{t})
			}
			if err != nil {
				break
			}
		}
		if delim >= 0 {
			items = nil
			for _, it := range splitDelim(br, byte(delim)) {
				items = append(items, []string{it})
			}
		}
	case delim >= 0:
		for _, it := range splitDelim(br, byte(delim)) {
			items = append(items, []string{it})
		}
	default:
		lines, err := blankItems(br, eofStr)
		if err != nil {
			fmt.Fprintf(l.stderr, "xargs: %v\n", err)
			return interp.ExitStatus(1)
		}
		items = lines
	}
	// Group the items into command lines.
	var runs [][]string
	tooLong := false // an item no command line can hold ends the input
	switch {
	case hasReplace:
		for _, it := range items {
			argv := make([]string, len(cmd))
			for i, w := range cmd {
				argv[i] = strings.ReplaceAll(w, replace, it[0])
			}
			runs = append(runs, argv)
		}
	default:
		var cur []string
		base := 0 // the command's own length counts toward -s, as in GNU's
		for _, w := range cmd {
			base += len(w) + 1
		}
		lines, size := 0, base
		flush := func() {
			if len(cur) > 0 {
				runs = append(runs, append(append([]string(nil), cmd...), cur...))
			}
			cur, lines, size = nil, 0, base
		}
	fill:
		for _, line := range items {
			for _, it := range line {
				if base+len(it)+1 > maxChars {
					// GNU runs the line it was filling (not under
					// -x), says so and ends with status 1.
					tooLong = true
					if o.Exit {
						cur = nil
					}
					break fill
				}
				if (maxArgs > 0 && len(cur) == maxArgs) || (size+len(it)+1 > maxChars && len(cur) > 0) {
					flush()
				}
				cur = append(cur, it)
				size += len(it) + 1
			}
			lines++
			if maxLines > 0 && lines == maxLines {
				flush()
			}
		}
		flush()
		if len(runs) == 0 && !noEmpty && !tooLong {
			runs = append(runs, append([]string(nil), cmd...))
		}
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	defer devnull.Close()
	failed := false
	for _, argv := range runs {
		if trace {
			fmt.Fprintln(l.stderr, strings.Join(argv, " "))
		}
		l2 := l
		l2.argv, l2.shown, l2.stdin = argv, "", devnull
		err := x.program(ctx, hc, l2)
		var st interp.ExitStatus
		switch {
		case err == nil:
		case errors.As(err, &st) && st == 255:
			fmt.Fprintf(l.stderr, "xargs: %s: exited with status 255; aborting\n", argv[0])
			return interp.ExitStatus(124)
		case errors.As(err, &st) && (st == 126 || st == 127):
			return st
		case errors.As(err, &st) && st > 128:
			return interp.ExitStatus(125)
		case errors.As(err, &st):
			failed = true
		default:
			return err // refused or stopped: the script stops here
		}
	}
	if tooLong {
		fmt.Fprintln(l.stderr, "xargs: argument line too long")
		return interp.ExitStatus(1)
	}
	if failed {
		return interp.ExitStatus(123)
	}
	return nil
}

// xargsInstead says what to write instead of an option tandem's xargs does
// not run.
var xargsInstead = map[string]string{
	"-a":                 "give the file as input instead: xargs … < FILE",
	"-p":                 "no terminal answers its prompts; run the commands without -p",
	"-o":                 "the commands get no terminal; run them without -o",
	"--show-limits":      "run it without --show-limits",
	"--process-slot-var": "the commands run one after another; run it without --process-slot-var",
	"--help":             "see xargs(1)",
	"--version":          "tandem runs xargs itself, as GNU findutils 4.9 does",
}

func splitDelim(r io.Reader, d byte) []string {
	b, _ := io.ReadAll(r)
	if len(b) == 0 {
		return nil
	}
	b = bytes.TrimSuffix(b, []byte{d})
	var out []string
	for _, p := range bytes.Split(b, []byte{d}) {
		out = append(out, string(p))
	}
	return out
}

// blankItems reads POSIX xargs input: items separated by blanks and
// newlines, with '…', "…" and backslash quoting. Each returned entry is
// one input line's items.
func blankItems(r *bufio.Reader, eof string) ([][]string, error) {
	var lines [][]string
	var line []string
	var cur strings.Builder
	inItem := false
	var quote rune
	end := func() bool {
		if inItem {
			if eof != "" && cur.String() == eof {
				return true
			}
			line = append(line, cur.String())
			cur.Reset()
			inItem = false
		}
		return false
	}
	for {
		c, _, err := r.ReadRune()
		if err != nil {
			if quote != 0 {
				return nil, fmt.Errorf("unmatched %c quote", quote)
			}
			end()
			if len(line) > 0 {
				lines = append(lines, line)
			}
			return lines, nil
		}
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\n' {
				return nil, fmt.Errorf("unmatched %c quote", quote)
			} else {
				cur.WriteRune(c)
			}
		case c == '\'' || c == '"':
			quote, inItem = c, true
		case c == '\\':
			n, _, err := r.ReadRune()
			if err == nil {
				cur.WriteRune(n)
				inItem = true
			}
		case c == '\n':
			if end() {
				if len(line) > 0 {
					lines = append(lines, line)
				}
				return lines, nil
			}
			if len(line) > 0 {
				lines = append(lines, line)
			}
			line = nil
		case c == ' ' || c == '\t':
			if end() {
				if len(line) > 0 {
					lines = append(lines, line)
				}
				return lines, nil
			}
		default:
			cur.WriteRune(c)
			inItem = true
		}
	}
}

// findActions are the find actions that run a program.
var findActions = map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true}

// findAction returns the index of the first action of argv that runs a
// program, or -1.
func findAction(argv []string) int {
	for i, a := range argv {
		if findActions[a] {
			return i
		}
	}
	return -1
}

// findExec runs `find … -exec PROGRAM ARGS… {} ;|+` (or -execdir, -ok,
// -okdir) as the last expression of find: find itself runs with the action
// replaced by -print0, in place so the expression means the same, and each
// program it would start goes through program (and the gate) with its real
// argv. Any other shape is refused with a message.
func (x *Run) findExec(ctx context.Context, hc interp.HandlerContext, l launch) error {
	k := findAction(l.argv)
	action := l.argv[k]
	end := -1
	for i := k + 1; i < len(l.argv); i++ {
		if l.argv[i] == ";" || (l.argv[i] == "+" && l.argv[i-1] == "{}") {
			end = i
			break
		}
	}
	if end < 0 || end == k+1 {
		fmt.Fprintf(l.stderr, "find: missing argument to `%s'\n", action)
		return interp.ExitStatus(1)
	}
	if end != len(l.argv)-1 || findAction(l.argv[end+1:]) >= 0 {
		return usage(l, "tandem runs one %s action, as the last expression of find; split the command, or use find -print0 | xargs -0", action)
	}
	inner := l.argv[k+1 : end]
	batch := l.argv[end] == "+"
	listing := append(append([]string(nil), l.argv[:k]...), "-print0")
	var buf bytes.Buffer
	l2 := l
	l2.argv, l2.stdout = listing, &buf
	l2.shown = ""
	findErr := x.external(ctx, hc, l2, nil)
	var st interp.ExitStatus
	if findErr != nil && !errors.As(findErr, &st) {
		return findErr
	}
	paths := splitDelim(&buf, 0)
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	defer devnull.Close()
	dirOf := func(p string) string { return absFrom(l.dir, filepath.Dir(p)) }
	one := func(argv []string, dir string) error {
		l3 := l
		l3.argv, l3.dir, l3.shown, l3.stdin = argv, dir, "", devnull
		return x.program(ctx, hc, l3)
	}
	failed := false
	note := func(err error) error {
		var st interp.ExitStatus
		if err == nil {
			return nil
		}
		if errors.As(err, &st) {
			failed = true
			return nil
		}
		return err
	}
	execdir := action == "-execdir" || action == "-okdir"
	if batch {
		groups := map[string][]string{}
		var order []string
		for _, p := range paths {
			d := l.dir
			if execdir {
				d = dirOf(p)
				p = "./" + filepath.Base(p)
			}
			if _, ok := groups[d]; !ok {
				order = append(order, d)
			}
			groups[d] = append(groups[d], p)
		}
		for _, d := range order {
			argv := append(append([]string(nil), inner[:len(inner)-1]...), groups[d]...)
			if err := note(one(argv, d)); err != nil {
				return err
			}
		}
	} else {
		for _, p := range paths {
			d := l.dir
			if execdir {
				d = dirOf(p)
				p = "./" + filepath.Base(p)
			}
			argv := make([]string, len(inner))
			for i, w := range inner {
				argv[i] = strings.ReplaceAll(w, "{}", p)
			}
			if err := note(one(argv, d)); err != nil {
				return err
			}
		}
	}
	if findErr != nil {
		return findErr
	}
	if failed && batch {
		return interp.ExitStatus(1)
	}
	return nil
}
