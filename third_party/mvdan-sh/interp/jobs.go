// Copyright (c) 2026, tandem's authors
// See LICENSE for licensing information

package interp

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

// bgPIDBase is what $! of the n-th background shell adds n to: above every
// pid Linux (PID_MAX_LIMIT, 1<<22) or macOS hands out, so that $! names
// this shell's job and no process of the system.
const bgPIDBase = 1 << 22

// lastPID counts the pids the interpreter hands out, above bgPIDBase: a
// background shell's $!, a subshell's $BASHPID; no two share one.
var lastPID atomic.Int64

// maxSignal is the highest signal number kill and trap accept, as bash's
// NSIG-1 on Linux.
const maxSignal = 64

// JobSignal is the cause of a background job's context when `kill` sent it
// a signal: an exec handler ends the job's program with Signal rather than
// SIGKILL.
type JobSignal struct{ Signal int }

func (s JobSignal) Error() string { return "killed by signal " + strconv.Itoa(s.Signal) }

// SignalOf returns the signal `kill` ended the background job of ctx with,
// if it did.
func SignalOf(ctx context.Context) (int, bool) {
	s, ok := context.Cause(ctx).(JobSignal)
	return s.Signal, ok
}

// job returns the background shell an operand of kill or wait names: its
// $! value, or a job spec (%N, %%, %+, %-, %TEXT, %?TEXT). Process
// substitutions have a $! but are no jobs.
func (r *Runner) job(arg string) (*bgProc, bool) {
	jobs := slices.DeleteFunc(slices.Clone(r.bgProcs), func(bg *bgProc) bool { return !bg.job || bg.waited })
	spec, isSpec := strings.CutPrefix(arg, "%")
	if !isSpec {
		n, err := strconv.Atoi(arg)
		if err != nil || n <= bgPIDBase {
			return nil, false
		}
		for _, bg := range r.bgProcs {
			if bg.pid == n {
				return bg, true
			}
		}
		return nil, false
	}
	switch {
	case spec == "%" || spec == "+" || spec == "":
		if len(jobs) > 0 && spec != "" {
			return jobs[len(jobs)-1], true
		}
	case spec == "-":
		if len(jobs) > 1 {
			return jobs[len(jobs)-2], true
		}
		if len(jobs) == 1 {
			return jobs[0], true
		}
	default:
		if n, err := strconv.Atoi(spec); err == nil {
			for _, bg := range jobs {
				if bg.number == n {
					return bg, true
				}
			}
			break
		}
		text, anywhere := strings.CutPrefix(spec, "?")
		for _, bg := range slices.Backward(jobs) {
			if anywhere && strings.Contains(bg.text, text) || !anywhere && strings.HasPrefix(bg.text, text) {
				return bg, true
			}
		}
	}
	return nil, false
}

// signalOf reads a signal as kill and trap take it: a number up to
// maxSignal, or a name with or without SIG, in any case.
func signalOf(spec string) (int, bool) {
	if n, err := strconv.Atoi(spec); err == nil {
		return n, n >= 0 && n <= maxSignal
	}
	up := strings.ToUpper(spec)
	if up == "EXIT" {
		return 0, true
	}
	n := signalNumber("SIG" + strings.TrimPrefix(up, "SIG"))
	return n, n > 0
}

// printSignals lists the signals as `kill -l` and `trap -l` do, five to a
// line.
func (r *Runner) printSignals() {
	var b strings.Builder
	col := 0
	for n := 1; n <= maxSignal; n++ {
		name := signalName(n)
		if name == "" {
			continue
		}
		fmt.Fprintf(&b, "%2d) %s", n, name)
		col++
		if col%5 == 0 {
			b.WriteString("\n")
		} else {
			b.WriteString("\t")
		}
	}
	if col%5 != 0 {
		b.WriteString("\n")
	}
	r.out(b.String())
}

const killUsage = "kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]\n"

// kill is bash's kill for the shell's own background jobs: it lists and
// translates signals, and signals a job by ending its context with the
// signal as cause. A pid that is not one of its jobs is no process it may
// signal: the caller's exec handler runs the system's kill for those.
func (r *Runner) kill(ctx context.Context, args []string) (exit exitStatus) {
	fail := func(code uint8, format string, a ...any) exitStatus {
		r.errf(format, a...)
		exit.code = code
		return exit
	}
	sig := 15
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		flag := args[0]
		args = args[1:]
		switch flag {
		case "--":
		case "-l", "-L":
			return r.killList(args)
		case "-s", "-n":
			if len(args) == 0 {
				return fail(1, "kill: %s: option requires an argument\n", flag)
			}
			n, ok := signalOf(args[0])
			if !ok {
				return fail(1, "kill: %s: invalid signal specification\n", args[0])
			}
			sig, args = n, args[1:]
			continue
		default:
			n, ok := signalOf(flag[1:])
			if !ok {
				return fail(1, "kill: %s: invalid signal specification\n", flag[1:])
			}
			sig = n
			continue
		}
		break
	}
	if len(args) == 0 {
		fmt.Fprint(r.stderr, killUsage)
		exit.code = 2
		return exit
	}
	for _, arg := range args {
		bg, ok := r.job(arg)
		switch {
		case arg == strconv.Itoa(os.Getpid()):
			if _, trapped := r.traps[signalName(sig)]; r.signalParent != nil && !trapped {
				r.signalParent.Signal(sig)
				continue
			}
			if r.signalSelf(ctx, sig) {
				return exitStatus{code: uint8(128 + sig), exiting: true}
			}
		case ok:
			select {
			case <-bg.done:
				exit.code = 1
				r.errf("kill: (%d) - No such process\n", bg.pid)
				continue
			default:
			}
			if sig != 0 && !ignoredByDefault(sig) {
				bg.cancel(JobSignal{Signal: sig})
			}
		case strings.HasPrefix(arg, "%"):
			exit.code = 1
			r.errf("kill: %s: no such job\n", arg)
		case strings.TrimLeft(arg, "-0123456789") != "" || arg == "" || arg == "-":
			exit.code = 1
			r.errf("kill: %s: arguments must be process or job IDs\n", arg)
		default:
			exit.code = 1
			r.errf("kill: (%s) - not a background job of this shell; the system's kill signals other processes\n", arg)
		}
	}
	return exit
}

// signalQueue holds the signals sent to a shell from outside the command
// it runs, which it takes between commands.
type signalQueue struct {
	mu   sync.Mutex
	sigs []int
}

// Signal sends sig to the shell from outside the command it runs, as
// another shell it started does with `sh -c "kill -USR1 $$"`: once the
// command is done, the signal's trap runs, as bash's does; one not trapped
// that ends a process ends the shell. (tandem)
func (r *Runner) Signal(sig int) {
	if r.signals == nil {
		return // not yet run
	}
	r.signals.mu.Lock()
	r.signals.sigs = append(r.signals.sigs, sig)
	r.signals.mu.Unlock()
}

// SignalsTo makes $$ in the runner's kill name parent, the shell that
// started it (as the payload of `sh -c "kill -USR1 $$"` does in bash, where
// the outer shell expanded $$), for a signal the runner does not trap
// itself. (tandem)
func SignalsTo(parent *Runner) RunnerOption {
	return func(r *Runner) error {
		r.signalParent = parent
		return nil
	}
}

// takeSignals runs the traps of the signals sent to the shell since it
// last looked.
func (r *Runner) takeSignals(ctx context.Context) {
	if r.signals == nil {
		return // a subshell's: signals reach the shell
	}
	r.signals.mu.Lock()
	sigs := r.signals.sigs
	r.signals.sigs = nil
	r.signals.mu.Unlock()
	for _, sig := range sigs {
		if r.signalSelf(ctx, sig) {
			r.exit = exitStatus{code: uint8(128 + sig), exiting: true}
			return
		}
	}
}

// signalSelf is a signal sent to the shell itself ($$): its trap runs,
// one ignored by default (or by an empty trap) does nothing, and any
// other ends the shell, which it reports.
func (r *Runner) signalSelf(ctx context.Context, sig int) bool {
	name := signalName(sig)
	if action, ok := r.traps[name]; ok {
		r.trapCallback(ctx, action, name)
		return false
	}
	switch strings.TrimPrefix(name, "SIG") {
	case "", "STOP", "TSTP", "TTIN", "TTOU":
		return false // unknown here, or stops a shell no one can resume
	}
	return !ignoredByDefault(sig)
}

// ignoredByDefault reports whether sig does nothing to a process that
// did not trap it (SIGCHLD, SIGURG, SIGWINCH, SIGCONT to a running one), as
// to a background job, whose traps bash resets.
func ignoredByDefault(sig int) bool {
	switch strings.TrimPrefix(signalName(sig), "SIG") {
	case "CHLD", "URG", "WINCH", "CONT":
		return true
	}
	return false
}

// killList is `kill -l [SIG…]`: the table, or each signal's number for a
// name and name for a number (an exit status over 128 for its signal).
func (r *Runner) killList(args []string) (exit exitStatus) {
	if len(args) == 0 {
		r.printSignals()
		return exit
	}
	for _, arg := range args {
		n, err := strconv.Atoi(arg)
		if err != nil {
			if num, ok := signalOf(arg); ok {
				r.outf("%d\n", num)
				continue
			}
		} else {
			if n > 128 {
				n -= 128
			}
			if n == 0 {
				r.out("EXIT\n")
				continue
			}
			if name := signalName(n); name != "" && n <= maxSignal {
				r.outf("%s\n", strings.TrimPrefix(name, "SIG"))
				continue
			}
		}
		r.errf("kill: %s: invalid signal specification\n", arg)
		exit.code = 1
	}
	return exit
}

// printJobs is `jobs`: the background jobs still running, or their pids
// with -p.
func (r *Runner) printJobs(args []string) exitStatus {
	pids := false
	for _, a := range args {
		switch a {
		case "-p":
			pids = true
		case "-l", "-r":
		default:
			r.errf("jobs: %s: invalid option\n", a)
			fmt.Fprint(r.stderr, "jobs: usage: jobs [-lnprs] [jobspec ...] or jobs -x command [args]\n")
			return exitStatus{code: 2}
		}
	}
	var running []*bgProc
	for _, bg := range r.bgProcs {
		select {
		case <-bg.done:
		default:
			if bg.job {
				running = append(running, bg)
			}
		}
	}
	for i, bg := range running {
		if pids {
			r.outf("%d\n", bg.pid)
			continue
		}
		mark := ' '
		switch i {
		case len(running) - 1:
			mark = '+'
		case len(running) - 2:
			mark = '-'
		}
		r.outf("[%d]%c  %-24s%s &\n", bg.number, mark, "Running", bg.text)
	}
	return exitStatus{}
}

// notifyKilled tells, once each, on wait's standard error, of the jobs
// that a signal ended and that have ended, as bash's notify_of_job_status
// does for a shell that is not interactive:
// `bash: line 6:  2221 Killed                  sleep 1` (its pid is $!).
// bash is silent on SIGINT, SIGTERM and SIGPIPE, and on a signal the shell
// traps.
func (r *Runner) notifyKilled() {
	for _, bg := range r.bgProcs {
		select {
		case <-bg.done:
		default:
			continue
		}
		if bg.signal == 0 || bg.notified || !bg.job {
			continue
		}
		bg.notified = true
		name := signalName(bg.signal)
		if _, trapped := r.traps[name]; trapped || name == "SIGINT" || name == "SIGTERM" || name == "SIGPIPE" {
			continue
		}
		r.errf("%5d %-24s%s\n", bg.pid, signalDescription(bg.signal), bg.text)
	}
}

// jobText is a background command as jobs lists it, without its `&`.
func jobText(st *syntax.Stmt) string {
	var b strings.Builder
	syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, st.Cmd)
	return b.String()
}

// wait is bash's wait: for every background shell, for those its operands
// name ($! values or job specs), or with -n for the next of them to end.
func (r *Runner) wait(ctx context.Context, args []string) (exit exitStatus) {
	next, pidVar := false, ""
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		flag := args[0]
		args = args[1:]
		switch flag {
		case "--":
		case "-n":
			next = true
			continue
		case "-f":
			continue
		case "-p":
			if len(args) == 0 {
				r.errf("wait: -p: option requires an argument\n")
				return exitStatus{code: 2}
			}
			pidVar, args = args[0], args[1:]
			continue
		default:
			r.errf("wait: %s: invalid option\n", flag)
			fmt.Fprint(r.stderr, "wait: usage: wait [-fn] [-p var] [id ...]\n")
			return exitStatus{code: 2}
		}
		break
	}
	var named []*bgProc
	for _, arg := range args {
		bg, ok := r.job(arg)
		switch {
		case ok && !(next && bg.waited):
			named = append(named, bg)
			continue
		case next:
			// bash 5.2's wait -n: an operand it cannot wait for (a job
			// already waited for too) is no job; with none left, 127.
			r.errf("wait: %s: no such job\n", arg)
			continue
		case strings.HasPrefix(arg, "%"):
			r.errf("wait: %s: no such job\n", arg)
		case strings.Trim(arg, "0123456789") != "" || arg == "":
			r.errf("wait: `%s': not a pid or valid job spec\n", arg)
			exit.code = 1
			continue
		default:
			r.errf("wait: pid %s is not a child of this shell\n", arg)
		}
		exit.code = 127
	}
	// bash tells of the jobs a signal ended once it has waited.
	defer r.notifyKilled()
	report := func(bg *bgProc) {
		bg.waited = true
		exit = *bg.exit
		if pidVar != "" {
			r.setVarString(pidVar, strconv.Itoa(bg.pid))
		}
	}
	if next {
		if len(args) == 0 {
			named = slices.DeleteFunc(slices.Clone(r.bgProcs), func(bg *bgProc) bool { return !bg.job || bg.waited })
		}
		if len(named) == 0 {
			return exitStatus{code: 127}
		}
		cases := make([]reflect.SelectCase, 0, len(named)+1)
		for _, bg := range named {
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(bg.done)})
		}
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())})
		if i, _, _ := reflect.Select(cases); i < len(named) {
			report(named[i])
		}
		return exit
	}
	if len(args) == 0 {
		// Without operands, wait's status is zero.
		for _, bg := range r.bgProcs {
			<-bg.done
			bg.waited = bg.job
		}
		return exitStatus{}
	}
	for _, bg := range named {
		<-bg.done
		report(bg)
	}
	return exit
}

// KillsOwn reports whether `kill ARGS` is the shell's own to run: it lists
// or translates signals, is malformed, or every operand is the shell
// itself ($$) or names one of its background jobs (a job spec, or its
// $!). Any other pid is a process of the system, for the system's kill.
func (hc HandlerContext) KillsOwn(args []string) bool {
	var operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case len(operands) > 0:
			operands = append(operands, a)
		case a == "-l" || a == "-L":
			return true
		case a == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case a == "-s" || a == "-n":
			i++
		case strings.HasPrefix(a, "-") && len(a) > 1:
		default:
			operands = append(operands, a)
		}
	}
	for _, op := range operands {
		pid := op != "" && op != "-" && strings.TrimLeft(op, "-0123456789") == ""
		if _, ok := hc.runner.job(op); !ok && pid && op != strconv.Itoa(os.Getpid()) {
			return false
		}
	}
	return true
}
