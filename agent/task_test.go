package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/tools"
)

// writeGreet makes greet.txt in ws.
func writeGreet(t *testing.T, ws string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(ws, "greet.txt"), []byte("hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readTag is the tag a read's result (the last message's, call id) shows.
func readTag(req providers.Request, id string) string {
	r := lastResult(req, id)
	if !strings.Contains(r, "#") {
		return ""
	}
	return r[strings.Index(r, "#")+1 : strings.Index(r, "]")]
}

// parentOf is the task call a tool call's update names as its parent.
func parentOf(meta map[string]any) string {
	t, _ := meta["tandem"].(map[string]any)
	p, _ := t["parent"].(string)
	return p
}

// A task runs a subagent on a fresh conversation — its first request
// holds only the task's prompt — with the read-only tools and no edit,
// write, bash or task; a call of a tool it lacks is refused and changes
// nothing; its calls are shown under the task's call; its final answer is
// the task's result; its cost counts in the chat's while the context meter
// stays the parent's; and a reopened chat shows its calls under the task.
func TestTaskRunsASubagentOnItsOwnContext(t *testing.T) {
	ws := t.TempDir()
	writeGreet(t, ws)
	store, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("t1", "task", map[string]any{"description": "find the greeting", "prompt": "Which file greets, and with what word?"})),
		fake.Call(fake.Use("r1", "read", map[string]any{"path": "greet.txt"}),
			fake.Use("x1", "edit", map[string]any{"files": []any{map[string]any{"path": "greet.txt", "deleteFile": true}}})),
		fake.Say("greet.txt says hello world."),
		fake.Say("The greeting is in greet.txt."),
	}
	opts := Options{Session: openSession(ws), Provider: m, Endpoint: Endpoint{Provider: "test", Model: "m"}, Store: store,
		Model: ModelInfo{Window: 200000, Price: Price{Input: 3, Output: 15, CacheRead: 0.3}}}
	c := NewChat(opts)
	var u updates
	if stop, err := c.Prompt(context.Background(), textPrompt("where is the greeting?"), u.emit); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("stop %q, err %v", stop, err)
	}
	if len(m.Requests) != 4 {
		t.Fatalf("%d model calls, want 4", len(m.Requests))
	}
	sub := m.Requests[1]
	if len(sub.Messages) != 1 || len(sub.Messages[0].Blocks) != 1 || sub.Messages[0].Blocks[0].Text != "Which file greets, and with what word?" {
		t.Fatalf("the subagent's first request holds more than its prompt: %+v", sub.Messages)
	}
	if sub.System == m.Requests[0].System || !strings.Contains(sub.System, "subagent") {
		t.Errorf("the subagent's system prompt: %q", sub.System)
	}
	var names []string
	for _, tool := range sub.Tools {
		names = append(names, tool.Name)
	}
	for _, name := range []string{"edit", "write", "bash", "task", "plan"} {
		if slices.Contains(names, name) {
			t.Errorf("the subagent has %s: %v", name, names)
		}
	}
	for _, name := range []string{"read", "grep", "glob", "fetch"} {
		if !slices.Contains(names, name) {
			t.Errorf("the subagent lacks %s: %v", name, names)
		}
	}
	if r := lastResult(m.Requests[2], "x1"); !strings.Contains(r, "A subagent has no edit tool") {
		t.Errorf("the subagent's edit: %q", r)
	}
	if _, err := os.Stat(filepath.Join(ws, "greet.txt")); err != nil {
		t.Fatalf("the subagent's edit ran: %v", err)
	}
	if r := lastResult(m.Requests[3], "t1"); r != "greet.txt says hello world." {
		t.Errorf("the task's result: %q", r)
	}
	if len(m.Requests[3].Messages) != 3 {
		t.Errorf("the subagent's conversation reached the parent's: %d messages", len(m.Requests[3].Messages))
	}
	nestedIDs := map[string]bool{}
	var subUsage *acp.SessionUsageUpdate
	for _, x := range u.all {
		switch {
		case x.ToolCall != nil && x.ToolCall.ToolCallId == "t1":
			if x.ToolCall.Title != "Subagent: find the greeting" || parentOf(x.ToolCall.Meta) != "" {
				t.Errorf("the task's card: %+v", x.ToolCall)
			}
		case x.ToolCall != nil:
			nestedIDs[string(x.ToolCall.ToolCallId)] = parentOf(x.ToolCall.Meta) == "t1"
		case x.UsageUpdate != nil && x.UsageUpdate.Meta["tandem"].(map[string]any)["subagent"] == true:
			subUsage = x.UsageUpdate
		}
	}
	if !nestedIDs["r1"] || !nestedIDs["x1"] {
		t.Errorf("the subagent's calls are not under the task: %v", nestedIDs)
	}
	if got := u.statuses("t1"); len(got) == 0 || got[len(got)-1] != acp.ToolCallStatusCompleted {
		t.Errorf("the task's statuses: %v", got)
	}
	// Two answers of 100 input, 10 output and 50 cached tokens: the
	// parent's and the subagent's, at 465 micro-dollars each.
	if last := u.lastUsage(); last == nil || last.Cost == nil || last.Cost.Amount < 929e-6 || last.Cost.Amount > 931e-6 || last.Used != 160 {
		t.Errorf("the turn's usage: %+v", last)
	}
	if subUsage == nil || subUsage.Used != 0 {
		t.Errorf("the subagent's usage moved the parent's context meter: %+v", subUsage)
	}
	c.Close()

	again, err := ResumeChat(Options{Session: openSession(ws), Provider: m, Endpoint: opts.Endpoint, Store: store}, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	var order []string
	for _, x := range again.Replay() {
		switch {
		case x.ToolCall != nil:
			order = append(order, "start "+string(x.ToolCall.ToolCallId)+" under "+parentOf(x.ToolCall.Meta))
		case x.ToolCallUpdate != nil:
			order = append(order, "end "+string(x.ToolCallUpdate.ToolCallId)+" under "+parentOf(x.ToolCallUpdate.Meta))
		}
	}
	want := []string{"start t1 under ", "start r1 under t1", "start x1 under t1", "end r1 under t1", "end x1 under t1", "end t1 under "}
	if !slices.Equal(order, want) {
		t.Errorf("the replay's calls:\n%v\nwant\n%v", order, want)
	}
}

// TestLaw_parent_edit_on_lines_only_its_subagent_read_is_unseen: the
// subagent's reads are not the parent's: an edit by the parent anchored on
// the tag only its subagent was shown is refused as unseen and changes
// nothing, while the same edit after the parent's own read lands.
func TestLaw_parent_edit_on_lines_only_its_subagent_read_is_unseen(t *testing.T) {
	ws := t.TempDir()
	writeGreet(t, ws)
	var subTag string
	edit := func(id string) func(providers.Request) providers.Response {
		return func(req providers.Request) providers.Response {
			return fake.Call(fake.Use(id, "edit", map[string]any{"files": []any{map[string]any{"path": "greet.txt", "tag": subTag,
				"ops": []any{map[string]any{"replace": "2:world", "text": "tandem"}}}}}))(req)
		}
	}
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("t1", "task", map[string]any{"description": "read greet", "prompt": "Show greet.txt's tag."})),
		fake.Call(fake.Use("r1", "read", map[string]any{"path": "greet.txt"})),
		func(req providers.Request) providers.Response {
			subTag = readTag(req, "r1")
			return fake.Say("greet.txt's tag is " + subTag)(req)
		},
		edit("e1"),
		fake.Call(fake.Use("r2", "read", map[string]any{"path": "greet.txt"})),
		edit("e2"),
		fake.Say("Done."),
	}
	c := newTestChat(t, ws, m, nil)
	if _, err := c.Prompt(context.Background(), textPrompt("greet tandem"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	if subTag == "" {
		t.Fatal("the subagent's read showed no tag")
	}
	if r := lastResult(m.Requests[4], "e1"); !strings.Contains(r, "NOT applied") || !strings.Contains(r, "is not a version of greet.txt you have seen") {
		t.Fatalf("the parent's edit on lines only its subagent read was not refused as unseen: %q", r)
	}
	if r := lastResult(m.Requests[6], "e2"); !strings.Contains(r, "Applied to greet.txt") {
		t.Fatalf("the parent's edit after its own read: %q", r)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "greet.txt")); string(b) != "hello\ntandem\n" {
		t.Fatalf("file: %q", b)
	}
}

// Stop ends the subagent at once: a stop while it works ends its turn and
// the parent's, the task's call fails, and no model call follows.
func TestStopEndsTheSubagent(t *testing.T) {
	ws := t.TempDir()
	writeGreet(t, ws)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("t1", "task", map[string]any{"description": "read greet", "prompt": "Read greet.txt."})),
		func(req providers.Request) providers.Response {
			cancel() // the user stops while the subagent's model answers
			return fake.Call(fake.Use("r1", "read", map[string]any{"path": "greet.txt"}))(req)
		},
		fake.Say("never asked"),
	}
	c := newTestChat(t, ws, m, nil)
	var u updates
	stop, err := c.Prompt(ctx, textPrompt("read"), u.emit)
	if err != nil || stop != acp.StopReasonCancelled {
		t.Fatalf("stop %q, err %v", stop, err)
	}
	if len(m.Requests) != 2 {
		t.Errorf("%d model calls after the stop, want 2", len(m.Requests))
	}
	if got := u.statuses("t1"); len(got) == 0 || got[len(got)-1] != acp.ToolCallStatusFailed {
		t.Errorf("the task's statuses: %v", got)
	}
	if got := u.statuses("r1"); len(got) > 0 && got[len(got)-1] == acp.ToolCallStatusCompleted {
		t.Errorf("the subagent's read ran after the stop: %v", got)
	}
}

// A question a subagent's call asked is answered in the subagent's card:
// a reopened chat shows the answer under the task's call, after the call
// it belongs to, never as a call of its own before it.
func TestSubagentAnswerReplaysUnderItsCall(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home) // a key under it is a secret: its read is asked
	secret := filepath.Join(home, ".ssh", "id_notes")
	if err := os.MkdirAll(filepath.Dir(secret), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("not a real key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	store, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("t1", "task", map[string]any{"description": "read the notes", "prompt": "Read the notes."})),
		fake.Call(fake.Use("r1", "read", map[string]any{"path": secret})),
		fake.Say("The notes say outside."),
		fake.Say("Done."),
	}
	asked := 0
	open := func() *tools.Session {
		return tools.Open(tools.Options{Roots: []string{ws}, Asker: approvals.AskerFunc(func(context.Context, approvals.Question) approvals.Answer {
			asked++
			return approvals.AllowOnce
		})})
	}
	opts := Options{Session: open(), Provider: m, Endpoint: Endpoint{Provider: "test", Model: "m"}, Store: store}
	c := NewChat(opts)
	if _, err := c.Prompt(context.Background(), textPrompt("read the notes"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	if asked != 1 || lastResult(m.Requests[2], "r1") == "" || strings.Contains(lastResult(m.Requests[2], "r1"), "NOT") {
		t.Fatalf("asked %d; the read: %q", asked, lastResult(m.Requests[2], "r1"))
	}
	c.Close()
	opts.Session = open()
	again, err := ResumeChat(opts, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	var order []string
	for _, x := range again.Replay() {
		switch {
		case x.ToolCall != nil:
			order = append(order, "start "+string(x.ToolCall.ToolCallId)+" under "+parentOf(x.ToolCall.Meta))
		case x.ToolCallUpdate != nil && x.ToolCallUpdate.Meta["tandem"] != nil && x.ToolCallUpdate.Meta["tandem"].(map[string]any)["answer"] != nil:
			order = append(order, "answer "+string(x.ToolCallUpdate.ToolCallId)+" under "+parentOf(x.ToolCallUpdate.Meta))
		}
	}
	want := []string{"start t1 under ", "start r1 under t1", "answer r1 under t1"}
	if !slices.Equal(order, want) {
		t.Errorf("the replay:\n%v\nwant\n%v", order, want)
	}
}

// Tasks of one response run side by side, as many as maxTasksAtOnce at a
// time and never more; each answer comes back under its own call. The
// updates reach a handler that is not safe for concurrent use one at a
// time (the race detector checks it).
func TestTasksRunSideBySide(t *testing.T) {
	ws := t.TempDir()
	const tasks = maxTasksAtOnce + 1
	var mu sync.Mutex
	active, most, arrived := 0, 0, 0
	full := make(chan struct{}) // maxTasksAtOnce subagents are running
	subagent := func(req providers.Request) providers.Response {
		mu.Lock()
		active++
		arrived++
		most = max(most, active)
		if arrived == maxTasksAtOnce {
			close(full)
		}
		mu.Unlock()
		select {
		case <-full:
		case <-time.After(2 * time.Second):
		}
		time.Sleep(100 * time.Millisecond) // one more, unbounded, would start meanwhile
		mu.Lock()
		active--
		mu.Unlock()
		return fake.Say("found " + req.Messages[0].Blocks[0].Text)(req)
	}
	var calls []providers.Block
	m := &fake.Model{}
	for i := range tasks {
		calls = append(calls, fake.Use(fmt.Sprintf("t%d", i), "task", map[string]any{"description": "look", "prompt": fmt.Sprintf("part %d", i)}))
		m.Responses = append(m.Responses, subagent)
	}
	m.Responses = append([]func(providers.Request) providers.Response{fake.Call(calls...)}, m.Responses...)
	m.Responses = append(m.Responses, fake.Say("All parts found."))
	c := NewChat(Options{Session: openSession(ws), Provider: m, Endpoint: Endpoint{Provider: "test", Model: "m"}})
	defer c.Close()
	var got []acp.SessionUpdate // appended without a lock
	if _, err := c.Prompt(context.Background(), textPrompt("find every part"), func(u acp.SessionUpdate) { got = append(got, u) }); err != nil {
		t.Fatal(err)
	}
	if most != maxTasksAtOnce {
		t.Errorf("at most %d subagents ran at once, want %d", most, maxTasksAtOnce)
	}
	last := m.Requests[len(m.Requests)-1]
	for i := range tasks {
		if r := lastResult(last, fmt.Sprintf("t%d", i)); r != fmt.Sprintf("found part %d", i) {
			t.Errorf("task t%d's result: %q", i, r)
		}
	}
	if len(got) == 0 {
		t.Fatal("no updates")
	}
}
