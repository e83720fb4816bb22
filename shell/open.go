package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"strings"
	"syscall"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/interp"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/refusal"
	"github.com/tandemdev/tandem/shell/classify"
)

// The files the interpreter opens in tandem's own process — a
// redirection's target, a sourced file, a shell's script file, a glob's
// directory — are judged once and opened once: the real path the gate
// judged is opened without following any link, and the descriptor is
// checked to be the very file judged before a byte is read or written. A
// step running beside the script (another stage of a pipeline, a
// background job) can put a link into ~/.ssh in a judged name's place at
// any moment; it finds the script refused, never the key read.

// target is a name the interpreter opens, judged once.
type target struct {
	written string
	step    approvals.Step
	real    approvals.RealPath // the one resolution the step was judged on
	class   approvals.PathClass
	// was is the file at the real path just after the judgement; nil when
	// nothing was there.
	was fs.FileInfo
}

// judgeTarget judges path, as the program started in dir would open it.
func (x *Run) judgeTarget(dir, path string, write bool) target {
	name := path
	if name == "-" {
		// A redirection's "-" is a file of that name, not standard input.
		name = "./-"
	}
	s, j := classify.RedirectJudged(name, write, dir, x.policy)
	s.Text = strings.Replace(s.Text, name, path, 1)
	t := target{written: path, step: s, real: j.RealPath, class: j.Class}
	if t.real.Path != "" {
		if fi, err := os.Lstat(t.real.Path); err == nil {
			t.was = fi
		}
	}
	return t
}

// byName reports whether the target is looked at by its name, as written:
// the script's own /proc entries (its streams), and /dev/null, /dev/stdout
// and /dev/stderr, judged harmless as written (no step can change them).
func (t target) byName() bool {
	return approvals.InProgramProc(t.real.Path) || t.class == approvals.PathHarmless && t.real.Path == t.written
}

// stat looks at the judged file: its real path, no link followed on the
// way; for lstat (follow false) the last name's own link, where it is one.
func (t target) stat(follow bool) (fs.FileInfo, error) {
	at := t.real.Path
	if !follow && t.real.Link != "" {
		at = t.real.Link
	}
	return statReal(at)
}

// access checks the judged file's permissions (access(2) mode bits).
func (t target) access(mode uint32) error {
	return accessReal(t.real.Path, mode)
}

// swappedError is the error of an open that found another file than the
// one judged.
type swappedError struct{ written string }

func (e *swappedError) Error() string {
	return e.written + ": replaced since it was judged"
}

// refusal returns what the model is told about the step whose text is
// text.
func (e *swappedError) refusal(text string) *refusal.Error {
	return refusal.New(refusal.Swapped, fmt.Sprintf(
		"`%s`: %s was replaced (by a link or by another file) after tandem judged it and before tandem opened it, so nothing was read from it or written to it and the script stopped here. Find what changes %s while the script runs (a pipeline stage or a background job beside this step), then run the script again without that race.",
		text, approvals.Show([]string{e.written}), approvals.Show([]string{e.written})))
}

// open opens the judged file, then checks that the descriptor is the file
// judged. A write's truncation waits for the check.
func (t target) open(flag int, perm os.FileMode) (*os.File, error) {
	// A file it makes has the mode the script's umask gives, exactly.
	f, err := interp.OpenExact(flag&^os.O_TRUNC, perm, func(flag int) (*os.File, error) { return openReal(t.real.Path, flag, perm) })
	if err != nil {
		if errors.Is(err, syscall.ELOOP) && !t.real.Looped {
			// The real path had no link when it was judged.
			return nil, &swappedError{t.written}
		}
		return nil, err
	}
	got, err := f.Stat()
	if err == nil && !t.isJudged(f, got) {
		err = &swappedError{t.written}
	}
	if err == nil && flag&os.O_TRUNC != 0 && got.Mode().IsRegular() {
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// isJudged reports whether f (got is its stat) is the file judged: the
// same file that was at the real path then, or, where there was none, a
// file with no second name (one linked in since has one); and, where the
// system tells, at the judged path still.
func (t target) isJudged(f *os.File, got fs.FileInfo) bool {
	if t.was != nil && t.was.Mode()&got.Mode()&fs.ModeCharDevice != 0 {
		// /dev/tty opens the process's terminal, another node: no step can
		// make a device, so a device found where one was judged is that one.
		return true
	}
	if t.was != nil && !os.SameFile(t.was, got) {
		return false
	}
	if t.was == nil && got.Mode().IsRegular() && hardLinks(got) > 1 {
		return false
	}
	p, ok := openedPath(f)
	return !ok || p == t.real.Path || p == t.real.Path+" (deleted)"
}

// openJudged gates a judged target as a step of its own when it has
// effects, and opens it. n is the step's number, 0 for none. A target
// found replaced halts the script with a refusal.
func (x *Run) openJudged(ctx context.Context, hc interp.HandlerContext, t target, flag int, perm os.FileMode) (_ io.ReadWriteCloser, n int, err error) {
	if approvals.InProgramProc(t.real.Path) {
		f, err := openProgramProc(hc, t.written, t.real.Path)
		return f, 0, err
	}
	if t.step.Effects == 0 {
		// A harmless target (/dev/null): never a question, not a step.
		err = x.stopped()
	} else {
		n, err = x.gate(ctx, hc, t.step)
	}
	if err != nil {
		return nil, n, err
	}
	if network, address, ok := classify.Connection(t.written); ok {
		f, err := dial(ctx, network, address)
		if err != nil {
			// As bash words it: `/dev/tcp/127.0.0.1/9: Connection refused`.
			var errno syscall.Errno
			if errors.As(err, &errno) {
				err = errno
			}
			return nil, n, &os.PathError{Op: "connect", Path: t.written, Err: err}
		}
		return f, n, nil
	}
	f, err := t.open(flag, perm)
	var sw *swappedError
	if errors.As(err, &sw) {
		return nil, n, x.refuse(n, sw.refusal(t.step.Text))
	}
	if err != nil {
		return nil, n, err
	}
	return f, n, nil
}

// dial opens bash's /dev/tcp and /dev/udp names: a connection, as a file
// a program the script starts can be given as its stream.
func dial(ctx context.Context, network, address string) (*os.File, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	fc, ok := c.(interface{ File() (*os.File, error) })
	if !ok {
		return nil, fmt.Errorf("%s connection without a descriptor", network)
	}
	return fc.File()
}

// open is the interpreter's open handler: every redirection, `source` and
// `$(< f)`. The script's own /dev/stdout, /dev/stderr and /dev/fd/0-2 are
// its streams, never tandem's.
func (x *Run) open(ctx context.Context, path string, flag int, perm os.FileMode) (_ io.ReadWriteCloser, err error) {
	defer guard(&err)
	hc := interp.HandlerCtx(ctx)
	switch path {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return dupStream(hc.Stdin, path)
	case "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return dupStream(hc.Stdout, path)
	case "/dev/stderr", "/dev/fd/2", "/proc/self/fd/2":
		return dupStream(hc.Stderr, path)
	}
	if strings.HasPrefix(path, "/dev/fd/") || strings.HasPrefix(path, "/proc/self/fd/") {
		return nil, &os.PathError{Op: "open", Path: path, Err: syscall.EBADF}
	}
	write := flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0
	f, n, err := x.openJudged(ctx, hc, x.judgeTarget(hc.Dir, path, write), flag, perm)
	if err != nil {
		if x.stopped() == nil {
			x.ran(n, 1)
		}
		return nil, err
	}
	x.ran(n, 0)
	if interp.Sourcing(ctx) {
		return x.sourced(ctx, f, path)
	}
	return f, nil
}

// sourced reads a file the script sources from the descriptor opened for
// it, notes the functions it declares, and gives the interpreter the very
// code read.
func (x *Run) sourced(ctx context.Context, f io.ReadWriteCloser, path string) (io.ReadWriteCloser, error) {
	b, err := readInput(ctx, f, ValueBytes)
	f.Close()
	if le, ok := asLimit(err); ok {
		return nil, le
	}
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	if f, err := syntax.NewParser().Parse(strings.NewReader(string(b)), path); err == nil {
		x.noteFuncs(f)
	}
	return sourceText{strings.NewReader(string(b))}, nil
}

// sourceText is a sourced file's text, read once.
type sourceText struct{ *strings.Reader }

func (sourceText) Write([]byte) (int, error) { return 0, syscall.EBADF }
func (sourceText) Close() error              { return nil }

// readDir lists a directory for a glob. Listing a secret directory
// (`~/.ssh/*`) is a secret read, gated like a step; any other listing is a
// plain read and not a step of its own. A directory that only holds a secret
// (`~`, `/home`: every absolute glob into a workspace under the home lists
// them) is listed unasked: a glob learns names there, never contents, and a
// step that then reads a matched secret is asked like any other.
func (x *Run) readDir(ctx context.Context, path string) (_ []fs.DirEntry, err error) {
	defer guard(&err)
	hc := interp.HandlerCtx(ctx)
	// The directory the shell lists is the one its judgement names, in the
	// shell's view (/proc/self/cwd is the script's directory).
	t := x.judgeTarget(hc.Dir, path, false)
	if approvals.InProgramProc(t.real.Path) {
		return nil, &os.PathError{Op: "open", Path: path, Err: syscall.EACCES}
	}
	n := 0
	if s := t.step; s.Effects.Has(approvals.Secret) && !(len(s.Paths) == 1 && s.Paths[0].Class != approvals.PathSecret) {
		s.Text = approvals.AccessText(approvals.AccessList, t.real.Path)
		if n, err = x.gate(ctx, hc, s); err != nil {
			return nil, err
		}
		x.ran(n, -1)
	}
	f, err := t.open(os.O_RDONLY|syscall.O_DIRECTORY, 0)
	var sw *swappedError
	if errors.As(err, &sw) {
		return nil, x.refuse(n, sw.refusal(approvals.AccessText(approvals.AccessList, t.real.Path)))
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// hardLinks returns how many names the file has.
func hardLinks(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
