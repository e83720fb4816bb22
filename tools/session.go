package tools

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
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

// Close ends the session: every OnClose function runs once, last first.
// Nothing the session started outlives it.
func (s *Session) Close() {
	s.mu.Lock()
	fs := s.closers
	s.closers, s.closed = nil, true
	s.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// NewSession opens a session on the given absolute roots over buffers.
func NewSession(roots []string, buffers *documents.Overlay) *Session {
	var id [8]byte
	_, _ = rand.Read(id[:])
	return &Session{
		ID:      hex.EncodeToString(id[:]),
		Roots:   roots,
		Seen:    documents.NewStore(),
		Buffers: buffers,
	}
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
