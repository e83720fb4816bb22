package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/refusal"
)

// mark is what every message of turn i carries: its prompt, the model's
// calls' arguments, the file it writes, its answer.
func mark(i int) string { return fmt.Sprintf("⟪%d⟫", i) }

// marks lists the turns whose mark a request carries anywhere.
func marks(req providers.Request, turns int) []int {
	var out []int
	for i := range turns {
		for _, m := range req.Messages {
			if slices.ContainsFunc(m.Blocks, func(b providers.Block) bool {
				return strings.Contains(b.Text, mark(i)) || strings.Contains(string(b.Input), mark(i))
			}) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// TestLaw_cut_turns_never_reach_the_model: turns that read and write a
// file, a restore of any turn or none, then that turn's prompt edited and
// sent again. No request to the model after the cut — in the same process
// or after the chat is reopened — carries anything of the turns cut, and
// every request carries each turn before it; the files stay as the restore
// (or the last turn) left them; the reopened chat shows the cut.
func TestLaw_cut_turns_never_reach_the_model(t *testing.T) {
	var hits [2]int // cuts with and without a restore first
	rapid.Check(t, func(rt *rapid.T) {
		s := newStoredChat(t, filepath.Join(t.TempDir(), "chats"))
		const id = "00000000000000c7"
		file := filepath.Join(s.ws, "f.txt")
		if err := os.WriteFile(file, []byte("start\n"), 0o644); err != nil {
			rt.Fatal(err)
		}
		turns := rapid.IntRange(1, 4).Draw(rt, "turns")
		c := NewChat(s.options(id))
		for i := range turns {
			// Every response names its call call_0, as some providers do.
			s.m.Responses = append(s.m.Responses,
				fake.Call(fake.Use("call_0", "read", map[string]any{"path": "f.txt"})),
				fake.Call(fake.Use("call_0", "write", map[string]any{"path": "f.txt", "content": "agent " + mark(i) + "\n"})),
				fake.Say("answer "+mark(i)))
			if _, err := c.Prompt(context.Background(), textPrompt("prompt "+mark(i)), func(acp.SessionUpdate) {}); err != nil {
				rt.Fatal(err)
			}
		}
		k := rapid.IntRange(0, turns-1).Draw(rt, "turn edited")
		restore := rapid.Bool().Draw(rt, "restore first")
		if restore {
			if _, err := c.Restore(context.Background(), k, false); err != nil {
				rt.Fatal(err)
			}
			hits[0]++
		} else {
			hits[1]++
		}
		files, _ := os.ReadFile(file)
		check := func(when string) {
			s.m.Mu.Lock()
			req := s.m.Requests[len(s.m.Requests)-1]
			s.m.Mu.Unlock()
			if got, want := marks(req, turns), slices.Collect(func(yield func(int) bool) {
				for i := range k {
					if !yield(i) {
						return
					}
				}
			}); !slices.Equal(got, want) {
				rt.Fatalf("%s, the model was sent turns %v; want %v (turn %d on was cut)", when, got, want, k)
			}
			if now, _ := os.ReadFile(file); string(now) != string(files) {
				rt.Fatalf("%s, f.txt holds %q; the cut left %q", when, now, files)
			}
		}
		s.m.Responses = append(s.m.Responses, fake.Say("answer again"))
		var u updates
		if _, err := c.Resend(context.Background(), k, textPrompt("edited prompt"), u.emit); err != nil {
			rt.Fatal(err)
		}
		check("after the cut")
		if !strings.Contains(u.text(), "Cut back to before") {
			rt.Fatalf("the client was not told of the cut: %q", u.text())
		}
		c.Close()

		s.turn(id, "after reopening", fake.Say("answer after"))
		check("in the reopened chat")
		c, err := ResumeChat(s.options(id), id)
		if err != nil {
			rt.Fatal(err)
		}
		defer c.Close()
		var users, notices []string
		for _, u := range c.Replay() {
			switch {
			case u.UserMessageChunk != nil:
				users = append(users, u.UserMessageChunk.Content.Text.Text)
			case u.AgentMessageChunk != nil && u.AgentMessageChunk.Meta != nil:
				notices = append(notices, fmt.Sprint(u.AgentMessageChunk.Meta["tandem"].(map[string]any)["notice"]))
			}
		}
		var want []string
		for i := range k {
			want = append(want, "prompt "+mark(i))
		}
		want = append(want, "edited prompt", "after reopening")
		if !slices.Equal(users, want) {
			rt.Fatalf("the reopened chat shows the prompts %q; want %q", users, want)
		}
		wantNotices := []string{"rewind"}
		if restore {
			wantNotices = []string{"restore", "rewind"} // the restore stays, with its undo, where the cut is
		}
		if !slices.Equal(notices, wantNotices) {
			rt.Fatalf("the reopened chat shows the notices %q; want %q", notices, wantNotices)
		}
	})
	if hits[0] == 0 || hits[1] == 0 {
		t.Fatalf("cuts with a restore first: %d, without: %d; want both", hits[0], hits[1])
	}
}

// A cut to a turn the conversation does not hold as a prompt (a restore's
// turn, a turn to come) is refused with the next step, and cuts nothing.
func TestResendOfATurnWithoutAPromptIsRefused(t *testing.T) {
	ws := t.TempDir()
	m := &fake.Model{}
	c := newTestChat(t, ws, m, nil)
	m.Responses = append(m.Responses, fake.Call(fake.Use("w1", "write", map[string]any{"path": "a.txt", "content": "a\n"})), fake.Say("done"))
	if _, err := c.Prompt(context.Background(), textPrompt("write"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	res, err := c.Restore(context.Background(), 0, false)
	if err != nil || res.Turn != 1 {
		t.Fatalf("restore: %v, turn %d", err, res.Turn)
	}
	before := len(c.Messages())
	for _, turn := range []int{1, 5} {
		_, err := c.Resend(context.Background(), turn, textPrompt("again"), func(acp.SessionUpdate) {})
		var r *refusal.Error
		if !errors.As(err, &r) || r.Code != refusal.Invalid || !strings.HasSuffix(r.Text, "send the message as a new one instead") {
			t.Fatalf("resend of turn %d: %v; want an invalid refusal ending with the next step", turn, err)
		}
		if n := len(c.Messages()); n != before {
			t.Fatalf("a refused resend changed the conversation: %d messages, %d before", n, before)
		}
	}
}

// The meta of session/prompt names the turn a prompt replaces; anything
// but a turn number is refused.
func TestReplacedTurnIsReadFromThePromptsMeta(t *testing.T) {
	for _, c := range []struct {
		meta map[string]any
		want int
		ok   bool
	}{
		{nil, -1, true},
		{map[string]any{"tandem": map[string]any{"turn": 3.0}}, -1, true},
		{map[string]any{"tandem": map[string]any{"replaces": 2.0}}, 2, true},
		{map[string]any{"tandem": map[string]any{"replaces": "2"}}, -1, false},
		{map[string]any{"tandem": map[string]any{"replaces": -1.0}}, -1, false},
		{map[string]any{"tandem": map[string]any{"replaces": 1.5}}, -1, false},
	} {
		got, err := replacedTurn(c.meta)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("replacedTurn(%v) = %d, %v; want %d, ok %v", c.meta, got, err, c.want, c.ok)
		}
	}
}

// What the cut turns showed the model is no longer in its context: an edit
// after the cut, anchored on a line only a cut turn read, is refused as
// unseen — even with the tag of a version a kept turn read — and lands
// after the model reads the line again.
func TestLinesReadInCutTurnsAreUnseenAfterTheCut(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "f.txt"), []byte("one\ntwo\nthree\nfour\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &fake.Model{}
	c := newTestChat(t, ws, m, nil)
	m.Responses = append(m.Responses,
		fake.Call(fake.Use("r1", "read", map[string]any{"path": "f.txt", "lines": "1-2"})), fake.Say("read the top"),
		fake.Call(fake.Use("r2", "read", map[string]any{"path": "f.txt", "lines": "3-4"})), fake.Say("read the rest"))
	for _, p := range []string{"top", "rest"} {
		if _, err := c.Prompt(context.Background(), textPrompt(p), func(acp.SessionUpdate) {}); err != nil {
			t.Fatal(err)
		}
	}
	var tag string
	edit := func(req providers.Request) providers.Response {
		for _, msg := range req.Messages { // the kept turn's read: the same version
			for _, b := range msg.Blocks {
				if b.Kind == providers.ToolResult && b.ToolID == "r1" && tag == "" {
					tag = b.Text[strings.Index(b.Text, "#")+1 : strings.Index(b.Text, "]")]
				}
			}
		}
		return fake.Call(fake.Use("e1", "edit", map[string]any{"files": []any{map[string]any{"path": "f.txt", "tag": tag,
			"ops": []any{map[string]any{"replace": "4:four", "text": "FOUR"}}}}}))(req)
	}
	m.Responses = append(m.Responses, edit,
		fake.Call(fake.Use("r3", "read", map[string]any{"path": "f.txt", "lines": "3-4"})), edit, fake.Say("done"))
	if _, err := c.Resend(context.Background(), 1, textPrompt("change four"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	m.Mu.Lock()
	reqs := slices.Clone(m.Requests)
	m.Mu.Unlock()
	first := lastResult(reqs[len(reqs)-3], "e1")
	if !strings.HasPrefix(first, "NOT applied") || !strings.Contains(first, "Read the file") {
		t.Fatalf("the edit anchored on a line only the cut turn read was answered %q; want it refused as unseen", first)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "f.txt")); string(b) != "one\ntwo\nthree\nFOUR\n" {
		t.Fatalf("after reading the line again the edit did not land: f.txt holds %q", b)
	}
}
