package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/tools"
)

// storedChat is a chat kept in a store on a workspace, reopened as a
// fresh process would.
type storedChat struct {
	t     *testing.T
	ws    string
	store *Store
	m     *fake.Model
}

func newStoredChat(t *testing.T, dir string) *storedChat {
	t.Helper()
	store, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &storedChat{t: t, ws: t.TempDir(), store: store, m: &fake.Model{}}
}

func (s *storedChat) options(id string) Options {
	return Options{Session: tools.Open(tools.Options{ID: id, Roots: []string{s.ws}}), Provider: s.m, Endpoint: Endpoint{Provider: "test", Model: "m"}, Store: s.store}
}

// turn runs one prompt on the chat id, loaded from its file (a new one
// when it has none), and returns what the client was shown.
func (s *storedChat) turn(id, prompt string, responses ...func(providers.Request) providers.Response) *updates {
	s.t.Helper()
	s.m.Mu.Lock()
	s.m.Responses = append(s.m.Responses, responses...)
	s.m.Mu.Unlock()
	var c *Chat
	if _, err := os.Stat(filepath.Join(s.store.dir, id+".jsonl")); err == nil {
		if c, err = ResumeChat(s.options(id), id); err != nil {
			s.t.Fatalf("resume: %v", err)
		}
	} else {
		c = NewChat(s.options(id))
	}
	defer c.Close()
	u := &updates{}
	if _, err := c.Prompt(context.Background(), textPrompt(prompt), u.emit); err != nil {
		s.t.Fatalf("prompt %q: %v", prompt, err)
	}
	return u
}

// replayNotes are the notes a load of chat id shows.
func (s *storedChat) replayNotes(id string) []string {
	s.t.Helper()
	c, err := ResumeChat(s.options(id), id)
	if err != nil {
		s.t.Fatalf("resume: %v", err)
	}
	defer c.Close()
	var notes []string
	for _, u := range c.Replay() {
		if u.AgentThoughtChunk != nil && strings.Contains(u.AgentThoughtChunk.Content.Text.Text, "damaged") {
			notes = append(notes, u.AgentThoughtChunk.Content.Text.Text)
		}
	}
	return notes
}

// wellFormed fails unless every request the model got starts with a
// user's message and answers each tool call in the next message.
func wellFormed(t *testing.T, reqs []providers.Request) {
	t.Helper()
	for n, req := range reqs {
		for i, m := range req.Messages {
			if i == 0 && m.Role != providers.User {
				t.Fatalf("request %d starts with a %s message", n, m.Role)
			}
			for _, u := range toolUses(m) {
				if i+1 >= len(req.Messages) || !hasResult(req.Messages[i+1], u.ToolID) {
					t.Fatalf("request %d: call %s has no result in the next message", n, u.ToolID)
				}
			}
			for _, b := range m.Blocks {
				if b.Kind == providers.ToolResult && (i == 0 || !hasCall(req.Messages[i-1], b.ToolID)) {
					t.Fatalf("request %d: result %s follows no call of it", n, b.ToolID)
				}
			}
		}
	}
}

func hasResult(m providers.Message, id string) bool {
	for _, b := range m.Blocks {
		if b.Kind == providers.ToolResult && b.ToolID == id {
			return true
		}
	}
	return false
}

func hasCall(m providers.Message, id string) bool {
	for _, u := range toolUses(m) {
		if u.ToolID == id {
			return true
		}
	}
	return false
}

// Torn tails: whatever a chat file's tail holds — a whole record without
// its newline, half a record, binary garbage, an empty line — or a bad
// line in its middle, the chat loads, tells the client how many records
// were left out and in which turn, takes more turns, and loads again with
// every one of them; the model always gets a history it accepts.
func TestLaw_chat_loads_whatever_its_tail(t *testing.T) {
	const id = "00000000000000c1"
	cases := []struct {
		name   string
		damage func(file []byte) []byte
		notes  []string // what the first load says
		bad    int      // lines of the file that stay unreadable
		stays  int      // notes a later load still shows: the damage kept in the middle
	}{
		{"a whole record without its newline", func(f []byte) []byte { return bytes.TrimSuffix(f, []byte("\n")) }, nil, 0, 0},
		{"half a record", func(f []byte) []byte {
			last := bytes.LastIndexByte(f[:len(f)-1], '\n') + 1
			return f[:last+(len(f)-last)/2]
		}, []string{"(1 damaged record was left out of this chat's file here, in turn 0; the chat goes on without them)\n"}, 0, 0},
		{"binary garbage", func(f []byte) []byte { return append(f, 0, 0xff, '{', 0x80, 'x', 0, 7) },
			[]string{"(1 damaged record was left out of this chat's file here, in turn 0; the chat goes on without them)\n"}, 0, 0},
		{"garbage lines and half a record", func(f []byte) []byte {
			return append(f, []byte("\x00\x01\n{\"message\":{\"role\":\"ass\n{\"message\":{\"role\":\"user\",\"blo")...)
		}, []string{"(3 damaged records were left out of this chat's file here, in turn 0; the chat goes on without them)\n"}, 2, 1},
		{"an empty line", func(f []byte) []byte { return append(f, '\n') }, nil, 0, 0},
		{"a bad line in the middle", func(f []byte) []byte {
			lines := bytes.SplitAfter(f, []byte("\n"))
			return bytes.Join(append(lines[:3:3], append([][]byte{[]byte("{\"message\":{\"role\":\"user\",\"blocks\":[{\"kind\"\n")}, lines[3:]...)...), nil)
		}, []string{"(1 damaged record was left out of this chat's file here, in turn 0; the chat goes on without them)\n"}, 1, 1},
		{"a record naming a turn that never was", func(f []byte) []byte {
			return append(f, []byte("{\"checkpoint\":{\"turn\":999999999,\"changes\":[]}}\n")...)
		}, []string{"(1 damaged record was left out of this chat's file here, in turn 0; the chat goes on without them)\n"}, 0, 1},
		{"a lost tool result", func(f []byte) []byte {
			lines := bytes.SplitAfter(f, []byte("\n"))
			lines[3] = []byte("{\"message\":{\"role\":\"user\",\"blocks\":[{\"kind\":\"tool_res\n")
			return bytes.Join(lines, nil)
		}, []string{"(1 damaged record was left out of this chat's file here, in turn 0; the chat goes on without them)\n"}, 1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newStoredChat(t, filepath.Join(t.TempDir(), "chats"))
			s.turn(id, "look around", fake.Call(fake.Use("g1", "glob", map[string]any{"pattern": "*"})), fake.Say("nothing here"))
			file := filepath.Join(s.store.dir, id+".jsonl")
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, tc.damage(raw), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := s.replayNotes(id); strings.Join(got, "|") != strings.Join(tc.notes, "|") {
				t.Fatalf("the load's notes:\n%q\nwant\n%q", got, tc.notes)
			}
			s.turn(id, "and now?", fake.Call(fake.Use("g2", "glob", map[string]any{"pattern": "*"})), fake.Say("still nothing"))
			s.turn(id, "once more", fake.Say("done"))
			wellFormed(t, s.m.Requests)

			_, msgs, err := s.store.Load(id)
			if err != nil {
				t.Fatalf("the chat no longer loads: %v", err)
			}
			var prompts []string
			for _, m := range msgs {
				if m.Role == providers.User && len(m.Blocks) > 0 && m.Blocks[0].Kind == providers.Text {
					prompts = append(prompts, m.Blocks[0].Text)
				}
			}
			if !strings.HasSuffix(strings.Join(prompts, "|"), "and now?|once more") {
				t.Fatalf("the turns after the damage are not all in the chat: %q", prompts)
			}
			raw, _ = os.ReadFile(file)
			bad := 0
			for _, line := range bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n")) {
				var r record
				if len(line) > 0 && (json.Unmarshal(line, &r) != nil || !r.valid()) {
					bad++
				}
			}
			if bad != tc.bad || !bytes.HasSuffix(raw, []byte("\n")) {
				t.Fatalf("the file has %d bad lines, want %d (ends with a newline: %v):\n%s", bad, tc.bad, bytes.HasSuffix(raw, []byte("\n")), raw)
			}
			// A tail cut off is gone for good; a damaged line kept in the
			// middle is told at every load.
			if got := s.replayNotes(id); len(got) != tc.stays {
				t.Fatalf("a later load's notes: %q", got)
			}
		})
	}
}

// A turn stopped while the model streamed keeps what streamed, marked as
// cut: a reload shows it, and the next request follows the prompt with
// that answer, not with a second prompt.
func TestStoppedTurnKeepsItsTextMarkedAsCut(t *testing.T) {
	const id = "00000000000000c2"
	s := newStoredChat(t, filepath.Join(t.TempDir(), "chats"))
	s.m.Block = true
	s.m.Responses = []func(providers.Request) providers.Response{fake.Say("Half an answ")}
	c := NewChat(s.options(id))
	ctx, cancel := context.WithCancel(context.Background())
	stop, err := c.Prompt(ctx, textPrompt("explain"), func(u acp.SessionUpdate) {
		if u.AgentMessageChunk != nil {
			cancel()
		}
	})
	c.Close()
	if stop != acp.StopReasonCancelled || err != nil {
		t.Fatalf("stop %q err %v", stop, err)
	}
	s.m.Block = false
	r, err := ResumeChat(s.options(id), id)
	if err != nil {
		t.Fatal(err)
	}
	var shown string
	for _, u := range r.Replay() {
		if u.AgentMessageChunk != nil {
			shown += u.AgentMessageChunk.Content.Text.Text + "|"
		}
	}
	r.Close()
	if shown != "Half an answ|\n\n(Stopped.)\n\n|" {
		t.Fatalf("the reload shows %q", shown)
	}
	s.turn(id, "go on", fake.Say("Half an answer, whole."))
	last := s.m.Requests[len(s.m.Requests)-1].Messages
	var roles []string
	for _, m := range last {
		roles = append(roles, string(m.Role))
	}
	if strings.Join(roles, ",") != "user,assistant,user" {
		t.Fatalf("the next request's roles: %v", roles)
	}
}

// A turn whose model call failed keeps the text that streamed before the
// failure, marked as cut with the reason.
func TestFailedTurnKeepsItsTextMarkedAsCut(t *testing.T) {
	const id = "00000000000000c3"
	s := newStoredChat(t, filepath.Join(t.TempDir(), "chats"))
	c := NewChat(s.options(id))
	c.opts.Provider = failingAfter{text: "The answer starts"}
	_, err := c.Prompt(context.Background(), textPrompt("explain"), func(acp.SessionUpdate) {})
	c.Close()
	if err == nil {
		t.Fatal("the failed call did not fail the turn")
	}
	_, msgs, err := s.store.Load(id)
	if err != nil || len(msgs) != 2 || msgs[1].Role != providers.Assistant || len(msgs[1].Blocks) != 2 ||
		msgs[1].Blocks[0].Text != "The answer starts" || !strings.HasPrefix(msgs[1].Blocks[1].Text, "[cut: the model's answer failed: test/m: the connection dropped") {
		t.Fatalf("the stored chat: %+v %v", msgs, err)
	}
}

// failingAfter streams text, then fails.
type failingAfter struct{ text string }

func (f failingAfter) Stream(_ context.Context, _ providers.Request, emit func(providers.Event)) (providers.Response, error) {
	emit(providers.Event{Kind: providers.TextDelta, Text: f.text})
	return providers.Response{}, &providers.Error{Message: "the connection dropped"}
}

// A history whose file lost records is sent as providers accept it: a lost
// result is answered as lost, a result without its call is left out, and a
// well-formed history is sent unchanged.
func TestSendableAnswersEveryCall(t *testing.T) {
	text := func(role providers.Role, s string) providers.Message {
		return providers.Message{Role: role, Blocks: []providers.Block{{Kind: providers.Text, Text: s}}}
	}
	call := providers.Message{Role: providers.Assistant, Blocks: []providers.Block{fake.Use("a", "glob", nil), fake.Use("b", "glob", nil)}}
	result := func(id string) providers.Block {
		return providers.Block{Kind: providers.ToolResult, ToolID: id, Text: "ok"}
	}
	good := []providers.Message{text(providers.User, "hi"), call, {Role: providers.User, Blocks: []providers.Block{result("a"), result("b")}}, text(providers.Assistant, "done")}
	if got := sendable(good); fmt.Sprint(got) != fmt.Sprint(good) {
		t.Fatalf("a well-formed history changed: %+v", got)
	}
	lost := []providers.Message{call, text(providers.User, "next"), {Role: providers.User, Blocks: []providers.Block{result("z"), result("b")}}}
	got := sendable(lost)
	wellFormed(t, []providers.Request{{Messages: got}})
	if len(got) != 4 || got[0].Blocks[0].Text != lostStart || got[2].Blocks[0].ToolID != "a" || !got[2].Blocks[0].IsError ||
		got[2].Blocks[1].ToolID != "b" || got[2].Blocks[2].Text != "next" || got[3].Blocks[0].Kind != providers.Text {
		t.Fatalf("repaired: %+v", got)
	}
}

// thoughtText is the thought text of updates.
func thoughtText(us []acp.SessionUpdate) string {
	var b strings.Builder
	for _, x := range us {
		if x.AgentThoughtChunk != nil {
			b.WriteString(x.AgentThoughtChunk.Content.Text.Text)
		}
	}
	return b.String()
}
