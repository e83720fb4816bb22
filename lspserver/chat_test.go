package lspserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandemdev/tandem/acpserver/acptest"
	"github.com/tandemdev/tandem/agent"
	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/config"
)

func chatServer(t *testing.T, m *fake.Model) *rpc {
	t.Helper()
	return chatServerWith(t, m, map[string]any{}, nil)
}

// chatServerWith is chatServer for a client declaring caps, with the
// user's settings st.
func chatServerWith(t *testing.T, m *fake.Model, caps map[string]any, st *config.Settings) *rpc {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	c, _ := inProcessWith(t, Options{Cwd: t.TempDir(), Settings: st, Connect: func(*config.Settings, string) (providers.Provider, agent.Endpoint, error) {
		return m, agent.Endpoint{Provider: "test", Model: "m"}, nil
	}})
	var res struct {
		Capabilities struct {
			Experimental struct {
				ACP struct {
					ProtocolVersion int `json:"protocolVersion"`
				} `json:"acp"`
			} `json:"experimental"`
		} `json:"capabilities"`
	}
	c.ok("initialize", map[string]any{"capabilities": caps}, &res)
	if res.Capabilities.Experimental.ACP.ProtocolVersion != 1 {
		t.Fatalf("initialize does not carry the ACP handshake: %+v", res)
	}
	c.notify("initialized", map[string]any{})
	return c
}

func (c *rpc) sessionUpdates(session string) []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []map[string]any
	for _, n := range c.notes {
		if n.Method != "session/update" {
			continue
		}
		var p struct {
			SessionID string         `json:"sessionId"`
			Update    map[string]any `json:"update"`
		}
		if json.Unmarshal(n.Params, &p) == nil && p.SessionID == session {
			out = append(out, p.Update)
		}
	}
	return out
}

// The editor's chat over tandem lsp: ACP's session/new and session/prompt
// on the LSP connection, updates as session/update notifications, an edit
// reported with its diff and kept as a checkpoint, listed by
// _tandem/changes, and _tandem/undo putting the file back.
func TestChatOverTheEditorConnection(t *testing.T) {
	ws := t.TempDir()
	file := filepath.Join(ws, "a.txt")
	if err := os.WriteFile(file, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("w1", "write", map[string]any{"path": "new.txt", "content": "made\n"})),
		fake.Say("Made new.txt."),
	}
	c := chatServer(t, m)
	var s struct {
		SessionID     string            `json:"sessionId"`
		ConfigOptions []json.RawMessage `json:"configOptions"`
	}
	c.ok("session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}, &s)
	if s.SessionID == "" || len(s.ConfigOptions) != 2 {
		t.Fatalf("session/new: %+v", s)
	}
	var p struct {
		StopReason string `json:"stopReason"`
	}
	c.ok("session/prompt", map[string]any{"sessionId": s.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "make a file"}}}, &p)
	if p.StopReason != "end_turn" {
		t.Fatalf("stop %q", p.StopReason)
	}
	var kinds []string
	sawDiff := false
	for _, u := range c.sessionUpdates(s.SessionID) {
		kinds = append(kinds, u["sessionUpdate"].(string))
		if content, ok := u["content"].([]any); ok {
			for _, item := range content {
				if d, ok := item.(map[string]any); ok && d["type"] == "diff" && d["newText"] == "made\n" {
					sawDiff = true
				}
			}
		}
	}
	if strings.Join(kinds, ",") != "available_commands_update,tool_call,usage_update,tool_call_update,tool_call_update,agent_message_chunk,usage_update" || !sawDiff {
		t.Fatalf("updates %v, diff %v", kinds, sawDiff)
	}
	var cps struct {
		Checkpoints []agent.Checkpoint `json:"checkpoints"`
	}
	c.ok("_tandem/checkpoints", map[string]any{"sessionId": s.SessionID}, &cps)
	if len(cps.Checkpoints) != 1 || cps.Checkpoints[0].Turn != 0 {
		t.Fatalf("checkpoints %+v", cps)
	}
	var ch struct {
		Files []agent.FileReview `json:"files"`
	}
	c.ok("_tandem/changes", map[string]any{"sessionId": s.SessionID, "turn": 0}, &ch)
	if len(ch.Files) != 1 || ch.Files[0].Path != filepath.Join(ws, "new.txt") || ch.Files[0].Before != nil || len(ch.Files[0].Hunks) != 1 {
		t.Fatalf("changes %+v", ch)
	}
	var r struct {
		Text  string   `json:"text"`
		Files []string `json:"files"`
		Turn  *int     `json:"turn"`
	}
	c.ok("_tandem/undo", map[string]any{"sessionId": s.SessionID, "turn": 0}, &r)
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil || len(r.Files) != 1 || r.Turn == nil || *r.Turn != 1 {
		t.Fatalf("restore: %+v; the file is still there: %v", r, err)
	}
	var list struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Title     string `json:"title"`
		} `json:"sessions"`
	}
	c.ok("session/list", map[string]any{}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].Title != "make a file" {
		t.Fatalf("list %+v", list)
	}
}

// session/cancel stops a turn whose bash step runs: the prompt returns
// cancelled at once, and the step's process is gone.
func TestChatCancelStopsTheTurn(t *testing.T) {
	ws := t.TempDir()
	sleep := sleepMarker(t, 4)
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{fake.Call(fake.Use("b1", "bash", map[string]any{"command": sleep}))}
	c := chatServer(t, m)
	var s struct {
		SessionID string `json:"sessionId"`
	}
	c.ok("session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}, &s)
	prompt := c.start("prompt", "session/prompt", map[string]any{"sessionId": s.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "wait"}}})
	waitRunning(t, sleep)
	start := time.Now()
	c.notify("session/cancel", map[string]any{"sessionId": s.SessionID})
	res := c.wait(prompt, "the cancelled prompt")
	// A real process on a real clock: its sleep would last days, so 5 s is
	// "at once" with room for a loaded machine.
	if !strings.Contains(string(res.Result), `"cancelled"`) || time.Since(start) > 5*time.Second {
		t.Fatalf("after cancel: %s %+v in %v", res.Result, res.Error, time.Since(start))
	}
	if pids := processesRunning(t, sleep); len(pids) != 0 {
		t.Fatalf("the step outlived the cancel: %v", pids)
	}
}

// Without a reachable model, a session still opens, and a prompt is a
// typed error saying what to do.
func TestChatWithoutAModelSaysSo(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	c, _ := inProcess(t)
	initialized(t, c, nil)
	var s struct {
		SessionID string `json:"sessionId"`
	}
	c.ok("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}}, &s)
	m := c.call("session/prompt", map[string]any{"sessionId": s.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "hi"}}})
	if m.Error == nil || m.Error.Data.Code != "agent" || !strings.Contains(m.Error.Message, "reaches no model provider") {
		t.Fatalf("prompt without a model: %+v", m.Error)
	}
}

// A chat's gated step asks the editor in the model's tool call: the
// question names the chat's ACP session and the call's id, so the chat can
// show it in that call's card. The denial reaches the model.
func TestChatQuestionNamesTheSessionAndToolCall(t *testing.T) {
	t.Setenv("HOME", acptest.SecretHome(t))
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("b7", "bash", map[string]any{"command": "cat ~/.ssh/x"})),
		fake.Say("It was denied."),
	}
	c := chatServerWith(t, m, map[string]any{"experimental": map[string]any{"tandem": map[string]any{"approvals": true}}}, nil)
	c.answer = func(method string, _ json.RawMessage) any {
		if method == "tandem/askApproval" {
			return map[string]string{"answer": "reject_once"}
		}
		return nil
	}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	c.ok("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}}, &s)
	c.ok("session/prompt", map[string]any{"sessionId": s.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "show the key"}}}, nil)
	asked := c.askedFor("tandem/askApproval", 1)
	var q struct {
		Session  string `json:"session"`
		ToolCall string `json:"toolCall"`
	}
	if err := json.Unmarshal(asked[0].Params, &q); err != nil || q.Session != s.SessionID || q.ToolCall != "b7" {
		t.Fatalf("askApproval %s, want session %s and toolCall b7", asked[0].Params, s.SessionID)
	}
	m.Mu.Lock()
	defer m.Mu.Unlock()
	if len(m.Requests) != 2 {
		t.Fatalf("%d model calls, want 2", len(m.Requests))
	}
	msgs := m.Requests[1].Messages
	if res := msgs[len(msgs)-1].Blocks; len(res) != 1 || !strings.Contains(res[0].Text, "denied") {
		t.Fatalf("the model was not told of the denial: %+v", res)
	}
}
