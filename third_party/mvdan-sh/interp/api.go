// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

// Package interp implements an interpreter to execute shell programs
// parsed by the [syntax] package as either [syntax.LangBash]
// or [syntax.LangPOSIX], behaving like Bash as a result.
//
// The interpreter currently aims to behave like a non-interactive shell,
// which is how most shells run scripts, and is more useful to machines.
// In the future, it may gain an option to behave like an interactive shell.
package interp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	mathrand "math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/expand"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

// A Runner interprets shell programs. It can be reused, but it is not safe for
// concurrent use. Use [New] to build a new Runner.
//
// Note that writes to Stdout and Stderr may be concurrent if background
// commands are used. If you plan on using an [io.Writer] implementation that
// isn't safe for concurrent use, consider a workaround like hiding writes
// behind a mutex.
//
// Runner's exported fields are meant to be configured via [RunnerOption];
// once a Runner has been created, the fields should be treated as read-only.
type Runner struct {
	// Env specifies the initial environment for the interpreter, which must
	// not be nil. It can only be set via [Env].
	//
	// If it includes a TMPDIR variable describing an absolute directory,
	// it is used as the directory in which to create temporary files needed
	// for the interpreter's use, such as named pipes for process substitutions.
	// Otherwise, [os.TempDir] is used.
	Env expand.Environ

	// writeEnv overlays [Runner.Env] so that we can write environment variables
	// as an overlay.
	writeEnv expand.WriteEnviron

	// Dir specifies the working directory of the command, which must be an
	// absolute path. It can only be set via [Dir].
	Dir string

	// tempDir is the directory given by [TempDir], else $TMPDIR from
	// [Runner.Env], or [os.TempDir].
	tempDir string

	// fifos are the named pipes this runner and its subshells made for
	// process substitutions: only these are opened past the open handler.
	fifos *fifoSet

	// Params are the current shell parameters, e.g. from running a shell
	// file or calling a function. Accessible via the $@/$* family of vars.
	// It can only be set via [Params].
	Params []string

	// Separate maps - note that bash allows a name to be both a var and a
	// func simultaneously.
	// Vars is mostly superseded by Env at this point.
	// TODO(v4): remove these

	Vars  map[string]expand.Variable
	Funcs map[string]*syntax.Stmt

	// frames are the function calls and sourced files running, the
	// innermost last: where each one's code came from and the line it was
	// called on (BASH_SOURCE and BASH_LINENO). mainSource is what the main
	// script's functions are said to come from ([MainSource]), mainFrame
	// whether the main script is a frame of its own ([ScriptFile]), and
	// funcSources each function's source.
	frames []frame
	// hashed is bash's hash table of the programs run by name.
	hashed      []hashEntry
	mainSource  string
	mainFrame   bool
	funcSources map[string]string

	// execString is BASH_EXECUTION_STRING, a `bash -c` string
	// ([ExecutionString]).
	execString *string

	alias map[string]alias
	// aliasRead is the last line of the main script read when the running
	// top-level statement began: bash reads a line whole (and a compound
	// command whole) before running it, so an alias defined on it takes
	// effect from the next line on. aliasTop is the line each simple
	// command of the main script was read on (its top-level statement's
	// first line; for a function's body, the function's definition).
	// aliasInUse are the aliases whose text is being run: they are not
	// expanded again in it.
	aliasRead  uint
	aliasTop   map[*syntax.CallExpr]uint
	aliasInUse []string

	// callHandler is a function allowing to replace a simple command's
	// arguments. It may be nil.
	callHandler CallHandlerFunc

	// untraced names a command that xtrace does not print: a caller's
	// own bookkeeping command that the script never wrote.
	untraced string

	// scriptText is the text of the script that Run runs, which set -v
	// prints as the shell reads it.
	scriptText string

	// substDepth counts the command and process substitutions the runner
	// is in; xtrace's prefix repeats its "+" once more for each, as bash's.
	substDepth int

	// traceAfter is the turn a pipeline stage waits for before its first
	// xtrace line; traceDone is its own, given on its first line or end.
	traceAfter, traceDone *traceTurn

	// execHandler is responsible for executing programs. It must not be nil.
	execHandler ExecHandlerFunc

	// execMiddlewares grows with calls to [ExecHandlers],
	// and is used to construct execHandler when Reset is first called.
	// The slice is needed to preserve the relative order of middlewares.
	execMiddlewares []func(ExecHandlerFunc) ExecHandlerFunc

	// openHandler is a function responsible for opening files. It must not be nil.
	openHandler OpenHandlerFunc

	// readDirHandler is a function responsible for reading directories during
	// glob expansion. It must be non-nil.
	readDirHandler ReadDirHandlerFunc2

	// statHandler is a function responsible for getting file stat. It must be non-nil.
	statHandler StatHandlerFunc

	// accessHandler is a function responsible for checking file access. It must be non-nil.
	accessHandler AccessHandlerFunc

	stdin  stdinFile // e.g. the read end of a pipe
	stdout io.Writer
	stderr io.Writer
	// fds are the descriptors 3 to 9 a redirection opened (`exec 3>f`,
	// `4<f cmd`): an io.Reader, an io.Writer, or nil when closed.
	fds [7]any

	ecfg *expand.Config

	// varWrites counts the variables set, so that an array assignment
	// can tell whether its subscript assigned (a[a[0]=1]=x) and read the
	// array again, as bash assigns to the array as it is then.
	varWrites int

	ectx context.Context // just so that Runner.Subshell can use it again

	// didReset remembers whether the runner has ever been reset. This is
	// used so that Reset is automatically called when running any program
	// or node for the first time on a Runner.
	didReset bool

	usedNew bool

	filename string // only if Node was a File

	// rand is the pseudo-random number generator behind the RANDOM variable,
	// only set once RANDOM has been assigned to in order to seed it.
	rand *mathrand.Rand

	// >0 to break or continue out of N enclosing loops
	breakEnclosing, contnEnclosing int

	// preFields are the words of the simple command about to run,
	// expanded before its redirections as bash does.
	preFields     []string
	havePreFields bool

	loopDepth    int // how many loops the running code is in
	inFunc       bool
	inSource     bool
	handlingTrap bool // whether we're currently in a trap callback

	// track if a sourced script set positional parameters
	sourceSetParams bool

	// noErrExit prevents failing commands from triggering [optErrExit],
	// such as the condition in a [syntax.IfClause].
	noErrExit bool

	// The current and last exit statuses. They can only be different if
	// the interpreter is in the middle of running a statement. In that
	// scenario, 'exit' is the status for the current statement being run,
	// and 'lastExit' corresponds to the previous statement that was run.
	exit     exitStatus
	lastExit exitStatus

	// lastArg is $_: the last word of the last simple command.
	lastArg string

	// started is when the shell started, for $SECONDS.
	started time.Time
	// bashPID is $BASHPID in a subshell (0 in the shell itself: its pid).
	bashPID int

	lastExpandExit exitStatus // used to surface exit statuses while expanding fields

	// line is the line of the statement being run, for error messages.
	line uint

	// subshellLevel is BASH_SUBSHELL: how many subshells deep this runs.
	subshellLevel int

	// startTime is when the shell started: printf's %(…)T of -2.
	startTime time.Time
	// funcStack is the functions being run, the innermost last (FUNCNAME).
	funcStack []string

	// syntaxErrors words a syntax error as the embedding shell does; see
	// SyntaxErrors.
	syntaxErrors func(src string, err error) string

	limits *Limits // nil: no bounds

	// mask is the script's file mode mask: the umask builtin's, which
	// the files its redirections make and the programs it starts get.
	// origMask is the one it started with (see [Umask]).
	mask, origMask uint32

	// execArgv0 is the argv[0] `exec -a NAME` gives the program it runs.
	execArgv0 string

	// pipeStatus is the status of each command of the last pipeline.
	pipeStatus []int

	// signals are those sent to the shell from outside (Signal); nil in
	// a subshell. signalParent is the shell $$ names for a signal this
	// one does not trap (SignalsTo).
	signals      *signalQueue
	signalParent *Runner

	// bgProcs holds all background shells spawned by this runner.
	// Their PIDs count up from bgPIDBase, above every real PID on the
	// host operating system. A subshell starts with its parent's.
	bgProcs []*bgProc

	opts runnerOpts

	origDir    string
	origParams []string
	origOpts   runnerOpts
	origStdin  stdinFile
	origStdout io.Writer
	origStderr io.Writer

	// Most scripts don't use pushd/popd, so make space for the initial PWD
	// without requiring an extra allocation.
	dirStack     []string
	dirBootstrap [1]string

	optState getopts

	// keepRedirs is set by "exec" so that its statement's redirections
	// apply to the current shell, and not just the command.
	// It is consumed by the enclosing statement once it finishes.
	keepRedirs bool

	// Fake signal callbacks
	callbackErr    string
	callbackExit   string
	callbackDebug  string
	callbackReturn string
	// returnTrapInFunc is whether a function set the RETURN trap, which
	// then runs when functions return.
	returnTrapInFunc bool
	// errTrapRan is whether the ERR trap ran for the statement that just
	// ended, so that the compound command around it does not run it again.
	errTrapRan bool
	// traps are the actions trap set, by the name it lists them by; a
	// subshell lists its parent's, as in bash.
	traps map[string]string
}

// exitStatus holds the state of the shell after running one command.
// Beyond the exit status code, it also holds whether the shell should return or exit,
// as well as any Go error values that should be given back to the user.
//
// TODO(v4): consider replacing ExitStatus with a struct like this,
// so that an [ExecHandlerFunc] can e.g. mimic `exit 0` or fatal errors
// with specific exit codes.
type exitStatus struct {
	// code is the exit status code.
	// When code is zero, err must be nil.
	code uint8

	// TODO: consider an enum, as only one of these should be set at a time
	returning bool // whether the current function `return`ed
	exiting   bool // whether the current shell is exiting
	fatalExit bool // whether the current shell is exiting due to a fatal error; err below must not be nil
	// discard, with exiting, ends the command the shell reads at its top
	// level (the rest of its line too), as an arithmetic error or a
	// failglob pattern does in bash; a subshell exits, eval and source end, and the next line runs.
	discard bool

	// err holds the error information for a non-zero exit status code or fatal error.
	// Used so that running a single statement with a custom handler
	// which returns a non-fatal Go error, such as a Go error wrapping [NewExitStatus],
	// can be returned by [Runner.Run] without being lost entirely.
	err error
}

// clear sets the exit status code and error to zero, as long as the exit status
// was not set by `return`, `exit`, or a fatal error.
func (e *exitStatus) clear() {
	if e.returning || e.exiting || e.fatalExit {
		return
	}
	e.code = 0
	e.err = nil
}

func (e *exitStatus) ok() bool { return e.code == 0 }

// oneIf sets the exit status code to 1 if b is true.
// Note that it assumes the exit status hasn't been set yet,
// meaning that [exitStatus.code] and [exitStatus.err] are zero values.
func (e *exitStatus) oneIf(b bool) {
	if b {
		e.code = 1
	}
}

func (e *exitStatus) fatal(err error) {
	if e.fatalExit || err == nil {
		return
	}
	e.exiting = true
	e.fatalExit = true
	e.err = err
	if e.code == 0 {
		e.code = 1
	}
}

func (e *exitStatus) fromHandlerError(err error) {
	if err == nil {
		return
	}
	if exit, ok := errors.AsType[errBuiltinExitStatus](err); ok {
		*e = exitStatus(exit)
	} else if es, ok := errors.AsType[ExitStatus](err); ok {
		e.err = err
		e.code = uint8(es)
	} else {
		e.fatal(err) // handler's custom fatal error
	}
}

type bgProc struct {
	// closed when the background process finishes,
	// after which point the result fields below are set.
	done chan struct{}

	exit *exitStatus

	pid    int    // $!
	job    bool   // an & command, which job specs name and jobs lists
	number int    // its job number, %N
	text   string // the command as written, for jobs
	waited bool   // wait reported it: job specs no longer name it
	// signal is the signal `kill` ended it with (0: none), which wait
	// reports once (notified) as bash does.
	signal   int
	notified bool
	// cancel ends the job with the cause a JobSignal.
	cancel context.CancelCauseFunc
	// readsFifo is the named pipe a >(…) reads, made as fifoMade.
	readsFifo string
	fifoMade  fs.FileInfo
}

// addBg records a background shell, giving it its $! (and its job
// number, for an & command).
func (r *Runner) addBg(bg *bgProc) {
	r.bgProcs = append(r.bgProcs, bg)
	bg.pid = bgPIDBase + int(lastPID.Add(1))
	if bg.job {
		for _, other := range r.bgProcs {
			if other.job {
				bg.number++
			}
		}
	}
}

type alias struct {
	value string // as defined, which alias and type print
	blank bool   // the value ends with a blank: the next word may be an alias too
	read  uint   // aliasRead when it was defined
}

// New creates a new Runner, applying a number of options. If applying any of
// the options results in an error, it is returned.
//
// Any unset options fall back to their defaults. For example, not supplying the
// environment falls back to the process's environment, and not supplying the
// standard output writer means that the output will be discarded.
func New(opts ...RunnerOption) (*Runner, error) {
	r := &Runner{
		usedNew:        true,
		origMask:       processUmask,
		openHandler:    DefaultOpenHandler(),
		readDirHandler: DefaultReadDirHandler2(),
		statHandler:    DefaultStatHandler(),
		accessHandler:  DefaultAccessHandler(),
	}
	r.dirStack = r.dirBootstrap[:0]
	// turn "on" the default options
	for i, opt := range &posixOptsTable {
		r.opts[i] = opt.support == optAlwaysOn
	}
	for i, opt := range bashOptsTable {
		r.opts[len(posixOptsTable)+i] = opt.defaultState
	}

	for _, opt := range opts {
		if err := opt(r); err != nil {
			return nil, err
		}
	}

	// Set the default fallbacks, if necessary.
	if r.Env == nil {
		Env(nil)(r)
	}
	if r.Dir == "" {
		if err := Dir("")(r); err != nil {
			return nil, err
		}
	}
	if r.stdout == nil || r.stderr == nil {
		StdIO(r.stdin, r.stdout, r.stderr)(r)
	}
	return r, nil
}

// RunnerOption can be passed to [New] to alter a [Runner]'s behaviour.
// It can also be applied directly on an existing Runner,
// such as interp.Params("-e")(runner) or interp.StdIO(nil, w, w)(runner).
//
// Note that [Env] and [Dir] only take effect the next time that the runner is
// reset, as [Runner.Reset] derives state from them, such as the variables and
// the value of PWD. Since running a node only resets a runner the first time
// around, applying either option after a run requires an explicit reset.
type RunnerOption func(*Runner) error

// TODO(v4): consider making [Env] and [Dir] fail when applied after a reset,
// rather than being silently held back until the next one.

// Env sets the interpreter's environment. If nil, a copy of the current
// process's environment is used.
func Env(env expand.Environ) RunnerOption {
	return func(r *Runner) error {
		if env == nil {
			env = expand.ListEnviron(os.Environ()...)
		}
		r.Env = env
		return nil
	}
}

// TempDir sets the directory, which must be absolute, in which the
// interpreter makes its own temporary files (the named pipes of process
// substitutions) instead of $TMPDIR or [os.TempDir]: a directory private to
// the caller keeps others from planting names there.
func TempDir(dir string) RunnerOption {
	return func(r *Runner) error {
		if !filepath.IsAbs(dir) {
			return fmt.Errorf("temporary directory %q is not absolute", dir)
		}
		r.tempDir = filepath.Clean(dir)
		return nil
	}
}

// MainSource names the main script in the errors of the functions it
// defines, as bash's BASH_SOURCE does: `environment` for a `bash -c`
// string, `main` for a script read from stdin. Errors in the main script's
// own statements start with $0. Without it, a function's errors start
// with $0 too.
func MainSource(name string) RunnerOption {
	return func(r *Runner) error {
		r.mainSource = name
		return nil
	}
}

// ScriptFile says the main script is the file at path, as `bash path`
// runs it: its functions' errors start with path, and BASH_SOURCE and
// BASH_LINENO end with it (path and 0), as bash's do.
func ScriptFile(path string) RunnerOption {
	return func(r *Runner) error {
		r.mainSource, r.mainFrame = path, true
		return nil
	}
}

// frame is a function call or a sourced file that is running.
type frame struct {
	name   string // the function's, or source
	source string // the file its code came from
	line   uint   // the line it was called on
}

// source is the file the running code was read from, as bash's
// BASH_SOURCE[0]: a sourced file, or the script that defined the running
// function; empty in the main script's own statements.
func (r *Runner) source() string {
	if n := len(r.frames); n > 0 {
		return r.frames[n-1].source
	}
	return ""
}

// sourceStack is BASH_SOURCE and lines BASH_LINENO: each frame's source
// and the line it was called on, the innermost first.
func (r *Runner) sourceStack() (sources, lines []string) {
	sources, lines = []string{}, []string{}
	for _, f := range slices.Backward(r.frames) {
		sources = append(sources, f.source)
		lines = append(lines, strconv.FormatUint(uint64(f.line), 10))
	}
	if r.mainFrame {
		sources, lines = append(sources, r.mainSource), append(lines, "0")
	}
	return sources, lines
}

// bashVersion is $BASH_VERSION: the bash whose behaviour the patches
// match.
const bashVersion = "5.2.15(1)-release"

// ExecutionString sets BASH_EXECUTION_STRING, a shell variable that is not
// exported, as bash sets it to the string of `bash -c`.
func ExecutionString(script string) RunnerOption {
	return func(r *Runner) error {
		r.execString = &script
		return nil
	}
}

// Limits bounds what a script may hold, so that one script cannot take the
// memory of the process interpreting it. Going past a bound ends the script
// with a *[LimitError]. A zero field is no bound. Runners given the same
// *Limits share its count of subshells (an interpreter started from a
// handler, such as `sh -c`, counts with its parent's).
type Limits struct {
	// Bytes bounds each string the script makes: one expansion (a word, a
	// here-document or here-string, the fields of a command together), a
	// command substitution's output, a variable's value (an array's
	// elements together) and a line read.
	Bytes int
	// Depth bounds the function calls, eval and source commands nested in
	// one another (counted through the context, so also across an
	// interpreter a handler starts with it; see [Limits.Nest]).
	Depth int
	// Subshells bounds the subshells running at once in goroutines of
	// their own: pipeline stages, background commands and process
	// substitutions.
	Subshells int

	live atomic.Int64 // subshells running now
}

// LimitError is the error that ends a script past a bound of [Limits].
type LimitError = expand.LimitError

// The names of the bounds in a [LimitError].
const (
	BytesLimit     = expand.BytesLimit
	DepthLimit     = "nested function calls, eval and source"
	SubshellsLimit = "subshells running at once"
)

// Umask sets the file mode mask the script starts with, the process's
// when not set: a script run by another (`sh -c`) starts with that one's,
// as a child process inherits its parent's.
func Umask(mask uint32) RunnerOption {
	return func(r *Runner) error {
		r.origMask = mask & 0o777
		return nil
	}
}

// Bounds sets the bounds of what the script may hold.
func Bounds(l *Limits) RunnerOption {
	return func(r *Runner) error {
		r.limits = l
		return nil
	}
}

type depthKey struct{}

// Nest counts one more nested function call, eval, source or interpreter
// in ctx, or fails past the Depth bound. A nil *Limits bounds nothing.
func (l *Limits) Nest(ctx context.Context) (context.Context, error) {
	if l == nil || l.Depth == 0 {
		return ctx, nil
	}
	d, _ := ctx.Value(depthKey{}).(int)
	if d >= l.Depth {
		return ctx, &LimitError{Limit: DepthLimit, Max: l.Depth}
	}
	return context.WithValue(ctx, depthKey{}, d+1), nil
}

// goSubshell runs f in a goroutine of its own, counted as a subshell
// running at once; past the bound it runs nothing and fails.
func (r *Runner) goSubshell(f func()) error {
	if r.limits != nil && r.limits.Subshells > 0 {
		if r.limits.live.Add(1) > int64(r.limits.Subshells) {
			r.limits.live.Add(-1)
			return &LimitError{Limit: SubshellsLimit, Max: r.limits.Subshells}
		}
		go func() {
			defer r.limits.live.Add(-1)
			f()
		}()
		return nil
	}
	go f()
	return nil
}

// fifoSet holds the named pipes a runner made, shared with its subshells,
// each with the file it was when made.
type fifoSet struct {
	mu    sync.Mutex
	names map[string]fs.FileInfo
}

// add notes a pipe just made (made: what is at path now), or forgets it (made nil).
func (s *fifoSet) add(path string, made fs.FileInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if made != nil {
		s.names[path] = made
	} else {
		delete(s.names, path)
	}
}

// errFifoReplaced: a process substitution's named pipe is no longer the one
// the interpreter made.
var errFifoReplaced = errors.New("the named pipe was replaced by another file")

// made is the pipe made at path, or nil when the runner made none there.
func (s *fifoSet) made(path string) fs.FileInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.names[path]
}

// Dir sets the interpreter's working directory. If empty, the process's current
// directory is used.
func Dir(path string) RunnerOption {
	return func(r *Runner) error {
		if path == "" {
			path, err := os.Getwd()
			if err != nil {
				if runtime.GOOS == "js" {
					// js/wasm has no working directory; virtual
					// filesystems set Runner.Dir themselves
					r.Dir = "/"
					return nil
				}
				return fmt.Errorf("could not get current dir: %w", err)
			}
			r.Dir = path
			return nil
		}
		path, err := filepath.Abs(path)
		if err != nil {
			return fmt.Errorf("could not get absolute dir: %w", err)
		}
		info, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("could not stat: %w", err)
		}
		if !info.IsDir() {
			return fmt.Errorf("%s is not a directory", path)
		}
		r.Dir = path
		return nil
	}
}

// Interactive configures the interpreter to behave like an interactive shell,
// akin to Bash. Currently, this only enables the expansion of aliases,
// but later on it should also change other behavior.
func Interactive(enabled bool) RunnerOption {
	return func(r *Runner) error {
		r.opts[optExpandAliases] = enabled
		return nil
	}
}

// TODO(v4): split the "set" options into [PosixOpts], mirroring [BashOpts],
// leaving Params for the positional parameters alone. Accepting both means that
// Params with user-supplied arguments can set options by accident.

// Params populates the shell options and parameters. For example, Params("-e",
// "--", "foo") will set the "-e" option and the parameters ["foo"], and
// Params("+e") will unset the "-e" option and leave the parameters untouched.
//
// This is similar to what the interpreter's "set" builtin does.
// See [BashOpts] for the Bash options which "set" cannot change.
func Params(args ...string) RunnerOption {
	return func(r *Runner) error {
		fp := flagParser{remaining: args}
		for fp.more() {
			flag := fp.flag()
			if flag == "+" {
				continue // as in bash, an ignored flag
			}
			if flag == "-" {
				// The end of the options: bash turns off the -x and
				// -v options.
				r.opts[optXTrace], r.opts[optVerbose] = false, false
				if args := fp.args(); len(args) > 0 {
					r.Params = args
				}
				return nil
			}
			enable := flag[0] == '-'
			if flag[1] != 'o' {
				opt := posixOptByFlag(flag[1])
				if opt < 0 {
					return fmt.Errorf("invalid option: %q", flag)
				}
				if err := r.setPosixOpt(opt, enable); err != nil {
					return err
				}
				continue
			}
			value := fp.value()
			if value == "" && enable {
				for i, opt := range &posixOptsTable {
					r.printOptLine(opt.name, r.opts[i], true)
				}
				continue
			}
			if value == "" && !enable {
				for i, opt := range &posixOptsTable {
					setFlag := "+o"
					if r.opts[i] {
						setFlag = "-o"
					}
					r.outf("set %s %s\n", setFlag, opt.name)
				}
				continue
			}
			opt := posixOptByName(value)
			if opt < 0 {
				return fmt.Errorf("%s: invalid option name", value)
			}
			if err := r.setPosixOpt(opt, enable); err != nil {
				return err
			}
		}
		if args := fp.args(); args != nil {
			// If "--" wasn't given and there were zero arguments,
			// we don't want to override the current parameters.
			r.Params = args

			// Record whether a sourced script sets the parameters.
			if r.inSource {
				r.sourceSetParams = true
			}
		}
		return nil
	}
}

// BashOpts sets or unsets Bash shell options. For example,
// BashOpts("-s", "extglob", "globstar") sets both the "extglob" and "globstar"
// options, and BashOpts("-u", "extglob") unsets "extglob" alone.
//
// Just like the builtin, "-o" restricts the names to the POSIX options,
// which [Params] can set as well.
//
// This is similar to what the interpreter's "shopt" builtin does, except that
// no arguments is a no-op rather than printing all options.
func BashOpts(args ...string) RunnerOption {
	return func(r *Runner) error {
		mode := ""
		posixOpts := false
		fp := flagParser{remaining: args}
		for fp.more() {
			switch flag := fp.flag(); flag {
			case "-s", "-u":
				mode = flag
			case "-o":
				posixOpts = true
			default:
				return fmt.Errorf("invalid option: %q", flag)
			}
		}
		names := fp.args()
		if len(names) > 0 && mode == "" {
			return fmt.Errorf("either -s or -u must be given to set or unset options")
		}
		for _, name := range names {
			if posixOpts {
				i := posixOptByName(name)
				if i < 0 {
					return fmt.Errorf("invalid option name: %q", name)
				}
				if err := r.setPosixOpt(i, mode == "-s"); err != nil {
					return err
				}
				continue
			}
			opt, supported := r.bashOptByName(name)
			if opt == nil {
				return fmt.Errorf("invalid option name: %q", name)
			}
			if !supported {
				return fmt.Errorf("unsupported option: %q", name)
			}
			*opt = mode == "-s"
		}
		if r.didReset {
			// Some options affect expansion; before the first reset,
			// the reset itself takes care of this.
			r.updateExpandOpts()
		}
		return nil
	}
}

// CallHandler sets the call handler. See [CallHandlerFunc] for more info.
func CallHandler(f CallHandlerFunc) RunnerOption {
	return func(r *Runner) error {
		r.callHandler = f
		return nil
	}
}

// ScriptText gives the text of the script that Run runs, which set -v
// prints line by line as the shell reads it. Without it set -v prints
// nothing.
func ScriptText(text string) RunnerOption {
	return func(r *Runner) error {
		r.scriptText = text
		return nil
	}
}

// Untraced names a command that set -x does not print, for a command the
// caller inserts into scripts for its own bookkeeping.
func Untraced(name string) RunnerOption {
	return func(r *Runner) error {
		r.untraced = name
		return nil
	}
}

// ExecHandler sets one command execution handler,
// which replaces [DefaultExecHandler](2 * time.Second).
//
// Deprecated: use [ExecHandlers] instead, which allows chaining handlers more easily
// like middleware functions.
func ExecHandler(f ExecHandlerFunc) RunnerOption {
	return func(r *Runner) error {
		r.execHandler = f
		return nil
	}
}

// ExecHandlers appends middlewares to handle command execution.
// The middlewares are chained from first to last, and the first is called by the runner.
// Each middleware is expected to call the "next" middleware at most once.
//
// For example, a middleware may implement only some commands.
// For those commands, it can run its logic and avoid calling "next".
// For any other commands, it can call "next" with the original parameters.
//
// Another common example is a middleware which always calls "next",
// but runs custom logic either before or after that call.
// For instance, a middleware could change the arguments to the "next" call,
// or it could print log lines before or after the call to "next".
//
// The last exec handler is always [DefaultExecHandler](2 * time.Second).
func ExecHandlers(middlewares ...func(next ExecHandlerFunc) ExecHandlerFunc) RunnerOption {
	return func(r *Runner) error {
		r.execMiddlewares = append(r.execMiddlewares, middlewares...)
		return nil
	}
}

// TODO: consider porting the middleware API in [ExecHandlers] to [OpenHandler],
// [ReadDirHandler2], and [StatHandler].

// TODO(v4): now that [ExecHandlers] allows calling a next handler with changed
// arguments, one of the two advantages of [CallHandler] is gone. The other is the
// ability to work with builtins; if we make [ExecHandlers] work with builtins, we
// could join both APIs.

// OpenHandler sets file open handler. See [OpenHandlerFunc] for more info.
func OpenHandler(f OpenHandlerFunc) RunnerOption {
	return func(r *Runner) error {
		r.openHandler = f
		return nil
	}
}

// ReadDirHandler sets the read directory handler. See [ReadDirHandlerFunc] for more info.
//
// Deprecated: use [ReadDirHandler2].
func ReadDirHandler(f ReadDirHandlerFunc) RunnerOption {
	return func(r *Runner) error {
		r.readDirHandler = func(ctx context.Context, path string) ([]fs.DirEntry, error) {
			infos, err := f(ctx, path)
			if err != nil {
				return nil, err
			}
			entries := make([]fs.DirEntry, len(infos))
			for i, info := range infos {
				entries[i] = fs.FileInfoToDirEntry(info)
			}
			return entries, nil
		}
		return nil
	}
}

// ReadDirHandler2 sets the read directory handler. See [ReadDirHandlerFunc2] for more info.
func ReadDirHandler2(f ReadDirHandlerFunc2) RunnerOption {
	return func(r *Runner) error {
		r.readDirHandler = f
		return nil
	}
}

// StatHandler sets the stat handler. See [StatHandlerFunc] for more info.
func StatHandler(f StatHandlerFunc) RunnerOption {
	return func(r *Runner) error {
		r.statHandler = f
		return nil
	}
}

// AccessHandler sets the file access handler. See [AccessHandlerFunc] for more info.
func AccessHandler(f AccessHandlerFunc) RunnerOption {
	return func(r *Runner) error {
		r.accessHandler = f
		return nil
	}
}

// SyntaxErrors words a syntax error the way the shell embedding the
// interpreter reports one, given the text that failed to parse (with a
// blank line for each line before it) and the parser's error: with it,
// an alias whose text does not parse where it is used ends the script
// with that message and status 2, as bash does at a syntax error. (tandem)
func SyntaxErrors(format func(src string, err error) string) RunnerOption {
	return func(r *Runner) error {
		r.syntaxErrors = format
		return nil
	}
}

// StdIO configures an interpreter's standard input, standard output, and
// standard error. If out or err are nil, they default to a writer that discards
// the output.
//
// Note that providing a non-nil standard input other than [*os.File] will require
// an [os.Pipe] and spawning a goroutine to copy into it,
// as an [os.File] is the only way to share a reader with subprocesses.
// This may cause the interpreter to consume the entire reader.
// See [os/exec.Cmd.Stdin].
//
// When providing an [*os.File] as standard input, consider using an [os.Pipe]
// as it has the best chance to support cancellable reads via [os.File.SetReadDeadline],
// so that cancelling the runner's context can stop a blocked standard input read.
//
// On js/wasm, where there are no subprocesses nor OS pipes, any reader is used
// directly, and read deadlines are not supported: cancelling the runner's
// context cannot stop a blocked standard input read.
func StdIO(in io.Reader, out, err io.Writer) RunnerOption {
	return func(r *Runner) error {
		stdin, _err := newStdinFile(in)
		if _err != nil {
			return _err
		}
		r.stdin = stdin
		if out == nil {
			out = io.Discard
		}
		r.stdout = out
		if err == nil {
			err = io.Discard
		}
		r.stderr = err
		return nil
	}
}

// posixOptByName returns the index of the set -o option name, or -1.
func posixOptByName(name string) int {
	for i, opt := range &posixOptsTable {
		if opt.name == name {
			return i
		}
	}
	return -1
}

// setPosixOpt turns the set -o option at index i on or off, as far as the
// interpreter follows it: emacs and vi exclude each other, as in bash.
func (r *Runner) setPosixOpt(i int, enable bool) error {
	opt := posixOptsTable[i]
	switch {
	case opt.support == optAlwaysOn && !enable:
		return fmt.Errorf("%s: turning it off is not supported", opt.name)
	case opt.support == optNeverOn && enable:
		return fmt.Errorf("%s: turning it on is not supported", opt.name)
	}
	r.opts[i] = enable
	if enable && (i == optEmacs || i == optVi) {
		r.opts[optEmacs+optVi-i] = false
	}
	return nil
}

// posixOptFlags returns the one-character flags of the enabled POSIX options,
// as held by the "$-" special parameter: as in bash, lower-case flags
// first, and c, as the
// interpreter runs a script given as a string.
func (r *Runner) posixOptFlags() string {
	// Note that some options, such as pipefail, have no one-character flag.
	var flags []byte
	for i, opt := range &posixOptsTable {
		if opt.flag != ' ' && r.opts[i] {
			flags = append(flags, opt.flag)
		}
	}
	upper := func(c byte) int { return oneIfBool(c < 'a') }
	slices.SortFunc(flags, func(a, b byte) int {
		return cmp.Or(cmp.Compare(upper(a), upper(b)), cmp.Compare(a, b))
	})
	return string(flags) + "c"
}

// shellOpts is $SHELLOPTS: the set -o options that are on, by name.
func (r *Runner) shellOpts() string {
	var names []string
	for i, opt := range &posixOptsTable {
		if r.opts[i] {
			names = append(names, opt.name)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ":")
}

// bashOpts is $BASHOPTS: the shopt options that are on, by name.
func (r *Runner) bashOpts() string {
	var names []string
	for i, opt := range &bashOptsTable {
		if r.opts[len(posixOptsTable)+i] {
			names = append(names, opt.name)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ":")
}

// posixOptByFlag returns the index of the option with the one-character
// flag, or -1.
func posixOptByFlag(flag byte) int {
	for i, opt := range &posixOptsTable {
		if opt.flag == flag {
			return i
		}
	}
	return -1
}

func (r *Runner) bashOptByName(name string) (status *bool, supported bool) {
	for i, opt := range bashOptsTable {
		if opt.name == name {
			index := len(posixOptsTable) + i
			return &r.opts[index], opt.supported
		}
	}
	return nil, false
}

// runnerOpts contains all POSIX Shell and Bash options as one contiguous table.
type runnerOpts [len(posixOptsTable) + len(bashOptsTable)]bool

type posixOpt struct {
	flag    byte   // one-character flag form for this option; a space if none exists
	name    string // full name of the option
	support optSupport
}

// optSupport says how far the interpreter follows a set -o option.
type optSupport uint8

const (
	optFull     optSupport = iota // on and off as in bash
	optInert                      // recorded and listed; no effect without a terminal
	optAlwaysOn                   // what the interpreter always does
	optNeverOn                    // a behaviour the interpreter does not have
)

type bashOpt struct {
	name         string
	defaultState bool // Bash's default value for this option
	supported    bool // whether we support the option's non-default state
}

var posixOptsTable = [...]posixOpt{
	// All of bash's set -o options, sorted by name as bash lists them; the
	// order matches the opt constants below.
	{'a', "allexport", optFull},
	{'B', "braceexpand", optAlwaysOn},
	{' ', "emacs", optInert},
	{'e', "errexit", optFull},
	{'E', "errtrace", optFull},
	{'T', "functrace", optFull},
	{'h', "hashall", optAlwaysOn},
	{'H', "histexpand", optNeverOn},
	{' ', "history", optInert},
	{' ', "ignoreeof", optInert},
	{' ', "interactive-comments", optAlwaysOn},
	{'k', "keyword", optNeverOn},
	{'m', "monitor", optNeverOn},
	{'C', "noclobber", optFull},
	{'n', "noexec", optFull},
	{'f', "noglob", optFull},
	{' ', "nolog", optInert},
	{'b', "notify", optInert},
	{'u', "nounset", optFull},
	{'t', "onecmd", optNeverOn},
	{'P', "physical", optFull},
	{' ', "pipefail", optFull},
	{' ', "posix", optFull},
	{'p', "privileged", optInert},
	{'v', "verbose", optFull},
	{' ', "vi", optInert},
	{'x', "xtrace", optFull},
}

var bashOptsTable = [...]bashOpt{
	// supported options, sorted alphabetically by name
	{
		name:         "dotglob",
		defaultState: false,
		supported:    true,
	},
	{
		name:         "expand_aliases",
		defaultState: false,
		supported:    true,
	},
	{
		name:         "extglob",
		defaultState: false,
		supported:    true,
	},
	{
		name:         "failglob",
		defaultState: false,
		supported:    true,
	},
	{
		name:         "globskipdots",
		defaultState: true,
		supported:    true,
	},
	{
		name:         "globstar",
		defaultState: false,
		supported:    true,
	},
	{
		name:         "nocaseglob",
		defaultState: false,
		supported:    true,
	},
	{
		name:         "nocasematch",
		defaultState: false,
		supported:    true,
	},
	{
		name:         "nullglob",
		defaultState: false,
		supported:    true,
	},
	// the other options, sorted alphabetically by name: those a script
	// may set are the ones that act on an interactive shell alone
	// (completion, history, prompts, autocd), which a script setting them
	// does not notice, and xpg_echo, which echo follows
	{name: "assoc_expand_once"},
	{name: "autocd", supported: true},
	{name: "cdable_vars", supported: true},
	{name: "cdspell", supported: true},
	{name: "checkhash"},
	{name: "checkjobs", supported: true},
	{
		name:         "checkwinsize",
		defaultState: true,
		supported:    true,
	},
	{
		name:         "cmdhist",
		defaultState: true,
		supported:    true,
	},
	{name: "compat31"},
	{name: "compat32"},
	{name: "compat40"},
	{name: "compat41"},
	{name: "compat42"},
	{name: "compat43"},
	{name: "compat44"},
	{
		name:         "complete_fullquote",
		defaultState: true,
		supported:    true,
	},
	{name: "direxpand", supported: true},
	{name: "dirspell", supported: true},
	{name: "execfail"},
	{name: "extdebug"},
	{
		name:         "extquote",
		defaultState: true,
	},
	{
		name:         "force_fignore",
		defaultState: true,
		supported:    true,
	},
	{name: "globasciiranges"},
	{name: "gnu_errfmt"},
	{name: "histappend", supported: true},
	{name: "histreedit", supported: true},
	{name: "histverify", supported: true},
	{
		name:         "hostcomplete",
		defaultState: true,
		supported:    true,
	},
	{name: "huponexit", supported: true},
	// Off, as in bash: a command substitution runs without set -e (the
	// "set -e where bash ignores it" patch), and cannot be made to.
	{name: "inherit_errexit"},
	{
		name:         "interactive_comments",
		defaultState: true,
	},
	{name: "lastpipe", supported: true},
	{name: "lithist", supported: true},
	{name: "localvar_inherit"},
	{name: "localvar_unset"},
	{name: "login_shell"},
	{name: "mailwarn", supported: true},
	{name: "no_empty_cmd_completion", supported: true},
	{
		name:         "progcomp",
		defaultState: true,
		supported:    true,
	},
	{name: "progcomp_alias", supported: true},
	{
		name:         "promptvars",
		defaultState: true,
		supported:    true,
	},
	{name: "restricted_shell"},
	{name: "shift_verbose"},
	{
		name:         "sourcepath",
		defaultState: true,
	},
	{name: "xpg_echo", supported: true},
}

// To access the shell options arrays without a linear search when we
// know which option we're after at compile time. First come the shell options,
// then the bash options.
const (
	// These correspond to indexes in [posixOptsTable]
	optAllExport = iota
	optBraceExpand
	optEmacs
	optErrExit
	optErrTrace
	optFuncTrace
	optHashAll
	optHistExpand
	optHistory
	optIgnoreEOF
	optInteractiveComments
	optKeyword
	optMonitor
	optNoClobber
	optNoExec
	optNoGlob
	optNoLog
	optNotify
	optNoUnset
	optOneCmd
	optPhysical
	optPipeFail
	optPosix
	optPrivileged
	optVerbose
	optVi
	optXTrace

	// These correspond to indexes (offset by the above items) of
	// supported options in [bashOptsTable]
	optDotGlob
	optExpandAliases
	optExtGlob
	optFailGlob
	optGlobSkipDots
	optGlobStar
	optNoCaseGlob
	optNoCaseMatch
	optNullGlob
)

// Reset returns a runner to its initial state, right before the first call to
// Run or Reset.
//
// Typically, this function only needs to be called if a runner is reused to run
// multiple programs non-incrementally. Not calling Reset between each run will
// mean that the shell state will be kept, including variables, options, and the
// current directory.
func (r *Runner) Reset() {
	if !r.usedNew {
		panic("use interp.New to construct a Runner")
	}
	if !r.didReset {
		r.startTime = time.Now()
		r.origDir = r.Dir
		r.origParams = r.Params
		r.origOpts = r.opts
		r.origStdin = r.stdin
		r.origStdout = r.stdout
		r.origStderr = r.stderr

		if r.execHandler != nil && len(r.execMiddlewares) > 0 {
			panic("interp.ExecHandler should be replaced with interp.ExecHandlers, not mixed")
		}
		if r.execHandler == nil {
			r.execHandler = DefaultExecHandler(2 * time.Second)
		}
		// Middlewares are chained from first to last, and each can call the
		// next in the chain, so we need to construct the chain backwards.
		for _, mw := range slices.Backward(r.execMiddlewares) {
			r.execHandler = mw(r.execHandler)
		}
		// Fill tempDir; only need to do this once given that Env will not change.
		if r.tempDir != "" {
			// Set by [TempDir].
		} else if dir := r.Env.Get("TMPDIR").String(); filepath.IsAbs(dir) {
			r.tempDir = dir
		} else {
			r.tempDir = os.TempDir()
		}
		// Clean it as we will later do a string prefix match.
		r.tempDir = filepath.Clean(r.tempDir)
	}
	// reset the internal state
	*r = Runner{
		Env:            r.Env,
		tempDir:        r.tempDir,
		fifos:          &fifoSet{names: map[string]fs.FileInfo{}},
		callHandler:    r.callHandler,
		untraced:       r.untraced,
		scriptText:     r.scriptText,
		execHandler:    r.execHandler,
		openHandler:    r.openHandler,
		readDirHandler: r.readDirHandler,
		statHandler:    r.statHandler,
		accessHandler:  r.accessHandler,
		limits:         r.limits,
		syntaxErrors:   r.syntaxErrors,
		signals:        &signalQueue{},
		signalParent:   r.signalParent,
		mask:           r.origMask,
		origMask:       r.origMask,
		mainSource:     r.mainSource,
		mainFrame:      r.mainFrame,
		execString:     r.execString,

		// These can be set by functions like [Dir] or [Params], but
		// builtins can overwrite them; reset the fields to whatever the
		// constructor set up.
		Dir:    r.origDir,
		Params: r.origParams,
		opts:   r.origOpts,
		stdin:  r.origStdin,
		stdout: r.origStdout,
		stderr: r.origStderr,

		origDir:    r.origDir,
		origParams: r.origParams,
		origOpts:   r.origOpts,
		origStdin:  r.origStdin,
		origStdout: r.origStdout,
		origStderr: r.origStderr,

		// emptied below, to reuse the space
		Vars: r.Vars,

		dirStack: r.dirStack[:0],
		usedNew:  r.usedNew,
	}
	// Ensure we stop referencing any pointers before we reuse bgProcs.
	clear(r.bgProcs)
	r.bgProcs = r.bgProcs[:0]

	if r.Vars == nil {
		r.Vars = make(map[string]expand.Variable)
	} else {
		clear(r.Vars)
	}
	// TODO(v4): Use the supplied Env directly if it implements enough methods.
	r.writeEnv = &overlayEnviron{parent: r.Env}
	if !r.writeEnv.Get("HOME").IsSet() {
		home, _ := os.UserHomeDir()
		r.setVarString("HOME", home)
	}
	if !r.writeEnv.Get("UID").IsSet() {
		r.setVar("UID", expand.Variable{
			Set:      true,
			Kind:     expand.String,
			ReadOnly: true,
			Str:      strconv.Itoa(os.Getuid()),
		})
	}
	if !r.writeEnv.Get("EUID").IsSet() {
		r.setVar("EUID", expand.Variable{
			Set:      true,
			Kind:     expand.String,
			ReadOnly: true,
			Str:      strconv.Itoa(os.Geteuid()),
		})
	}
	if !r.writeEnv.Get("GID").IsSet() {
		r.setVar("GID", expand.Variable{
			Set:      true,
			Kind:     expand.String,
			ReadOnly: true,
			Str:      strconv.Itoa(os.Getgid()),
		})
	}
	// As in bash, $_ starts as the environment's (the shell's path, as
	// its parent ran it).
	r.lastArg = r.writeEnv.Get("_").String()
	r.started = time.Now()
	if !r.writeEnv.Get("OSTYPE").IsSet() {
		r.setVarString("OSTYPE", osType())
	}
	if host, err := os.Hostname(); err == nil && !r.writeEnv.Get("HOSTNAME").IsSet() {
		r.setVarString("HOSTNAME", host)
	}
	// As bash, a SHELLOPTS in the environment turns on the options it
	// names (a parent's `export SHELLOPTS; set -x` traces its children).
	if opts := r.writeEnv.Get("SHELLOPTS"); opts.IsSet() {
		for name := range strings.SplitSeq(opts.String(), ":") {
			if i := posixOptByName(name); i >= 0 {
				_ = r.setPosixOpt(i, true) // one it cannot follow stays off
			}
		}
	}
	r.setExportedString("PWD", r.Dir)
	r.setVarString("IFS", " \t\n")
	r.setVarString("OPTIND", "1")
	if r.execString != nil {
		r.setVarString("BASH_EXECUTION_STRING", *r.execString)
	}
	if !r.writeEnv.Get("BASH_VERSION").IsSet() {
		// The bash this interpreter behaves as: scripts test it
		// before they use bash's features (`set -o posix` and such).
		r.setVarString("BASH_VERSION", bashVersion)
	}

	r.dirStack = append(r.dirStack, r.Dir)

	r.didReset = true
}

// ExitStatus is a non-zero status code resulting from running a shell node.
type ExitStatus uint8

func (s ExitStatus) Error() string { return fmt.Sprintf("exit status %d", s) }

// NewExitStatus creates an error which contains the specified exit status code.
//
// Deprecated: use [ExitStatus] directly.
//
//go:fix inline
func NewExitStatus(status uint8) error {
	return ExitStatus(status)
}

// IsExitStatus checks whether error contains an exit status and returns it.
//
// Deprecated: use [errors.As] with [ExitStatus] directly.
//
//go:fix inline
func IsExitStatus(err error) (status uint8, ok bool) {
	if es, ok := errors.AsType[ExitStatus](err); ok {
		return uint8(es), true
	}
	return 0, false
}

// Run interprets a node, which can be a [*File], [*Stmt], or [Command]. If a non-nil
// error is returned, it will typically contain a command's exit status, which
// can be retrieved with [IsExitStatus].
//
// Run can be called multiple times synchronously to interpret programs
// incrementally. To reuse a [Runner] without keeping the internal shell state,
// call Reset.
//
// Calling Run on an entire [*File] implies an exit, meaning that an exit trap may
// run.
func (r *Runner) Run(ctx context.Context, node syntax.Node) error {
	_, err := r.run(ctx, node, "", false, nil)
	return err
}

// RunBeforeSyntaxError runs f, the statements of a script that come before
// a syntax error, as [Runner.Run] does; then, unless they exited the shell,
// it writes msg (the error, as the shell words it) to stderr and exits with
// status 2, before the EXIT trap runs: what bash does when its parser
// reaches the error. With keepStatus, it exits with the status of the last
// command instead, as bash does after an error inside `[[ ]]`. reached
// reports whether it did. (tandem)
func (r *Runner) RunBeforeSyntaxError(ctx context.Context, f *syntax.File, msg string, keepStatus bool) (reached bool, err error) {
	return r.run(ctx, f, msg, keepStatus, nil)
}

// RunReading is [Runner.RunBeforeSyntaxError] for a script that bash reads
// one command line at a time, expanding the aliases that the lines run so
// far defined: when f's statements have run and a syntax error follows,
// more reads the rest of the script again (with [Runner.AliasLine]) and
// returns the statements that parse now, the syntax error after them ("" if
// none) and its keepStatus, or false when nothing more parses. (tandem)
func (r *Runner) RunReading(ctx context.Context, f *syntax.File, msg string, keepStatus bool, more func() (*syntax.File, string, bool, bool)) (reached bool, err error) {
	return r.run(ctx, f, msg, keepStatus, more)
}

func (r *Runner) run(ctx context.Context, node syntax.Node, syntaxErr string, keepStatus bool, more func() (*syntax.File, string, bool, bool)) (reached bool, _ error) {
	if !r.didReset {
		r.Reset()
	}
	r.fillExpandConfig(ctx)
	r.exit = exitStatus{}
	// A statement runs in the script it is part of (a background one in
	// its subshell's copy), keeping $0 in its errors (tandem).
	switch node := node.(type) {
	case *syntax.File:
		r.filename = node.Name
		r.topLevel(ctx, node.Stmts)
		for syntaxErr != "" && !r.exit.exiting && more != nil {
			f, msg, keep, ok := more()
			if !ok {
				break
			}
			r.topLevel(ctx, f.Stmts)
			syntaxErr, keepStatus = msg, keep
		}
		if syntaxErr != "" && !r.exit.exiting {
			reached = true
			io.WriteString(r.stderr, syntaxErr)
			code := uint8(2)
			if keepStatus {
				code = r.exit.code
			}
			r.exit = exitStatus{code: code, exiting: true}
		}
	case *syntax.Stmt:
		r.stmt(ctx, node)
	case syntax.Command:
		r.cmd(ctx, node)
	default:
		return false, fmt.Errorf("node can only be File, Stmt, or Command: %T", node)
	}
	// A bare Command bypasses stmt, which normally updates lastExit.
	r.lastExit = r.exit
	// Running an entire file implies an exit; a statement or command
	// only exits the shell via the exit builtin, errexit, and so on.
	if _, ok := node.(*syntax.File); ok || r.exit.exiting {
		r.trapCallback(ctx, r.callbackExit, "exit")
	}
	if _, ok := node.(*syntax.File); ok {
		r.finishProcSubsts(ctx)
	}
	maps.Insert(r.Vars, r.writeEnv.Each)
	// Return the first of: a fatal error, a non-fatal handler error, or the exit code.
	if err := r.exit.err; err != nil {
		if r.exit.code == 0 {
			// This should never happen; too much code relies on checking [exitStatus.code]
			// to see if the last command succeeded or failed. [exitStatus.err] should only be
			// additional information, so fail loudly if the invariant is broken.
			panic("ended up with a non-nil exitStatus.err but a zero exitStatus.code")
		}
		return reached, err
	}
	if code := r.exit.code; code != 0 {
		return reached, ExitStatus(code)
	}
	return reached, nil
}

// finishProcSubsts ends a script as bash's exit does for the process
// substitutions it leaves running: the streams the script opened with exec
// close, so that a >(…) reading one (`exec > >(tee log)`) sees its end, and
// what each >(…) writes is written before the run returns (`seq 3 >
// >(tac)` prints 3 2 1, where bash's caller reads it to its end). (tandem)
func (r *Runner) finishProcSubsts(ctx context.Context) {
	streams := []any{r.stdin, r.stdout, r.stderr}
	for _, fd := range r.fds {
		streams = append(streams, fd)
	}
	for _, s := range streams {
		if c, ok := s.(io.Closer); ok && !r.isOrigStream(s) {
			c.Close()
		}
	}
	for _, bg := range r.bgProcs {
		if bg.readsFifo == "" {
			continue // a <(…) writes to no one once the script ends
		}
		select {
		case <-bg.done:
			continue
		default:
		}
		if !endFifoWrites(bg.readsFifo, bg.fifoMade) {
			continue // nothing opened it, so nothing was written to it
		}
		select {
		case <-bg.done:
		case <-ctx.Done():
			return
		}
	}
}

// isOrigStream reports whether s is one of the streams the runner was
// given, or may be: one that cannot be compared is left open.
func (r *Runner) isOrigStream(s any) bool {
	if !reflect.TypeOf(s).Comparable() {
		return true
	}
	for _, o := range []any{r.origStdin, r.origStdout, r.origStderr} {
		if o != nil && reflect.TypeOf(o) == reflect.TypeOf(s) && o == s {
			return true
		}
	}
	return false
}

// Exited reports whether the last Run call should exit an entire shell. This
// can be triggered by the "exit" built-in command, for example.
//
// Note that this state is overwritten at every Run call, so it should be
// checked immediately after each Run call.
func (r *Runner) Exited() bool {
	return r.exit.exiting
}

// Subshell makes a copy of the given [Runner], suitable for use concurrently
// with the original. The copy will have the same environment, including
// variables and functions, but they can all be modified without affecting the
// original.
//
// Subshell is not safe to use concurrently with [Run]. Orchestrating this is
// left up to the caller; no locking is performed.
//
// To replace e.g. stdin/out/err, do [StdIO](r.stdin, r.stdout, r.stderr)(r) on
// the copy.
func (r *Runner) Subshell() *Runner {
	return r.subshell(true)
}

// subshell is like [Runner.subshell], but allows skipping some allocations and copies
// when creating subshells which will not be used concurrently with the parent shell.
// TODO(v4): we should expose this, e.g. SubshellForeground and SubshellBackground.
func (r *Runner) subshell(background bool) *Runner {
	if !r.didReset {
		r.Reset()
	}
	// Keep in sync with the Runner type. Manually copy fields, to not copy
	// sensitive ones like [errgroup.Group], and to do deep copies of slices.
	r2 := &Runner{
		Dir:            r.Dir,
		tempDir:        r.tempDir,
		fifos:          r.fifos,
		Params:         r.Params,
		callHandler:    r.callHandler,
		untraced:       r.untraced,
		execHandler:    r.execHandler,
		openHandler:    r.openHandler,
		readDirHandler: r.readDirHandler,
		statHandler:    r.statHandler,
		accessHandler:  r.accessHandler,
		syntaxErrors:   r.syntaxErrors,
		stdin:          r.stdin,
		stdout:         r.stdout,
		stderr:         r.stderr,
		fds:            r.fds,
		subshellLevel:  r.subshellLevel + 1,
		substDepth:     r.substDepth,
		traceAfter:     r.traceAfter,
		traceDone:      r.traceDone,
		startTime:      r.startTime,
		limits:         r.limits,
		mask:           r.mask, // a subshell's umask is its own
		origMask:       r.origMask,
		funcStack:      slices.Clip(r.funcStack), // appends must not share
		inFunc:         r.inFunc,                 // `local` in a function's pipeline
		filename:       r.filename,
		frames:         slices.Clip(r.frames), // appends must not share
		hashed:         slices.Clone(r.hashed),
		mainSource:     r.mainSource,
		mainFrame:      r.mainFrame,
		funcSources:    maps.Clone(r.funcSources),
		opts:           r.opts,
		usedNew:        r.usedNew,
		exit:           r.exit,
		lastExit:       r.lastExit,
		lastArg:        r.lastArg,
		started:        r.started,
		bashPID:        bgPIDBase + int(lastPID.Add(1)),
		noErrExit:      r.noErrExit, // `if ( false; … )` ignores set -e inside too
		traps:          maps.Clone(r.traps),
		// As in bash, a subshell sees the jobs and $! of its parent.
		bgProcs: slices.Clone(r.bgProcs),

		origStdout: r.origStdout, // used for process substitutions
	}
	// The DEBUG and RETURN traps reach a subshell under set -T, the ERR
	// trap under set -E, as in bash.
	if r.opts[optFuncTrace] {
		r2.callbackDebug, r2.callbackReturn = r.callbackDebug, r.callbackReturn
	}
	if r.opts[optErrTrace] {
		r2.callbackErr = r.callbackErr
	}
	r2.writeEnv = newOverlayEnviron(r.writeEnv, background)
	// Funcs are copied, since they might be modified.
	r2.Funcs = maps.Clone(r.Funcs)
	r2.Vars = make(map[string]expand.Variable)
	r2.alias = maps.Clone(r.alias)
	r2.aliasRead, r2.aliasTop, r2.aliasInUse = r.aliasRead, r.aliasTop, r.aliasInUse

	r2.dirStack = append(r2.dirBootstrap[:0], r.dirStack...)
	r2.fillExpandConfig(r.ectx)
	r2.didReset = true
	return r2
}
