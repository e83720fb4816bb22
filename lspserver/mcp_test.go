package lspserver

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/acpserver/acptest"
	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/internal/mcptest"
)

// session/new's mcpServers on the editor's connection join that chat's
// `mcp` roster as they do in tandem acp: the model lists the server's
// tools, calls one and gets its result; the server stops with the session.
func TestChatReachesTheMCPServersItsSessionNames(t *testing.T) {
	const marker = "lspmcp-probe-14142"
	st := config.New()
	if err := st.Set(config.SourceUserFile, json.RawMessage(`{"mcp":{"autoAllow":["probe/echo"]}}`)); err != nil {
		t.Fatal(err)
	}
	m := &fake.Model{Responses: []func(providers.Request) providers.Response{
		fake.Call(fake.Use("l1", "mcp", map[string]any{"action": "list"})),
		fake.Call(fake.Use("c1", "mcp", map[string]any{"action": "call", "tool": "probe/echo", "arguments": map[string]any{"message": "hello over lsp"}})),
		fake.Say("done"),
	}}
	c := chatServerWith(t, m, map[string]any{}, st)
	var s struct {
		SessionID string `json:"sessionId"`
	}
	c.ok("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{map[string]any{
		"name": "probe", "command": os.Args[0], "args": []string{marker},
		"env": []any{map[string]any{"name": mcptest.EnvServe, "value": "1"}},
	}}}, &s)
	var p struct {
		StopReason string `json:"stopReason"`
	}
	c.ok("session/prompt", map[string]any{"sessionId": s.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "use probe"}}}, &p)
	if p.StopReason != "end_turn" || len(m.Requests) != 3 {
		t.Fatalf("stop %q after %d model requests", p.StopReason, len(m.Requests))
	}
	result := func(i int) string {
		msgs := m.Requests[i].Messages
		for _, b := range msgs[len(msgs)-1].Blocks {
			if b.Kind == providers.ToolResult {
				return b.Text
			}
		}
		return ""
	}
	if got := result(1); !strings.Contains(got, "probe/echo") {
		t.Errorf("the list the model got lacks the session's server:\n%s", got)
	}
	if got := result(2); !strings.Contains(got, "hello over lsp") {
		t.Errorf("the call's result did not reach the model:\n%s", got)
	}
	if !acptest.Running(marker) {
		t.Error("the session's server is not running after its call")
	}
	c.ok("session/close", map[string]any{"sessionId": s.SessionID}, nil)
	acptest.Eventually(t, "the session's server to stop", func() bool { return !acptest.Running(marker) })
}
