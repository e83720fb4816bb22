package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/tools"
)

// A reopened chat shows what the live one showed: the user's words but
// not tandem's notes to the model, the answer given to a question on the
// card of the call that asked it, a restore as a notice, and the meter
// with the cost so far; and it goes on with the model it last used.
func TestReopenedChatShowsWhatTheLiveOneShowed(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_x"), []byte("KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newStoredChat(t, filepath.Join(t.TempDir(), "chats"))
	const id = "00000000000000e1"
	open := func(model string) *Chat {
		o := s.options(id)
		o.Session = tools.Open(tools.Options{ID: id, Roots: []string{s.ws}, Asker: approvals.AskerFunc(func(context.Context, approvals.Question) approvals.Answer {
			return approvals.AllowSession
		})})
		o.Endpoint = Endpoint{Provider: "test", Model: model}
		return NewChat(o)
	}
	c := open("first")
	s.m.Responses = append(s.m.Responses,
		fake.Call(fake.Use("w1", "write", map[string]any{"path": "a.txt", "content": "one\n"})), fake.Say("wrote it"))
	if _, err := c.Prompt(context.Background(), textPrompt("write a.txt"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	if res, err := c.Restore(context.Background(), 0, false); err != nil || !strings.Contains(res.Text, "a.txt") {
		t.Fatalf("restore: %v %q", err, res.Text)
	}
	c.Close()

	// The next turn, in the same chat reopened with another model.
	c, err := ResumeChat(func() Options {
		o := s.options(id)
		o.Session = tools.Open(tools.Options{ID: id, Roots: []string{s.ws}, Asker: approvals.AskerFunc(func(context.Context, approvals.Question) approvals.Answer {
			return approvals.AllowSession
		})})
		o.Endpoint = Endpoint{Provider: "test", Model: "second"}
		return o
	}(), id)
	if err != nil {
		t.Fatal(err)
	}
	s.m.Responses = append(s.m.Responses,
		fake.Call(fake.Use("b1", "bash", map[string]any{"command": "cat ~/.ssh/id_x"})), fake.Say("read it"))
	if _, err := c.Prompt(context.Background(), textPrompt("show the key"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	c.Close()

	r, err := ResumeChat(s.options(id), id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.lastModel != "test/second" {
		t.Errorf("the chat's last model is %q; want test/second", r.lastModel)
	}
	var users []string
	var notices, answers []string
	var usage *acp.SessionUsageUpdate
	for _, u := range r.Replay() {
		switch {
		case u.UserMessageChunk != nil:
			users = append(users, u.UserMessageChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Meta != nil:
			m := u.AgentMessageChunk.Meta["tandem"].(map[string]any)
			notices = append(notices, fmt.Sprint(m["notice"], " turn ", m["turn"]))
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.Meta != nil:
			m := u.ToolCallUpdate.Meta["tandem"].(map[string]any)
			answers = append(answers, string(u.ToolCallUpdate.ToolCallId)+" "+m["answer"].(string)+" "+m["answerText"].(string))
		case u.UsageUpdate != nil:
			usage = u.UsageUpdate
		}
	}
	if strings.Join(users, "|") != "write a.txt|show the key" {
		t.Errorf("the reopened chat shows the user saying %q; want only their prompts", users)
	}
	if strings.Join(notices, ",") != "restore turn 0" {
		t.Errorf("notices replayed: %q; want the restore", notices)
	}
	if len(answers) != 1 || !strings.HasPrefix(answers[0], "b1 allow_always Allowed for this session: cat ") {
		t.Errorf("answers replayed: %q; want the bash call's", answers)
	}
	if usage == nil || usage.Used == 0 {
		t.Errorf("no meter replayed: %+v", usage)
	}
}
