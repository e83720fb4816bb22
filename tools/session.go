package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	// ID names the session; if it is empty, Open picks a fresh one
	// (NewID). An agent chat's session takes the chat's ID, so the
	// questions and jobs the session shows name the chat.
	ID    string
	Roots []string // absolute workspace roots; relative paths resolve against the first
	// Buffers holds the editor's open documents, which take precedence
	// over the files on disk. The sessions of one editor connection share
	// it. If it is nil, Open uses an empty overlay (no editor attached).
	Buffers *documents.Overlay
	// Settings are the front door's settings, the user's own settings
	// file included; config.Settings.User gives the values that gate
	// execution. If it is nil, Open uses empty settings: every default.
	Settings *config.Settings
	// Editor applies edits to open buffers through the editor (LSP
	// workspace/applyEdit); nil when no editor is attached.
	Editor edits.Editor
	// Pull, if set, is called before a read, edit, write or restore looks
	// at a file, with that file's absolute path. It serves editors that do
	// not announce their open buffers (an ACP client is asked for each
	// path with fs/read_text_file): Pull asks the editor for the file and
	// puts what the editor holds into Buffers. Pull must return within a
	// bounded time whatever the editor does. If Pull is nil, the front
	// door alone keeps Buffers up to date.
	Pull func(ctx context.Context, abs string)
	// Language asks the editor what its language servers know. It is nil
	// when the client did not declare that it can answer; the session then
	// has no code tool, and edit replies carry no diagnostics.
	Language Language
	// Asker answers the questions the session's gate asks, through the
	// editor's prompts or a terminal. If it is nil, nobody can answer, and
	// every question ends unanswered at once.
	Asker approvals.Asker
	// BashEnv adds the front door's own environment variables to the
	// steps of each bash call (a step is one command of the script; see
	// package shell). If it is nil, no variable is added.
	BashEnv BashEnv
	// JobSettled is called when one of the session's jobs ends (a job is
	// a bash script that outlived its call). If it is nil, nobody is told,
	// and the jobs tool still shows the ended job.
	JobSettled func(JobSettled)
	// JobEndsInResults puts the end of each job that ended since the
	// session's last call at the start of its next tool result, for a
	// client whose model hears of it no other way (an MCP client).
	JobEndsInResults bool
	// OneCall means the session serves one tool call and then ends
	// (`tandem tool`), so it need not remember what it showed the model
	// for a later call.
	OneCall bool
}

// BashEnv returns the environment variables a front door adds to the steps
// of one bash call, such as the MCP-call bridge's socket path and a token
// for this call. They are added after the credentials have been removed
// from the steps' environment. The bash tool calls release, if not nil,
// once the script has ended; a script that detached as a job keeps its
// variables valid until the job ends.
type BashEnv func(ctx context.Context, s *Session) (env []string, release func())

// JobSettled describes a job that has ended; a front door passes it on to
// its client.
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
	Roots   []string // absolute workspace roots; relative paths resolve against the first
	Seen    *documents.Store
	Buffers *documents.Overlay // the editor's open documents; empty without an editor
	opts    Options

	gate *approvals.Gate
	jobs *shell.Jobs
	// box confines the processes that the session's bash steps start. It
	// is nil when there is no sandbox, and boxOff then says why.
	box    *sandbox.Sandbox
	boxOff error
	// journal is where the session's commits keep their intent records
	// (edits.Env.Journal); empty when tandem has no private state
	// directory.
	journal string

	mu      sync.Mutex
	closers []func()
	closed  bool
	// recovered says what Open settled of commits a crash cut short; the
	// session's first call result carries it, then it is cleared.
	recovered string
	// toldEnded are the jobs whose end a result told
	// (Options.JobEndsInResults).
	toldEnded map[string]bool
	// ctx is cancelled by Close, and with it the context of every call
	// still running in the session (see bind). Close then waits for those
	// calls to end.
	ctx    context.Context
	cancel context.CancelFunc
	calls  sync.WaitGroup
}

// seenBudget bounds the memory that all the sessions of the process share
// to remember what their models have seen of files. The bound is per
// process, not per session, because a front door opens many sessions.
var seenBudget = documents.NewBudget(documents.SeenBytesKept)

// NewID returns a fresh random session ID.
func NewID() string {
	var id [8]byte
	_, _ = rand.Read(id[:])
	return hex.EncodeToString(id[:])
}

// Open opens a session with the options o. The front door must Close the
// session when it is done with it; Close ends the session's calls, its
// jobs and every process they started.
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
	// Every door opens here, so a commit a crash cut short in these roots
	// is settled before any call of the session looks at a file.
	if dir, err := config.PrivateStateDir(); err == nil {
		s.journal = filepath.Join(dir, "journal")
	}
	var notes []string
	for _, r := range edits.Recover(s.journal, s.Roots) {
		notes = append(notes, r.String())
	}
	s.recovered = strings.Join(notes, "\n")
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

// newGate builds the session's gate from its path policy and the front
// door's Asker. The gate starts with the default auto set; Session.Gate
// puts the user's auto set in place at each use.
func newGate(s *Session) *approvals.Gate {
	// With no known home directory, home is "" and the policy names no
	// credential store under the home.
	home, _ := config.Home()
	scratch, _ := writableDirs(s.opts.Settings, home, os.Environ()) // on a bad value, the defaults; reporting it is the settings' job
	readable, _ := readableDirs(s.opts.Settings, home)
	p := approvals.NewPolicy(approvals.PolicyConfig{
		Roots: s.Roots, Home: home, Env: os.Environ(), Scratch: scratch, Readable: readable,
		ConfigDir: config.Dir(), StateDir: config.StateDir(),
		// Secrets a step may not read without asking: the user's settings
		// file, because it decides what runs without asking; and /proc of
		// tandem's own process and of the editor that started it, because
		// their environments (/proc/PID/environ) hold the credentials
		// removed from the steps' environment.
		Secrets: []string{config.UserFile(), fmt.Sprintf("/proc/%d", os.Getpid()), fmt.Sprintf("/proc/%d", os.Getppid())},
	})
	return approvals.NewGate(s.ID, approvals.DefaultAuto, p, s.opts.Asker)
}

// newSandbox returns the session's sandbox. It returns nil and an error
// saying why when the user turned the sandbox off (shell.sandbox, read
// from the user's own settings only) or when the kernel cannot provide it.
func newSandbox(st *config.Settings, p *approvals.Policy) (*sandbox.Sandbox, error) {
	on, err := sandboxOn(st)
	if err == nil && !on {
		return nil, errSandboxOff
	}
	return sandbox.New(p)
}

// SandboxHeld reports whether, with the settings st and on this machine,
// the processes of bash steps run in the kernel sandbox. When they do not,
// why says so in one sentence, and chosen reports whether that is the
// user's own choice (shell.sandbox false) rather than a kernel that lacks
// the means.
func SandboxHeld(st *config.Settings) (held bool, why error, chosen bool) {
	if on, err := sandboxOn(st); err == nil && !on {
		return false, errSandboxOff, true
	}
	if err := sandbox.Supported().Unavailable; err != nil {
		return false, err, false
	}
	return true, nil, false
}

// errSandboxOff is the reason a session has no sandbox when the user
// turned it off.
var errSandboxOff = errors.New("the sandbox is off in the user's settings (shell.sandbox), so what a step's programs do is held only by the gate's questions")

// Sandbox returns the sandbox that confines the processes of the session's
// steps to what each step was granted. When there is none, it returns nil
// and an error whose one sentence says why: the user's setting, or a
// kernel without the means.
func (s *Session) Sandbox() (*sandbox.Sandbox, error) { return s.box, s.boxOff }

// Gate returns the session's gate, after reading its auto set (the effects
// that run without a question) again from the user's own settings; a
// workspace can never set it. If the setting has a bad value, the gate
// keeps the auto set it had, so a bad value never widens what runs
// without asking.
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

// Settings returns the settings the session was opened with.
func (s *Session) Settings() *config.Settings { return s.opts.Settings }

// Asker returns whoever answers the session's questions; nil when nobody
// can.
func (s *Session) Asker() approvals.Asker { return s.opts.Asker }

// Jobs returns the session's job table. Closing the session kills its
// jobs.
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

// Close ends the session. It cancels the calls still running and waits for
// them to return (a bash call waiting on a question withdraws the question
// and stops its script); then it runs every OnClose function once, the
// last registered first. When Close returns, nothing the session started
// is still running. Closing twice is harmless.
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

// bind derives the context of one tool call from ctx. It is cancelled
// when ctx is and also when the session closes, so a call ends with its
// session and not only with its caller. The caller must call stop once
// the tool call has returned; Close waits until every bound call has.
func (s *Session) bind(ctx context.Context) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	unlink := context.AfterFunc(s.ctx, cancel)
	s.mu.Lock()
	counted := !s.closed // on a closed session the context starts cancelled, and Close waits for no new call
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

// pull calls Options.Pull for each path a call names, resolved as the tool
// will resolve it. A path that does not resolve is skipped: the tool
// itself refuses it.
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

// takeRecovered returns, once, what Open settled of commits a crash cut
// short.
func (s *Session) takeRecovered() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	note := s.recovered
	s.recovered = ""
	return note
}

// takeJobEnds says which jobs ended that no result told yet, or "". It
// looks at the jobs themselves, not at their settle notices, so a result
// that shows a job ended (jobs) also tells it.
func (s *Session) takeJobEnds() string {
	if !s.opts.JobEndsInResults {
		return ""
	}
	var notes []string
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, job := range s.jobs.List() {
		select {
		case <-job.Run.Done():
		default:
			continue
		}
		if !s.toldEnded[job.ID] {
			if s.toldEnded == nil {
				s.toldEnded = map[string]bool{}
			}
			s.toldEnded[job.ID] = true
			notes = append(notes, jobSettled(s, job).note())
		}
	}
	return strings.Join(notes, "\n")
}

// note is the line a result begins with for a job that ended.
func (j JobSettled) note() string {
	head, _, _ := strings.Cut(j.Text, "\n")
	return fmt.Sprintf("Job %s (%s) has ended: %s. Its steps and output: jobs {\"action\":\"show\",\"id\":%q}.", j.Job, j.Command, head, j.Job)
}

// jobEndTold says how the model will learn that a job ended.
func (s *Session) jobEndTold(id string) string {
	switch {
	case s.opts.JobEndsInResults:
		return "its end will be reported at the start of your next tool result"
	case s.opts.JobSettled != nil:
		return "its end will be reported"
	}
	return fmt.Sprintf("nothing reports its end: call jobs {\"action\":\"show\",\"id\":%q} to see whether it ended", id)
}
