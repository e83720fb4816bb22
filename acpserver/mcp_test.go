package acpserver

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tandemdev/tandem/acpserver/acptest"
	"github.com/tandemdev/tandem/agent"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/internal/mcptest"
)

// The test binary is also the MCP server the sessions name (mcptest).
func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	os.Exit(m.Run())
}

// probe is a stdio server of mcpServers: this test binary serving mcptest,
// found among the processes by its marker argument.
func probe(name, marker string) acp.McpServer {
	return acp.McpServer{Stdio: &acp.McpServerStdio{
		Name: name, Command: os.Args[0], Args: []string{marker},
		Env: []acp.EnvVariable{{Name: mcptest.EnvServe, Value: "1"}},
	}}
}

// userSettings are settings whose user file holds mcp.
func userSettings(t *testing.T, mcp string) func() *config.Settings {
	t.Helper()
	return func() *config.Settings {
		st := config.New()
		if err := st.Set(config.SourceUserFile, json.RawMessage(`{"mcp":`+mcp+`}`)); err != nil {
			t.Fatal(err)
		}
		return st
	}
}

// said is what the model answered to one prompt.
func (p *peer) said(t *testing.T, id acp.SessionId, prompt string) string {
	t.Helper()
	before := len(p.client.Text())
	if stop, err := p.prompt(id, prompt); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("prompt %q: %q, %v", prompt, stop, err)
	}
	return p.client.Text()[before:]
}

// A stdio server the client names in session/new joins that session's
// `mcp` roster, starts without a question (the editor is as trusted as the
// user's settings), answers calls, and stops when the session closes; a
// session that did not name it does not see it; a bad entry is a problem
// of the list, not a failed session.
func TestSessionMCPServersJoinOnlyTheirSession(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	const marker = "acpmcp-probe-27182"
	client := &acptest.Client{Answer: acptest.Select("allow_once")}
	store, err := agent.OpenStore(filepath.Join(state, "chats"))
	if err != nil {
		t.Fatal(err)
	}
	p := serveWith(t, Options{Version: "test", Connect: puppet, Store: store, Settings: userSettings(t, `{"autoAllow":["probe/echo"]}`)}, client)
	ctx := context.Background()
	if _, err = p.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	sse := acp.McpServer{Sse: &acp.McpServerSseInline{Name: "old", Type: "sse", Url: "http://127.0.0.1:1/sse", Headers: []acp.HttpHeader{}}}
	cwd := t.TempDir()
	a, err := p.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{probe("probe", marker), sse}})
	if err != nil {
		t.Fatalf("a session naming a bad server failed: %v", err)
	}
	b, err := p.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}

	list := p.said(t, a.SessionId, `call mcp {"action":"list"}`)
	if !strings.Contains(list, "probe/echo  Echoes the message back") {
		t.Errorf("the session's list lacks its server's tool:\n%s", list)
	}
	if !strings.Contains(list, `problem: the editor's server "old": transport "sse" is not supported`) {
		t.Errorf("the sse entry is not reported:\n%s", list)
	}
	got := p.said(t, a.SessionId, `call mcp {"action":"call","tool":"probe/echo","arguments":{"message":"hello from probe"}}`)
	if !strings.Contains(got, "hello from probe") {
		t.Errorf("the call's result did not reach the model:\n%s", got)
	}
	if !acptest.Running(marker) {
		t.Error("the session's server is not running after its call")
	}
	env := p.said(t, a.SessionId, `call bash {"command":"test -n \"$TANDEM_MCP_SOCKET\" && test -n \"$TANDEM_MCP_TOKEN\" && echo bridged; env; printf %s \"$TANDEM_MCP_TOKEN\" > tok"}`)
	if !strings.Contains(env, "bridged") {
		t.Errorf("the bash step got no bridge variables:\n%s", env)
	}
	// The step had the token; the model, the chat file and the log never do.
	tok, err := os.ReadFile(filepath.Join(cwd, "tok"))
	if err != nil || len(tok) == 0 || strings.Contains(env, string(tok)) || !strings.Contains(env, "TANDEM_MCP_TOKEN=[hidden: $TANDEM_MCP_TOKEN]") {
		t.Errorf("the model saw the bridge token %q (%v), or no marker for it:\n%s", tok, err, env)
	}
	chats := 0
	_ = filepath.WalkDir(state, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), "bridged") {
			chats++
		}
		if len(tok) > 0 && strings.Contains(string(b), string(tok)) {
			t.Errorf("%s holds the bridge token", path)
		}
		return nil
	})
	if chats == 0 {
		t.Errorf("no file of tandem's state holds the chat; the token check saw nothing")
	}
	for _, q := range client.Asked() {
		if q.ToolCall.Title != nil && strings.Contains(*q.ToolCall.Title, "start MCP server") {
			t.Errorf("starting the client's server was asked: %s", *q.ToolCall.Title)
		}
	}

	other := p.said(t, b.SessionId, `call mcp {"action":"list"}`)
	if strings.Contains(other, "probe/") || strings.Contains(other, "old") {
		t.Errorf("another session sees the first one's servers:\n%s", other)
	}
	denied := p.said(t, b.SessionId, `call mcp {"action":"call","tool":"probe/echo","arguments":{"message":"x"}}`)
	if !strings.Contains(denied, `no such MCP server "probe"`) {
		t.Errorf("another session reached the first one's server:\n%s", denied)
	}

	if _, err := p.conn.CloseSession(ctx, acp.CloseSessionRequest{SessionId: a.SessionId}); err != nil {
		t.Fatal(err)
	}
	acptest.Eventually(t, "the session's server to stop", func() bool { return !acptest.Running(marker) })
}

// A client's server whose name the user configured is skipped: the user's
// own definition is the one that runs.
func TestUserServerWinsANameClash(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	const mine, theirs = "acpmcp-user-16180", "acpmcp-client-16180"
	user, _ := json.Marshal(map[string]any{
		"autoAllow": []string{"probe/echo"},
		"servers": map[string]any{"probe": map[string]any{
			"command": os.Args[0], "args": []string{mine}, "env": map[string]string{mcptest.EnvServe: "1"}}},
	})
	p := serveWith(t, Options{Version: "test", Connect: puppet, Settings: userSettings(t, string(user))}, &acptest.Client{})
	ctx := context.Background()
	if _, err := p.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	s, err := p.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{probe("probe", theirs)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.said(t, s.SessionId, `call mcp {"action":"call","tool":"probe/echo","arguments":{"message":"mine"}}`); !strings.Contains(got, "mine") {
		t.Fatalf("the call failed:\n%s", got)
	}
	if !acptest.Running(mine) || acptest.Running(theirs) {
		t.Errorf("running: the user's %v, the client's %v; want only the user's", acptest.Running(mine), acptest.Running(theirs))
	}
}

// An http server of mcpServers is reached with the headers the client
// sent, as they were sent.
func TestSessionHTTPServerGetsItsHeaders(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	var authorized atomic.Bool
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcptest.New() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer ${not-expanded}" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		authorized.Store(true)
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	p := serveWith(t, Options{Version: "test", Connect: puppet, Settings: userSettings(t, `{"autoAllow":["web/*"]}`)}, &acptest.Client{})
	ctx := context.Background()
	if _, err := p.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	web := acp.McpServer{Http: &acp.McpServerHttpInline{Name: "web", Type: "http", Url: srv.URL,
		Headers: []acp.HttpHeader{{Name: "Authorization", Value: "Bearer ${not-expanded}"}}}}
	s, err := p.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{web}})
	if err != nil {
		t.Fatal(err)
	}
	got := p.said(t, s.SessionId, `call mcp {"action":"call","tool":"web/echo","arguments":{"message":"over http"}}`)
	if !strings.Contains(got, "over http") || !authorized.Load() {
		t.Errorf("the http server was not reached with its header (authorized %v):\n%s", authorized.Load(), got)
	}
}

// The workspace files of a session's cwd join its roster, and starting one
// of their servers is still asked: a rejection starts nothing.
func TestSessionWorkspaceServerIsAsked(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	const marker = "acpmcp-ws-57721"
	ws := t.TempDir()
	file, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"wsprobe": map[string]any{
		"command": os.Args[0], "args": []string{marker}, "env": map[string]string{mcptest.EnvServe: "1"}}}})
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), file, 0o644); err != nil {
		t.Fatal(err)
	}
	client := &acptest.Client{Answer: acptest.Select("reject_once")}
	p := serve(t, puppet, client)
	s := p.open(t, ws)
	list := p.said(t, s.SessionId, `call mcp {"action":"list"}`)
	if !strings.Contains(list, "problem:") || !strings.Contains(list, "wsprobe") {
		t.Errorf("the rejected workspace server is not reported:\n%s", list)
	}
	asked := client.Asked()
	if len(asked) != 1 || asked[0].ToolCall.Title == nil || !strings.Contains(*asked[0].ToolCall.Title, "start MCP server wsprobe") {
		t.Fatalf("asked %d questions, want the start of wsprobe", len(asked))
	}
	if id := string(asked[0].ToolCall.ToolCallId); !strings.HasPrefix(id, "call-") {
		t.Errorf("the start was asked as %q, not in the model's mcp call", id)
	}
	if acptest.Running(marker) {
		t.Error("a rejected workspace server runs")
	}
}
