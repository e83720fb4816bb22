package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/edits"
	"github.com/tandemdev/tandem/sandbox"
	"github.com/tandemdev/tandem/shell"
)

// Options is what a front door gives every session it opens. Open is the
// one constructor, so a session is wired the same way whichever door
// opened it: the editor's chat, an ACP client, `tandem mcp serve`,
// `tandem tool`.
type Options struct {
	// ID names the session; empty: a fresh one (NewID). A chat's session
	// is named as the chat, so its questions and jobs name the chat.
	ID    string
	Roots []string // absolute workspace roots; the first resolves relative paths
	// Buffers is the editor's open documents over disk, shared by the
	// sessions of one editor connection. Nil: an empty overlay (no editor).
	Buffers *documents.Overlay
	// Settings is the front door's settings, with the user's own file
	// loaded (config.Settings.User gives the ones that gate execution).
	// Nil: empty settings, the defaults.
	Settings *config.Settings
	// Editor applies edits to open buffers through the editor (LSP
	// workspace/applyEdit); nil when no editor is attached.
	Editor edits.Editor
	// Pull is called with the absolute path of each file a read, edit,
	// write or restore names, before the tool looks at it: an editor that
	// announces no buffers (ACP's fs/read_text_file is asked per path) is
	// asked then, and puts what it holds into Buffers. It must return
	// within a bounded time whatever the editor does. Nil: Buffers is kept
	// by its front door alone.
	Pull func(ctx context.Context, abs string)
	// Language asks the editor what its language servers know; nil when
	// the client did not declare it (no code tool, no diagnostics in edit
	// replies).
	Language Language
	// Asker answers the questions of the session's gate (the editor's
	// prompts, a terminal). Nil: nobody can answer, every question is
	// unanswered at once.
	Asker approvals.Asker
	// BashEnv gives each bash call's steps variables of the front door's
	// own; nil adds none.
	BashEnv BashEnv
	// JobSettled is told when a job of the session (a script that outlived
	// its call) ends; nil: nobody is told, the jobs tool still shows it.
	JobSettled func(JobSettled)
	// OneCall: the session serves one tool call and ends (tandem tool), so
	// nothing it shows need be held for a later call.
	OneCall bool
}

// BashEnv gives a bash call's steps variables of a front door's own, added
// after the credentials are removed: the bridge's socket path and a per-call
// token. release is called when the script has ended (a detached script
// keeps its variables valid until then).
type BashEnv func(ctx context.Context, s *Session) (env []string, release func())

// JobSettled is a job that ended: what a front door tells its client.
type JobSettled struct {
	Session string `json:"session"`
	Job     string `json:"job"`
	Command string `json:"command"`
	End     string `json:"end"`
	Status  int    `json:"status"`
	Text    string `json:"text"` // the job's result as the model would see it
}

// Session is one agent conversation: its workspace roots, what its model has
// seen, and the services of the front door that opened it.
type Session struct {
	ID      string
	Roots   []string // absolute workspace roots; the first resolves relative paths
	Seen    *documents.Store
	Buffers *documents.Overlay // the editor's open documents; empty without an editor
	opts    Options

	gate *approvals.Gate
	jobs *shell.Jobs
	// box holds the processes of the session's steps; nil when off, and
	// then boxOff says why.
	box    *sandbox.Sandbox
	boxOff error

	mu      sync.Mutex
	closers []func()
	closed  bool
	// ctx is cancelled by Close, and with it every call still running in
	// the session (see bind); Close waits for those calls to end.
	ctx    context.Context
	cancel context.CancelFunc
	calls  sync.WaitGroup
}

// seenBudget bounds what the sessions of the process remember of the files
// their models saw, together: a front door opens many sessions.
var seenBudget = documents.NewBudget(documents.SeenBytesKept)

// NewID is a fresh session id.
func NewID() string {
	var id [8]byte
	_, _ = rand.Read(id[:])
	return hex.EncodeToString(id[:])
}

// Open opens a session. Close it when the front door is done with it: that
// ends its calls, its jobs and every process they started.
func Open(o Options) *Session {
	if o.Buffers == nil {
		o.Buffers = documents.NewOverlay()
	}
	if o.Settings == nil {
		o.Settings = config.New()
	}
	if o.ID == "" {
		o.ID = NewID()
	}
	ctx, cancel := context.WithCancel(context.Background())
	seen := seenBudget.NewStore()
	if o.OneCall {
		seen = documents.NewStoreForOneCall()
	}
	s := &Session{
		ID:      o.ID,
		Roots:   o.Roots,
		Seen:    seen,
		Buffers: o.Buffers,
		opts:    o,
		ctx:     ctx,
		cancel:  cancel,
	}
	s.gate = newGate(s)
	s.box, s.boxOff = newSandbox(o.Settings, s.gate.Policy())
	s.OnClose(s.box.Close)
	s.jobs = shell.NewJobs(func(job *shell.Job) {
		if o.JobSettled != nil {
			o.JobSettled(jobSettled(s, job))
		}
	})
	s.OnClose(s.Seen.Close)
	s.OnClose(s.jobs.Close)
	return s
}

// newGate builds the session's gate: its path policy, and its asker read
// from the front door. The auto set is set at each use (see Gate).
func newGate(s *Session) *approvals.Gate {
	// Without a home ("") the policy names no store under one.
	home, _ := config.Home()
	scratch, _ := writableDirs(s.opts.Settings, home, os.Environ()) // a bad value is a settings problem; the defaults apply
	readable, _ := readableDirs(s.opts.Settings, home)
	p := approvals.NewPolicy(approvals.PolicyConfig{
		Roots: s.Roots, Home: home, Env: os.Environ(), Scratch: scratch, Readable: readable,
		ConfigDir: config.Dir(), StateDir: config.StateDir(),
		// The settings file tandem loaded carries its execution gates;
		// tandem's own process and the editor that started it hold the
		// credentials the steps' environment lacks (/proc/PID/environ).
		Secrets: []string{config.UserFile(), fmt.Sprintf("/proc/%d", os.Getpid()), fmt.Sprintf("/proc/%d", os.Getppid())},
	})
	return approvals.NewGate(s.ID, approvals.DefaultAuto, p, s.opts.Asker)
}

// newSandbox is the session's sandbox, unless the user turned it off
// (shell.sandbox, user settings only) or the kernel cannot hold it; the
// error says which.
func newSandbox(st *config.Settings, p *approvals.Policy) (*sandbox.Sandbox, error) {
	on, err := sandboxOn(st)
	if err == nil && !on {
		return nil, errSandboxOff
	}
	return sandbox.New(p)
}

// SandboxHeld reports whether the processes of bash steps run in the kernel
// sandbox with these settings here; when not, why, in one sentence, and
// whether that is the user's own choice (shell.sandbox false) rather than
// the kernel's lack.
func SandboxHeld(st *config.Settings) (held bool, why error, chosen bool) {
	if on, err := sandboxOn(st); err == nil && !on {
		return false, errSandboxOff, true
	}
	if err := sandbox.Supported().Unavailable; err != nil {
		return false, err, false
	}
	return true, nil, false
}

// errSandboxOff is why a session whose user turned the sandbox off has none.
var errSandboxOff = errors.New("the sandbox is off in the user's settings (shell.sandbox), so what a step's programs do is held only by the gate's questions")

// Sandbox is what holds the processes of the session's steps to their
// grants, or nil and the one sentence that says why nothing does (the
// user's setting, or a kernel without the means).
func (s *Session) Sandbox() (*sandbox.Sandbox, error) { return s.box, s.boxOff }

// Gate is the session's gate, its auto set read again from the user's own
// settings (a workspace can never set it). A bad value keeps the auto set
// the gate had: it never widens what runs unasked.
func (s *Session) Gate() *approvals.Gate {
	if auto, err := autoEffects(s.opts.Settings); err == nil {
		s.gate.SetAuto(auto)
	}
	return s.gate
}

// SetReadOnly puts the session in plan mode, or takes it out: while on,
// every bash step and document access that does more than read is refused
// without a question (a secret read is still asked).
func (s *Session) SetReadOnly(on bool) { s.gate.SetReadOnly(on) }

// Settings is the settings the session was opened with.
func (s *Session) Settings() *config.Settings { return s.opts.Settings }

// Asker is whoever answers the session's questions; nil when nobody can.
func (s *Session) Asker() approvals.Asker { return s.opts.Asker }

// Jobs is the session's job table; the session's end kills its jobs.
func (s *Session) Jobs() *shell.Jobs { return s.jobs }

// OnClose registers f to run when the session closes. On a closed session
// f runs at once.
func (s *Session) OnClose(f func()) {
	s.mu.Lock()
	if !s.closed {
		s.closers = append(s.closers, f)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	f()
}

// Close ends the session: its calls still running are cancelled (a bash
// call waiting on a question withdraws it and stops its script) and
// waited for, then every OnClose function runs once, last first. When Close
// returns nothing the session started runs any more. Closing twice is
// harmless.
func (s *Session) Close() {
	s.cancel()
	s.mu.Lock()
	fs := s.closers
	s.closers, s.closed = nil, true
	s.mu.Unlock()
	s.calls.Wait()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// bind returns ctx for one call, cancelled also when the session closes:
// a call ends with its session, not only with its caller. The call calls
// stop when it has ended; Close waits for that.
func (s *Session) bind(ctx context.Context) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	unlink := context.AfterFunc(s.ctx, cancel)
	s.mu.Lock()
	counted := !s.closed // a call on a closed session starts cancelled; Close is not waiting for it
	if counted {
		s.calls.Add(1)
	}
	s.mu.Unlock()
	return ctx, func() {
		unlink()
		cancel()
		if counted {
			s.calls.Done()
		}
	}
}

// pull runs Options.Pull on the paths a call names, resolved as its tool
// resolves them; a path that does not resolve is left for the tool to
// refuse.
func (s *Session) pull(ctx context.Context, paths ...string) {
	if s.opts.Pull == nil {
		return
	}
	for _, p := range paths {
		if abs, err := documents.Resolve(s.Roots, p); err == nil {
			s.opts.Pull(ctx, abs)
		}
	}
}
