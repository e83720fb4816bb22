package tools

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"

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
