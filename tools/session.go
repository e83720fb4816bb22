package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/edits"
)

// Session is one agent conversation: its workspace roots, what its model has
// seen, and the services of the front door that opened it.
type Session struct {
	ID    string
	Roots []string // absolute workspace roots; the first resolves relative paths
	Seen  *documents.Store
	// Buffers is the editor's open documents over disk; shared by all sessions
	// of one server. Empty (never nil) in a standalone session.
	Buffers *documents.Overlay
	// Settings is the front door's settings (config.Settings.User for the
	// ones that gate execution). Nil reads as empty.
	Settings *config.Settings
	// Editor applies edits to open buffers through the editor (LSP
	// workspace/applyEdit); nil when no editor is attached.
	Editor edits.Editor
	// Asker answers the questions of the session's gate (the editor's
	// prompts, a terminal). Nil: nobody can answer, every question is
	// unanswered at once. Set by the front door before the first call.
	Asker approvals.Asker
	// Notify sends a notification to the front door's client (a job that
	// settled). Nil drops it.
	Notify func(method string, params any)

	mu      sync.Mutex
	gate    *approvals.Gate
	closers []func()
	closed  bool
	// ctx is cancelled by Close, and with it every call still running in
	// the session (see bind); Close waits for those calls to end.
	ctx    context.Context
	cancel context.CancelFunc
	calls  sync.WaitGroup
}

// OnClose registers f to run when the session closes (killing its jobs).
// On a closed session f runs at once.
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
// returns nothing the session started runs any more.
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

// NewSession opens a session on the given absolute roots over buffers.
func NewSession(roots []string, buffers *documents.Overlay) *Session {
	var id [8]byte
	_, _ = rand.Read(id[:])
	ctx, cancel := context.WithCancel(context.Background())
	return &Session{
		ID:      hex.EncodeToString(id[:]),
		Roots:   roots,
		Seen:    documents.NewStore(),
		Buffers: buffers,
		ctx:     ctx,
		cancel:  cancel,
	}
}
