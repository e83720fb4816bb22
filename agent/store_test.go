package agent

import (
	"context"
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

// A stored chat is written as it goes, private to the user and without the
// key; it lists with its title, loads with every message, resumes where it
// stopped (the next turn sees the earlier ones), replays as updates, and
// deletes.
func TestChatIsStoredAndResumes(t *testing.T) {
	ws, dir := t.TempDir(), filepath.Join(t.TempDir(), "chats")
	store, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	const key = "sk-test-not-a-real-key-0123456789"
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("g1", "glob", map[string]any{"pattern": "*"})),
		fake.Say("Nothing here yet."),
		fake.Say("Still nothing."),
	}
	open := func() Options {
		return Options{Session: tools.Open(tools.Options{Roots: []string{ws}}), Provider: m,
			Endpoint: Endpoint{Provider: "test", Model: "m", Key: key}, Store: store}
	}
	c := NewChat(open())
	if _, err := c.Prompt(context.Background(), textPrompt("What is\nin this   folder?"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	c.Close()

	list, err := store.List()
	if err != nil || len(list) != 1 || list[0].ID != c.ID || list[0].Title != "What is in this folder?" || list[0].Model != "test/m" || list[0].Cwd != ws {
		t.Fatalf("list: %+v %v", list, err)
	}
	file := filepath.Join(dir, c.ID+".jsonl")
	raw, _ := os.ReadFile(file)
	if strings.Contains(string(raw), key) {
		t.Fatal("the key reached the chat file")
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
		t.Fatalf("chat file mode %v", st.Mode())
	}
	_, msgs, err := store.Load(c.ID)
	if err != nil || len(msgs) != 4 {
		t.Fatalf("load: %d messages, %v", len(msgs), err)
	}

	r, err := ResumeChat(open(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Prompt(context.Background(), textPrompt("and now?"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if n := len(m.Requests[2].Messages); n != 5 {
		t.Fatalf("the resumed turn sent %d messages, want the 4 before and the new prompt", n)
	}
	_, msgs, _ = store.Load(c.ID)
	if len(msgs) != 6 {
		t.Fatalf("after the resumed turn: %d messages, want 6", len(msgs))
	}
	again, err := ResumeChat(open(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	updates := again.Replay()
	again.Close()
	// The last answer, then the meter as the last turn left it.
	if n := len(updates); n < 2 || updates[0].UserMessageChunk == nil || updates[n-2].AgentMessageChunk == nil || updates[n-1].UsageUpdate == nil {
		t.Fatalf("replay: %+v", updates)
	}
	var turns []any
	for _, u := range updates {
		if u.UserMessageChunk != nil {
			turns = append(turns, u.UserMessageChunk.Meta["tandem"].(map[string]any)["turn"])
		}
	}
	if fmt.Sprint(turns) != "[0 1]" {
		t.Fatalf("the replayed prompts carry turns %v, want [0 1]", turns)
	}
	if err := store.Delete(c.ID); err != nil {
		t.Fatal(err)
	}
	if list, _ := store.List(); len(list) != 0 {
		t.Fatalf("after delete: %+v", list)
	}
	if _, _, err := store.Load("../../etc/passwd"); err == nil || !strings.Contains(err.Error(), "is not a chat id") {
		t.Fatalf("a path as an id: %v", err)
	}
}

// A chat loaded again can still be rewound: its turns' changes are kept
// in its file, its replay shows each call's diff, and the turns after the
// reload number on from them.
func TestCheckpointsSurviveAReload(t *testing.T) {
	ws := t.TempDir()
	store, err := OpenStore(filepath.Join(t.TempDir(), "chats"))
	if err != nil {
		t.Fatal(err)
	}
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("w1", "write", map[string]any{"path": "a.txt", "content": "agent\n"})),
		fake.Say("wrote it"),
	}
	open := func() Options {
		return Options{Session: tools.Open(tools.Options{Roots: []string{ws}}), Provider: m, Endpoint: Endpoint{Provider: "test", Model: "m"}, Store: store}
	}
	c := NewChat(open())
	if _, err := c.Prompt(context.Background(), textPrompt("write a"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	r, err := ResumeChat(open(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if cps := r.Checkpoints(); len(cps) != 1 || cps[0].Turn != 0 || cps[0].Files[0] != filepath.Join(ws, "a.txt") {
		t.Fatalf("checkpoints after the reload: %+v", cps)
	}
	var replayed *acp.ToolCallContentDiff
	for _, u := range r.Replay() {
		if u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == "w1" {
			for _, item := range u.ToolCallUpdate.Content {
				if item.Diff != nil {
					replayed = item.Diff
				}
			}
		}
	}
	if replayed == nil || replayed.Path != filepath.Join(ws, "a.txt") || replayed.NewText != "agent\n" || replayed.OldText != nil {
		t.Fatalf("the replayed write shows no diff of the file it made: %+v", replayed)
	}
	if res, err := r.Restore(context.Background(), 0, false); err != nil || res.IsError {
		t.Fatalf("restore: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "a.txt")); err == nil {
		t.Fatal("the file the agent made before the reload is still there")
	}
	if cps := r.Checkpoints(); len(cps) != 2 || cps[1].Turn != 1 {
		t.Fatalf("the restore is not the next turn: %+v", cps)
	}
}

// A chat whose first line (the one naming it) is damaged is still listed,
// as it still loads: marked damaged and named by its first prompt, or by
// its id when no prompt is readable. An empty file is no chat.
func TestChatWithADamagedFirstLineIsListed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chats")
	s := newStoredChat(t, dir)
	const whole, torn, garbage, empty = "00000000000000e1", "00000000000000e2", "00000000000000e3", "00000000000000e4"
	s.turn(whole, "explain the store", fake.Say("It keeps chats."))
	s.turn(torn, "find\nthe   bug", fake.Say("Here."))
	file := func(id string) string { return filepath.Join(dir, id+".jsonl") }
	raw, err := os.ReadFile(file(torn))
	if err != nil {
		t.Fatal(err)
	}
	first, rest, _ := strings.Cut(string(raw), "\n")
	if err := os.WriteFile(file(torn), []byte(first[:len(first)/2]+"\n"+rest), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file(garbage), []byte("not a record\n{\"message\":\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file(empty), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	list, err := s.store.List()
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, c := range list {
		titles[c.ID] = c.Title
	}
	want := map[string]string{whole: "explain the store", torn: "(damaged) find the bug", garbage: "(damaged) " + garbage}
	if fmt.Sprint(titles) != fmt.Sprint(want) {
		t.Fatalf("the list's titles %v, want %v", titles, want)
	}
	if _, msgs, err := s.store.Load(torn); err != nil || len(msgs) != 2 {
		t.Fatalf("the damaged chat loads %d messages, %v", len(msgs), err)
	}
}
