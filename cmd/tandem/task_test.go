package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/acpserver/acptest"
	"github.com/tandemdev/tandem/agent/providers/scripted"
)

// Through the real binary under an ACP client, a scripted model (in each
// wire format) starts a subagent: the subagent's request holds only the task's prompt, its read
// is shown under the task's call (_meta.tandem.parent), the model gets the
// subagent's answer as the task's result, and loading the chat again
// shows the read under the task once more.
func TestACPSubagent(t *testing.T) {
	onBothWires(t, acpSubagent)
}

func acpSubagent(t *testing.T, format scripted.Format) {
	srv := startScripted(t, scripted.Script{Format: format, Responses: []scripted.Response{
		{Parts: []scripted.Part{{Tool: &scripted.ToolCall{ID: "toolu_t", Name: "task", Input: json.RawMessage(`{"description":"find the word","prompt":"Which word does a.txt hold?"}`)}}}},
		{Parts: []scripted.Part{{Tool: &scripted.ToolCall{ID: "toolu_r", Name: "read", Input: json.RawMessage(`{"path":"a.txt"}`)}}}},
		{Parts: []scripted.Part{{Text: "a.txt holds alpha-7."}}},
		{Parts: []scripted.Part{{Text: "It holds alpha-7."}}},
	}})
	xdg := t.TempDir()
	writeUserSettings(t, xdg, fakeProviderSettings(srv, format, "", ""))
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha-7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	client := &acptest.Client{}
	p := startACP(t, builtTandem(t), ws, client, "FAKE_PROVIDER_KEY=k",
		"XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state"))
	id := p.open(t, ws)
	if stop, err := p.prompt(id, "What does the parent-only-words file hold?"); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %q, %v\n%s", stop, err, p.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("the provider got %d requests", len(reqs))
	}
	if sub := string(reqs[1].Body); strings.Contains(sub, "parent-only-words") || !strings.Contains(sub, "Which word does a.txt hold?") || strings.Contains(sub, `"name":"edit"`) || strings.Contains(sub, `"name":"task"`) {
		t.Errorf("the subagent's request:\n%s", sub)
	}
	if !strings.Contains(string(reqs[3].Body), "a.txt holds alpha-7.") || strings.Contains(string(reqs[3].Body), "toolu_r") {
		t.Errorf("the parent's last request:\n%s", reqs[3].Body)
	}
	nestedRead := func(updates []acp.SessionUpdate) bool {
		for _, u := range updates {
			if u.ToolCall != nil && u.ToolCall.ToolCallId == "toolu_r" {
				meta, _ := u.ToolCall.Meta["tandem"].(map[string]any)
				return meta["parent"] == "toolu_t"
			}
		}
		return false
	}
	if !nestedRead(client.Updates()) {
		t.Errorf("the subagent's read is not under the task: %+v", client.Updates())
	}
	if got := client.Statuses("toolu_t"); len(got) == 0 || got[len(got)-1] != acp.ToolCallStatusCompleted {
		t.Errorf("the task's statuses: %v", got)
	}
	again := &acptest.Client{}
	q := startACP(t, builtTandem(t), ws, again, "FAKE_PROVIDER_KEY=k",
		"XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state"))
	if _, err := q.conn.LoadSession(context.Background(), acp.LoadSessionRequest{SessionId: id, Cwd: ws, McpServers: []acp.McpServer{}}); err != nil {
		t.Fatalf("load: %v\n%s", err, q.stderr)
	}
	if !nestedRead(again.Updates()) {
		t.Errorf("the loaded chat does not show the read under the task: %+v", again.Updates())
	}
}

// tandem chat -p reports a subagent's calls on standard error indented
// under its task's call and named by its description.
func TestChatHeadlessSubagent(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha-7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startScripted(t, scripted.Script{Format: scripted.Anthropic, Responses: []scripted.Response{
		{Parts: []scripted.Part{{Tool: &scripted.ToolCall{Name: "task", Input: json.RawMessage(`{"description":"find the word","prompt":"Which word does a.txt hold?"}`)}}}},
		{Parts: []scripted.Part{{Tool: &scripted.ToolCall{Name: "read", Input: json.RawMessage(`{"path":"a.txt"}`)}}}},
		{Parts: []scripted.Part{{Text: "a.txt holds alpha-7."}}},
		{Parts: []scripted.Part{{Text: "It holds alpha-7."}}},
	}})
	cfg := writeUserSettings(t, home, `{"agent":{"model":"local/tester","providers":{"local":{"api":"anthropic","url":"`+srv.URL()+`"}}}}`)
	cmd := exec.Command(builtTandem(t), "chat", "-p", "what does a.txt hold?", "--cwd", ws)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+filepath.Join(home, "state"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("tandem chat: %v\n%s", err, stderr.String())
	}
	rest := stderr.String()
	for _, want := range []string{"→ Subagent: find the word\n", "  ↳ [find the word] → Read a.txt\n", "  ↳ [find the word]   ✓ Read a.txt\n", "  ✓ Subagent: find the word\n"} {
		i := strings.Index(rest, want)
		if i < 0 {
			t.Fatalf("stderr lacks %q in its place:\n%s", want, stderr.String())
		}
		rest = rest[i+len(want):]
	}
	if got := stdout.String(); got != "It holds alpha-7.\n" {
		t.Errorf("stdout %q", got)
	}
}
