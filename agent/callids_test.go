package agent

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
)

// A provider that names the call of every response call_0: each call
// still gets its own id for the client, live and in the reopened chat (its
// diff on its own card), and the provider is sent its own ids back.
func TestRepeatedToolCallIDsAreOnePerCall(t *testing.T) {
	s := newStoredChat(t, filepath.Join(t.TempDir(), "chats"))
	const id = "00000000000000d2"
	write := func(file string) func(providers.Request) providers.Response {
		return fake.Call(fake.Use("call_0", "write", map[string]any{"path": file, "content": file + "\n"}))
	}
	started := func(u *updates) []string {
		var ids []string
		for _, x := range u.all {
			if x.ToolCall != nil {
				ids = append(ids, string(x.ToolCall.ToolCallId))
			}
		}
		return ids
	}
	first := s.turn(id, "write a and b", write("a.txt"), write("b.txt"), fake.Say("done"))
	second := s.turn(id, "write c", write("c.txt"), fake.Say("done"))
	live := append(started(first), started(second)...)
	if want := []string{"call_0", "call_0-1", "call_0-2"}; !slices.Equal(live, want) {
		t.Fatalf("the calls were shown as %q; want %q", live, want)
	}
	for i, id := range live {
		if d := diffsOf(map[int]*updates{0: first, 1: first, 2: second}[i], id); !slices.Equal(d, []string{"a.txt", "b.txt", "c.txt"}[i:i+1]) {
			t.Errorf("call %s's card shows the diffs of %q; want its own file's alone", id, d)
		}
	}
	for n, req := range s.m.Requests {
		for _, m := range req.Messages {
			for _, b := range m.Blocks {
				if (b.Kind == providers.ToolUse || b.Kind == providers.ToolResult) && b.ToolID != "call_0" {
					t.Fatalf("request %d sent the provider the id %q, not its own", n, b.ToolID)
				}
			}
		}
	}
	wellFormed(t, s.m.Requests)

	c, err := ResumeChat(s.options(id), id)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	replayed := &updates{}
	for _, u := range c.Replay() {
		replayed.emit(u)
	}
	if got := started(replayed); !slices.Equal(got, live) {
		t.Fatalf("the reopened chat shows the calls as %q; live they were %q", got, live)
	}
	for i, id := range live {
		if d := diffsOf(replayed, id); !slices.Equal(d, []string{"a.txt", "b.txt", "c.txt"}[i:i+1]) {
			t.Errorf("reopened, call %s's card shows the diffs of %q; want its own file's alone", id, d)
		}
	}
}

// diffsOf are the files of every diff shown on call id's card.
func diffsOf(u *updates, id string) []string {
	var out []string
	for _, x := range u.all {
		if x.ToolCallUpdate != nil && string(x.ToolCallUpdate.ToolCallId) == id {
			for _, c := range x.ToolCallUpdate.Content {
				if c.Diff != nil {
					out = append(out, filepath.Base(c.Diff.Path))
				}
			}
		}
	}
	return out
}
