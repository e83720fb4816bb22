package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
)

// writeFile writes text at path, making its directories.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// emitted collects what a session emits.
type emitted struct{ got []acp.SessionUpdate }

func (u *emitted) emit(x acp.SessionUpdate) { u.got = append(u.got, x) }

// message is the agent's message text emitted.
func (u *emitted) message() string {
	var b strings.Builder
	for _, x := range u.got {
		if x.AgentMessageChunk != nil && x.AgentMessageChunk.Content.Text != nil {
			b.WriteString(x.AgentMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// commands is the last list advertised, nil if none was.
func (u *emitted) commands() []acp.AvailableCommand {
	var last []acp.AvailableCommand
	for _, x := range u.got {
		if x.AvailableCommandsUpdate != nil {
			last = x.AvailableCommandsUpdate.AvailableCommands
		}
	}
	return last
}

// lastPrompt is the text of the last user message a request sent.
func lastPrompt(r providers.Request) string {
	m := r.Messages[len(r.Messages)-1]
	var b strings.Builder
	for _, bl := range m.Blocks {
		if bl.Kind == providers.Text && !bl.Note {
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}

// commandsService is a service whose user directory and workspace hold
// prompt files: review.md in both (the user's wins), only the user's
// mine.md, the workspace's ws.md, and a workspace compact.md the built-in
// shadows.
func commandsService(t *testing.T, m *fake.Model) (*Service, acp.SessionId) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	svc, ws := testService(t, m, nil)
	writeFile(t, filepath.Join(home, "tandem", "commands", "review.md"), "---\ndescription: \"Review, the user's way\"\nargument-hint: FILE\n---\nUSER: review $ARGUMENTS closely, then $ARGUMENTS again.\n")
	writeFile(t, filepath.Join(home, "tandem", "commands", "mine.md"), "# Say mine\nSay mine.\n")
	writeFile(t, filepath.Join(ws, ".tandem", "commands", "review.md"), "WORKSPACE: review $ARGUMENTS\n")
	writeFile(t, filepath.Join(ws, ".tandem", "commands", "ws.md"), "---\ndescription: Workspace tests\n---\nRun the tests.\n")
	writeFile(t, filepath.Join(ws, ".tandem", "commands", "compact.md"), "not the built-in\n")
	res, err := svc.New(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	return svc, res.SessionId
}

// The session advertises the built-ins and the prompt files, a user's
// file winning a name over the workspace's and a built-in over both.
func TestCommandsAreAdvertised(t *testing.T) {
	svc, id := commandsService(t, &fake.Model{})
	var u emitted
	svc.Advertise(id, u.emit)
	got := map[string]acp.AvailableCommand{}
	var names []string
	for _, c := range u.commands() {
		got[c.Name] = c
		names = append(names, c.Name)
	}
	want := "compact cost init model plan restore mine review ws"
	if strings.Join(names, " ") != want {
		t.Fatalf("advertised %v, want %s", names, want)
	}
	if r := got["review"]; r.Description != "Review, the user's way" || r.Input == nil || r.Input.Unstructured.Hint != "FILE" {
		t.Fatalf("review is advertised as %+v", r)
	}
	if got["mine"].Description != "Say mine" || got["ws"].Description != "Workspace tests" {
		t.Fatalf("descriptions: %q %q", got["mine"].Description, got["ws"].Description)
	}
	if got["compact"].Meta != nil {
		t.Fatal("the workspace's compact.md replaced the built-in")
	}
	// Sent again only when the list changed.
	svc.Advertise(id, u.emit)
	if n := len(u.got); n != 1 {
		t.Fatalf("an unchanged list was sent again (%d emitted)", n)
	}
}

// An unknown command is answered with the list, and the model is asked
// nothing.
func TestLaw_unknown_command_never_reaches_the_model(t *testing.T) {
	m := &fake.Model{}
	svc, id := commandsService(t, m)
	var u emitted
	resp, err := svc.Prompt(context.Background(), id, textPrompt("/nope some words"), u.emit)
	if len(m.Requests) != 0 {
		t.Fatalf("the model was asked %d times", len(m.Requests))
	}
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	msg := u.message()
	for _, want := range []string{"no command /nope", "/compact", "/review FILE — Review, the user's way", "/ws", "//nope some words"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the answer lacks %q:\n%s", want, msg)
		}
	}
	if len(svc.sessions[string(id)].chat.Messages()) != 0 {
		t.Fatal("the unknown command entered the conversation")
	}
}

// A prompt file's text is the prompt, with $ARGUMENTS the rest of the
// line; "//" and a path at the start are sent as typed.
func TestPromptFilesAndEscapes(t *testing.T) {
	m := &fake.Model{}
	for range 5 {
		m.Responses = append(m.Responses, fake.Say("ok"))
	}
	svc, id := commandsService(t, m)
	send := func(text string) string {
		t.Helper()
		n := len(m.Requests)
		if _, err := svc.Prompt(context.Background(), id, textPrompt(text), func(acp.SessionUpdate) {}); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if len(m.Requests) != n+1 {
			t.Fatalf("%s made %d requests", text, len(m.Requests)-n)
		}
		return lastPrompt(m.Requests[n])
	}
	if got := send("/review main.go and util.go"); got != "USER: review main.go and util.go closely, then main.go and util.go again." {
		t.Errorf("/review sent %q", got)
	}
	if got := send("/ws now please"); got != "Run the tests.\n\nnow please" {
		t.Errorf("/ws sent %q", got)
	}
	if got := send("//review this"); got != "/review this" {
		t.Errorf("//review sent %q", got)
	}
	if got := send("/usr/bin/env is missing"); got != "/usr/bin/env is missing" {
		t.Errorf("a path sent %q", got)
	}
	if got := send("/init"); !strings.Contains(got, "AGENTS.md") {
		t.Errorf("/init sent %q", got)
	}
}

// /plan toggles plan mode, /model switches and lists, /cost tells the
// chat's cost, /compact summarises: all but /compact without a model call.
func TestBuiltinCommands(t *testing.T) {
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{fake.Say("hi"), fake.Say("the summary")}
	svc, id := commandsService(t, m)
	sv := svc.sessions[string(id)]
	run := func(text string) string {
		t.Helper()
		var u emitted
		if _, err := svc.Prompt(context.Background(), id, textPrompt(text), u.emit); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		return u.message()
	}
	if msg := run("/plan"); !sv.chat.PlanMode() || !strings.Contains(msg, "Plan mode is on") {
		t.Fatalf("/plan: %v %q", sv.chat.PlanMode(), msg)
	}
	if run("/plan"); sv.chat.PlanMode() {
		t.Fatal("/plan again left plan mode on")
	}
	if msg := run("/cost"); !strings.Contains(msg, "no model call yet") {
		t.Fatalf("/cost before a call: %q", msg)
	}
	if msg := run("/model other/big"); sv.chat.Model() != "other/big" || !strings.Contains(msg, "other/big") {
		t.Fatalf("/model: %s %q", sv.chat.Model(), msg)
	}
	if msg := run("/model"); !strings.Contains(msg, "The model is other/big") {
		t.Fatalf("/model lists: %q", msg)
	}
	if len(m.Requests) != 0 {
		t.Fatalf("the commands made %d model requests", len(m.Requests))
	}
	run("hello")
	if msg := run("/cost"); !strings.Contains(msg, "The context holds") {
		t.Fatalf("/cost: %q", msg)
	}
	run("/compact")
	msgs := sv.chat.Messages()
	if len(m.Requests) != 2 || len(msgs) != 1 || !strings.Contains(msgs[0].Blocks[0].Text, "the summary") {
		t.Fatalf("/compact: %d requests, messages %+v", len(m.Requests), msgs)
	}
}
