// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

package interp

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"math"
	mathrand "math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/expand"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/internal"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/pattern"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

const (
	// shellReplyPS3Var, or PS3, is a special variable in Bash used by the select command,
	// while the shell is awaiting for input. the default value is [shellDefaultPS3]
	shellReplyPS3Var = "PS3"
	// shellDefaultPS3, or #?, is PS3's default value
	shellDefaultPS3 = "#? "
	// shellReplyVar, or REPLY, is a special variable in Bash that is used to store the result of
	// the select command or of the read command, when no variable name is specified
	shellReplyVar = "REPLY"

	fifoNamePrefix = "sh-interp-"
)

// nulWatcher passes writes on and notes whether they held a NUL byte.
type nulWatcher struct {
	w    io.Writer
	seen bool
}

func (n *nulWatcher) Write(p []byte) (int, error) {
	n.seen = n.seen || bytes.IndexByte(p, 0) >= 0
	return n.w.Write(p)
}

func (r *Runner) fillExpandConfig(ctx context.Context) {
	r.ectx = ctx
	r.ecfg = &expand.Config{
		Env:  expandEnv{r},
		Warn: func(msg string) { r.errf("%s\n", msg) },
		CmdSubst: func(w io.Writer, cs *syntax.CmdSubst) (err error) {
			ctx := ctx
			nw := &nulWatcher{w: w}
			w = nw
			defer func() {
				if nw.seen { // expand drops them; bash says so
					r.errf("warning: command substitution: ignored null byte in input\n")
				}
			}()
			if r.limits != nil && r.limits.Bytes > 0 {
				// Past the bound the substitution's commands are stopped:
				// `$(yes)` ends instead of filling the memory.
				var stop context.CancelFunc
				ctx, stop = context.WithCancel(ctx)
				defer stop()
				bw := &boundedWriter{w: w, left: r.limits.Bytes, max: r.limits.Bytes, over: stop}
				defer func() {
					if bw.left < 0 {
						err = &LimitError{Limit: BytesLimit, Max: r.limits.Bytes}
					}
				}()
				w = bw
			}
			switch len(cs.Stmts) {
			case 0: // nothing to do
				return nil
			case 1: // $(<file)
				word := catShortcutArg(cs.Stmts[0])
				if word == nil {
					break
				}
				return r.catFile(ctx, word, w)
			}
			r2 := r.subshell(false)
			r2.stdout = w
			r2.substDepth++
			// bash's command substitutions do not inherit set -e.
			r2.opts[optErrExit] = false
			r2.stmts(ctx, cs.Stmts)
			r2.subshellExit(ctx)
			r2.exit.exiting, r2.exit.returning, r2.exit.discard = false, false, false // a subshell's exit or return ends only it
			r.lastExpandExit = r2.exit
			if r2.exit.fatalExit {
				return r2.exit.err // surface fatal errors immediately
			}
			return nil
		},
		ProcSubst: func(ps *syntax.ProcSubst) (string, error) {
			if ps.Op == syntax.CmdInTemp { // zsh's =(...)
				return "", fmt.Errorf("unsupported")
			}
			if runtime.GOOS == "windows" {
				return "", fmt.Errorf("TODO: support process substitution on Windows")
			}
			if len(ps.Stmts) == 0 { // nothing to do
				return os.DevNull, nil
			}

			// We can't atomically create a random unused temporary FIFO.
			// Similar to [os.CreateTemp],
			// keep trying new random paths until one does not exist.
			// We use a uint64 because a uint32 easily runs into retries.
			var path string
			try := 0
			for {
				path = filepath.Join(r.tempDir, fifoNamePrefix+strconv.FormatUint(mathrand.Uint64(), 16))
				err := mkfifo(path, 0o666)
				if err == nil {
					break
				}
				if !os.IsExist(err) {
					return "", fmt.Errorf("cannot create fifo: %v", err)
				}
				if try++; try > 100 {
					return "", fmt.Errorf("giving up at creating fifo: %v", err)
				}
			}
			made, err := os.Lstat(path)
			if err == nil && made.Mode()&fs.ModeNamedPipe == 0 {
				err = errFifoReplaced
			}
			if err != nil {
				return "", fmt.Errorf("cannot create fifo: %v", err)
			}
			r.fifos.add(path, made)

			r2 := r.subshell(true)
			r2.substDepth++
			stdout := r.origStdout
			// TODO: note that `man bash` mentions that `wait` only waits for the last
			// process substitution as long as it is $!; the logic here would mean we wait for all of them.
			bg := &bgProc{
				done: make(chan struct{}),
				exit: new(exitStatus),
			}
			if ps.Op == syntax.CmdOut {
				bg.readsFifo, bg.fifoMade = path, made
			}
			started := r.goSubshell(func() {
				defer func() {
					*bg.exit = r2.exit
					close(bg.done)
				}()
				switch ps.Op {
				case syntax.CmdIn:
					f, err := openFifo(path, os.O_WRONLY, made)
					if err != nil {
						r2.errf("cannot open fifo for stdout: %v\n", err)
						return
					}
					r2.stdout = f
					defer func() {
						if err := f.Close(); err != nil {
							r2.errf("closing stdout fifo: %v\n", err)
						}
						os.Remove(path)
						r.fifos.add(path, nil)
					}()
				case syntax.CmdOut:
					f, err := openFifo(path, os.O_RDONLY, made)
					if err != nil {
						r2.errf("cannot open fifo for stdin: %v\n", err)
						return
					}
					r2.stdin = f
					r2.stdout = stdout

					defer func() {
						f.Close()
						os.Remove(path)
						r.fifos.add(path, nil)
					}()
				default:
					// Should only happen if we forgot a case above.
					panic(fmt.Sprintf("unexpected process substitution operator: %q", ps.Op))
				}
				if word := catShortcutArg(ps.Stmts[0]); ps.Op == syntax.CmdIn && len(ps.Stmts) == 1 && word != nil {
					// <(<file) is the file's text, as $(<file) is.
					if r2.catFile(ctx, word, r2.stdout) != nil {
						r2.exit.code = 1
					}
					return
				}
				r2.stmts(ctx, ps.Stmts)
				r2.subshellExit(ctx)
				r2.exit.exiting, r2.exit.returning, r2.exit.discard = false, false, false // a subshell's exit or return ends only it
			})
			if started != nil {
				os.Remove(path)
				r.fifos.add(path, nil)
				return "", started
			}
			r.addBg(bg)
			return path, nil
		},
	}
	r.updateExpandOpts()
}

// catFile copies the file word names to w: $(<file) and <(<file).
func (r *Runner) catFile(ctx context.Context, word *syntax.Word, w io.Writer) error {
	f, err := r.open(ctx, r.literal(word), os.O_RDONLY, 0, true)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, f)
	f.Close()
	return err
}

// catShortcutArg checks if a statement is of the form "$(<file)". The redirect
// word is returned if there's a match, and nil otherwise.
func catShortcutArg(stmt *syntax.Stmt) *syntax.Word {
	if stmt.Cmd != nil || stmt.Negated || stmt.Background || stmt.Coprocess || stmt.Disown {
		return nil
	}
	if len(stmt.Redirs) != 1 {
		return nil
	}
	redir := stmt.Redirs[0]
	if redir.Op != syntax.RdrIn {
		return nil
	}
	return redir.Word
}

// boundedWriter passes on at most left bytes; past them it fails every
// write and calls over once.
type boundedWriter struct {
	w         io.Writer
	left, max int
	over      func()
}

func (b *boundedWriter) Write(p []byte) (int, error) {
	if b.left -= len(p); b.left < 0 {
		if b.over != nil {
			b.over()
			b.over = nil
		}
		return 0, &LimitError{Limit: BytesLimit, Max: b.max}
	}
	return b.w.Write(p)
}

func (r *Runner) updateExpandOpts() {
	if r.limits != nil {
		r.ecfg.MaxBytes = r.limits.Bytes
	}
	if r.opts[optNoGlob] {
		r.ecfg.ReadDir2 = nil
	} else {
		r.ecfg.ReadDir2 = func(s string) ([]fs.DirEntry, error) {
			return r.readDirHandler(r.handlerCtx(r.ectx, handlerKindReadDir, todoPos), s)
		}
	}
	r.ecfg.GlobStar = r.opts[optGlobStar]
	r.ecfg.DotGlob = r.opts[optDotGlob]
	r.ecfg.NoCaseGlob = r.opts[optNoCaseGlob]
	r.ecfg.NullGlob = r.opts[optNullGlob]
	r.ecfg.NoGlobSkipDots = !r.opts[optGlobSkipDots]
	r.ecfg.FailGlob = r.opts[optFailGlob]
	r.ecfg.NoUnset = r.opts[optNoUnset]
	r.ecfg.ExtGlob = r.opts[optExtGlob]
}

func (r *Runner) expandErr(err error) {
	if err == nil {
		return
	}
	errMsg := err.Error()
	r.errf("%s\n", errMsg)
	_, unsetParam := errors.AsType[expand.UnsetParameterError](err)
	switch {
	case errors.As(err, new(*LimitError)):
		r.exit.fatal(err)
	case unsetParam:
		// Fatal in a shell that is not interactive, with bash's status:
		// 127, or 1 under set -e, which ends the shell first, or in a
		// subshell, which exits with 1 ((echo $u); echo $? prints 1).
		r.exit.code = 127
		if r.opts[optErrExit] || r.subshellLevel > 0 {
			r.exit.code = 1
		}
		r.exit.exiting = true
	case errors.As(err, new(expand.SubscriptError)):
		// As in bash, a bad subscript ends the shell (a subshell exits).
		r.exit.code = 1
		r.exit.exiting = true
	case errors.As(err, new(expand.SliceLengthError)):
		// As in bash, the command fails with the rest of its line.
		r.exit.code = 1
		r.exit.exiting, r.exit.discard = true, true
	case errors.As(err, new(expand.ArithmError)):
		r.exit.code = 1
		r.exit.exiting, r.exit.discard = true, true
	case errors.As(err, new(expand.IndirectError)), errors.As(err, new(expand.BadSubstError)):
		// As in bash, the command fails with the rest of its line.
		r.exit.code = 1
		r.exit.exiting, r.exit.discard = true, true
	case errors.As(err, new(expand.NoMatchError)):
		// failglob: bash drops the rest of the line, or under set -e
		// ends the shell (in a condition too).
		r.exit.code = 1
		r.exit.exiting, r.exit.discard = true, !r.opts[optErrExit]
	case errors.Is(err, errReadOnly):
		// Like in bash, assigning to a read-only variable fails
		// the command at hand without exiting the shell.
		r.exit.code = 1
	}
}

// arithmCmd evaluates the expression of (( )) or let: an arithmetic error
// fails the command (status 1) and the script goes on, as in bash. closing
// is where the `))` of (( )) is, if known, for the message.
func (r *Runner) arithmCmd(name string, expr syntax.ArithmExpr, closing syntax.Pos) (int, bool) {
	eval := func(x syntax.ArithmExpr) (int, error) { return expand.ArithmNamed(r.ecfg, x, closing) }
	if name == "let" {
		eval = func(x syntax.ArithmExpr) (int, error) { return expand.ArithmLet(r.ecfg, x) }
	}
	n, err := eval(expr)
	if ae, ok := err.(expand.ArithmError); ok {
		r.errf("%s: %v\n", name, ae)
		r.exit.code = 1
		return 0, false
	}
	r.expandErr(err)
	return n, err == nil
}

func (r *Runner) arithm(expr syntax.ArithmExpr) int {
	n, err := expand.Arithm(r.ecfg, expr)
	r.expandErr(err)
	return n
}

func (r *Runner) fields(words ...*syntax.Word) []string {
	strs, err := expand.Fields(r.ecfg, words...)
	r.expandErr(err)
	return strs
}

func (r *Runner) literal(word *syntax.Word) string {
	str, err := expand.Literal(r.ecfg, word)
	r.expandErr(err)
	return str
}

func (r *Runner) document(word *syntax.Word) string {
	str, err := expand.Document(r.ecfg, word)
	r.expandErr(err)
	return str
}

func (r *Runner) pattern(word *syntax.Word) string {
	str, err := expand.Pattern(r.ecfg, word)
	r.expandErr(err)
	return str
}

// expandEnviron exposes [Runner]'s variables to the expand package.
type expandEnv struct {
	r *Runner
}

var _ expand.WriteEnviron = expandEnv{}

func (e expandEnv) Get(name string) expand.Variable {
	return e.r.lookupVar(name)
}

func (e expandEnv) Set(name string, vr expand.Variable) error {
	return e.r.setVarErr(name, vr)
}

func (e expandEnv) Each(fn func(name string, vr expand.Variable) bool) {
	e.r.writeEnv.Each(fn)
}

var todoPos syntax.Pos // for handlerCtx callers where we don't yet have a position

func (r *Runner) handlerCtx(ctx context.Context, kind handlerKind, pos syntax.Pos) context.Context {
	env := &overlayEnviron{parent: r.writeEnv}
	r.exportComputed(env)
	hc := HandlerContext{
		runner:         r,
		kind:           kind,
		Env:            env,
		Dir:            r.Dir,
		Pos:            pos,
		Line:           r.line,
		Argv0:          r.execArgv0,
		Umask:          r.mask,
		Stdout:         r.stdout,
		Stderr:         r.stderr,
		LastExitStatus: int(r.lastExit.code),
	}
	if r.stdin != nil { // do not leave hc.Stdin as a typed nil
		hc.Stdin = r.stdin
	}
	return context.WithValue(ctx, handlerCtxKey{}, hc)
}

func (r *Runner) out(s string) {
	io.WriteString(r.stdout, s)
}

func (r *Runner) outf(format string, a ...any) {
	fmt.Fprintf(r.stdout, format, a...)
}

// errf reports an error as bash does, after the shell's name and the line
// of the statement that failed: `bash: line 3: x: readonly variable`.
func (r *Runner) errf(format string, a ...any) {
	if r.line > 0 {
		format = "%s: line %d: " + format
		a = append([]any{r.errName(), r.line}, a...)
	}
	fmt.Fprintf(r.stderr, format, a...)
}

// errName is the name bash's errors start with: the file the running
// code came from (a function's or a sourced file's), else $0.
func (r *Runner) errName() string {
	return cmp.Or(r.source(), r.shellName())
}

// shellName is $0: the script's name, or the interpreter's.
func (r *Runner) shellName() string {
	return cmp.Or(r.filename, "gosh")
}

func (r *Runner) stop(ctx context.Context) bool {
	// A break or continue skips the rest of every command it is in, up to
	// the loop it names (loopStmtsBroken takes it back): `{ break; x; }`,
	// a case branch, an if body, eval's string and a sourced file included.
	if r.exit.returning || r.exit.exiting || r.breakEnclosing > 0 || r.contnEnclosing > 0 {
		return true
	}
	if err := ctx.Err(); err != nil {
		r.exit.fatal(err)
		return true
	}
	if r.opts[optNoExec] {
		return true
	}
	return false
}

func (r *Runner) stmt(ctx context.Context, st *syntax.Stmt) {
	if r.stop(ctx) {
		return
	}
	r.exit = exitStatus{}
	if st.Background || st.Disown {
		r2 := r.subshell(true)
		st2 := *st
		st2.Background = false
		st2.Disown = false
		jobCtx, cancel := context.WithCancelCause(ctx)
		bg := &bgProc{
			done:   make(chan struct{}),
			exit:   new(exitStatus),
			job:    true,
			text:   jobText(st),
			cancel: cancel,
		}
		if _, simple := st.Cmd.(*syntax.CallExpr); simple {
			r2.callbackErr = "" // as in bash, an async simple command runs no ERR trap
		}
		if err := r.goSubshell(func() {
			r2.Run(jobCtx, &st2)
			if !r2.exit.exiting { // else Run ran it
				r2.subshellExit(jobCtx)
			}
			r2.exit.exiting, r2.exit.returning, r2.exit.discard = false, false, false // a subshell's exit or return ends only it
			if sig, ok := SignalOf(jobCtx); ok && r2.exit.fatalExit {
				// The signal stopped the job (its program, or its shell
				// code between programs); a program that caught it and
				// exited on its own keeps its status.
				r2.exit = exitStatus{code: uint8(128 + sig)}
				bg.signal = sig
			}
			cancel(nil)
			*bg.exit = r2.exit
			close(bg.done)
		}); err != nil {
			cancel(nil)
			r.exit.fatal(err)
			return
		}
		r.addBg(bg)
	} else {
		r.stmtSync(ctx, st)
	}
	r.lastExit = r.exit
	r.takeSignals(ctx)
}

// stmtLine is the line bash gives a statement: its errors' `line N:` and
// its traps' LINENO. For a simple command it is the line bash's parser had
// reached when it took the command's first element. An assignment or a
// redirection it takes as soon as read; after a word (which might name a
// function being defined) it reads the next token first: a command whose
// second word spans lines (`awk '…' f`) is at that word's last line.
func stmtLine(st *syntax.Stmt) uint {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		return st.Position.Line()
	}
	var elems []syntax.Node
	for _, as := range call.Assigns {
		elems = append(elems, as)
	}
	for _, w := range call.Args {
		elems = append(elems, w)
	}
	for _, rd := range st.Redirs {
		elems = append(elems, rd)
	}
	if len(elems) == 0 {
		return st.Position.Line()
	}
	slices.SortFunc(elems, func(a, b syntax.Node) int { return cmp.Compare(a.Pos().Offset(), b.Pos().Offset()) })
	if _, word := elems[0].(*syntax.Word); !word || len(elems) == 1 {
		return elems[0].End().Line()
	}
	if rd, ok := elems[1].(*syntax.Redirect); ok {
		return rd.Pos().Line() // the operator is the token: its word comes after
	}
	return elems[1].End().Line()
}

func (r *Runner) stmtSync(ctx context.Context, st *syntax.Stmt) {
	oldIn, oldOut, oldErr, oldFds := r.stdin, r.stdout, r.stderr, r.fds
	r.line = stmtLine(st)
	r.errTrapRan = false
	if call, ok := st.Cmd.(*syntax.CallExpr); ok && len(st.Redirs) > 0 && len(call.Args) > 0 && !r.opts[optExpandAliases] {
		// bash expands a simple command's words before its redirections:
		// `echo $(cat f) > f` reads f before > empties it, and the errors
		// of `$(…) 2>/dev/null` still reach the script's stderr.
		r.lastExpandExit = exitStatus{}
		r.preFields, r.havePreFields = r.fields(r.assignLikeTildes(call.Args)...), true
	}
	// Assignments alone are made before the redirections, which then
	// only open and close: `v=$(cmd 2>&1) 2>f` keeps cmd's stderr the
	// script's; a redirection that fails makes the status 1 and keeps v.
	assignsFirst, redirs := false, st.Redirs
	var assignExit exitStatus
	if call, ok := st.Cmd.(*syntax.CallExpr); ok && len(st.Redirs) > 0 && len(call.Args) == 0 {
		assignsFirst = true
		r.cmd(ctx, st.Cmd)
		assignExit = r.exit
		if r.exit.returning || r.exit.exiting || r.exit.fatalExit {
			redirs = nil // a read-only variable's assignment ends the line
		} else {
			r.exit = exitStatus{}
		}
	}
	var closers []io.Closer
	for _, rd := range redirs {
		if !r.exit.ok() {
			break
		}
		cls, err := r.redir(ctx, rd)
		if errors.Is(err, errRedirExpansion) {
			break
		}
		if err != nil {
			if !r.exit.fatalExit {
				// A fatal error from a handler is reported by [Runner.Run].
				r.errf("%v\n", err)
			}
			r.exit.code = 1
			break
		}
		if cls != nil {
			closers = append(closers, cls)
		}
	}
	if assignsFirst && r.exit.ok() {
		r.exit = assignExit
	} else if r.exit.ok() && st.Cmd != nil {
		r.cmd(ctx, st.Cmd)
	}
	r.preFields, r.havePreFields = nil, false
	if st.Negated {
		if r.exit.ok() {
			r.exit.code = 1
		} else {
			r.exit.clear()
		}
	} else if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.AndStmt || b.Op == syntax.OrStmt) {
	} else if !r.exit.ok() && !r.noErrExit {
		_, simple := st.Cmd.(*syntax.CallExpr)
		if (len(r.funcStack) == 0 || r.opts[optErrTrace]) && (simple || !r.errTrapRan) {
			// As in bash without set -E, functions do not run the ERR trap;
			// it runs at the line of the statement that failed, once: not
			// again for the compound command it failed in.
			r.line = stmtLine(st)
			r.trapCallback(ctx, r.callbackErr, "error")
			r.errTrapRan = r.callbackErr != ""
		}
		// If the "errexit" option is set and a command failed, exit the shell. Exceptions:
		//
		//   conditions (if <cond>, while <cond>, etc)
		//   part of && or || lists; excluded via "else" above
		//   preceded by !; excluded via "else" above
		if r.opts[optErrExit] {
			r.exit.exiting = true
		}
	}
	if r.keepRedirs {
		// The exec builtin made this statement's redirections apply to the
		// shell itself, so don't undo them and keep their files open.
		r.keepRedirs = false
	} else if len(st.Redirs) > 0 {
		r.stdin, r.stdout, r.stderr, r.fds = oldIn, oldOut, oldErr, oldFds
		for _, cls := range closers {
			cls.Close()
		}
	}
}

// setPipeStatus sets PIPESTATUS as bash does after a pipeline, a simple
// command or a subshell (a pipeline of one); a compound command leaves the
// one of the last pipeline it ran.
func (r *Runner) setPipeStatus(cm syntax.Command) {
	list := []int{int(r.exit.code)}
	switch cm := cm.(type) {
	case *syntax.BinaryCmd:
		if cm.Op != syntax.Pipe && cm.Op != syntax.PipeAll {
			return
		}
		list = r.pipeStatus
	case *syntax.CallExpr, *syntax.Subshell, *syntax.ArithmCmd, *syntax.LetClause, *syntax.TestClause, *syntax.DeclClause:
	default:
		return
	}
	strs := make([]string, len(list))
	for i, code := range list {
		strs[i] = strconv.Itoa(code)
	}
	r.setVar("PIPESTATUS", expand.Variable{Set: true, Kind: expand.Indexed, List: strs})
}

func (r *Runner) cmd(ctx context.Context, cm syntax.Command) {
	if r.stop(ctx) {
		return
	}
	switch cm.(type) {
	case *syntax.CallExpr, *syntax.ArithmCmd, *syntax.TestClause, *syntax.DeclClause,
		*syntax.LetClause, *syntax.CaseClause:
		// As in bash, the DEBUG trap runs before each of these; a for
		// loop runs it before each round.
		if r.debugTrap(ctx) {
			return
		}
	}

	defer r.setPipeStatus(cm)

	tracingEnabled := r.opts[optXTrace]
	trace := r.tracer()

	switch cm := cm.(type) {
	case *syntax.Block:
		r.stmts(ctx, cm.Stmts)
	case *syntax.Subshell:
		r2 := r.subshell(false)
		r2.stmts(ctx, cm.Stmts)
		r2.subshellExit(ctx)
		r2.exit.exiting, r2.exit.returning, r2.exit.discard = false, false, false // a subshell's exit or return ends only it
		r.exit = r2.exit
		if le, ok := errors.AsType[*LimitError](r2.exit.err); ok && r2.exit.fatalExit {
			// A bound ends the whole script, not the subshell only.
			r.exit.exiting = true
			r.exit.err = le
		}
	case *syntax.CallExpr:
		if !r.havePreFields {
			if text, first, inUse, ok := r.aliasText(cm); ok {
				r.runAlias(ctx, text, first, inUse)
				break
			}
		}
		args := cm.Args
		fields := r.preFields
		if !r.havePreFields {
			r.lastExpandExit = exitStatus{}
			if len(cm.Assigns) > 0 && len(args) > 0 && declKeyword(args[0]) {
				fields = r.declFields(args)
			} else {
				fields = r.fields(r.assignLikeTildes(args)...)
			}
		}
		r.preFields, r.havePreFields = nil, false
		if len(fields) == 0 {
			for _, as := range cm.Assigns {
				name := as.Name.Value

				prev := r.lookupVar(name)
				index := as.Index
				if prev.Kind == expand.NameRef && prev.Str == "" && as.Array != nil {
					r.errf("warning: %s: removing nameref attribute\n", name)
					prev.Kind = expand.Unknown // ref=(x y) makes an array of it
				}
				if prev.Kind == expand.NameRef && (prev.Str != "" || index != nil || as.Value == nil) {
					// An assignment through a nameref changes what it
					// names; one to an empty nameref sets the reference.
					target, vr := r.refTarget(name)
					if target == "" {
						break
					}
					if base, sub, ok := cutElemSubscript(target); ok {
						if index != nil || as.Array != nil {
							r.errf("`%s': not a valid identifier\n", target)
							r.exit.code = 1
							r.exit.exiting, r.exit.discard = true, true
							break
						}
						target, index = base, elemIndex(sub)
					}
					name, prev = target, vr
				}
				// Here we have a naked "foo=bar", so if we inherited a local var from a parent
				// function we want to signal that we are modifying the parent var rather than
				// creating a new local var via "local foo=bar".
				// TODO: there is likely a better way to do this.
				prev.Local = false

				var vr expand.Variable
				if index != nil {
					if vr = r.assignElem(prev, name, index, as); !vr.IsSet() {
						if !r.exit.exiting { // an arithmetic error ends the shell
							r.exit.exiting, r.exit.discard = true, true // a bad subscript ends the line, as in bash
						}
						break
					}
				} else {
					name, vr = r.assignVal(name, prev, as, "")
					r.setVarWithIndex(prev, name, nil, vr)
				}
				if prev.ReadOnly {
					// As in bash, assigning to a read-only variable
					// ends the line the script is on (the next runs),
					// and the shell under set -e.
					r.exit.exiting = true
					r.exit.discard = !r.opts[optErrExit] || r.noErrExit
					break
				}

				if !tracingEnabled {
					continue
				}

				// Strangely enough, it seems like Bash prints original
				// source for arrays, but the expanded value otherwise.
				// Note that, unlike bash, we print neither the subscript
				// in `x[i]=y` nor just the appended value in `x+=y`.
				if as.Array != nil {
					trace.expr(as)
				} else {
					trace.stringf("%s=%s", name, traceValue(vr.String()))
				}
				trace.newLineFlush()
			}
			r.lastArg = "" // as in bash, after assignments alone
			// If interpreting the last expansion like $(foo) failed,
			// and the expansion and assignments otherwise succeeded,
			// we need to surface that last exit code.
			if r.exit.ok() {
				r.exit = r.lastExpandExit
			}
			break
		}

		type restoreVar struct {
			name string
			vr   expand.Variable
		}
		var restores []restoreVar

		// As bash, a function's assignments before it get a scope of
		// their own, between the caller's and the function's: an unset
		// in the function shows the caller's value again, and the scope
		// goes when the function returns.
		tempScope := len(cm.Assigns) > 0 && r.Funcs[fields[0]] != nil && !(r.opts[optPosix] && specialBuiltin(fields[0]))
		callerEnv := r.writeEnv
		if tempScope {
			r.writeEnv = &overlayEnviron{parent: callerEnv, funcScope: true}
		}
		for _, as := range cm.Assigns {
			name := as.Name.Value
			if as.Index != nil {
				// bash refuses an element before a command, and runs it.
				r.errf("`%s[%s]': not a valid identifier\n", name, expand.ArithmText(as.Index))
				continue
			}
			if as.Array != nil {
				// bash passes a list before a command as the text it
				// is: a=(1 2) env gives the program a='(1 2)'.
				var b strings.Builder
				syntax.NewPrinter().Print(&b, &syntax.Assign{Name: as.Name, Array: as.Array})
				text := strings.TrimPrefix(b.String(), name+"=")
				as = &syntax.Assign{Name: as.Name, Value: &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: text}}}}
			}
			prev := r.lookupVar(name)
			// Resolve any nameref so we can restore the original final value later on.
			if n, v := prev.Resolve(r.writeEnv); n != "" {
				name, prev = n, v
			}

			name, vr := r.assignVal(name, prev, as, "")
			// Inline command vars are always exported.
			vr.Exported = true

			if prev.ReadOnly {
				// It fails with its message, once; the command still
				// runs and gives the status, as in bash.
				r.setVar(name, vr)
				r.exit.code = 0
				continue
			}
			if tempScope {
				vr.Local = true // the temporary scope's own
			} else {
				restores = append(restores, restoreVar{name, prev})
			}
			r.setVar(name, vr)
		}

		if fields[0] != r.untraced || r.untraced == "" {
			trace.call(fields[0], fields[1:]...)
			trace.newLineFlush()
		}

		r.call(ctx, cm.Args[0].Pos(), fields)
		r.lastArg = fields[len(fields)-1]
		r.writeEnv = callerEnv
		// In bash's POSIX mode the assignments before a special
		// builtin stay, unless it unset them.
		keep := r.opts[optPosix] && specialBuiltin(fields[0])
		for _, restore := range restores {
			if !keep || !r.lookupVar(restore.name).IsSet() {
				r.setVar(restore.name, restore.vr)
			}
		}
	case *syntax.BinaryCmd:
		switch cm.Op {
		case syntax.AndStmt, syntax.OrStmt:
			oldNoErrExit := r.noErrExit
			r.noErrExit = true
			r.stmt(ctx, cm.X)
			r.noErrExit = oldNoErrExit
			if r.exit.ok() == (cm.Op == syntax.AndStmt) {
				r.stmt(ctx, cm.Y)
			}
		case syntax.Pipe, syntax.PipeAll:
			if r.pipelineDebugTrap(ctx, cm) {
				return
			}
			pr, pw, err := newPipe()
			if err != nil {
				r.exit.fatal(err) // not being able to create a pipe is rare but critical
				return
			}
			r2 := r.subshell(true)
			r2.stdout = pw
			if cm.Op == syntax.PipeAll {
				r2.stderr = pw
			} else {
				r2.stderr = r.stderr
			}
			// As in bash without lastpipe, the last command runs in a
			// subshell too: `echo x | read v` leaves v as it was, and
			// `echo x | exit 3` does not end the shell. With shopt -s
			// lastpipe (job control is always off here) it runs in the
			// shell itself, reading the pipe.
			r3 := r
			traceAfter := r.traceAfter
			if lastPipe, _ := r.bashOptByName("lastpipe"); *lastPipe {
				oldStdin := r.stdin
				r.stdin = pr
				defer func() { r.stdin, r.traceAfter = oldStdin, traceAfter }()
			} else {
				r3 = r.subshell(false)
				r3.stdin = pr
			}
			turn := newTraceTurn()
			r2.traceDone = turn
			r3.traceAfter = turn
			if !r.opts[optXTrace] {
				turn.done() // a stage that starts untraced may write first
			}
			var wg sync.WaitGroup
			wg.Add(1)
			if err := r.goSubshell(func() {
				defer wg.Done()
				defer turn.done()
				r2.stmt(ctx, cm.X)
				r2.subshellExit(ctx)
				r2.exit.exiting, r2.exit.returning, r2.exit.discard = false, false, false // a subshell's exit or return ends only it
				pw.Close()
			}); err != nil {
				pr.Close()
				pw.Close()
				r.exit.fatal(err)
				return
			}
			r3.stmt(ctx, cm.Y)
			if r3 != r {
				r3.subshellExit(ctx)
				r3.exit.exiting, r3.exit.returning, r3.exit.discard = false, false, false
				// The process substitutions of the last command are the
				// shell's to wait for, as when it ran in the shell itself.
				r.bgProcs = append(r.bgProcs, r3.bgProcs[len(r.bgProcs):]...)
			}
			pr.Close()
			wg.Wait()
			r.exit = r3.exit
			if r.opts[optPipeFail] && !r2.exit.ok() && r.exit.ok() {
				r.exit = r2.exit
			}
			if r2.exit.fatalExit {
				r.exit.fatal(r2.exit.err) // surface fatal errors immediately
			}
			// PIPESTATUS lists the status of each command of the
			// pipeline; a pipeline on the left brings its own list.
			if x, ok := cm.X.Cmd.(*syntax.BinaryCmd); ok && !cm.X.Negated && (x.Op == syntax.Pipe || x.Op == syntax.PipeAll) {
				r.pipeStatus = append(r2.pipeStatus, int(r3.exit.code))
			} else {
				r.pipeStatus = []int{int(r2.exit.code), int(r3.exit.code)}
			}
		}
	case *syntax.IfClause:
		oldNoErrExit := r.noErrExit
		r.noErrExit = true
		r.stmts(ctx, cm.Cond)
		r.noErrExit = oldNoErrExit

		if r.exit.ok() {
			r.stmts(ctx, cm.Then)
			break
		}
		r.exit.clear()
		if cm.Else != nil {
			r.cmd(ctx, cm.Else)
		}
	case *syntax.WhileClause:
		for !r.stop(ctx) {
			oldNoErrExit := r.noErrExit
			r.noErrExit = true
			r.stmts(ctx, cm.Cond)
			r.noErrExit = oldNoErrExit

			stop := r.exit.ok() == cm.Until
			r.exit.clear()
			if stop || r.loopStmtsBroken(ctx, cm.Do) {
				break
			}
		}
	case *syntax.ForClause:
		switch y := cm.Loop.(type) {
		case *syntax.WordIter:
			name := y.Name.Value
			if !syntax.ValidName(name) {
				// bash names the line where the loop ends.
				r.line = cm.DonePos.Line()
				r.errf("`%s': not a valid identifier\n", name)
				r.exit.code = 1
				break
			}
			items := r.Params // for i; do ...

			inToken := y.InPos.IsValid()
			if inToken {
				// $LINENO in the words is the loop's line, as in bash.
				loopLine := r.ecfg.LoopLine
				if loopLine == 0 {
					r.ecfg.LoopLine = uint(cm.Pos().Line())
				}
				items = r.fields(y.Items...) // for i in ...; do ...
				r.ecfg.LoopLine = loopLine
			}

			if cm.Select {
				ps3 := cmp.Or(r.envGet(shellReplyPS3Var), shellDefaultPS3)

				for menu := true; ; {
					if menu {
						// display menu
						for i, word := range items {
							fmt.Fprintf(r.stderr, "%d) %v\n", i+1, word)
						}
						menu = false
					}
					fmt.Fprint(r.stderr, ps3)

					line, err := r.readLine(ctx, true)
					if err != nil {
						fmt.Fprintln(r.stderr)
						r.exit.code = 1
						break
					}
					if len(line) == 0 {
						menu = true // no reply; show the menu again
						continue
					}

					reply := string(line)
					r.setVarString(shellReplyVar, reply)

					if c, _ := strconv.Atoi(reply); c > 0 && c <= len(items) {
						r.setVarString(name, items[c-1])
					} else {
						r.setVarString(name, "")
					}

					// execute commands until break or return is encountered
					if r.loopStmtsBroken(ctx, cm.Do) {
						break
					}
				}
				break
			}

			for _, field := range items {
				r.line = cm.Pos().Line()
				if r.debugTrap(ctx) {
					break
				}
				r.setVarString(name, field)
				trace.stringf("for %s in", y.Name.Value)
				if inToken {
					for _, item := range y.Items {
						trace.string(" ")
						trace.expr(item)
					}
				} else {
					trace.string(` "$@"`)
				}
				trace.newLineFlush()
				if r.loopStmtsBroken(ctx, cm.Do) {
					break
				}
			}
		case *syntax.CStyleLoop:
			// bash runs the DEBUG trap before each of the three
			// expressions it evaluates, at the loop's line.
			debug := func() bool {
				r.line = cm.Pos().Line()
				return r.debugTrap(ctx)
			}
			// An error in an expression ends the loop with status
			// 1, named as bash's (( )) names it, and the script goes
			// on, as in bash.
			expr := func(x syntax.ArithmExpr) (int, bool) {
				return r.arithmCmd("((", x, syntax.Pos{})
			}
			if y.Init != nil {
				if debug() {
					break
				}
				if _, ok := expr(y.Init); !ok {
					break
				}
			}
			for !debug() {
				if y.Cond != nil {
					n, ok := expr(y.Cond)
					if !ok || n == 0 {
						break
					}
				}
				if !r.exit.ok() || r.loopStmtsBroken(ctx, cm.Do) {
					break
				}
				if y.Post != nil {
					if debug() {
						break
					}
					if _, ok := expr(y.Post); !ok {
						break
					}
				}
			}
		}
	case *syntax.FuncDecl:
		if cm.Name == nil { // e.g. zsh's anonymous or multi-name functions
			r.errf("unsupported\n")
			r.exit.code = 1
			break
		}
		// A name quoted or holding an expansion is refused when it
		// runs, as bash does: its characters show it.
		if strings.ContainsAny(cm.Name.Value, "$`'\"\\") {
			r.errf("`%s': not a valid identifier\n", cm.Name.Value)
			r.exit.code = 1
			break
		}
		if name := cm.Name.Value; r.opts[optPosix] && specialBuiltin(name) {
			// bash's POSIX mode: a fatal error, status 2, at the
			// line the definition ends on.
			r.line = cm.End().Line()
			if syntax.ValidName(name) {
				r.errf("`%s': is a special builtin\n", name)
			} else {
				r.errf("`%s': not a valid identifier\n", name)
			}
			r.exit.code, r.exit.exiting = 2, true
			break
		}
		r.setFunc(cm.Name.Value, cm.Body)
	case *syntax.ArithmCmd:
		n, ok := r.arithmCmd("((", cm.X, cm.Right)
		r.exit.oneIf(ok && n == 0)
	case *syntax.LetClause:
		if tracingEnabled {
			trace.string("let")
			for _, expr := range cm.Exprs {
				trace.stringf(" %s", r.letArgString(trace.printer, expr))
			}
			trace.newLineFlush()
		}
		var val int
		for _, expr := range cm.Exprs {
			var ok bool
			if val, ok = r.arithmCmd("let", expr, syntax.Pos{}); !ok {
				return
			}
		}
		r.exit.oneIf(val == 0)
	case *syntax.CaseClause:
		trace.string("case ")
		trace.expr(cm.Word)
		trace.string(" in")
		trace.newLineFlush()
		str := r.literal(cm.Word)
		runNext := false // whether the previous item ended with ";&"
		for _, ci := range cm.Items {
			if !runNext && !slices.ContainsFunc(ci.Patterns, func(word *syntax.Word) bool {
				return r.match(r.pattern(word), str)
			}) {
				continue
			}
			r.stmts(ctx, ci.Stmts)
			switch ci.Op {
			case syntax.Fallthrough: // ";&" runs the next item unconditionally
				runNext = true
			case syntax.Resume, syntax.ResumeKorn: // ";;&" and ";|" resume matching
				runNext = false
			default: // ";;" or the last item stop
				return
			}
		}
	case *syntax.TestClause:
		if r.bashTest(ctx, cm.X, false) == "" && r.exit.ok() {
			// to preserve exit status code 2 for regex errors, etc
			r.exit.code = 1
		}
	case *syntax.DeclClause:
		var last *syntax.Assign
		assigns := r.expandDeclValues(cm.Args)
		if r.exit.exiting {
			break
		}
		r.declare(cm.Variant.Value, func(yield func(*syntax.Assign) bool) {
			for _, as := range assigns {
				last = as
				if !yield(as) {
					return
				}
			}
		})
		r.lastArg = r.declLastArg(last)
	case *syntax.TimeClause:
		start := time.Now()
		if cm.Stmt != nil {
			r.stmt(ctx, cm.Stmt)
		}
		// As bash, the report goes to the shell's standard error, where
		// `{ time cmd; } 2> f` sends it.
		format := "%s\t%s\n"
		if cm.PosixFormat {
			format = "%s %s\n"
		} else {
			fmt.Fprintf(r.stderr, "\n")
		}
		real := time.Since(start)
		fmt.Fprintf(r.stderr, format, "real", elapsedString(real, cm.PosixFormat))
		// TODO: can we do these?
		fmt.Fprintf(r.stderr, format, "user", elapsedString(0, cm.PosixFormat))
		fmt.Fprintf(r.stderr, format, "sys", elapsedString(0, cm.PosixFormat))
	default:
		// Should only happen if we forgot a case above.
		r.errf("unhandled command node: %T\n", cm)
		r.exit.code = 1
	}
}

// declLastArg is $_ after a declaration builtin: its last word as bash
// sees it once expanded (`declare s=$x` is s=VALUE, `declare s+=1` is
// s+=1), an array assignment by its name alone (`declare a=(1 2)` is a).
func (r *Runner) declLastArg(as *syntax.Assign) string {
	switch {
	case as == nil:
		return ""
	case as.Array != nil || as.Value == nil || !syntax.ValidName(as.Name.Value):
		return as.Name.Value
	case as.Append:
		return as.Name.Value + "+=" + r.literal(as.Value)
	}
	return as.Name.Value + "=" + r.literal(as.Value)
}

// parseAt parses code that bash reads as if its first line were line base
// of the script (eval's string, a trap's code), so that its $LINENO and
// its errors name the lines bash names. A syntax error it reports in
// bash's words, each line headed by head and the line (`bash: eval: line
// 2`, `bash: exit trap: line 1`, `lib.sh: line 3`), and returns nil.
func (r *Runner) parseAt(code string, base uint, head string) *syntax.File {
	base = max(base, 1)
	file, err := syntax.NewParser(syntax.StartLine(base)).Parse(strings.NewReader(code), "")
	if err != nil {
		// bash's words quote the code's own lines: they take the error
		// as the code's from its first line, and name it from base.
		_, err = syntax.NewParser().Parse(strings.NewReader(code), "")
		msg, _ := syntax.BashMessage(code, err, syntax.LangBash, func(line int) string {
			return fmt.Sprintf("%s: line %d", head, line+int(base)-1)
		})
		io.WriteString(r.stderr, msg)
		return nil
	}
	return file
}

func (r *Runner) trapCallback(ctx context.Context, callback, name string) {
	if callback == "" {
		return // nothing to do
	}
	if r.handlingTrap {
		return // don't recurse, as that could lead to cycles
	}
	r.handlingTrap = true
	defer func() { r.handlingTrap = false }()

	// bash numbers the lines of an EXIT trap's code, and a signal's, from
	// 1, those of the others from the line of the command that set it off.
	base, what := uint(1), "trap" // a signal's
	switch name {
	case "exit":
		what = "exit trap"
	case "error", "DEBUG", "RETURN":
		base, what = r.line, strings.ToLower(name)+" trap"
	}
	file := r.parseAt(callback, base, r.errName()+": "+what)
	if file == nil {
		return // the shell goes on, as bash's does
	}
	oldExit, oldLastExit, oldLine := r.exit, r.lastExit, r.line
	if name != "DEBUG" {
		r.lastExit = r.exit // the DEBUG trap sees the last command's $?
	}
	// The trap's own commands run, and their exit or set -e ends it,
	// also when the shell is exiting (an EXIT trap).
	r.exit.exiting, r.exit.returning = false, false
	defer func() { r.line = oldLine }()
	r.stmtsRead(ctx, callback, file.Stmts)
	if r.exit.exiting {
		r.lastExit = oldLastExit
		return // exit, or set -e, in a trap ends the shell, as in bash
	}
	r.exit, r.lastExit = oldExit, oldLastExit // traps on EXIT or ERR should not modify the result
}

// pipelineDebugTrap runs the DEBUG trap for each stage of a pipeline
// that is a simple command, in order, before any stage starts: bash runs
// it in the shell before it forks each stage, and the stages, subshells,
// run none. A block a program made around a stage (its braces have no
// position: not written by the script) counts as its last command. It
// reports whether the trap ended the shell.
func (r *Runner) pipelineDebugTrap(ctx context.Context, cm *syntax.BinaryCmd) bool {
	if r.callbackDebug == "" || r.handlingTrap || r.inFunc && !r.opts[optFuncTrace] {
		return false
	}
	var stages []*syntax.Stmt
	var flatten func(st *syntax.Stmt)
	flatten = func(st *syntax.Stmt) {
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
			flatten(b.X)
			flatten(b.Y)
			return
		}
		stages = append(stages, st)
	}
	flatten(cm.X)
	flatten(cm.Y)
	line := r.line
	defer func() { r.line = line }()
	for _, st := range stages {
		for {
			b, ok := st.Cmd.(*syntax.Block)
			if !ok || b.Lbrace.IsValid() || len(b.Stmts) == 0 {
				break
			}
			st = b.Stmts[len(b.Stmts)-1]
		}
		if _, ok := st.Cmd.(*syntax.CallExpr); !ok {
			continue
		}
		r.line = stmtLine(st)
		if r.debugTrap(ctx) {
			return true
		}
	}
	return false
}

// debugTrap runs the DEBUG trap before a command, as bash does: not inside
// functions unless set -T (functrace) is on. It reports whether the trap
// ended the shell.
func (r *Runner) debugTrap(ctx context.Context) bool {
	if r.callbackDebug == "" || r.handlingTrap || r.inFunc && !r.opts[optFuncTrace] {
		return false
	}
	r.trapCallback(ctx, r.callbackDebug, "DEBUG")
	return r.exit.exiting
}

// returnTrap runs the RETURN trap after a function or a sourced file ends,
// as bash does: after a function only under set -T or when the function
// itself set it.
func (r *Runner) returnTrap(ctx context.Context, function bool) {
	if function && !r.opts[optFuncTrace] && !r.returnTrapInFunc {
		return
	}
	exit := r.exit
	r.trapCallback(ctx, r.callbackReturn, "RETURN")
	r.exit = exit
}

// expandDeclValues expands the words of a declaration builtin, as bash
// does, all before the first assignment: in `local a=1 b=$a`, b gets the a
// from before, and in `export A=1 v=$(cmd)`, cmd does not see A. A value
// becomes its expansion, quoted so that it is not expanded again; an array
// literal is left to the assignment.
func (r *Runner) expandDeclValues(args []*syntax.Assign) []*syntax.Assign {
	var list []*syntax.Assign
	for as := range r.flattenAssigns(args) {
		if as.Value != nil && as.Array == nil {
			expanded := *as
			val := r.literal(r.colonTildes(as.Value))
			expanded.Value = &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Left: as.Value.Pos(), Right: as.Value.End(), Value: val}}}
			as = &expanded
		}
		list = append(list, as)
	}
	return list
}

func (r *Runner) flattenAssigns(args []*syntax.Assign) iter.Seq[*syntax.Assign] {
	return func(yield func(*syntax.Assign) bool) {
		for _, as := range args {
			// Convert "declare $x" into "declare value".
			// Don't use syntax.Parser here, as we only want the basic
			// splitting by '='.
			if as.Name != nil {
				if !yield(as) {
					return
				}
				continue
			}
			for _, field := range r.fields(as.Value) {
				if !yield(fieldAssign(field)) {
					return
				}
			}
		}
	}
}

// letArgString reproduces one expression of a let clause as bash would print it
// when tracing, that is, as the single quoted word that bash's let receives.
func (r *Runner) letArgString(printer *syntax.Printer, expr syntax.ArithmExpr) string {
	if word, ok := expr.(*syntax.Word); ok {
		return quoteBash(r.literal(word))
	}
	// The printer only prints an arithmetic expression as part of a parent node,
	// so print a let clause holding just this expression and drop the keyword.
	// The keyword borrows the expression's position to stay on the same line.
	// TODO: drop this workaround if [syntax.Printer.Print] learns to print
	// an arithmetic expression on its own.
	var sb strings.Builder
	if err := printer.Print(&sb, &syntax.LetClause{
		Let:   expr.Pos(),
		Exprs: []syntax.ArithmExpr{expr},
	}); err != nil { // should never happen
		panic(err)
	}
	return strings.TrimPrefix(sb.String(), "let ")
}

func (r *Runner) match(pat, name string) bool {
	mode := pattern.EntireString | pattern.ExtendedOperators
	if r.opts[optNoCaseMatch] {
		mode |= pattern.NoGlobCase
	}
	matcher, err := internal.ExtendedPatternMatcher(pat, mode)
	if err != nil {
		// A malformed pattern simply does not match, like in bash.
		// Any other error, such as an unsupported extended pattern, is reported.
		if _, ok := errors.AsType[*pattern.SyntaxError](err); !ok {
			r.expandErr(err)
		}
		return false
	}
	return matcher(name)
}

func elapsedString(d time.Duration, posix bool) string {
	if posix {
		return fmt.Sprintf("%.2f", d.Seconds())
	}
	mins := int(d.Minutes())
	sec := math.Mod(d.Seconds(), 60.0)
	return fmt.Sprintf("%dm%.3fs", mins, sec)
}

// subshellExit runs the EXIT trap a subshell set, as the subshell ends:
// bash runs it there (`(trap 'rm -f $tmp' EXIT; …)` cleans up when the
// subshell ends), and never the trap of the shell it came from, which a
// subshell does not take.
func (r *Runner) subshellExit(ctx context.Context) {
	if r.callbackExit != "" {
		r.trapCallback(ctx, r.callbackExit, "exit")
	}
}

func (r *Runner) stmts(ctx context.Context, stmts []*syntax.Stmt) {
	for _, stmt := range stmts {
		r.stmt(ctx, stmt)
	}
}

// stmtsRead runs stmts, parsed from text, as bash reads code it was given
// to run (eval's string, a sourced file, a trap's code): under set -v each
// line is printed as it is read, just before the command it ends.
func (r *Runner) stmtsRead(ctx context.Context, text string, stmts []*syntax.Stmt) {
	echo := readEcho{text: text}
	// After a return or an exit bash reads no further; after a break or a
	// continue it reads the rest and runs none of it (stmt skips it).
	readsOn := func() bool { return !r.exit.returning && !r.exit.exiting && ctx.Err() == nil }
	for _, stmt := range stmts {
		if !readsOn() {
			return
		}
		r.echoRead(&echo, stmtReadEnd(echo.text, stmt))
		r.stmt(ctx, stmt)
	}
	if readsOn() {
		r.echoRead(&echo, len(echo.text))
	}
}

// topLevel runs the statements of a script as a shell reads them: when one
// is discarded (an arithmetic error), the statements after it on its last
// line are too, and the script goes on with the next line, $? being 1.
func (r *Runner) topLevel(ctx context.Context, stmts []*syntax.Stmt) {
	skipLine := uint(0)
	read := r.readLines(stmts)
	echo := readEcho{text: r.scriptText}
	for i, stmt := range stmts {
		r.echoRead(&echo, stmtReadEnd(echo.text, stmt))
		if stmt.Pos().Line() == skipLine {
			continue
		}
		r.aliasRead = read[i]
		r.stmt(ctx, stmt)
		if r.endDiscard() {
			skipLine = stmt.End().Line()
		}
		if r.exit.exiting {
			return
		}
	}
	r.echoRead(&echo, len(echo.text))
}

// readEcho follows, for set -v, how far the shell has read a script's
// text: bash prints each line as it reads it, and it reads a command's
// lines whole before running it.
type readEcho struct {
	text string
	done int // the offset up to which the text is read
}

// echoRead reads the text up to offset upto, printing what was not read
// yet if set -v is on.
func (r *Runner) echoRead(e *readEcho, upto int) {
	upto = min(upto, len(e.text))
	if upto <= e.done {
		return
	}
	if r.opts[optVerbose] {
		read := e.text[e.done:upto]
		if !strings.HasSuffix(read, "\n") {
			read += "\n" // bash reads a last line as if it ended in a newline
		}
		io.WriteString(r.stderr, read)
	}
	e.done = upto
}

// stmtReadEnd is the offset just past the line on which stmt's text ends;
// with a here-document, that is its delimiter's line.
func stmtReadEnd(text string, stmt *syntax.Stmt) int {
	if text == "" {
		return 0
	}
	end := 0
	syntax.Walk(stmt, func(n syntax.Node) bool {
		if n != nil && n.End().IsValid() {
			end = max(end, int(n.End().Offset()))
		}
		return true
	})
	end = min(end, len(text))
	if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
		return end + i + 1
	}
	return len(text)
}

// endDiscard ends a discard at the level that catches it, and reports
// whether there was one.
func (r *Runner) endDiscard() bool {
	if !r.exit.exiting || !r.exit.discard {
		return false
	}
	r.exit.exiting, r.exit.discard = false, false
	r.lastExit = r.exit
	return true
}

func (r *Runner) hdocReader(rd *syntax.Redirect) (stdinFile, error) {
	pr, pw, err := newPipe()
	if err != nil {
		return nil, err
	}
	hdoc := r.hdocString(rd)
	// We write to the pipe in a new goroutine,
	// as pipe writes may block once the buffer gets full.
	// We still construct and buffer the entire heredoc first,
	// as doing it concurrently would lead to different semantics and be racy.
	go func() {
		io.WriteString(pw, hdoc)
		pw.Close()
	}()
	return pr, nil
}

// hdocQuotedDelim reports whether a here-document delimiter word is quoted,
// as in "<<'EOF'" or "<<\EOF", which makes its body literal.
func hdocQuotedDelim(word *syntax.Word) bool {
	for _, wp := range word.Parts {
		switch wp := wp.(type) {
		case *syntax.Lit:
			if strings.Contains(wp.Value, "\\") {
				return true
			}
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		}
	}
	return false
}

// hdocWord returns a here-document body, or one of its lines, as a string.
// A quoted delimiter, as in "<<'EOF'", makes the body literal,
// in which case the parser only gives us literal parts.
// Note that a partly quoted delimiter, such as "<<'A'B",
// is not spotted by the parser either, so we still expand its body.
func (r *Runner) hdocWord(word *syntax.Word, quoted bool) string {
	if quoted {
		if lit := word.Lit(); lit != "" {
			return lit
		}
	}
	return r.document(word)
}

// hdocString returns the body of a here-document as a string.
func (r *Runner) hdocString(rd *syntax.Redirect) string {
	if rd.Hdoc == nil {
		return "" // an empty here-document
	}
	quoted := hdocQuotedDelim(rd.Word)
	if rd.Op != syntax.DashHdoc {
		return r.hdocWord(rd.Hdoc, quoted)
	}
	// Strip the leading tabs from each line.
	var buf strings.Builder
	var cur []syntax.WordPart
	flushLine := func() {
		if buf.Len() > 0 {
			buf.WriteByte('\n')
		}
		buf.WriteString(r.hdocWord(&syntax.Word{Parts: cur}, quoted))
		cur = cur[:0]
	}
	for _, wp := range rd.Hdoc.Parts {
		lit, ok := wp.(*syntax.Lit)
		if !ok {
			cur = append(cur, wp)
			continue
		}
		first := true
		for part := range strings.SplitSeq(lit.Value, "\n") {
			if !first {
				flushLine()
			}
			first = false
			part = strings.TrimLeft(part, "\t")
			cur = append(cur, &syntax.Lit{Value: part})
		}
	}
	flushLine()
	return buf.String()
}

// errRedirExpansion is a redirection whose word failed to expand; the
// expansion reported the error and set the status.
var errRedirExpansion = errors.New("a redirection's word failed to expand")

// redirTarget expands the word of a redirection as bash does, with brace
// expansion, word splitting and globbing: it must make one word (`> $f`
// with f='a b', `> x-{1,2}` and a glob of two files are ambiguous).
// The words of <& and >& too (`>& "$@"` of two parameters is ambiguous);
// a here-string's word is not split.
func (r *Runner) redirTarget(rd *syntax.Redirect) (string, error) {
	if rd.Op == syntax.WordHdoc {
		return r.literal(rd.Word), nil
	}
	fields := r.fields(rd.Word)
	if !r.exit.ok() {
		return "", errRedirExpansion
	}
	if len(fields) != 1 {
		var b strings.Builder
		syntax.NewPrinter().Print(&b, rd.Word)
		return "", fmt.Errorf("%s: ambiguous redirect", b.String())
	}
	return fields[0], nil
}

func (r *Runner) redir(ctx context.Context, rd *syntax.Redirect) (io.Closer, error) {
	orig := &r.stdout
	// fd is the descriptor 3 to 9 the redirection sets, if it names one.
	var fd *any
	if rd.N != nil {
		switch rd.N.Value {
		case "0":
			// Note that the input redirects below always use stdin (0).
		case "1":
			// The default for the output redirects below.
		case "2":
			orig = &r.stderr
		default:
			n, err := strconv.Atoi(rd.N.Value)
			if err != nil || n < 3 || n > 9 {
				return nil, fmt.Errorf("unsupported redirect fd: %v", rd.N.Value)
			}
			fd = &r.fds[n-3]
		}
	}
	setIn := func(rd io.Reader) error {
		if fd != nil {
			*fd = rd
			return nil
		}
		stdin, err := newStdinFile(rd)
		if err != nil {
			return err
		}
		r.stdin = stdin
		return nil
	}
	// Note that Hdoc is nil for an empty here-document.
	if rd.Op == syntax.Hdoc || rd.Op == syntax.DashHdoc {
		pr, err := r.hdocReader(rd)
		if err != nil {
			return nil, err
		}
		return pr, setIn(pr)
	}
	arg, err := r.redirTarget(rd)
	if err != nil {
		return nil, err
	}
	switch rd.Op {
	case syntax.WordHdoc:
		pr, pw, err := newPipe()
		if err != nil {
			return nil, err
		}
		// We write to the pipe in a new goroutine,
		// as pipe writes may block once the buffer gets full.
		go func() {
			io.WriteString(pw, arg)
			io.WriteString(pw, "\n")
			pw.Close()
		}()
		return pr, setIn(pr)
	case syntax.DplOut, syntax.DplIn:
		if arg == "-" {
			switch {
			case fd != nil:
				*fd = nil
			case rd.Op == syntax.DplIn || (rd.N != nil && rd.N.Value == "0"):
				r.stdin = nil // closing the input file
			default:
				*orig = io.Discard // closing the output writer
			}
			return nil, nil
		}
		var src any
		switch arg {
		case "0":
			src = r.stdin
		case "1":
			src = r.stdout
		case "2":
			src = r.stderr
		default:
			if n, err := strconv.Atoi(arg); err == nil && n >= 3 && n <= 9 {
				src = r.fds[n-3]
			}
		}
		if src == nil || src == stdinFile(nil) {
			return nil, fmt.Errorf("%s: Bad file descriptor", arg)
		}
		if fd != nil {
			*fd = src
			return nil, nil
		}
		if rd.Op == syntax.DplIn || (rd.N != nil && rd.N.Value == "0") {
			in, ok := src.(io.Reader)
			if !ok {
				return nil, fmt.Errorf("%s: Bad file descriptor", arg)
			}
			return nil, setIn(in)
		}
		w, ok := src.(io.Writer)
		if !ok {
			return nil, fmt.Errorf("%s: Bad file descriptor", arg)
		}
		*orig = w
		return nil, nil
	case syntax.RdrIn, syntax.RdrOut, syntax.AppOut, syntax.ClbOut, syntax.RdrInOut,
		syntax.RdrAll, syntax.AppAll:
		// done further below
	default:
		return nil, fmt.Errorf("unhandled redirect op: %v", rd.Op)
	}
	mode := os.O_RDONLY
	switch rd.Op {
	case syntax.AppOut, syntax.AppAll:
		mode = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	case syntax.RdrOut, syntax.ClbOut, syntax.RdrAll:
		mode = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	case syntax.RdrInOut:
		mode = os.O_RDWR | os.O_CREATE
	}
	noclobber := r.opts[optNoClobber] && (rd.Op == syntax.RdrOut || rd.Op == syntax.RdrAll)
	if noclobber {
		// set -C: > makes a new file; >| overwrites.
		mode = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	}
	// As bash, a file made for a redirection has 0666 less the umask.
	f, err := r.open(ctx, arg, mode, fs.FileMode(0o666&^r.mask), false)
	if noclobber && errors.Is(err, fs.ErrExist) {
		if info, serr := r.stat(ctx, r.absPath(arg)); serr == nil && info.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: cannot overwrite existing file", arg)
		}
		// Not a regular file (/dev/null, a pipe): written as it is.
		f, err = r.open(ctx, arg, os.O_WRONLY, 0o644, false)
	}
	if err != nil {
		return nil, errors.New(pathErrorText(arg, err))
	}
	switch rd.Op {
	case syntax.RdrIn, syntax.RdrInOut:
		if fd != nil {
			*fd = f
		} else if err := setIn(f); err != nil {
			return nil, err
		}
	case syntax.RdrOut, syntax.ClbOut, syntax.AppOut:
		if fd != nil {
			*fd = f
		} else {
			*orig = f
		}
	case syntax.RdrAll, syntax.AppAll:
		r.stdout = f
		r.stderr = f
	}
	return f, nil
}

// fdReader is the reader behind descriptor arg (0, or 3 to 9).
func (r *Runner) fdReader(arg string) (io.Reader, bool) {
	if arg == "0" {
		return r.stdin, r.stdin != nil
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n < 3 || n > 9 {
		return nil, false
	}
	in, ok := r.fds[n-3].(io.Reader)
	return in, ok
}

func (r *Runner) loopStmtsBroken(ctx context.Context, stmts []*syntax.Stmt) bool {
	r.loopDepth++
	defer func() { r.loopDepth-- }()
	for _, stmt := range stmts {
		r.stmt(ctx, stmt)
		if r.contnEnclosing > 0 {
			r.contnEnclosing--
			return r.contnEnclosing > 0
		}
		if r.breakEnclosing > 0 {
			r.breakEnclosing--
			return true
		}
	}
	return false
}

func (r *Runner) call(ctx context.Context, pos syntax.Pos, args []string) {
	if r.stop(ctx) {
		return
	}
	if r.callHandler != nil {
		var err error
		args, err = r.callHandler(r.handlerCtx(ctx, handlerKindCall, pos), args)
		if err != nil {
			// handler's custom fatal error
			r.exit.fatal(err)
			return
		}
	}
	name := args[0]
	// In bash's POSIX mode a special builtin is found before a function.
	if body := r.Funcs[name]; body != nil && !(r.opts[optPosix] && specialBuiltin(name)) {
		ctx, err := r.limits.Nest(ctx)
		if err != nil {
			r.exit.fatal(err)
			return
		}
		// stack them to support nested func calls
		oldParams := r.Params
		r.Params = args[1:]
		oldInFunc := r.inFunc
		r.inFunc = true
		// As in bash, a function's break and continue count only its own
		// loops: one outside them is "only meaningful in a loop".
		oldLoopDepth := r.loopDepth
		r.loopDepth = 0
		r.funcStack = append(r.funcStack, name)
		r.frames = append(r.frames, frame{name, r.funcSources[name], r.line})

		// Functions run in a nested scope.
		// Note that [Runner.exec] below does something similar.
		origEnv := r.writeEnv
		r.writeEnv = &overlayEnviron{parent: r.writeEnv, funcScope: true}

		// Under set -T, bash runs the DEBUG trap as a function starts too.
		if r.opts[optFuncTrace] && r.debugTrap(ctx) {
			body = nil
		}
		if body != nil {
			r.stmt(ctx, body)
		}
		if r.callbackReturn != "" {
			r.returnTrap(ctx, true)
		}

		r.writeEnv = origEnv

		r.Params = oldParams
		r.inFunc = oldInFunc
		r.loopDepth = oldLoopDepth
		r.frames = r.frames[:len(r.frames)-1]
		r.funcStack = r.funcStack[:len(r.funcStack)-1]
		r.exit.returning = false
		return
	}
	if IsBuiltin(name) {
		r.exit = r.builtin(ctx, pos, name, args[1:])
		return
	}
	r.exec(ctx, pos, args)
}

func (r *Runner) exec(ctx context.Context, pos syntax.Pos, args []string) {
	r.hashRemember(args[0])
	r.exit.fromHandlerError(r.execHandler(r.handlerCtx(ctx, handlerKindExec, pos), args))
}

func (r *Runner) open(ctx context.Context, path string, flags int, mode os.FileMode, print bool) (io.ReadWriteCloser, error) {
	// If we are opening a FIFO temporary file created by the interpreter itself,
	// don't pass this along to the open handler as it will not work at all
	// unless [os.OpenFile] is used directly with it.
	// Only the very names it made go past the handler: a script can put
	// a link to any file at a name that merely looks like one.
	//
	// If we want FIFOs to use a handler in the future, they probably
	// need their own separate handler API matching Unix-like semantics.
	if made := r.fifos.made(path); made != nil {
		return openFifo(path, flags, made)
	}

	f, err := r.openHandler(r.handlerCtx(ctx, handlerKindOpen, todoPos), path, flags, mode)
	// TODO: support wrapped PathError returned from openHandler.
	switch err.(type) {
	case nil:
		return f, nil
	case *os.PathError:
		if print {
			r.errf("%v\n", err)
		}
	default: // handler's custom fatal error
		r.exit.fatal(err)
	}
	return nil, err
}

func (r *Runner) stat(ctx context.Context, name string) (fs.FileInfo, error) {
	path := absPath(r.Dir, name)
	return r.statHandler(r.handlerCtx(ctx, handlerKindStat, todoPos), path, true)
}

func (r *Runner) lstat(ctx context.Context, name string) (fs.FileInfo, error) {
	path := absPath(r.Dir, name)
	return r.statHandler(r.handlerCtx(ctx, handlerKindStat, todoPos), path, false)
}

func (r *Runner) access(ctx context.Context, name string, mode AccessMode) error {
	path := absPath(r.Dir, name)
	return r.accessHandler(r.handlerCtx(ctx, handlerKindAccess, todoPos), path, mode)
}
