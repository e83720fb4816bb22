// Package shell runs an agent's bash scripts in process, on mvdan.cc/sh's
// interpreter, so that every simple command that actually runs — in loops,
// functions, eval, command substitutions, pipelines, and behind wrappers —
// is classified with its real expanded arguments and passes the session's
// gate just before it runs. Redirections are judged by their real target
// before the file opens. Each external process runs in its own process
// group with an environment free of credentials, and a run's processes never
// outlive it.
//
// A run (Run) is one script being interpreted. A step (Step) is one thing
// of a run that the gate decides on its own: a simple command with its real
// expanded arguments, or the opening of a redirection's target. The
// classifier (package shell/classify) gives each step its effects, and the
// session's gate (approvals.Gate) lets it run, asks the user, or refuses
// it. A run that outlives its call's time budget goes on as a job (Jobs),
// which asks no more questions.
package shell

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/expand"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/interp"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/refusal"
	"github.com/tandemdev/tandem/sandbox"
	"github.com/tandemdev/tandem/shell/classify"
)

// Options configure one run.
type Options struct {
	// Dir is the working directory the script starts in (absolute).
	Dir string
	// Env is the session's environment. Every credential and key is
	// removed before the script or any process sees it (see IsCredential
	// and EnvRule), and their values are hidden from what the run shows.
	Env []string
	// EnvRule names the keys the user's settings configure and the
	// variables they pass.
	EnvRule EnvRule
	// ExtraEnv is added after the credentials are removed: the values a
	// front door hands its steps on purpose (the bridge's socket path and
	// per-call token). A credential among them is hidden too.
	ExtraEnv []string
	// Gate decides each step and asks the user about the ones outside the
	// auto set. Required.
	Gate *approvals.Gate
	// Sandbox confines each process a step starts to what the step was
	// granted: the auto set, Grant, and the effects the user approved for
	// the step. If nil, processes run with the user's full access.
	Sandbox *sandbox.Sandbox
	// Grant is what the user approved for this whole run beyond the auto
	// set (secret, outside, protected or net asked for with a reason): every
	// process of the run may do it. It widens the sandbox only; each step is
	// still gated by its own effects.
	Grant approvals.Effects
	// OutputCap bounds the output a result keeps (head and tail);
	// DefaultOutputCap when zero.
	OutputCap int
}

// End is how a script ended.
type End string

const (
	Finished End = "finished" // it ran to its end
	Exited   End = "exited"   // an exit builtin ended it
	Refused  End = "refused"  // the gate stopped it at a step (denied or unanswered)
	Killed   End = "killed"   // a kill or the session's end stopped it
	Bounded  End = "bounded"  // it went past a bound of what a script may hold
	Failed   End = "failed"   // the interpreter failed (not a step's status)
)

// Step is one step of a run: a simple command, or a redirection's opening.
type Step struct {
	N       int               `json:"n"` // 1-based, in the order steps passed the gate
	Text    string            `json:"text"`
	Effects approvals.Effects `json:"effects"`
	// Status is the step's exit status once it ended; -1 while it runs, for
	// a step that did not run, for a shell's script file, and for a builtin
	// whose name the script also declares as a function (the interpreter
	// picks which runs).
	Status int  `json:"status"`
	Ran    bool `json:"ran"`
	// Refused means the gate stopped the script at this step; it never
	// ran.
	Refused bool `json:"refused,omitempty"`
	// Held is what the sandbox kept the step's process from (secret,
	// outside, protected, net): the restricted effects it was not granted.
	Held approvals.Effects `json:"held,omitempty"`
}

// Result is how a run ended.
type Result struct {
	End    End    `json:"end"`
	Status int    `json:"status"` // the script's exit status
	Steps  []Step `json:"steps"`
	// RefusedAt is the number of the step the gate stopped (End Refused).
	RefusedAt int            `json:"refusedAt,omitempty"`
	Refusal   *refusal.Error `json:"refusal,omitempty"` // End Refused or Bounded
	// Unrecorded counts the steps that ran past the first StepsRecorded,
	// which Steps does not list.
	Unrecorded int    `json:"unrecorded,omitempty"`
	Error      string `json:"error,omitempty"` // End Failed
	Output     Output `json:"output"`
	// Sandbox names the failed step that the sandbox may have refused
	// something to, and what it held back from that step; "" when none.
	Sandbox string `json:"sandbox,omitempty"`
	// SyntaxError is the syntax error the run stopped at (`line 3: …`):
	// the lines before it ran, as in bash, and none after; "" when none.
	SyntaxError string `json:"syntaxError,omitempty"`
}

// Run is one script being interpreted.
type Run struct {
	opts Options
	// main is the script's interpreter: $$ in an `sh -c` payload's kill
	// names it.
	main   *interp.Runner
	hide   *hider
	policy *approvals.Policy
	out    *capture
	null   *os.File // the script's stdin, and any payload's without one
	// tmp is the run's private (0700) directory for the interpreter's own
	// named pipes (<(…), >(…)), removed when the run ends: no other
	// process's names there are opened past the gate.
	tmp    string
	procs  *procs
	stages *stages
	limits *interp.Limits
	cancel context.CancelFunc
	done   chan struct{}

	mu         sync.Mutex
	steps      []Step
	unrecorded int
	refused    *stepRefused
	killed     bool
	// bounded is the bound that stopped the run from outside the
	// interpreter (tandem's memory).
	bounded *interp.LimitError
	result  Result
	started time.Time
	ended   time.Time
	// asks is how many questions are open now; the time they are open is
	// not running time (see Detach). idle is closed when the last one ends.
	asks     int
	askSince time.Time
	waited   time.Duration
	idle     chan struct{}
	// detached means the call that started the run has ended and the run
	// goes on as a job. A question would outlive its call, so none is
	// asked.
	detached bool
	// funcs are the names the script's code may define as functions (every
	// function declaration tandem parsed: the script, sh -c payloads, eval'd
	// code, sourced files); a builtin so named is left to the interpreter.
	funcs map[string]bool
}

// stepRefused is the error that halts the interpreter at a refused step.
type stepRefused struct {
	n   int
	err *refusal.Error
}

func (e *stepRefused) Error() string { return e.err.Error() }

// parse reads a script; name is its $0 (if empty, the interpreter's own
// name). The parsed file is rewritten so that the stages of each pipeline
// are asked about together before any of them runs. For a script that does
// not parse, the file holds the statements bash runs before the error, and
// stop says where and how the parse stopped; head names a line in bash's
// message (`bash: -c: line 3`).
func parse(script, name string, lang syntax.LangVariant, head func(line int) string) (f *syntax.File, stop *syntaxStop) {
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(script), name)
	if err != nil {
		src, err := syntax.BashInput(script, name, err, lang)
		msg, line := syntax.BashMessage(src, err, lang, head)
		var pe syntax.ParseError
		stop = &syntaxStop{Line: line, Message: msg, Err: err, KeepStatus: errors.As(err, &pe) && pe.Cond}
		f = &syntax.File{Name: name, Stmts: linesBefore(script, lang)}
		next := nextLine(f.Stmts)
		stop.reread = func(aliasLine func(string) (string, bool)) (*syntax.File, *syntaxStop, bool) {
			lines := strings.Split(script, "\n")
			// Blank and comment lines hold no command.
			for next <= len(lines) && (strings.TrimSpace(lines[next-1]) == "" || strings.HasPrefix(strings.TrimSpace(lines[next-1]), "#")) {
				next++
			}
			if next > len(lines) {
				return nil, nil, false
			}
			first, ok := aliasLine(lines[next-1])
			if !ok {
				return nil, nil, false
			}
			// Blank lines keep the lines' numbers.
			rest := strings.Repeat("\n", next-1) + strings.Join(append([]string{first}, lines[next:]...), "\n")
			f2, stop2 := parse(rest, name, lang, head)
			if stop2 != nil && len(f2.Stmts) == 0 {
				return nil, nil, false // no further: the error stands
			}
			return f2, stop2, true
		}
	}
	markPipelines(f)
	return f, stop
}

// Start parses the script and starts running it. ctx bounds the run: when it
// ends, the run is killed. A script that does not parse runs as `bash -c`
// runs it: the lines before the error, then bash's message and status 2
// (Result.SyntaxError).
func Start(ctx context.Context, script string, o Options) (*Run, error) {
	if o.Gate == nil {
		return nil, errors.New("shell: no gate")
	}
	// $0 is bash, as in `bash -c SCRIPT`; the interpreter's error
	// messages start with it (`bash: line 2: x: readonly variable`).
	head := func(line int) string { return fmt.Sprintf("bash: -c: line %d", line) }
	f, stop := parse(script, "bash", syntax.LangBash, head)
	env, hidden := ChildEnv(o.Env, o.ExtraEnv, o.EnvRule)
	hide := newHider(hidden)
	out, err := newCapture(o.OutputCap, hide)
	if err != nil {
		return nil, err
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		out.closeWriter()
		out.finish(nil)
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "tandem-sh-")
	if err != nil {
		out.closeWriter()
		out.finish(nil)
		null.Close()
		return nil, err
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	ctx, cancel := context.WithCancel(ctx)
	x := &Run{
		started: time.Now(),
		null:    null,
		tmp:     tmp,
		opts:    o,
		hide:    hide,
		policy:  o.Gate.Policy(),
		out:     out,
		procs:   newProcs(hex.EncodeToString(id[:])),
		stages:  newStages(),
		limits:  newLimits(),
		cancel:  cancel,
		done:    make(chan struct{}),
		funcs:   map[string]bool{},
	}
	x.noteFuncs(f)
	given := append(commandString(script), syntaxErrors(syntax.LangBash, head))
	r, err := x.runner(given, o.Dir, script, env, interp.ProcessUmask(), nil, out.w, out.w)
	x.main = r
	if err != nil {
		x.procs.kill()
		cancel()
		out.closeWriter()
		out.finish(nil)
		null.Close()
		os.RemoveAll(tmp)
		return nil, err
	}
	x.watchMemory()
	go x.run(ctx, r, f, stop)
	return x, nil
}

// commandString is how bash holds a `bash -c` string: its functions' errors
// start with `environment`, and BASH_EXECUTION_STRING is the string.
func commandString(script string) []interp.RunnerOption {
	return []interp.RunnerOption{interp.MainSource("environment"), interp.ExecutionString(script)}
}

// syntaxErrors words a syntax error of the script's, such as an alias's
// text that does not parse, as bash does; head names a line in the message.
func syntaxErrors(lang syntax.LangVariant, head func(line int) string) interp.RunnerOption {
	return interp.SyntaxErrors(func(src string, err error) string {
		msg, _ := syntax.BashMessage(src, err, lang, head)
		return msg
	})
}

// runner makes an interpreter whose handlers all go through x: the
// script's own interpreter, and the one of each `sh -c` payload the script
// runs, which starts with the file mode mask of the script that runs it.
// given are the options that say how the script was given to the shell
// (see [commandString] and [syntaxErrors]); script is the text it runs,
// for set -v.
func (x *Run) runner(given []interp.RunnerOption, dir, script string, env []string, mask uint32, stdin io.Reader, stdout, stderr io.Writer, params ...string) (*interp.Runner, error) {
	if stdin == nil {
		stdin = x.null
	}
	opts := []interp.RunnerOption{
		interp.Env(expand.ListEnviron(env...)),
		interp.Dir(dir),
		interp.Umask(mask),
		interp.TempDir(x.tmp),
		interp.Bounds(x.limits),
		interp.StdIO(stdin, stdout, stderr),
		interp.CallHandler(x.call),
		interp.Untraced(stageMarker),
		interp.ScriptText(script),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return x.exec }),
		interp.OpenHandler(x.open),
		interp.ReadDirHandler2(x.readDir),
		interp.StatHandler(x.stat),
		interp.AccessHandler(x.access),
	}
	opts = append(opts, given...)
	if len(params) > 0 {
		opts = append(opts, interp.Params(params...))
	}
	if x.main != nil {
		opts = append(opts, interp.SignalsTo(x.main))
	}
	return interp.New(opts...)
}

func (x *Run) run(ctx context.Context, r *interp.Runner, f *syntax.File, stop *syntaxStop) {
	exited, reached, stop, err := x.runSafely(ctx, r, f, stop)
	x.unwatchMemory()
	x.cancel()
	// Nothing of the run outlives it: kill what is left of its process
	// groups (a background daemon, an orphan), then read the output to its
	// end.
	x.procs.kill()
	x.out.closeWriter()
	give := make(chan struct{})
	t := time.AfterFunc(2*time.Second, func() { close(give) })
	x.out.finish(give)
	t.Stop()
	x.null.Close()
	os.RemoveAll(x.tmp)

	x.mu.Lock()
	res := Result{Steps: append([]Step(nil), x.steps...), Unrecorded: x.unrecorded, Output: x.out.snapshot()}
	var status interp.ExitStatus
	le, overBound := asLimit(err)
	if x.bounded != nil {
		le, overBound = x.bounded, true
	}
	switch {
	case x.killed: // a question still open when the kill came is moot
		res.End, res.Status = Killed, 137
	case x.refused != nil:
		res.End, res.RefusedAt, res.Refusal = Refused, x.refused.n, x.refused.err
		res.Status = 1
	case overBound:
		res.End, res.Status, res.Refusal = Bounded, 1, boundRefusal(le)
	case err == nil:
		res.End = Finished
		if exited {
			res.End = Exited
		}
	case errors.As(err, &status):
		res.End, res.Status = Finished, int(status)
		if exited {
			res.End = Exited
		}
	default:
		res.End, res.Status, res.Error = Failed, 1, x.hide.text(err.Error())
	}
	if reached {
		res.SyntaxError = fmt.Sprintf("line %d: %s", stop.Line, x.hide.text(syntaxText(stop.Err)))
	}
	var named int
	res.Sandbox, named = sandboxNote(res, x.policy)
	keepHeld(res.Steps, named)
	x.result = res
	x.ended = time.Now()
	x.mu.Unlock()
	close(x.done)
}

// runSafely runs the interpreter; a panic in it (tandem's bug, or the
// interpreter's) ends this run as failed instead of the whole process.
// stop, when the script did not parse, is the syntax error after f's
// statements, and reached reports whether the run came to it.
// A command line that did not parse is read again once the lines before
// it have run, with the aliases they defined (syntaxStop.again); its
// statements, and their functions, are the script's like any other, each
// step gated. last is where the run's parse stopped in the end.
func (x *Run) runSafely(ctx context.Context, r *interp.Runner, f *syntax.File, stop *syntaxStop) (exited, reached bool, last *syntaxStop, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the interpreter failed (%v); report this", p)
		}
	}()
	if stop == nil {
		err = r.Run(ctx, f)
		return r.Exited(), false, nil, err
	}
	last = stop
	more := func() (*syntax.File, string, bool, bool) {
		f2, stop2, ok := last.again(r.AliasLine)
		if !ok {
			return nil, "", false, false
		}
		x.noteFuncs(f2)
		last = stop2
		if stop2 == nil {
			return f2, "", false, true
		}
		return f2, stop2.Message, stop2.KeepStatus, true
	}
	reached, err = r.RunReading(ctx, f, stop.Message, stop.KeepStatus, more)
	return r.Exited(), reached, last, err
}

// guard turns a panic in a handler into an error that halts the script,
// since the interpreter runs pipeline stages in goroutines of its own where
// a panic would end the whole process.
func guard(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("tandem failed handling a step (%v); report this", p)
	}
}

// Done is closed when the run has ended and its processes are gone.
func (x *Run) Done() <-chan struct{} { return x.done }

// Result returns how the run ended; it is valid once Done is closed.
func (x *Run) Result() Result {
	<-x.done
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.result
}

// Progress returns the steps and output so far, while the run goes on.
func (x *Run) Progress() ([]Step, Output) {
	x.mu.Lock()
	steps := append([]Step(nil), x.steps...)
	x.mu.Unlock()
	keepHeld(steps, 0) // no step's failure is explained before the end
	return steps, x.out.snapshot()
}

// keepHeld leaves Held only on step n, the failed step the sandbox note
// names. Every step that starts a program runs held back from what it was
// not granted (usually outside, protected and secret), so on a step that
// succeeded, or failed for a reason of its own, the list says nothing a
// model can act on and tempts it to ask for access it does not need; the
// text shows it only in the note, and the structured result says what the
// text says.
func keepHeld(steps []Step, n int) {
	for i := range steps {
		if steps[i].N != n {
			steps[i].Held = 0
		}
	}
}

// Detach makes the run a job once it has run for budget, not counting the
// time the user was being asked: waiting for an answer is not running, and a
// question must not outlive the call it belongs to. It returns 0 and nil
// when the run is now detached. When less than budget has run, it returns
// the running time still left. While a question is open, it returns a
// channel that is closed once no question is open. A detached run asks no
// more questions: a step that needs a yes is refused.
func (x *Run) Detach(budget time.Duration) (time.Duration, <-chan struct{}) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.asks > 0 {
		return 0, x.idle
	}
	if left := budget - (time.Since(x.started) - x.waited); left > 0 {
		return left, nil
	}
	x.detached = true
	return 0, nil
}

// Started returns when the run began.
func (x *Run) Started() time.Time { return x.started }

// Kill stops the run: the interpreter halts and every process it started
// (each process group, and anything that left them) is killed and reaped.
// It returns when the run has ended.
func (x *Run) Kill() {
	x.mu.Lock()
	if x.result.End == "" {
		x.killed = true
	}
	x.mu.Unlock()
	x.cancel()
	x.procs.kill()
	<-x.done
}

// record adds a step that passed the gate (or was refused) and returns its
// number. Past StepsRecorded a step is only counted (`while :; do :; done`
// would hold every step of its loop), and a long text is cut.
func (x *Run) record(s approvals.Step) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := len(x.steps) + x.unrecorded + 1
	if len(x.steps) >= StepsRecorded {
		x.unrecorded++
		return n
	}
	text := s.Text
	if len(text) > stepTextKept {
		text = fmt.Sprintf("%s… (%d bytes in all)", strings.ToValidUTF8(text[:stepTextKept], ""), len(text))
	}
	x.steps = append(x.steps, Step{N: n, Text: text, Effects: s.Effects, Status: -1})
	return n
}

// held notes what the sandbox kept step n's process from.
func (x *Run) held(n int, held approvals.Effects) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if n > 0 && n <= len(x.steps) {
		x.steps[n-1].Held = held
	}
}

// quotedNames returns a set's names as JSON strings, for the call to send.
func quotedNames(e approvals.Effects) string {
	names := e.Names()
	for i, n := range names {
		names[i] = strconv.Quote(n)
	}
	return strings.Join(names, ", ")
}

// sandboxNote names the first failed step the sandbox held back from
// something, when the output reads like a refusal: the kernel refuses with
// EACCES or EPERM and says nothing of why, so the model is told what to
// suspect and what the step was not granted. When the output names a path
// the step's own sandbox rules kept it from (sandbox.Opens: a secret, a
// private place of the home, a write outside the writable places or to a
// protected one), the note names the path and the exact access to ask for.
// It returns the note and the number of the step it names (0: none).
func sandboxNote(res Result, p *approvals.Policy) (string, int) {
	if !sandbox.MayHaveRefused(res.Output.Text) {
		return "", 0
	}
	var failed []Step
	for _, s := range res.Steps {
		if s.Held != 0 && s.Status > 0 {
			failed = append(failed, s)
		}
	}
	if len(failed) == 0 {
		return "", 0
	}
	s := failed[0]
	if path, a := keptFrom(res.Output.Text, p, s.Held); a.Need != 0 {
		// The output is the script's, not the step's: a step that names
		// the path is likelier the one refused than the first that failed
		// (a grep that found nothing, a missing file).
		for _, o := range failed {
			if strings.Contains(o.Text, path) && o.Held == s.Held {
				s = o
				break
			}
		}
		return fmt.Sprintf("step %d (`%s`) failed and its output reads like a refusal of %s: the sandbox keeps it from a step without %s (%s). If the script needs it, call bash again with \"with\": {\"access\": [%s], \"reason\": \"why, in one line\"}; the user is asked.",
			s.N, s.Text, approvals.Show([]string{path}), strings.Join(a.Need.Names(), ", "), accessMeaning(a), quotedNames(a.Need)), s.N
	}
	return fmt.Sprintf("step %d (`%s`) failed and its output reads like a refusal: the sandbox may have refused it, since it ran without %s (%s). If the script needs that, call bash again with \"with\": {\"access\": [%s], \"reason\": \"why, in one line\"}; the user is asked.",
		s.N, s.Text, strings.Join(s.Held.Names(), ", "), heldMeaning(s.Held), quotedNames(s.Held)), s.N
}

// outputPath is an absolute path as programs print it in an error.
var outputPath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("/[^\\s'\"`:,;()\\[\\]]+") })

// keptFrom finds in output the first path, on a line that reads like a
// refusal, that the sandbox kept a step held back from held away from, and
// what opens it. (A path on another line, a traceback's source file, is
// no place the step was refused.)
func keptFrom(output string, p *approvals.Policy, held approvals.Effects) (string, sandbox.Access) {
	places, guarded := sandbox.PlacesOf(p), sandbox.GuardedIn(p.Roots())
	seen := 0
	for line := range strings.Lines(output) {
		if !sandbox.MayHaveRefused(line) {
			continue
		}
		for _, path := range outputPath().FindAllString(line, 64) {
			if seen++; seen > 8 {
				return "", sandbox.Access{}
			}
			j := p.Examine("/", path)
			if a := sandbox.Opens(places, guarded, held, j.Path, sandbox.ReadDir); a.Need != 0 {
				return j.Path, a
			}
		}
	}
	return "", sandbox.Access{}
}

// accessMeaning says why a path needs the access a, in words.
func accessMeaning(a sandbox.Access) string {
	verb := "reading it"
	if a.Write {
		verb = "writing it"
	}
	if es := a.Need.List(); len(es) > 1 {
		return verb + " needs " + strings.Join(a.Need.Names(), ", ") + " together: its directory holds a secret or a protected place, and the kernel keeps those from a step only by keeping it from making new names beside them"
	}
	why := map[approvals.Effect]string{
		approvals.Secret:    "it is a secret",
		approvals.Protected: "it is a protected place: a startup file, a PATH directory, a root's .tandem, git config or hooks",
		approvals.Outside:   "it is in the home directory, beyond the workspace, the scratch places and the readable places (shell.readableDirs)",
	}[a.Need.List()[0]]
	if a.Need.Has(approvals.Outside) && a.Write {
		why = "it is outside the workspace, the temporary directory and the build caches"
	}
	return verb + " needs " + a.Need.String() + ": " + why
}

// heldMeaning says in words what a step cannot do while it is held back
// from the effects held.
func heldMeaning(held approvals.Effects) string {
	var parts []string
	for _, e := range held.List() {
		parts = append(parts, map[approvals.Effect]string{
			approvals.Secret:    "no secret is read or written",
			approvals.Outside:   "no read of the home directory beyond the workspace and the toolchains' places, no write outside the workspace, the temporary directory and the build caches",
			approvals.Protected: "no write to a protected place: a startup file, a PATH directory, a root's .tandem, git config or hooks",
			approvals.Net:       "no network connection",
		}[e])
	}
	return strings.Join(parts, "; ")
}

// ran marks step n as run, with its exit status (-1 for none of its own).
func (x *Run) ran(n, status int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if n > 0 && n <= len(x.steps) {
		x.steps[n-1].Ran = true
		x.steps[n-1].Status = status
	}
}

// refuse keeps the first refusal of the run (the gate's, or tandem's own
// when a judged file was replaced) and returns the error that halts the
// interpreter.
func (x *Run) refuse(n int, err error) error {
	var r *refusal.Error
	if !errors.As(err, &r) {
		return err // the run was cancelled while asking
	}
	// A refusal may quote a step's words or paths (a swapped file's): no
	// credential's value is shown in it.
	r = refusal.New(r.Code, x.hide.text(r.Text))
	x.mu.Lock()
	if x.refused == nil {
		x.refused = &stepRefused{n: n, err: r}
	}
	if n > 0 && n <= len(x.steps) {
		x.steps[n-1].Refused = true
	}
	refused := x.refused
	x.mu.Unlock()
	// The interpreter does not carry a handler's error out of a subshell or
	// a command substitution, so the refusal also ends the run's context:
	// every statement, in every goroutine, stops before it starts, and the
	// rest of a pipeline's processes are killed.
	x.cancel()
	return refused
}

// stopped is the refusal that already stopped the run, if any.
func (x *Run) stopped() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.refused != nil {
		return x.refused
	}
	return nil
}

// gate lets a step run or stops the script. The first step of a pipeline
// stage waits for its whole pipeline to be asked; any other step is asked
// alone. It returns the step's number.
func (x *Run) gate(ctx context.Context, hc interp.HandlerContext, s approvals.Step) (int, error) {
	s = x.hideStep(s)
	if err := x.stopped(); err != nil {
		return 0, err
	}
	if st := x.stages.first(hc.Stdin, hc.Stdout, hc.Stderr); st != nil {
		n, at, err := x.stages.arrive(ctx, st, s, x.record, x.check)
		if err != nil {
			return n, x.refuse(at, err)
		}
		return n, nil
	}
	if err := x.ask(ctx, s); err != nil {
		return 0, x.refuse(x.record(s), err)
	}
	return x.record(s), nil
}

// hideStep returns s with the session's credentials hidden from its text
// and paths, so that the question, the step's record and a refusal show no
// credential's value.
func (x *Run) hideStep(s approvals.Step) approvals.Step {
	if x.hide == nil {
		return s
	}
	s.Text = x.hide.text(s.Text)
	paths := make([]approvals.StepPath, len(s.Paths))
	for i, p := range s.Paths {
		p.Path, p.Real = x.hide.text(p.Path), x.hide.text(p.Real)
		paths[i] = p
	}
	s.Paths = paths
	return s
}

// passGate is the first action of a pipeline stage that is not a step
// itself (xargs, a shell reading its script) and may block on its input.
func (x *Run) passGate(ctx context.Context, hc interp.HandlerContext) error {
	if err := x.stopped(); err != nil {
		return err
	}
	if st := x.stages.first(hc.Stdin, hc.Stdout, hc.Stderr); st != nil {
		if at, err := x.stages.pass(ctx, st, x.check); err != nil {
			return x.refuse(at, err)
		}
	}
	return nil
}

// ask passes steps through the gate, counting the time a question is open
// apart from running time. A detached run asks nobody.
func (x *Run) ask(ctx context.Context, steps ...approvals.Step) error {
	x.mu.Lock()
	if x.detached {
		x.mu.Unlock()
		// The gate asks nobody under an ended context: a question of a call
		// that is over would be withdrawn at once.
		ended, cancel := context.WithCancel(ctx)
		cancel()
		err := x.opts.Gate.Check(ended, approvals.KindShell, steps...)
		var r *approvals.Refused
		if errors.As(err, &r) && r.Answer == approvals.Unanswered {
			s := steps[r.Step]
			r.Refusal = refusal.New(refusal.Unanswered, fmt.Sprintf("(%s) it needs the user's approval, and the script had become a job when its call ended, so no one was asked: `%s` did not run. Run that step in a bash call of its own, where the user is asked.", s.Effects, s.Text))
		}
		return err
	}
	if x.asks == 0 {
		x.askSince, x.idle = time.Now(), make(chan struct{})
	}
	x.asks++
	x.mu.Unlock()
	defer func() {
		x.mu.Lock()
		if x.asks--; x.asks == 0 {
			x.waited += time.Since(x.askSince)
			close(x.idle)
		}
		x.mu.Unlock()
	}()
	return x.opts.Gate.Check(ctx, approvals.KindShell, steps...)
}

// check asks about steps together; it returns the index of the refused one.
func (x *Run) check(ctx context.Context, steps []approvals.Step) (int, error) {
	err := x.ask(ctx, steps...)
	var r *approvals.Refused
	if errors.As(err, &r) {
		return r.Step, err
	}
	return len(steps), err
}

// runsCode are the builtins whose only effect is to run code or a program
// that is itself gated when it runs (eval's and source's commands, the
// program behind command and exec, a trap's commands): they are not steps of
// their own.
var runsCode = map[string]bool{
	"eval": true, "source": true, ".": true, "command": true, "exec": true,
	"builtin": true, "trap": true,
}

// call sees every simple command after expansion. Builtins are gated here;
// functions run their own commands; programs are gated by exec, which sees
// them also behind the command and exec builtins.
func (x *Run) call(ctx context.Context, args []string) (_ []string, err error) {
	defer guard(&err)
	if !interp.IsBuiltin(args[0]) {
		return args, nil
	}
	if args[0] == "eval" && len(args) > 1 && !x.mayBeFunc("eval") {
		return x.evalMarked(args), nil
	}
	// The script's own background jobs, job specs and signal lists are
	// the interpreter's kill, gated below as any builtin.
	if args[0] == "kill" && !x.mayBeFunc("kill") && !interp.HandlerCtx(ctx).KillsOwn(args[1:]) {
		if status, ok := killsItself(args[1:]); ok {
			// $$ is tandem's own pid (the script has no process of its
			// own): `kill $$` ends the script as it would end bash, and
			// never signals tandem.
			return []string{"exit", strconv.Itoa(status)}, nil
		}
		if own, ok, err := x.killOwn(ctx, args); ok {
			return own, err
		}
		// The interpreter has no kill builtin: the system's kill runs, as a
		// program (gated by exec).
		hc := interp.HandlerCtx(ctx)
		if path, err := interp.LookPathDir(hc.Dir, hc.Env, "kill"); err == nil {
			return append([]string{path}, args[1:]...), nil
		}
	}
	if runsCode[args[0]] {
		return args, nil
	}
	if args[0] == "alias" {
		x.noteAliasFuncs(args[1:])
	}
	hc := interp.HandlerCtx(ctx)
	n, err := x.gate(ctx, hc, classify.Command(args, hc.Dir, hc.Env, x.policy))
	if err != nil {
		return nil, err
	}
	if args[0] == "ulimit" && !x.mayBeFunc("ulimit") && interp.UlimitChanges(args[1:]) {
		return nil, x.refuse(n, refusal.New(refusal.Unsupported, fmt.Sprintf(
			"%s would change a resource limit, which tandem's shell cannot do: the limits are the tandem process's, one for every script it runs. "+
				"Run the program under prlimit instead (for example prlimit --fsize=BYTES --nofile=N -- PROGRAM ARGS), and run the script again without ulimit.",
			strings.Join(args, " "))))
	}
	if x.mayBeFunc(args[0]) {
		x.ran(n, -1)
		return args, nil
	}
	// Run the builtin from the exec handler, which learns its status.
	return append([]string{builtinStep, strconv.Itoa(n)}, args...), nil
}

// killsItself reports whether `kill ARGS` signals tandem's own process, and
// the status bash ends with when so signalled (128 + the signal).
func killsItself(args []string) (int, bool) {
	sig, targets := killArgs(args)
	if slices.Contains(targets, strconv.Itoa(os.Getpid())) {
		return 128 + int(sig), true
	}
	return 0, false
}

// killArgs reads `kill ARGS`: the signal (SIGTERM unless named) and the
// operands it is sent to.
func killArgs(args []string) (syscall.Signal, []string) {
	sig := syscall.SIGTERM
	var targets []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			targets = append(targets, args[i+1:]...)
			return sig, targets
		case (a == "-s" || a == "-n") && i+1 < len(args):
			i++
			if s, ok := signalNamed(args[i]); ok {
				sig = s
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if _, err := strconv.Atoi(a); err == nil && len(targets) > 0 {
				targets = append(targets, a) // a process group, after the first operand
			} else if s, ok := signalNamed(a[1:]); ok {
				sig = s
			}
		default:
			targets = append(targets, a)
		}
	}
	return sig, targets
}

// killOwn signals the run's own processes for `kill ARGS` when every
// operand is one (a pid, or a group as -PGID), and reports whether it
// did. The kernel keeps each program from signalling a process outside its
// own sandbox, a sibling step's included; the script's `kill $!` is
// tandem's to deliver.
func (x *Run) killOwn(ctx context.Context, args []string) ([]string, bool, error) {
	sig, targets := killArgs(args[1:])
	pids := make([]int, 0, len(targets))
	for _, t := range targets {
		pid, err := strconv.Atoi(t)
		if err != nil || pid == 0 || pid == -1 {
			return nil, false, nil
		}
		pids = append(pids, pid)
	}
	if len(pids) == 0 || !x.procs.ownsAll(pids) {
		return nil, false, nil
	}
	hc := interp.HandlerCtx(ctx)
	n, err := x.gate(ctx, hc, classify.Command(args, hc.Dir, hc.Env, x.policy))
	if err != nil {
		return nil, true, err
	}
	status := 0
	// The gate may have waited for the user: a process that ended since
	// could have left its pid to another's.
	if !x.procs.ownsAll(pids) {
		fmt.Fprintf(hc.Stderr, "kill: %s: no such process of this run\n", strings.Join(targets, " "))
		x.ran(n, 1)
		return []string{"false"}, true, nil
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, sig); err != nil {
			fmt.Fprintf(hc.Stderr, "kill: (%d) - %v\n", pid, err)
			status = 1
		}
	}
	x.ran(n, status)
	return []string{[]string{"true", "false"}[status]}, true, nil
}

// builtinStep prefixes a builtin the exec handler runs (hc.Builtin) so
// that its step gets an exit status.
const builtinStep = "__tandem_builtin_step"

// runBuiltin runs a builtin step for the exec handler and records its status.
func (x *Run) runBuiltin(ctx context.Context, hc interp.HandlerContext, args []string) error {
	n, _ := strconv.Atoi(args[1])
	err := hc.Builtin(context.WithValue(ctx, gatedBuiltin{}, true), args[2:])
	status := 0
	if err != nil {
		status = -1
		var code int
		if _, e := fmt.Sscanf(err.Error(), "builtin exit status %d", &code); e == nil {
			status = code
		}
	}
	x.ran(n, status)
	return err
}

// noteAliasFuncs notes the functions an alias's text declares: the
// interpreter runs that text where the alias is used.
func (x *Run) noteAliasFuncs(args []string) {
	for _, a := range args {
		if _, v, ok := strings.Cut(a, "="); ok {
			if f, err := syntax.NewParser().Parse(strings.NewReader(v), ""); err == nil {
				x.noteFuncs(f)
			}
		}
	}
}

// noteFuncs remembers the function names f declares.
func (x *Run) noteFuncs(f *syntax.File) {
	x.mu.Lock()
	defer x.mu.Unlock()
	syntax.Walk(f, func(n syntax.Node) bool {
		if d, ok := n.(*syntax.FuncDecl); ok && d.Name != nil {
			x.funcs[d.Name.Value] = true
		}
		return true
	})
}

func (x *Run) mayBeFunc(name string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.funcs[name]
}

// evalMarked gives eval its code with the pipeline markers in (see
// markPipelines), so a pipeline in eval'd code is asked whole like one in
// the script. Code that does not parse, and an option eval does not take,
// are left for eval to report; the code given is after `--`, so that code
// starting with `-` is not read as an option.
func (x *Run) evalMarked(args []string) []string {
	code := args[1:]
	if code[0] == "--" {
		code = code[1:]
	} else if len(code[0]) > 1 && code[0][0] == '-' {
		return args
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(strings.Join(code, " ")), "")
	if err != nil {
		return args
	}
	x.noteFuncs(f)
	if !markPipelines(f) {
		// Printed anew, the code would lose its layout, which its
		// $LINENO and error messages name.
		return []string{"eval", "--", strings.Join(code, " ")}
	}
	text, err := printOnTheirLines(f)
	if err != nil {
		return args
	}
	return []string{"eval", "--", text}
}

// printOnTheirLines prints f's statements each on the line it was on, where
// the printed text allows (`a; b` stays on one line): eval's code counts its
// lines, in errors and $LINENO, as bash does from the original text.
func printOnTheirLines(f *syntax.File) (string, error) {
	var b strings.Builder
	p := syntax.NewPrinter()
	line := uint(1) // the line the text so far ends on
	sep := ""
	for _, st := range f.Stmts {
		var sb strings.Builder
		if err := p.Print(&sb, st); err != nil {
			return "", err
		}
		if want := st.Pos().Line(); want > line || sep == "\n" {
			n := max(int(want)-int(line), 1)
			b.WriteString(strings.Repeat("\n", n))
			line += uint(n)
		} else {
			b.WriteString(sep)
		}
		text := sb.String()
		b.WriteString(text)
		line += uint(strings.Count(text, "\n"))
		switch {
		case hasHeredoc(st):
			sep = "\n" // its body's last line ends the statement
		case st.Background:
			sep = " " // `a & b`
		default:
			sep = "; "
		}
	}
	b.WriteString("\n")
	return b.String(), nil
}

func hasHeredoc(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if r, ok := n.(*syntax.Redirect); ok && (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) {
			found = true
		}
		return !found
	})
	return found
}

// openProgramProc opens a redirection into the shell's own /proc entries
// (/proc/thread-self/fd/1, /dev/fd/../fd/2): its standard streams are the
// script's; nothing else there is the script's to open, since tandem's own
// (its environment, its descriptors) would be opened instead.
func openProgramProc(hc interp.HandlerContext, path, real string) (io.ReadWriteCloser, error) {
	switch real {
	case approvals.ProgramProc + "/fd/0":
		return dupStream(hc.Stdin, path)
	case approvals.ProgramProc + "/fd/1":
		return dupStream(hc.Stdout, path)
	case approvals.ProgramProc + "/fd/2":
		return dupStream(hc.Stderr, path)
	}
	if strings.HasPrefix(real, approvals.ProgramProc+"/fd/") {
		return nil, &os.PathError{Op: "open", Path: path, Err: syscall.EBADF}
	}
	return nil, &os.PathError{Op: "open", Path: path, Err: syscall.EACCES}
}

// dupStream opens one of the script's own streams as a file the
// interpreter may close.
func dupStream(s any, path string) (io.ReadWriteCloser, error) {
	f, ok := s.(*os.File)
	if !ok {
		return nil, &os.PathError{Op: "open", Path: path, Err: syscall.EBADF}
	}
	raw, err := f.SyscallConn()
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var fd int
	var derr error
	if err := raw.Control(func(u uintptr) { fd, derr = syscall.Dup(int(u)) }); err != nil || derr != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: errors.Join(err, derr)}
	}
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), path), nil
}
