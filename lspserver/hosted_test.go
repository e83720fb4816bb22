package lspserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tandemdev/tandem/bridge"
)

// The terminal's token opens tools sessions of its own over the bridge
// (what `tandem mcp serve` does in the editor's terminal): they see the
// editor's buffers, a closed one is gone, another token cannot reach them,
// and the connection's end ends them and withdraws the discovery entry.
func TestHostedSessions_over_the_bridge(t *testing.T) {
	rt, err := os.MkdirTemp("", "rt") // a socket path must fit in 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	t.Setenv("XDG_RUNTIME_DIR", rt)
	root := t.TempDir()
	path := filepath.Join(root, "a.txt")
	if err := os.WriteFile(path, []byte("disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startLSP(t)
	p.initialize(t, root, richApprovals)
	p.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "file://" + path, "languageId": "plaintext", "version": 1, "text": "buffer\n"}})
	env, err := bridge.EnvFromList(envList(terminalEnv(t, p)))
	if err != nil {
		t.Fatal(err)
	}
	send := func(env bridge.Env, req bridge.Request) (bridge.Header, []byte) {
		t.Helper()
		h, body, err := bridge.Send(context.Background(), env, req)
		if err != nil {
			t.Fatal(err)
		}
		return h, body
	}
	h, body := send(env, bridge.Request{Op: bridge.OpOpen})
	var open bridge.OpenReply
	if err := json.Unmarshal(body, &open); h.Status != bridge.StatusOK || err != nil || open.Session == "" || len(open.Tools) < 3 {
		t.Fatalf("open: %+v %s", h, body)
	}
	h, body = send(env, bridge.Request{Op: bridge.OpTool, Session: open.Session, Tool: "read", Args: json.RawMessage(`{"path":"a.txt"}`)})
	var res mcp.CallToolResult
	if err := json.Unmarshal(body, &res); h.Status != bridge.StatusOK || err != nil || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "1:buffer") {
		t.Fatalf("read: %+v %s", h, body)
	}

	// The discovery entry holds no token and is another owner: it cannot
	// reach the terminal's session.
	var found bridge.Env
	for i := 0; i < 200; i++ {
		if found, _, err = bridge.Discover(root); err == nil {
			break
		}
		p.ok("tandem/terminalEnv", map[string]any{}, nil) // a round trip: initialized has run
	}
	if err != nil || found != (bridge.Env{Socket: env.Socket}) {
		t.Fatalf("discovery: %+v %v", found, err)
	}
	// A folder added later gets an entry; a removed one loses it.
	later := t.TempDir()
	p.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []map[string]any{{"uri": "file://" + later, "name": "later"}}, "removed": []any{}}})
	p.ok("tandem/terminalEnv", map[string]any{}, nil) // a round trip: the notification was handled
	if _, got, err := bridge.Discover(later); err != nil || got != later {
		t.Fatalf("a folder added later: %q %v", got, err)
	}
	p.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []any{}, "removed": []map[string]any{{"uri": "file://" + later, "name": "later"}}}})
	p.ok("tandem/terminalEnv", map[string]any{}, nil)
	if _, got, err := bridge.Discover(later); err == nil {
		t.Fatalf("a removed folder keeps its entry (found %q)", got)
	}
	if h, _ = send(found, bridge.Request{Op: bridge.OpTool, Session: open.Session, Tool: "read", Args: json.RawMessage(`{"path":"a.txt"}`)}); h.Status != bridge.StatusFailed {
		t.Fatalf("another token reached the session: %+v", h)
	}

	if h, _ = send(env, bridge.Request{Op: bridge.OpClose, Session: open.Session}); h.Status != bridge.StatusOK {
		t.Fatalf("close: %+v", h)
	}
	if h, _ = send(env, bridge.Request{Op: bridge.OpTool, Session: open.Session, Tool: "read", Args: json.RawMessage(`{}`)}); h.Status != bridge.StatusFailed || !strings.Contains(h.Reason, "no open tools session") {
		t.Fatalf("a closed session: %+v", h)
	}

	p.ok("shutdown", nil, nil)
	p.notify("exit", nil)
	p.exitStatus(t)
	if _, _, err := bridge.Discover(root); err == nil {
		t.Fatal("the discovery entry outlived the server")
	}
	if entries, _ := filepath.Glob(filepath.Join(rt, "tandem-lsp", "*.json")); len(entries) != 0 {
		t.Fatalf("entries left: %v", entries)
	}
}

func envList(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}
