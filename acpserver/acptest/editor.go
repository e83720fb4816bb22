package acptest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"
)

// Editor is an editor's open documents behind a test client's fs methods,
// as ACP describes them: fs/read_text_file answers a path's buffer when it
// has one, else the disk; fs/write_text_file sets the buffer and leaves
// the disk alone (a client that does not save as it writes). The fields
// below play what real clients do otherwise (docs/protocol.md).
type Editor struct {
	// MissingAsEmpty answers a path on neither a buffer nor the disk
	// with "", as CodeCompanion does on purpose (and Zed for a path in
	// its project), instead of an error.
	MissingAsEmpty bool
	// JoinsLines plays avante: a buffer is answered as its lines joined
	// with "\n", so without its final newline; the disk's text with CRLF
	// as LF; a write goes to the disk as sent, and a buffer of the path
	// is loaded again from it.
	JoinsLines bool

	// Hook runs before each request is served, with its method and path,
	// outside the editor's lock: a test's user may type (Set) there. An
	// error fails the request.
	Hook func(method, path string) error

	mu      sync.Mutex
	buffers map[string]string
	served  []string // "method path", in order
	named   map[acp.SessionId]bool
}

// Set makes text the buffer of path, as a user typing would.
func (e *Editor) Set(path, text string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.buffers == nil {
		e.buffers = map[string]string{}
	}
	e.buffers[path] = text
}

// Buffer is the buffer of path, if there is one.
func (e *Editor) Buffer(path string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	text, ok := e.buffers[path]
	return text, ok
}

// Served lists the requests served so far as "method path", in order.
func (e *Editor) Served() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.served...)
}

// Sessions lists the sessions the requests named.
func (e *Editor) Sessions() []acp.SessionId {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []acp.SessionId
	for id := range e.named {
		out = append(out, id)
	}
	return out
}

func (e *Editor) serve(session acp.SessionId, method, path string) error {
	e.mu.Lock()
	e.served = append(e.served, method+" "+path)
	if e.named == nil {
		e.named = map[acp.SessionId]bool{}
	}
	e.named[session] = true
	e.mu.Unlock()
	if e.Hook != nil {
		return e.Hook(method, path)
	}
	return nil
}

func (e *Editor) read(session acp.SessionId, path string) (string, error) {
	if err := e.serve(session, "read", path); err != nil {
		return "", err
	}
	if text, ok := e.Buffer(path); ok {
		if e.JoinsLines {
			text = strings.TrimSuffix(text, "\n")
		}
		return text, nil
	}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && e.MissingAsEmpty:
		return "", nil
	case err != nil:
		return "", fmt.Errorf("%s cannot be read: %w", path, err)
	case e.JoinsLines:
		return strings.ReplaceAll(string(b), "\r\n", "\n"), nil
	}
	return string(b), nil
}

func (e *Editor) write(session acp.SessionId, path, text string) error {
	if err := e.serve(session, "write", path); err != nil {
		return err
	}
	if e.JoinsLines {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
		if _, open := e.Buffer(path); !open {
			return nil
		}
	}
	e.Set(path, text)
	return nil
}
