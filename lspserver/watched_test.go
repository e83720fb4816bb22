package lspserver

import (
	"bytes"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandemdev/tandem/agent"
	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/config"
)

// lockedBuffer is a log the server writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// An editor that takes tandem's registration for file events reports the
// changes in its folders, and that report is what tells the chat's model
// that a file it read changed.
func TestEditorsFileEventsTellTheChat(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws := t.TempDir()
	file := filepath.Join(ws, "a.txt")
	if err := os.WriteFile(file, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("r1", "read", map[string]any{"path": "a.txt"})), fake.Say("read"), fake.Say("noted"),
	}
	var log lockedBuffer
	c, _ := inProcessWith(t, Options{Cwd: ws, Log: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Connect: func(*config.Settings, string) (providers.Provider, agent.Endpoint, error) {
			return m, agent.Endpoint{Provider: "test", Model: "m"}, nil
		}})
	initialized(t, c, map[string]any{"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}})
	c.askedFor("client/registerCapability", 1)
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(log.String(), "the editor reports file changes"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the registration was not taken as the editor's reports:\n%s", log.String())
		}
	}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	c.ok("session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}, &s)
	prompt := func(text string) {
		c.ok("session/prompt", map[string]any{"sessionId": s.SessionID, "prompt": []any{map[string]any{"type": "text", "text": text}}}, nil)
	}
	prompt("read it")
	if err := os.WriteFile(file, []byte("changed in the editor's view\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": (&url.URL{Scheme: "file", Path: file}).String(), "type": 2}}})
	prompt("again")
	last := m.Requests[len(m.Requests)-1].Messages
	if got := last[len(last)-1].Blocks; !strings.Contains(got[len(got)-1].Text, "by someone else: a.txt.") {
		t.Fatalf("the editor's event did not tell the model: %+v", got)
	}
	// A folder added later is the editor's to report too.
	added := t.TempDir()
	c.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []any{map[string]any{"uri": (&url.URL{Scheme: "file", Path: added}).String(), "name": "added"}}, "removed": []any{}}})
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(log.String(), `the editor reports file changes" roots=[`+added+"]"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a folder added later is not the editor's to report:\n%s", log.String())
		}
	}
}
