package shell

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/expand"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/interp"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
	"golang.org/x/sys/unix"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/shell/classify"
)

// launch is one program to run: what the script asked for, after the
// wrappers tandem runs itself (env, nice, timeout, …) took their part.
type launch struct {
	argv           []string
	dir            string
	env            []string // the exported environment it runs with
	stdin          io.Reader
	stdout, stderr io.Writer
	// shown is set when a wrapper changed argv: the command line as the
	// script wrote it, with the variables that change what runs
	// (classify.Text). The question shows it.
	shown   string
	nice    int
	timeout *timeoutSpec
	// argv0 is the argv[0] the program gets instead of its name (`exec -a
	// NAME`); a wrapper tandem runs itself takes it as its own.
	argv0 string
}

type timeoutSpec struct {
	after     time.Duration
	sig       syscall.Signal
	killAfter time.Duration
	preserve  bool
}

// shownText returns the command line the question shows for l: the one a
// wrapper took apart, else l's own.
func (x *Run) shownText(l launch) string {
	if l.shown != "" {
		return l.shown
	}
	return classify.Text(l.argv, expand.ListEnviron(l.env...), x.policy)
}

// exec is the interpreter's only exec handler: every program the script
// starts — directly, behind the command and exec builtins, or behind the
// wrappers tandem runs itself — is classified and gated here with its real
// argv, just before it runs. The interpreter's default handler never runs.
func (x *Run) exec(ctx context.Context, args []string) (err error) {
	defer guard(&err)
	hc := interp.HandlerCtx(ctx)
	if args[0] == builtinStep && len(args) > 2 {
		return x.runBuiltin(ctx, hc, args)
	}
	if args[0] == stageMarker {
		if len(args) == 4 {
			i, err1 := strconv.Atoi(args[1])
			n, err2 := strconv.Atoi(args[2])
			if err1 == nil && err2 == nil {
				x.stages.register(i, n, hc.Stdin, hc.Stdout)
			}
		}
		return nil
	}
	return x.program(ctx, hc, launch{
		argv: args, dir: hc.Dir, env: interp.ExecEnv(hc.Env),
		stdin: hc.Stdin, stdout: hc.Stdout, stderr: hc.Stderr, argv0: hc.Argv0,
	})
}

// program dispatches one program: a shell runs in process, a wrapper is
// unwrapped and its program dispatched in turn, anything else is external.
func (x *Run) program(ctx context.Context, hc interp.HandlerContext, l launch) error {
	switch l.argv[0] {
	case "sh", "bash", "dash":
		return x.shellProgram(ctx, hc, l)
	case "env", "nice", "nohup", "setsid", "timeout", "xargs", "find":
		l.argv0 = "" // the wrapper's own argv[0]: its program gets its name
	}
	switch l.argv[0] {
	case "env":
		return x.envProgram(ctx, hc, l)
	case "nice", "nohup", "setsid", "timeout":
		return x.simpleWrapper(ctx, hc, l)
	case "xargs":
		if err := x.passGate(ctx, hc); err != nil {
			return err
		}
		return x.xargs(ctx, hc, l)
	case "find":
		if findAction(l.argv) > 0 {
			return x.findExec(ctx, hc, l)
		}
	}
	if w, ok := foreignWrappers[l.argv[0]]; ok {
		if inner := w.inner(l.argv[1:]); len(inner) > 0 {
			return x.external(ctx, hc, l, inner)
		}
	}
	return x.external(ctx, hc, l, nil)
}

// usage ends a wrapper tandem runs itself with a message and status 125
// (the status GNU wrappers use for their own errors).
func usage(l launch, format string, a ...any) error {
	fmt.Fprintf(l.stderr, l.argv[0]+": "+format+"\n", a...)
	return interp.ExitStatus(125)
}

// external gates and runs one program. inner is the program behind a
// wrapper tandem cannot run itself (sudo, stdbuf, …): the step has its
// effects too.
func (x *Run) external(ctx context.Context, hc interp.HandlerContext, l launch, inner []string) error {
	lookup := expand.ListEnviron(l.env...)
	s := classify.Command(l.argv, l.dir, lookup, x.policy)
	if inner != nil {
		in := classify.Command(inner, l.dir, lookup, x.policy)
		s.Effects |= in.Effects | approvals.Of(approvals.Exec)
		s.Paths = append(s.Paths, in.Paths...)
	}
	if l.shown != "" {
		s.Text = l.shown
	}
	n, err := x.gate(ctx, hc, s)
	if err != nil {
		return err
	}
	// The step passed the gate. Its process is granted the auto set, the
	// run's grant and its own effects (asked about, or allowed for the
	// session).
	grant := x.opts.Gate.Auto() | x.opts.Grant | s.Effects
	x.held(n, x.opts.Sandbox.Held(grant))
	argv, extra := classify.RunArgs(l.argv)
	status, err := x.start(ctx, hc, l, argv, extra, grant, s.Effects)
	x.ran(n, status)
	return err
}

// start runs argv as a process in its own process group, confined by the
// sandbox to grant (effects are the program's, as judged), and waits for
// it. It returns the exit status and the error the exec handler returns.
func (x *Run) start(ctx context.Context, hc interp.HandlerContext, l launch, argv, extra []string, grant, effects approvals.Effects) (int, error) {
	path, err := interp.LookPathDir(l.dir, expand.ListEnviron(l.env...), argv[0])
	if err != nil {
		status := notFound(l.stderr, hc.ErrorName(), hc.Line, l.dir, argv[0])
		return status, interp.ExitStatus(status)
	}
	env := append(append([]string(nil), l.env...), extra...)
	out, err := newOutFiles(l.stdout, l.stderr)
	if err != nil {
		fmt.Fprintf(l.stderr, "%s: %v\n", argv[0], err)
		return 126, interp.ExitStatus(126)
	}
	defer out.wait(ctx)
	if l.argv0 != "" {
		argv = append([]string{l.argv0}, argv[1:]...)
	}
	newCmd := func() *exec.Cmd {
		return &exec.Cmd{Path: path, Args: argv, Env: env, Dir: l.dir, Stdin: l.stdin, Stdout: out.stdout, Stderr: out.stderr}
	}
	startCmd := func(c *exec.Cmd) error { return x.opts.Sandbox.Start(c, grant, effects, hc.Umask) }
	cmd := newCmd()
	err = x.procs.start(cmd, startCmd)
	for delay := time.Millisecond; errors.Is(err, syscall.ETXTBSY) && delay < 300*time.Millisecond; delay *= 2 {
		time.Sleep(delay)
		cmd = newCmd()
		err = x.procs.start(cmd, startCmd)
	}
	out.started()
	if errors.Is(err, syscall.ENOEXEC) {
		// A file without a #! line is a shell script: it runs in process,
		// its commands gated like the script's own.
		l.argv, l.argv0 = append([]string{"sh", path}, argv[1:]...), ""
		return -1, x.shellProgram(ctx, hc, l)
	}
	if errors.Is(err, errKilled) {
		// The run is being stopped (its script ended, or it was
		// killed): a background job's program starts no more, quietly,
		// as bash's ends with the script.
		return -1, ctx.Err()
	}
	if err != nil {
		fmt.Fprintf(l.stderr, "%s: %v\n", argv[0], err)
		return 126, interp.ExitStatus(126)
	}
	pid := cmd.Process.Pid
	if l.nice != 0 {
		if cur, err := unix.Getpriority(unix.PRIO_PROCESS, 0); err == nil {
			_ = unix.Setpriority(unix.PRIO_PGRP, pid, 20-cur+l.nice)
		}
	}
	stop := context.AfterFunc(ctx, func() {
		sig := syscall.SIGKILL
		if n, ok := interp.SignalOf(ctx); ok {
			sig = syscall.Signal(n) // `kill` of the background job this runs in
		}
		signalGroup(pid, sig)
	})
	var timedOut atomic.Bool
	if t := l.timeout; t != nil {
		timer := time.AfterFunc(t.after, func() {
			timedOut.Store(true)
			signalGroup(pid, t.sig)
			if t.killAfter > 0 {
				time.AfterFunc(t.killAfter, func() { signalGroup(pid, syscall.SIGKILL) })
			}
		})
		defer timer.Stop()
	}
	err = x.procs.wait(cmd)
	stop()
	status := 0
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			if ctx.Err() != nil {
				return 128 + int(ws.Signal()), ctx.Err()
			}
			status = 128 + int(ws.Signal())
		} else {
			status = ee.ExitCode()
		}
	case errors.Is(err, exec.ErrWaitDelay):
	default:
		return 1, err
	}
	if timedOut.Load() && !l.timeout.preserve && l.timeout.sig != syscall.SIGKILL {
		status = 124 // as GNU timeout; after SIGKILL it reports 128+9
	}
	if status == 0 {
		return 0, nil
	}
	return status, interp.ExitStatus(uint8(status))
}

// notFound tells, in bash's words, why a program could not be started and
// returns bash's status for it: these are the texts models know and act on
// (`bash: line 3: rg: command not found`, 127), where the interpreter's own
// would read `"rg": executable file not found in $PATH`. errName is the
// name the message starts with ([interp.HandlerContext.ErrorName]).
func notFound(stderr io.Writer, errName string, line uint, dir, name string) int {
	why, status := "command not found", 127
	if strings.Contains(name, "/") {
		fi, err := os.Stat(absFrom(dir, name))
		var errno syscall.Errno
		switch {
		case err != nil && !errors.Is(err, fs.ErrNotExist) && errors.As(err, &errno):
			// As bash, which could not run it for another reason: `File
			// name too long`, status 126.
			msg := errno.Error()
			why, status = strings.ToUpper(msg[:1])+msg[1:], 126
		case err != nil:
			why = "No such file or directory"
		case fi.IsDir():
			why, status = "Is a directory", 126
		default:
			why, status = "Permission denied", 126
		}
	}
	fmt.Fprintf(stderr, "%s: line %d: %s: %s\n", errName, line, name, why)
	return status
}

// shellProgram runs `sh|bash|dash [-opts] (-c SCRIPT [NAME ARGS…] | FILE
// ARGS… | < stdin)` in a new interpreter with the same handlers: every
// command of the payload is a step of this run. tandem never starts a
// system shell.
func (x *Run) shellProgram(ctx context.Context, hc interp.HandlerContext, l launch) error {
	args := l.argv[1:]
	var opts []string
	var shopts []interp.RunnerOption
	command := false
	i := 0
scan:
	for i < len(args) {
		a := args[i]
		switch {
		case a == "--" || a == "-":
			i++
			break scan
		case a == "--norc" || a == "--noprofile" || a == "--login" || a == "--posix" || a == "--noediting":
			i++
		case a == "--rcfile" || a == "--init-file":
			// Read by an interactive shell alone; this one is not.
			if i+1 >= len(args) {
				return usage(l, "%s: option requires an argument", a)
			}
			i += 2
		case strings.HasPrefix(a, "--"):
			return usage(l, "option %s is not supported by tandem's in-process shell; run the commands directly", a)
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			i++
			for _, c := range a[1:] {
				switch c {
				case 'c':
					command = true
				case 'e', 'u', 'x', 'v', 'f', 'n', 'a', 'C', 'E', 'T', 'P', 'b', 'p':
					opts = append(opts, string(a[0])+string(c))
				case 'o':
					if i >= len(args) {
						return usage(l, "-o needs an option name")
					}
					opts = append(opts, string(a[0])+"o", args[i])
					i++
				case 'O':
					if i >= len(args) {
						return usage(l, "-O needs a shopt option name")
					}
					shopts = append(shopts, interp.BashOpts(map[byte]string{'-': "-s", '+': "-u"}[a[0]], args[i]))
					i++
				case 'l', 'i', 's', 'h', 'B', 'H', 'm', 'k', 't':
				default:
					return usage(l, "option -%c is not supported by tandem's in-process shell; run the commands directly", c)
				}
			}
		default:
			break scan
		}
	}
	rest := args[i:]
	var src string
	var params []string
	name := cmp.Or(l.argv0, l.argv[0]) // $0
	// head names a line in a syntax error's message, as this shell does
	// (a script read from stdin: `bash: line 2`).
	head := func(line int) string { return fmt.Sprintf("%s: line %d", l.argv[0], line) }
	// given says how the script was given, as bash tells in its
	// functions' errors and BASH_EXECUTION_STRING.
	given := []interp.RunnerOption{interp.MainSource("main")}
	switch {
	case command:
		if len(rest) == 0 {
			return usage(l, "-c: option requires an argument")
		}
		src = rest[0]
		if len(rest) > 1 {
			name = rest[1]
		}
		head = func(line int) string { return fmt.Sprintf("%s: -c: line %d", name, line) }
		given = commandString(src)
		if len(rest) > 2 {
			params = rest[2:]
		}
	case len(rest) > 0:
		b, err := x.readScript(ctx, hc, l, rest[0])
		if err != nil {
			return err
		}
		src, params, name = string(b), rest[1:], rest[0]
		given = []interp.RunnerOption{interp.ScriptFile(name)}
		head = func(line int) string { return fmt.Sprintf("%s: line %d", name, line) }
	default:
		// The script comes from stdin: reading it may wait on an earlier
		// stage of a pipeline, so this stage lets the pipeline's question go
		// ahead first. (With -c or a file, the script's own first command is
		// the stage's first step.)
		if err := x.passGate(ctx, hc); err != nil {
			return err
		}
		if l.stdin != nil {
			b, err := readInput(ctx, l.stdin, ValueBytes)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if le, ok := asLimit(err); ok {
				return le
			}
			if err != nil {
				fmt.Fprintln(l.stderr, err)
				return interp.ExitStatus(1)
			}
			src = string(b)
		}
	}
	ctx, err := x.limits.Nest(ctx)
	if err != nil {
		return err
	}
	lang := syntax.LangPOSIX
	if l.argv[0] == "bash" {
		lang = syntax.LangBash
	}
	f, stop := parse(src, name, lang, head)
	x.noteFuncs(f)
	all := append(append(opts, "--"), params...)
	given = append(given, syntaxErrors(lang, head))
	r, err := x.runner(append(given, shopts...), startDir(l.dir, l.env), src, l.env, hc.Umask, l.stdin, l.stdout, l.stderr, all...)
	if err != nil {
		return err
	}
	if l.timeout != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, l.timeout.after)
		defer cancel()
	}
	_, _, _, err = x.runSafely(ctx, r, f, stop)
	var status interp.ExitStatus
	if le, ok := asLimit(err); ok {
		// The shell may run in a subshell, which would not carry the error
		// out: the bound ends the whole run.
		x.stopBounded(le)
		return le
	}
	switch {
	case err == nil:
		return nil
	case errors.As(err, &status):
		return status
	case l.timeout != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		return interp.ExitStatus(124)
	}
	return err
}

// startDir is where a new shell starts, as bash decides it: in dir as $PWD
// names it when $PWD is dir's path, else in dir with its symbolic links
// resolved (what the system's working directory is).
func startDir(dir string, env []string) string {
	pwd, ok := "", false
	for _, kv := range env {
		if v, found := strings.CutPrefix(kv, "PWD="); found {
			pwd, ok = v, true
		}
	}
	if ok && filepath.IsAbs(pwd) && filepath.Clean(pwd) == filepath.Clean(dir) {
		return dir
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
}

// readInput reads r to its end, as xargs and a shell reading its script
// from stdin do, unless ctx ends first or r holds more than max bytes. The
// writer may be a process that escaped the run's groups, which only the
// run's end kills: a read that ignored ctx would hold the interpreter, and
// so the run's end, for as long as that process lives. (The abandoned read
// ends when the run's end kills the writer.)
func readInput(ctx context.Context, r io.Reader, max int) ([]byte, error) {
	type read struct {
		b   []byte
		err error
	}
	got := make(chan read, 1)
	go func() {
		b, err := readBounded(r, max)
		got <- read{b, err}
	}()
	select {
	case res := <-got:
		return res.b, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// readScript reads a script file a shell is given, gated as a read of it,
// from the descriptor opened for that judgement.
func (x *Run) readScript(ctx context.Context, hc interp.HandlerContext, l launch, path string) ([]byte, error) {
	t := x.judgeTarget(l.dir, path, false)
	t.step.Text = x.shownText(l)
	f, n, err := x.openJudged(ctx, hc, t, os.O_RDONLY, 0)
	if err != nil {
		if x.stopped() != nil || ctx.Err() != nil {
			return nil, err
		}
		fmt.Fprintf(l.stderr, "%s: %v\n", l.argv[0], err)
		x.ran(n, 127)
		return nil, interp.ExitStatus(127)
	}
	b, err := readInput(ctx, f, ValueBytes)
	f.Close()
	if le, ok := asLimit(err); ok {
		return nil, le
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		fmt.Fprintf(l.stderr, "%s: %s: %v\n", l.argv[0], path, err)
		x.ran(n, 126)
		return nil, interp.ExitStatus(126)
	}
	x.ran(n, -1)
	return b, nil
}

// envProgram runs `env [-i] [-u NAME] [-C DIR] [NAME=VALUE…] [PROGRAM ARGS…]`:
// the program is dispatched (and gated) with the environment and directory
// env would give it.
func (x *Run) envProgram(ctx context.Context, hc interp.HandlerContext, l launch) error {
	args := l.argv[1:]
	env := append([]string(nil), l.env...)
	dir := l.dir
	unset := func(name string) {
		out := env[:0]
		for _, kv := range env {
			if k, _, _ := strings.Cut(kv, "="); k != name {
				out = append(out, kv)
			}
		}
		env = out
	}
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "--":
			args = args[1:]
			goto assigns
		case a == "-i" || a == "--ignore-environment" || a == "-":
			env, args = nil, args[1:]
		case a == "-u" || a == "--unset":
			if len(args) < 2 {
				return usage(l, "option %s needs a name", a)
			}
			unset(args[1])
			args = args[2:]
		case strings.HasPrefix(a, "--unset="):
			unset(strings.TrimPrefix(a, "--unset="))
			args = args[1:]
		case strings.HasPrefix(a, "-u"):
			unset(a[2:])
			args = args[1:]
		case a == "-C" || a == "--chdir":
			if len(args) < 2 {
				return usage(l, "option %s needs a directory", a)
			}
			dir, args = absFrom(dir, args[1]), args[2:]
		case strings.HasPrefix(a, "--chdir="):
			dir, args = absFrom(dir, strings.TrimPrefix(a, "--chdir=")), args[1:]
		case a == "-S" || a == "--split-string":
			if len(args) < 2 {
				return usage(l, "option %s needs a string", a)
			}
			args = append(strings.Fields(args[1]), args[2:]...)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			return usage(l, "option %s is not supported by tandem; use NAME=VALUE, -i, -u or -C", a)
		default:
			goto assigns
		}
	}
assigns:
	for len(args) > 0 && strings.Contains(args[0], "=") && !strings.HasPrefix(args[0], "=") {
		k, _, _ := strings.Cut(args[0], "=")
		unset(k)
		env = append(env, args[0])
		args = args[1:]
	}
	if len(args) == 0 {
		// env without a program prints the environment. It holds no
		// credential except those a front door or the user hands the
		// steps on purpose, and the output hides their values.
		for _, kv := range env {
			fmt.Fprintln(l.stdout, kv)
		}
		return nil
	}
	l2 := l
	l2.argv, l2.env, l2.dir, l2.shown = args, env, dir, x.shownText(l)
	return x.program(ctx, hc, l2)
}

func absFrom(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// simpleWrapper runs nice, nohup, setsid and timeout itself: each program
// goes through program (and the gate) with the wrapper's effect applied.
func (x *Run) simpleWrapper(ctx context.Context, hc interp.HandlerContext, l launch) error {
	args := l.argv[1:]
	l2 := l
	l2.shown = x.shownText(l)
	switch l.argv[0] {
	case "nice":
		l2.nice = 10
	niceOpts:
		for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
			a := args[0]
			var v string
			switch {
			case a == "--":
				args = args[1:]
				break niceOpts
			case a == "-n" || a == "--adjustment":
				if len(args) < 2 {
					return usage(l, "option %s needs a number", a)
				}
				v, args = args[1], args[2:]
			case strings.HasPrefix(a, "--adjustment="):
				v, args = strings.TrimPrefix(a, "--adjustment="), args[1:]
			case strings.HasPrefix(a, "-n"):
				v, args = a[2:], args[1:]
			default:
				v, args = a[1:], args[1:]
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				return usage(l, "invalid adjustment %q", v)
			}
			l2.nice = n
		}
	case "nohup":
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
	case "setsid":
		for len(args) > 0 && strings.HasPrefix(args[0], "-") {
			a := args[0]
			args = args[1:]
			if a == "--" {
				break
			}
			switch a {
			case "-f", "--fork", "-w", "--wait", "-c", "--ctty":
			default:
				return usage(l, "option %s is not supported by tandem", a)
			}
		}
	case "timeout":
		t := &timeoutSpec{sig: syscall.SIGTERM}
	timeoutOpts:
		for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
			a := args[0]
			val := func() (string, bool) {
				if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "--") {
					args = args[1:]
					return v, true
				}
				if !strings.HasPrefix(a, "--") && len(a) > 2 {
					args = args[1:]
					return a[2:], true
				}
				if len(args) < 2 {
					return "", false
				}
				v := args[1]
				args = args[2:]
				return v, true
			}
			switch {
			case a == "--":
				args = args[1:]
				break timeoutOpts
			case a == "--preserve-status":
				t.preserve, args = true, args[1:]
			case a == "--foreground" || a == "-v" || a == "--verbose" || a == "-f":
				args = args[1:]
			case strings.HasPrefix(a, "-s") || strings.HasPrefix(a, "--signal"):
				v, ok := val()
				sig, known := signalNamed(v)
				if !ok || !known {
					return usage(l, "invalid signal %q", v)
				}
				t.sig = sig
			case strings.HasPrefix(a, "-k") || strings.HasPrefix(a, "--kill-after"):
				v, ok := val()
				d, err := duration(v)
				if !ok || err != nil {
					return usage(l, "invalid time interval %q", v)
				}
				t.killAfter = d
			default:
				return usage(l, "option %s is not supported by tandem", a)
			}
		}
		if len(args) < 2 {
			return usage(l, "needs a duration and a program")
		}
		d, err := duration(args[0])
		if err != nil {
			return usage(l, "invalid time interval %q", args[0])
		}
		args = args[1:]
		if d > 0 {
			t.after = d
			if l.timeout == nil || d < l.timeout.after {
				l2.timeout = t
			}
		}
	}
	if len(args) == 0 {
		return usage(l, "no program to run")
	}
	l2.argv = args
	return x.program(ctx, hc, l2)
}

func duration(s string) (time.Duration, error) {
	unit := time.Second
	switch {
	case strings.HasSuffix(s, "s"):
		s = s[:len(s)-1]
	case strings.HasSuffix(s, "m"):
		s, unit = s[:len(s)-1], time.Minute
	case strings.HasSuffix(s, "h"):
		s, unit = s[:len(s)-1], time.Hour
	case strings.HasSuffix(s, "d"):
		s, unit = s[:len(s)-1], 24*time.Hour
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("bad duration")
	}
	return time.Duration(f * float64(unit)), nil
}

func signalNamed(s string) (syscall.Signal, bool) {
	if n, err := strconv.Atoi(s); err == nil && n > 0 && n < 65 {
		return syscall.Signal(n), true
	}
	s = strings.TrimPrefix(strings.ToUpper(s), "SIG")
	sig := unix.SignalNum("SIG" + s)
	return sig, sig != 0
}

// foreignWrapper is a wrapper tandem lets run (sudo, stdbuf, …): the
// program behind it is found so the step carries that program's effects too.
type foreignWrapper struct {
	valued     string // option letters that take a value
	positional int    // operands before the program (taskset MASK, chrt PRIO)
}

var foreignWrappers = map[string]foreignWrapper{
	"sudo":    {valued: "ugCDhprtTU"},
	"doas":    {valued: "uC"},
	"stdbuf":  {valued: "ioe"},
	"ionice":  {valued: "cnp"},
	"chrt":    {positional: 1},
	"taskset": {positional: 1},
}

// inner finds the program behind the wrapper's options and operands.
func (w foreignWrapper) inner(args []string) []string {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		a := args[0]
		args = args[1:]
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--") {
			continue
		}
		if len(a) == 2 && strings.ContainsRune(w.valued, rune(a[1])) && len(args) > 0 {
			args = args[1:]
		}
	}
	if len(args) <= w.positional {
		return nil
	}
	return args[w.positional:]
}
