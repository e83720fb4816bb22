package agent

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/acpserver/acptest"
	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/tools"
)

// hookChat is a chat whose settings hold user (the user's own settings)
// and workspace (a workspace-level source), each a JSON object or "".
func hookChat(t *testing.T, ws string, m *fake.Model, asker approvals.Asker, user, workspace string) *Chat {
	t.Helper()
	st := config.New()
	if user != "" {
		if err := st.Set(config.SourceUserFile, []byte(user)); err != nil {
			t.Fatal(err)
		}
	}
	if workspace != "" {
		if err := st.Set(config.SourceConfiguration, []byte(workspace)); err != nil {
			t.Fatal(err)
		}
	}
	c := NewChat(Options{Session: tools.Open(tools.Options{Roots: []string{ws}, Asker: asker, Settings: st}), Provider: m,
		Endpoint: Endpoint{Provider: "test", Model: "m"}})
	t.Cleanup(c.Close)
	return c
}

// An afterEdit hook runs once per edit call with the files it changed in
// TANDEM_FILES, and its output reaches the model with the edit's reply.
func TestAfterEditHookOutputReachesTheModel(t *testing.T) {
	ws := t.TempDir()
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("w1", "write", map[string]any{"path": "a.go", "content": "package a\n"})),
		fake.Say("done"),
	}
	c := hookChat(t, ws, m, nil, `{"agent": {"hooks": [{"on": "afterEdit", "run": "echo \"lint says: $TANDEM_FILES is bad\"; exit 3"}]}}`, "")
	if _, err := c.Prompt(context.Background(), textPrompt("write"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	reply := lastResult(m.Requests[1], "w1")
	for _, want := range []string{"a.go", "lint says: a.go is bad", "afterEdit hook", "exit status 3"} {
		if !strings.Contains(reply, want) {
			t.Errorf("the edit's reply lacks %q:\n%s", want, reply)
		}
	}
}

// A formatter hook that changes the file after an edit: the reply says so,
// and an edit anchored on the lines the formatter changed is refused with
// the lines as they are now, not applied blind.
func TestFormatterHookKeepsEditsFromAnchoringOnOldLines(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "greet.txt"), "hello\nworld\n")
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("r1", "read", map[string]any{"path": "greet.txt"})),
		func(req providers.Request) providers.Response {
			return fake.Call(fake.Use("e1", "edit", map[string]any{"files": []any{map[string]any{"path": "greet.txt", "tag": tagOf(req, "r1"),
				"ops": []any{map[string]any{"replace": "1:hello", "text": "hi"}}}}}))(req)
		},
		func(req providers.Request) providers.Response {
			return fake.Call(fake.Use("e2", "edit", map[string]any{"files": []any{map[string]any{"path": "greet.txt", "tag": tagOf(req, "e1"),
				"ops": []any{map[string]any{"replace": "2:world", "text": "tandem"}}}}}))(req)
		},
		fake.Say("done"),
	}
	c := hookChat(t, ws, m, nil, `{"agent": {"hooks": [{"on": "afterEdit", "run": "sed -i s/world/WORLD/ $TANDEM_FILES"}]}}`, "")
	if _, err := c.Prompt(context.Background(), textPrompt("edit"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	if reply := lastResult(m.Requests[2], "e1"); !strings.Contains(reply, "The hooks changed greet.txt") || strings.Contains(reply, "steps (") {
		t.Errorf("the edit's reply does not say the hook changed the file, or shows a quiet hook's run:\n%s", reply)
	}
	reply := lastResult(m.Requests[3], "e2")
	if b, _ := os.ReadFile(filepath.Join(ws, "greet.txt")); string(b) != "hi\nWORLD\n" {
		t.Fatalf("the file holds %q after an edit anchored on a line the formatter changed; the model got:\n%s", b, reply)
	}
	if !strings.Contains(reply, "2:WORLD") {
		t.Errorf("the refusal does not show the formatter's lines:\n%s", reply)
	}
	// The formatter's change is the edit's: restoring the turn takes both
	// back.
	if _, err := c.Restore(context.Background(), 0, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "greet.txt")); string(b) != "hello\nworld\n" {
		t.Errorf("after restoring the turn the file holds %q", b)
	}
}

// A beforeBash hook that ends with a non-zero status refuses the script
// with its output as the reason, and the script does not run.
func TestBeforeBashHookRefusesTheScript(t *testing.T) {
	ws := t.TempDir()
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("b1", "bash", map[string]any{"command": "touch made"})),
		fake.Call(fake.Use("b2", "bash", map[string]any{"command": "echo fine > fine"})),
		fake.Say("done"),
	}
	c := hookChat(t, ws, m, nil, `{"agent": {"hooks": [{"on": "beforeBash", "run": "case \"$TANDEM_COMMAND\" in *touch*) echo 'policy: no touch here'; exit 1;; esac"}]}}`, "")
	if _, err := c.Prompt(context.Background(), textPrompt("run"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "made")); err == nil {
		t.Error("the refused script ran")
	}
	reply := lastResult(m.Requests[1], "b1")
	for _, want := range []string{"policy: no touch here", "Not run: the beforeBash hook refused"} {
		if !strings.Contains(reply, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, reply)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "fine")); err != nil {
		t.Errorf("a script the hook let pass did not run: %v", err)
	}
}

// TestLaw_workspace_hooks_are_asked: a hook a workspace's settings add has
// every step asked, even one the user's auto set lets run (the default
// holds exec and write), while the same command in the user's own
// settings runs unasked. The question names the hook.
func TestLaw_workspace_hooks_are_asked(t *testing.T) {
	for _, cmd := range []string{"touch hooked", "true", "echo hi > hooked"} {
		t.Run(cmd, func(t *testing.T) {
			for _, workspace := range []bool{false, true} {
				ws := t.TempDir()
				m := &fake.Model{}
				m.Responses = []func(providers.Request) providers.Response{
					fake.Call(fake.Use("w1", "write", map[string]any{"path": "a.txt", "content": "x\n"})),
					fake.Say("done"),
				}
				var mu sync.Mutex
				var asked []approvals.Question
				asker := approvals.AskerFunc(func(_ context.Context, q approvals.Question) approvals.Answer {
					mu.Lock()
					defer mu.Unlock()
					asked = append(asked, q)
					return approvals.Deny
				})
				settings := `{"agent": {"hooks": [{"on": "afterEdit", "run": "` + strings.ReplaceAll(cmd, `"`, `\"`) + `"}]}}`
				user, wsSettings := settings, ""
				if workspace {
					user, wsSettings = "", settings
				}
				c := hookChat(t, ws, m, asker, user, wsSettings)
				if _, err := c.Prompt(context.Background(), textPrompt("write"), func(acp.SessionUpdate) {}); err != nil {
					t.Fatal(err)
				}
				_, statErr := os.Stat(filepath.Join(ws, "hooked"))
				if !workspace {
					if len(asked) != 0 {
						t.Errorf("the user's own hook was asked: %+v", asked)
					}
					continue
				}
				if len(asked) == 0 {
					t.Fatalf("want the workspace hook's step asked; it ran unasked")
				}
				if !strings.Contains(asked[0].Who, "afterEdit hook") || !strings.Contains(asked[0].Who, "workspace") {
					t.Errorf("the question does not name the workspace's hook: %q", asked[0].Who)
				}
				if statErr == nil {
					t.Error("the denied hook's step ran")
				}
			}
		})
	}
}

// A user's hook repeated in a workspace-level source (VS Code sends the
// user's settings within workspace/configuration) stays the user's: it
// runs once, unasked.
func TestUserHookRepeatedByTheWorkspaceRunsOnce(t *testing.T) {
	st := config.New()
	settings := `{"agent": {"hooks": [{"on": "turnEnd", "run": "make lint"}]}}`
	_ = st.Set(config.SourceUserFile, []byte(settings))
	_ = st.Set(config.SourceConfiguration, []byte(settings))
	hs, err := hooks(st)
	if err != nil || len(hs) != 1 || hs[0].Workspace {
		t.Fatalf("hooks %+v, err %v", hs, err)
	}
}

// Entries that are not hooks are named and left out; the others run.
func TestBadHookEntriesAreLeftOut(t *testing.T) {
	st := config.New()
	_ = st.Set(config.SourceUserFile, []byte(`{"agent": {"hooks": [{"on": "afterSave", "run": "x"}, {"on": "turnEnd", "run": " "}, {"on": "turnEnd", "run": "y", "timeout": 9999}, {"on": "turnEnd", "run": "ok"}]}}`))
	hs, err := hooks(st)
	if len(hs) != 1 || hs[0].Command != "ok" || err == nil || !strings.Contains(err.Error(), "afterEdit, beforeBash or turnEnd") || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("hooks %+v, err %v", hs, err)
	}
	if problems := SettingsProblems(st); len(problems) == 0 {
		t.Error("SettingsProblems does not name the bad entries")
	}
}

// A turnEnd hook runs when the turn ends; its output is shown to the user
// in a card of its own and never sent to the model.
func TestTurnEndHookRuns(t *testing.T) {
	ws := t.TempDir()
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{fake.Say("done"), fake.Say("again")}
	c := hookChat(t, ws, m, nil, `{"agent": {"hooks": [{"on": "turnEnd", "run": "echo ended >> turns; echo turn-end-output"}]}}`, "")
	var u updates
	for range 2 {
		if _, err := c.Prompt(context.Background(), textPrompt("hi"), u.emit); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "turns")); string(b) != "ended\nended\n" {
		t.Fatalf("the hook ran so: %q", b)
	}
	shown := false
	for _, x := range u.all {
		if x.ToolCallUpdate != nil {
			for _, content := range x.ToolCallUpdate.Content {
				if content.Content != nil && content.Content.Content.Text != nil && strings.Contains(content.Content.Content.Text.Text, "turn-end-output") {
					shown = true
				}
			}
		}
	}
	if !shown {
		t.Error("the hook's output was not shown to the user")
	}
	for _, msg := range m.Requests[1].Messages {
		for _, b := range msg.Blocks {
			if strings.Contains(b.Text, "turn-end-output") {
				t.Error("the turnEnd hook's output reached the model")
			}
		}
	}
}

// Stop ends a running hook: its process is gone, the turn ends at once,
// and the script it ran before does not run.
func TestStopEndsARunningHook(t *testing.T) {
	ws := t.TempDir()
	arg := "30." + strconv.FormatInt(time.Now().UnixNano(), 10) // a sleep no other test runs
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("b1", "bash", map[string]any{"command": "touch after-hook"})),
		fake.Say("never reached"),
	}
	c := hookChat(t, ws, m, nil, `{"agent": {"hooks": [{"on": "beforeBash", "run": "sleep `+arg+`"}]}}`, "")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan acp.StopReason, 1)
	go func() {
		stop, _ := c.Prompt(ctx, textPrompt("run"), func(acp.SessionUpdate) {})
		done <- stop
	}()
	acptest.Eventually(t, "the hook's sleep", func() bool { return acptest.Running("sleep", arg) })
	cancel()
	select {
	case stop := <-done:
		if stop != acp.StopReasonCancelled {
			t.Fatalf("stop %q", stop)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the turn did not end after stop")
	}
	if acptest.Running("sleep", arg) {
		t.Error("the hook's process outlived the turn")
	}
	if _, err := os.Stat(filepath.Join(ws, "after-hook")); err == nil {
		t.Error("the script ran after its hook was stopped")
	}
}

// A hook that runs past its timeout is stopped: a beforeBash hook so
// stopped refuses the script, which does not run.
func TestHookPastItsTimeoutIsStopped(t *testing.T) {
	ws := t.TempDir()
	arg := "30." + strconv.FormatInt(time.Now().UnixNano(), 10) // a sleep no other test runs
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("b1", "bash", map[string]any{"command": "touch after-hook"})),
		fake.Say("done"),
	}
	c := hookChat(t, ws, m, nil, `{"agent": {"hooks": [{"on": "beforeBash", "run": "sleep `+arg+`", "timeout": 0.2}]}}`, "")
	if _, err := c.Prompt(context.Background(), textPrompt("run"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	if reply := lastResult(m.Requests[1], "b1"); !strings.Contains(reply, "ran past its 200ms and was stopped") {
		t.Errorf("the refusal does not say the hook timed out:\n%s", reply)
	}
	if acptest.Running("sleep", arg) {
		t.Error("the hook's process outlived its timeout")
	}
	if _, err := os.Stat(filepath.Join(ws, "after-hook")); err == nil {
		t.Error("the script ran after its hook timed out")
	}
}
