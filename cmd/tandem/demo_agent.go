package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem"
	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/scripted"
	"github.com/tandemdev/tandem/documents"
)

// The demo's agent part: tandem's own agent, reached with ACP's session
// methods on the editor's connection, driven by a scripted model — a real
// HTTP server on 127.0.0.1 speaking the Anthropic Messages stream — that
// replays a turn on the sample workspace: a subagent finds the function,
// the agent reads its test, adds a test, asks for a secret (denied by the
// user), runs the tests, answers.

const demoTest = "internal/names/names_test.go"

// demoPrompt is what the user asks the agent: the sample workspace's
// prompt file .tandem/commands/add-test.md, run as a command.
const demoPrompt = "/add-test Greeting of a blank name should greet a stranger."

// demoScript is the scripted model's turn. The edit names the tag of the
// test file as the sample ships it, as a model would after reading it.
func demoScript() (scripted.Script, error) {
	test, err := fs.ReadFile(tandem.Sample, "testdata/sample/"+demoTest)
	if err != nil {
		return scripted.Script{}, err
	}
	tool := func(name string, args any) scripted.Part {
		raw, _ := json.Marshal(args)
		return scripted.Part{Tool: &scripted.ToolCall{Name: name, Input: raw}}
	}
	add := "\nfunc TestGreetingBlank(t *testing.T) {\n\tif got := Greeting(\"  \"); got != \"Hello, stranger!\" {\n\t\tt.Fatalf(\"Greeting = %q\", got)\n\t}\n}"
	return scripted.Script{Format: scripted.Anthropic, Responses: []scripted.Response{
		{Parts: []scripted.Part{
			{Thinking: "The greeting lives in internal/names; I need the function and its test.", Signature: "demo-signature"},
			{Text: "I'll have a subagent find how the function treats a blank name."},
			tool("task", map[string]any{"description": "find Greeting's blank case", "prompt": "How does Greeting in internal/names treat a blank name? Answer with the lines."}),
		}, Usage: providers.Usage{Input: 2400, Output: 90, CacheCreate: 1800}},
		// The subagent's turn: its own conversation, on the read-only tools.
		{Parts: []scripted.Part{
			tool("grep", map[string]any{"pattern": "func Greeting", "path": "internal/names"}),
			tool("read", map[string]any{"path": "internal/names/names.go"}),
		}, Usage: providers.Usage{Input: 900, Output: 60}},
		{Parts: []scripted.Part{
			{Text: "internal/names/names.go: Greeting trims the name and returns \"Hello, stranger!\" when nothing is left."},
		}, Usage: providers.Usage{Input: 1300, Output: 40}},
		{Parts: []scripted.Part{
			{Text: "I'll read the test file."},
			tool("read", map[string]any{"path": demoTest}),
		}, Usage: providers.Usage{Input: 300, Output: 30, CacheRead: 2400}},
		{Parts: []scripted.Part{
			{Text: "`Greeting` trims the name and greets a stranger when nothing is left. I'll add a test for a blank name."},
			tool("edit", map[string]any{"files": []any{map[string]any{"path": demoTest, "tag": string(documents.TagOf(test)),
				"ops": []any{map[string]any{"append": add}}}}}),
		}, Usage: providers.Usage{Input: 700, Output: 160, CacheRead: 2400}},
		{Parts: []scripted.Part{
			{Text: "Before running the tests I'll check for private module credentials."},
			tool("bash", map[string]any{"command": "cat ~/.netrc"}),
		}, Usage: providers.Usage{Input: 400, Output: 40, CacheRead: 3100}},
		{Parts: []scripted.Part{
			{Text: "Understood, I'll run them without."},
			tool("bash", map[string]any{"command": "go test ./internal/names/"}),
		}, Usage: providers.Usage{Input: 300, Output: 30, CacheRead: 3500}},
		{Parts: []scripted.Part{
			{Text: "Added `TestGreetingBlank` to " + demoTest + "; `go test ./internal/names/` ran it with the existing test."},
		}, Usage: providers.Usage{Input: 250, Output: 35, CacheRead: 3800}},
	}}, nil
}

// demoAgent prepares the agent part: the scripted model started, the
// user's settings (in the demo's own HOME) pointing the agent at it, a
// go.mod in the workspace so its tests run, and the go build cache of the
// person running the demo, so they run in a second.
func demoAgent(home, ws string) (*scripted.Server, []string, error) {
	script, err := demoScript()
	if err != nil {
		return nil, nil, err
	}
	srv, err := scripted.Start(script)
	if err != nil {
		return nil, nil, err
	}
	settings, _ := json.Marshal(map[string]any{"agent": map[string]any{
		"model":     "demo/scripted",
		"providers": map[string]any{"demo": map[string]any{"api": "anthropic", "url": srv.URL()}},
		// Priced like a mid-size hosted model, so the usage shows a cost.
		"models": map[string]any{"demo/scripted": map[string]any{"window": 200000,
			"price": map[string]float64{"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}},
	}})
	cfg := filepath.Join(home, ".config", "tandem")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(cfg, "config.json"), settings, 0o600); err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/greet\n\ngo 1.22\n"), 0o644); err != nil {
		return nil, nil, err
	}
	env := []string{"GOTOOLCHAIN=local"}
	if os.Getenv("GOCACHE") == "" {
		if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
			env = append(env, "GOCACHE="+strings.TrimSpace(string(out)))
		}
	}
	return srv, env, nil
}

// closeUnsaved closes the document the user typed into, without saving.
func (d *demo) closeUnsaved() error {
	return d.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": d.uri(demoFile)}})
}

// agentTurn opens a chat with tandem's agent and sends one prompt; the
// updates stream in as session/update notifications (shown by render).
func (d *demo) agentTurn() error {
	var s struct{ SessionID string }
	if err := d.call("session/new", map[string]any{"cwd": d.ws, "mcpServers": []any{}}, &s); err != nil {
		return err
	}
	d.chat = s.SessionID
	d.say("(the chat's model is a scripted one: a real HTTP server on 127.0.0.1 replaying a recorded turn\n in Anthropic's streaming format; with a key in the environment the same turn runs a real model)")
	return d.answering([]string{"Deny"}, func() error {
		raw, err := d.request("session/prompt", map[string]any{"sessionId": d.chat, "prompt": []any{map[string]any{"type": "text", "text": demoPrompt}}})
		d.endLine()
		if err != nil {
			return err
		}
		d.show("←", "", raw)
		return nil
	})
}

// rewind restores the agent's turn: its files go back, and nothing of the
// user's later work would.
func (d *demo) rewind() error {
	var cps struct{ Checkpoints []struct{ Turn int } }
	if err := d.call("_tandem/checkpoints", map[string]any{"sessionId": d.chat}, &cps); err != nil {
		return err
	}
	if len(cps.Checkpoints) == 0 {
		return fmt.Errorf("the agent's turn left no checkpoint")
	}
	if err := d.call("_tandem/restore", map[string]any{"sessionId": d.chat, "turn": cps.Checkpoints[0].Turn}, nil); err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(d.ws, demoTest))
	if err != nil {
		return err
	}
	d.say("(%s on disk has %d test(s) again: TestGreetingBlank is gone)", demoTest, strings.Count(string(b), "func Test"))
	return nil
}

// render shows one session/update as a chat would: the answer and the
// thinking as they stream, each tool call with its status and the diff of
// a file it changed, and the usage.
func (d *demo) render(raw json.RawMessage) {
	var n acp.SessionNotification
	if json.Unmarshal(raw, &n) != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	u := n.Update
	switch {
	case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
		if !d.streaming {
			fmt.Fprint(d.out, "◂ agent: ")
			d.streaming = true
		}
		fmt.Fprint(d.out, u.AgentMessageChunk.Content.Text.Text)
		return
	case u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil:
		d.endLineLocked()
		fmt.Fprintf(d.out, "◂ thinking: %s\n", u.AgentThoughtChunk.Content.Text.Text)
	case u.ToolCall != nil:
		d.endLineLocked()
		fmt.Fprintf(d.out, "◂ %stool call [%s] %s\n", subagentIndent(u.ToolCall.Meta), u.ToolCall.Kind, u.ToolCall.Title)
		if u.ToolCall.Kind == acp.ToolKindExecute {
			d.execute[u.ToolCall.ToolCallId] = true
		}
	case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil && *u.ToolCallUpdate.Status != acp.ToolCallStatusInProgress:
		d.endLineLocked()
		fmt.Fprintf(d.out, "◂   %s%s", subagentIndent(u.ToolCallUpdate.Meta), *u.ToolCallUpdate.Status)
		if m, ok := u.ToolCallUpdate.RawOutput.(map[string]any); ok && m["code"] != nil {
			fmt.Fprintf(d.out, " (refusal %v)", m["code"])
		}
		fmt.Fprintln(d.out)
		for _, c := range u.ToolCallUpdate.Content {
			if c.Content != nil && c.Content.Content.Text != nil && d.execute[u.ToolCallUpdate.ToolCallId] && *u.ToolCallUpdate.Status == acp.ToolCallStatusCompleted {
				for _, line := range strings.Split(strings.TrimRight(c.Content.Content.Text.Text, "\n"), "\n") {
					fmt.Fprintf(d.out, "◂     │ %s\n", line)
				}
			}
			if c.Diff != nil {
				old := ""
				if c.Diff.OldText != nil {
					old = *c.Diff.OldText
				}
				fmt.Fprintf(d.out, "◂   diff of %s:\n", documents.Display([]string{d.ws}, c.Diff.Path))
				for _, line := range addedLines(old, c.Diff.NewText) {
					fmt.Fprintf(d.out, "◂     + %s\n", line)
				}
			}
		}
	case u.AvailableCommandsUpdate != nil:
		d.endLineLocked()
		var names []string
		for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
			names = append(names, "/"+c.Name)
		}
		fmt.Fprintf(d.out, "◂ commands: %s\n", strings.Join(names, " "))
	case u.UsageUpdate != nil:
		d.endLineLocked()
		in, _ := u.UsageUpdate.Meta["tandem"].(map[string]any)
		who := ""
		if in["subagent"] == true {
			who = " (the subagent's call; the context stays the chat's)"
		}
		fmt.Fprintf(d.out, "◂ usage%s: context %d of %d tokens; this call %v in, %v read from the cache, %v out", who,
			u.UsageUpdate.Used, u.UsageUpdate.Size, in["input"], in["cacheRead"], in["output"])
		if c := u.UsageUpdate.Cost; c != nil {
			fmt.Fprintf(d.out, "; the chat so far $%.4f", c.Amount)
		}
		fmt.Fprintln(d.out)
	}
}

// subagentIndent sets a subagent's calls under its task's call.
func subagentIndent(meta map[string]any) string {
	if t, _ := meta["tandem"].(map[string]any); t["parent"] != nil {
		return "  ↳ "
	}
	return ""
}

// addedLines are the lines of next after the lines it shares with old at
// its start: enough for the demo's appended test.
func addedLines(old, next string) []string {
	rest := strings.TrimPrefix(next, old)
	if rest == next {
		return strings.Split(strings.TrimRight(next, "\n"), "\n")
	}
	return strings.Split(strings.Trim(rest, "\n"), "\n")
}

func (d *demo) endLine() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.endLineLocked()
}

func (d *demo) endLineLocked() {
	if d.streaming {
		fmt.Fprintln(d.out)
		d.streaming = false
	}
}
