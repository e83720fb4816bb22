package interp

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

// tracer prints expressions like a shell would do if its
// options '-o' is set to either 'xtrace' or its shorthand, '-x'.
type tracer struct {
	buf       bytes.Buffer
	printer   *syntax.Printer
	output    io.Writer
	needsPlus bool
	plus      string // "+ ", one more "+" for each command substitution
	r         *Runner
}

// traceTurn orders the first xtrace lines of a pipeline's stages as bash's
// usually come, left to right: bash starts the stages in that order, and
// each traces its first command before it can write to the next. A stage
// prints its first line once the stage before it printed one or ended;
// traceTurnWait bounds that wait, so no stage ever hangs on another.
type traceTurn struct {
	once sync.Once
	ch   chan struct{}
}

const traceTurnWait = 100 * time.Millisecond

func newTraceTurn() *traceTurn { return &traceTurn{ch: make(chan struct{})} }

// done lets the next stage print.
func (t *traceTurn) done() {
	if t != nil {
		t.once.Do(func() { close(t.ch) })
	}
}

func (t *traceTurn) wait() {
	if t == nil {
		return
	}
	timer := time.NewTimer(traceTurnWait)
	defer timer.Stop()
	select {
	case <-t.ch:
	case <-timer.C:
	}
}

func (r *Runner) tracer() *tracer {
	if !r.opts[optXTrace] {
		return nil
	}

	return &tracer{
		printer:   syntax.NewPrinter(),
		output:    r.stderr,
		needsPlus: true,
		plus:      strings.Repeat("+", 1+r.substDepth) + " ",
		r:         r,
	}
}

// string writes s to tracer.buf if tracer is non-nil,
// prepending "+" if tracer.needsPlus is true.
func (t *tracer) string(s string) {
	if t == nil {
		return
	}

	if t.needsPlus {
		t.buf.WriteString(t.plus)
	}
	t.needsPlus = false
	t.buf.WriteString(s)
}

func (t *tracer) stringf(f string, a ...any) {
	if t == nil {
		return
	}

	t.string(fmt.Sprintf(f, a...))
}

// expr prints x to tracer.buf if tracer is non-nil,
// prepending "+" if tracer.isFirstPrint is true.
func (t *tracer) expr(x syntax.Node) {
	if t == nil {
		return
	}

	if t.needsPlus {
		t.buf.WriteString(t.plus)
	}
	t.needsPlus = false
	if err := t.printer.Print(&t.buf, x); err != nil {
		panic(err)
	}
}

// flush writes the contents of tracer.buf to the tracer.stdout.
func (t *tracer) flush() {
	if t == nil {
		return
	}

	if t.r.traceAfter != nil {
		t.r.traceAfter.wait()
		t.r.traceAfter = nil
	}
	t.output.Write(t.buf.Bytes())
	t.buf.Reset()
	t.r.traceDone.done()
}

// newLineFlush is like flush, but with extra new line before tracer.buf gets flushed.
func (t *tracer) newLineFlush() {
	if t == nil {
		return
	}

	t.buf.WriteString("\n")
	t.flush()
	// reset state
	t.needsPlus = true
}

// traceQuote quotes a word as bash's xtrace does: bare when nothing in it
// needs quoting.
func traceQuote(s string) string {
	if s != "" {
		if q, err := syntax.Quote(s, syntax.LangBash); err == nil && q == s {
			return s
		}
		if plainTraceWord(s) {
			return s // a reserved word (in, do), which bash leaves bare
		}
	}
	return singleQuote(s)
}

// traceValue quotes an assigned value as bash's xtrace does: an empty one
// is nothing at all (`+ x=`).
func traceValue(s string) string {
	if s == "" {
		return ""
	}
	return traceQuote(s)
}

// plainTraceWord reports whether bash's xtrace prints s as it is: no
// character of sh_contains_shell_metas and none it would escape.
func plainTraceWord(s string) bool {
	if !utf8.ValidString(s) || s[0] == '#' {
		return false
	}
	for i, c := range s {
		switch {
		case c < ' ' || c == 0x7f:
			return false
		case strings.ContainsRune(" '\"\\|&;()<>!{}*[?]^$`", c):
			return false
		case c == '~' && (i == 0 || s[i-1] == '=' || s[i-1] == ':'):
			return false
		}
	}
	return true
}

// quoteBash quotes a string so that it can be traced as a single Bash word.
func quoteBash(s string) string {
	qs, err := syntax.Quote(s, syntax.LangBash)
	if err != nil { // should never happen
		panic(err)
	}
	return qs
}

// call prints a command and its arguments with varying formats depending on the cmd type,
// for example, built-in command's arguments are printed enclosed in single quotes,
// otherwise, call defaults to printing with double quotes.
func (t *tracer) call(cmd string, args ...string) {
	if t == nil {
		return
	}

	// As bash: each word quoted on its own, where it needs quotes.
	words := []string{cmd}
	for _, arg := range args {
		words = append(words, traceQuote(arg))
	}
	t.string(strings.Join(words, " "))
}
