package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/agent/providers/scripted"
)

// claudeRequest is what Claude Code sent the scripted model: the tools it
// listed and the text of the tool results in its last message.
type claudeRequest struct {
	tools   []string
	results string
}

func claudeRequests(t *testing.T, srv *scripted.Server) []claudeRequest {
	t.Helper()
	var out []claudeRequest
	for _, r := range srv.Requests() {
		var body struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatalf("Claude Code sent a body that is not JSON: %v", err)
		}
		var cr claudeRequest
		for _, tl := range body.Tools {
			cr.tools = append(cr.tools, tl.Name)
		}
		if n := len(body.Messages); n > 0 {
			var blocks []struct {
				Type    string          `json:"type"`
				Content json.RawMessage `json:"content"`
			}
			_ = json.Unmarshal(body.Messages[n-1].Content, &blocks)
			for _, b := range blocks {
				if b.Type == "tool_result" {
					cr.results += string(b.Content)
				}
			}
		}
		out = append(out, cr)
	}
	return out
}

// Claude Code, the real CLI, run offline against the scripted model, with
// tandem installed by `tandem mcp install`: its model is given tandem's
// tools up front (not behind Claude Code's tool search), a read comes back
// tagged, and a gated step is asked of the user through Claude Code —
// revision 2026-07-28's multi round-trip, answered here by Claude Code's
// Elicitation hook as a user's click would be — and the answer decides it.
func TestClaudeCodeWorksWithTandemsToolsAndQuestions(t *testing.T) {
	for _, answer := range []string{"accept", "decline"} {
		t.Run(answer, func(t *testing.T) {
			w := newAgentWorld(t)
			w.trust()
			w.tandem("--agent", "claude", "--scope", "project")
			w.write(filepath.Join(w.home, ".ssh", "id_test"), "KEY-4711\n", false)
			w.write(filepath.Join(w.ws, "notes.txt"), "hello from notes\n", false)
			hookIn := filepath.Join(w.home, "asked.json")
			reply := `{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"decline"}}`
			if answer == "accept" {
				reply = `{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{"answer":"allow"}}}`
			}
			settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{"Elicitation": []any{map[string]any{
				"matcher": "tandem",
				"hooks":   []any{map[string]any{"type": "command", "command": "cat > " + hookIn + "; echo '" + reply + "'"}},
			}}}})
			w.write(filepath.Join(w.home, ".claude", "settings.json"), string(settings), false)

			srv, catcher := scriptedModel(t, w, `{"format":"anthropic","responses":[
				{"parts":[{"tool":{"name":"mcp__tandem__read","input":{"path":"notes.txt"}}}]},
				{"parts":[{"tool":{"name":"mcp__tandem__bash","input":{"command":"echo before >> log.txt; cat ~/.ssh/id_test"}}}]},
				{"parts":[{"text":"Done."}]},
				{"parts":[{"text":"Done."}]},
				{"parts":[{"text":"Done."}]}]}`)
			// A placeholder: without a key Claude Code stops at "Not logged in".
			w.env = append(w.env, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=scripted")
			w.run(true, "claude", "-p", "Read notes.txt, then show my key.", "--model", "claude-sonnet-4-5",
				"--allowedTools", "mcp__tandem__read,mcp__tandem__bash")

			reqs := claudeRequests(t, srv)
			if len(reqs) < 3 {
				t.Fatalf("Claude Code made %d model requests; want at least 3", len(reqs))
			}
			listed := strings.Join(reqs[0].tools, " ")
			for _, tool := range []string{"read", "edit", "write", "grep", "glob", "bash", "jobs"} {
				if !strings.Contains(" "+listed+" ", " mcp__tandem__"+tool+" ") {
					t.Errorf("Claude Code did not give its model mcp__tandem__%s up front: %s", tool, listed)
				}
			}
			if !strings.Contains(reqs[1].results, "[notes.txt#") || !strings.Contains(reqs[1].results, "hello from notes") {
				t.Errorf("the read's result is not tagged lines of notes.txt: %s", reqs[1].results)
			}
			if got := catcher.Received(t); len(got) > 0 {
				t.Errorf("Claude Code reached for the network: %q", got)
			}
			asked, err := os.ReadFile(hookIn)
			if err != nil {
				t.Fatalf("Claude Code never asked its user (no Elicitation hook ran): %v", err)
			}
			mustContain(t, "the question Claude Code showed", string(asked), "Claude Code", "id_test", `"mcp_server_name":"tandem"`)
			if b, _ := os.ReadFile(filepath.Join(w.ws, "log.txt")); string(b) != "before\n" {
				t.Errorf("log.txt holds %q; want the step before the question run once", b)
			}
			got := reqs[2].results
			if answer == "accept" && !strings.Contains(got, "KEY-4711") {
				t.Errorf("the allowed step's output did not reach the model: %s", got)
			}
			if answer == "decline" && (strings.Contains(got, "KEY-4711") || !strings.Contains(got, "denied")) {
				t.Errorf("the declined step is not refused as denied: %s", got)
			}
		})
	}
}
