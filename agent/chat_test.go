package agent

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/acpserver/acptest"
	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/agent/providers/scripted"
	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/tools"
)

// lastResult is the text of the tool result with id in the last request.
func lastResult(req providers.Request, id string) string {
	for _, b := range req.Messages[len(req.Messages)-1].Blocks {
		if b.Kind == providers.ToolResult && b.ToolID == id {
			return b.Text
		}
	}
	return ""
}

type updates struct {
	mu  sync.Mutex
	all []acp.SessionUpdate
}

func (u *updates) emit(x acp.SessionUpdate) { u.mu.Lock(); u.all = append(u.all, x); u.mu.Unlock() }

func (u *updates) text() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	var b strings.Builder
	for _, x := range u.all {
		if x.AgentMessageChunk != nil && x.AgentMessageChunk.Content.Text != nil {
			b.WriteString(x.AgentMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// diff is the first diff content of a call's updates.
func (u *updates) diff(id string) *acp.ToolCallContentDiff {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, x := range u.all {
		if x.ToolCallUpdate != nil && string(x.ToolCallUpdate.ToolCallId) == id {
			for _, c := range x.ToolCallUpdate.Content {
				if c.Diff != nil {
					return c.Diff
				}
			}
		}
	}
	return nil
}

func (u *updates) lastUsage() *acp.SessionUsageUpdate {
	u.mu.Lock()
	defer u.mu.Unlock()
	var last *acp.SessionUsageUpdate
	for _, x := range u.all {
		if x.UsageUpdate != nil {
			last = x.UsageUpdate
		}
	}
	return last
}

func (u *updates) statuses(id string) []acp.ToolCallStatus {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []acp.ToolCallStatus
	for _, x := range u.all {
		switch {
		case x.ToolCall != nil && string(x.ToolCall.ToolCallId) == id:
			out = append(out, x.ToolCall.Status)
		case x.ToolCallUpdate != nil && string(x.ToolCallUpdate.ToolCallId) == id && x.ToolCallUpdate.Status != nil:
			out = append(out, *x.ToolCallUpdate.Status)
		}
	}
	return out
}

func newTestChat(t *testing.T, ws string, m *fake.Model, asker approvals.Asker) *Chat {
	t.Helper()
	c := NewChat(Options{Session: tools.Open(tools.Options{Roots: []string{ws}, Asker: asker}), Provider: m,
		Endpoint: Endpoint{Provider: "test", Model: "m"}, System: SystemPrompt([]string{ws}), Model: ModelInfo{Window: 200000, Price: Price{Input: 3, Output: 15, CacheRead: 0.3}}})
	t.Cleanup(c.Close)
	return c
}

func textPrompt(s string) []acp.ContentBlock { return []acp.ContentBlock{acp.TextBlock(s)} }

// A turn reads a file, edits it with the tag the read showed, and answers:
// each call is reported pending, in progress and completed, the file holds
// the edit, the model got each result, and the roster and system prompt
// were the same in every request.
func TestTurnReadsEditsAndAnswers(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "greet.txt"), []byte("hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("r1", "read", map[string]any{"path": "greet.txt"})),
		func(req providers.Request) providers.Response {
			read := lastResult(req, "r1")
			tag := read[strings.Index(read, "#")+1 : strings.Index(read, "]")]
			return fake.Call(fake.Use("e1", "edit", map[string]any{"files": []any{map[string]any{"path": "greet.txt", "tag": tag,
				"ops": []any{map[string]any{"replace": "2:world", "text": "tandem"}}}}}))(req)
		},
		fake.Say("Changed world to tandem."),
	}
	c := newTestChat(t, ws, m, nil)
	var u updates
	stop, err := c.Prompt(context.Background(), textPrompt("greet tandem"), u.emit)
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("stop %q, err %v", stop, err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "greet.txt")); string(b) != "hello\ntandem\n" {
		t.Fatalf("file: %q", b)
	}
	if got := u.text(); got != "Changed world to tandem." {
		t.Fatalf("answer %q", got)
	}
	for _, id := range []string{"r1", "e1"} {
		want := []acp.ToolCallStatus{acp.ToolCallStatusPending, acp.ToolCallStatusInProgress, acp.ToolCallStatusCompleted}
		if got := u.statuses(id); strings.Join(statusText(got), ",") != strings.Join(statusText(want), ",") {
			t.Errorf("%s statuses %v", id, got)
		}
	}
	if d := u.diff("e1"); d == nil || d.Path != filepath.Join(ws, "greet.txt") || *d.OldText != "hello\nworld\n" || d.NewText != "hello\ntandem\n" {
		t.Errorf("the edit's diff: %+v", d)
	}
	if last := u.lastUsage(); last == nil || last.Used != 160 || last.Size != 200000 || last.Cost == nil || last.Cost.Amount < 464e-6 || last.Cost.Amount > 466e-6 {
		t.Errorf("usage: %+v", last)
	}
	if !strings.Contains(lastResult(m.Requests[2], "e1"), "Applied to greet.txt") {
		t.Errorf("the model did not get the edit's reply: %+v", m.Requests[2].Messages)
	}
	for _, req := range m.Requests[1:] {
		if req.System != m.Requests[0].System || len(req.Tools) != len(m.Requests[0].Tools) {
			t.Fatal("the system prompt or roster changed within the chat")
		}
	}
}

func statusText(s []acp.ToolCallStatus) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = string(x)
	}
	return out
}

// Stop stops: cancelling while a bash step runs kills its process, the
// turn returns cancelled at once, and no later call starts.
func TestStopEndsARunningToolAtOnce(t *testing.T) {
	ws := t.TempDir()
	arg := "30." + strconv.FormatInt(time.Now().UnixNano(), 10) // a sleep no other test runs
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("b1", "bash", map[string]any{"command": "sleep " + arg + "; touch after-sleep"}), fake.Use("b2", "bash", map[string]any{"command": "touch second"})),
		fake.Say("never reached"),
	}
	c := newTestChat(t, ws, m, nil)
	var u updates
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan acp.StopReason, 1)
	go func() {
		stop, _ := c.Prompt(ctx, textPrompt("run it"), u.emit)
		done <- stop
	}()
	// The kernel tells no one of a process starting: /proc is looked at.
	acptest.Eventually(t, "the step's sleep", func() bool { return acptest.Running("sleep", arg) })
	start := time.Now()
	cancel()
	// The bounds are real time (the step is a real process), far under the
	// 30 s the sleep would take if stop waited for it; a loaded machine may
	// take a while to schedule the kill.
	select {
	case stop := <-done:
		if stop != acp.StopReasonCancelled {
			t.Fatalf("stop %q", stop)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the turn did not end after stop")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the turn ended %v after stop", d)
	}
	if acptest.Running("sleep", arg) {
		t.Error("the step's process outlived the turn")
	}
	// The turn returned after its calls did, and a bash call returns once
	// its run has ended: nothing of the turn can run after this.
	for _, f := range []string{"after-sleep", "second"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err == nil {
			t.Errorf("%s ran after stop", f)
		}
	}
	if len(m.Requests) != 1 {
		t.Errorf("%d model calls, want 1", len(m.Requests))
	}
}

// Stop while the model streams ends the call and the turn.
func TestStopEndsTheStream(t *testing.T) {
	m := &fake.Model{Block: true}
	m.Responses = []func(providers.Request) providers.Response{fake.Say("partial")}
	c := newTestChat(t, t.TempDir(), m, nil)
	ctx, cancel := context.WithCancel(context.Background())
	stop, err := c.Prompt(ctx, textPrompt("hi"), func(u acp.SessionUpdate) {
		if u.AgentMessageChunk != nil { // the model is streaming, and now waits
			cancel()
		}
	})
	if stop != acp.StopReasonCancelled || err != nil {
		t.Fatalf("stop %q err %v", stop, err)
	}
}

// The tool-call limit stops a turn with max_turn_requests, and the calls
// not run are answered so the chat can go on.
func TestToolCallLimit(t *testing.T) {
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("g1", "glob", map[string]any{"pattern": "*"})),
		fake.Call(fake.Use("g2", "glob", map[string]any{"pattern": "*"}), fake.Use("g3", "glob", map[string]any{"pattern": "*"})),
		fake.Say("ok"),
	}
	c := newTestChat(t, t.TempDir(), m, nil)
	c.opts.MaxToolCalls = 2
	stop, err := c.Prompt(context.Background(), textPrompt("look"), func(acp.SessionUpdate) {})
	if stop != acp.StopReasonMaxTurnRequests || err != nil {
		t.Fatalf("stop %q err %v", stop, err)
	}
	stop, err = c.Prompt(context.Background(), textPrompt("go on"), func(acp.SessionUpdate) {})
	if stop != acp.StopReasonEndTurn || err != nil {
		t.Fatalf("the next turn: stop %q err %v", stop, err)
	}
	last := m.Requests[len(m.Requests)-1].Messages
	if r := last[len(last)-2]; r.Role != providers.User || !strings.Contains(r.Blocks[0].Text, "limit of 2 tool calls") {
		t.Fatalf("the unrun calls were not answered: %+v", r)
	}
}

// A step that needs the user's yes is asked through the session's asker;
// a denial reaches the model as the refusal, and the step did not run.
func TestDeniedStepReachesTheModel(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_test"), []byte("SECRET KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("s1", "bash", map[string]any{"command": "cat ~/.ssh/id_test"})),
		fake.Say("The user said no."),
	}
	asked := 0
	c := newTestChat(t, ws, m, approvals.AskerFunc(func(context.Context, approvals.Question) approvals.Answer {
		asked++
		return approvals.Deny
	}))
	stop, err := c.Prompt(context.Background(), textPrompt("show the key"), func(acp.SessionUpdate) {})
	if stop != acp.StopReasonEndTurn || err != nil || asked != 1 {
		t.Fatalf("stop %q err %v asked %d", stop, err, asked)
	}
	res := lastResult(m.Requests[1], "s1")
	if !strings.Contains(res, "denied") || strings.Contains(res, "SECRET KEY") {
		t.Fatalf("the model got: %s", res)
	}
}

// In plan mode only reading runs: an edit and a writing step are refused
// at once (plan_mode, nobody asked, nothing changed), a reading step runs,
// and the model is told in the prompt.
func TestPlanModeRunsOnlyReading(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("w1", "write", map[string]any{"path": "b.txt", "content": "x\n"}),
			fake.Use("b1", "bash", map[string]any{"command": "touch c.txt"}),
			fake.Use("b2", "bash", map[string]any{"command": "cat a.txt"})),
		fake.Say("Here is my plan."),
	}
	asked := 0
	c := newTestChat(t, ws, m, approvals.AskerFunc(func(context.Context, approvals.Question) approvals.Answer { asked++; return approvals.AllowOnce }))
	c.SetPlanMode(true)
	if stop, err := c.Prompt(context.Background(), textPrompt("plan it"), func(acp.SessionUpdate) {}); stop != acp.StopReasonEndTurn || err != nil {
		t.Fatalf("stop %q err %v", stop, err)
	}
	req := m.Requests[1]
	for _, id := range []string{"w1", "b1"} {
		if r := lastResult(req, id); !strings.Contains(r, "plan mode runs only steps that read") {
			t.Errorf("%s: %s", id, r)
		}
	}
	if r := lastResult(req, "b2"); !strings.Contains(r, "one") {
		t.Errorf("the reading step: %s", r)
	}
	for _, f := range []string{"b.txt", "c.txt"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err == nil {
			t.Errorf("%s was made in plan mode", f)
		}
	}
	if asked != 0 {
		t.Errorf("plan mode asked %d questions", asked)
	}
	if first := m.Requests[0].Messages[0].Blocks[0].Text; first != planModeNote([]string{"fetch", "glob", "grep", "read", "task"}) {
		t.Errorf("the model was not told: %q", first)
	}
	c.SetPlanMode(false)
	m.Responses = append(m.Responses, fake.Call(fake.Use("w2", "write", map[string]any{"path": "b.txt", "content": "x\n"})), fake.Say("done"))
	if _, err := c.Prompt(context.Background(), textPrompt("do it"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "b.txt")); err != nil {
		t.Error("after plan mode the write did not run")
	}
}

// waitNoticed waits until the chat's watcher has taken an event for one of
// its files. The watcher's state is looked at until it shows one: it
// signals nothing, and a test needs no hook in it for this.
func waitNoticed(t *testing.T, c *Chat) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		c.watch.mu.Lock()
		n := len(c.watch.dirty)
		c.watch.mu.Unlock()
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the watcher noticed no change")
		}
	}
}

func openSession(ws string) *tools.Session { return tools.Open(tools.Options{Roots: []string{ws}}) }

// A file the chat read that someone else changes is named to the model at
// its next request, once; the agent's own edit of a file is not.
func TestModelIsToldOfFilesChangedUnderIt(t *testing.T) {
	ws := t.TempDir()
	for _, f := range []string{"theirs.txt", "ours.txt"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("one\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("r1", "read", map[string]any{"path": "theirs.txt"}), fake.Use("r2", "read", map[string]any{"path": "ours.txt"})),
		fake.Call(fake.Use("w1", "write", map[string]any{"path": "ours.txt", "content": "agent\n"})),
		fake.Say("read both"),
		fake.Say("noted"),
		fake.Say("nothing new"),
	}
	c := newTestChat(t, ws, m, nil)
	if _, err := c.Prompt(context.Background(), textPrompt("read them"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "theirs.txt"), []byte("changed by the user\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitNoticed(t, c)
	if _, err := c.Prompt(context.Background(), textPrompt("again"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	note := changeNote([]string{"theirs.txt"})
	user := m.Requests[3].Messages[len(m.Requests[3].Messages)-1]
	if last := user.Blocks[len(user.Blocks)-1]; last.Text != note {
		t.Fatalf("the model was not told: %+v", user.Blocks)
	}
	// The same bytes saved again are no new change.
	if err := os.WriteFile(filepath.Join(ws, "theirs.txt"), []byte("changed by the user\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitNoticed(t, c) // else the check below could pass before the event came
	if _, err := c.Prompt(context.Background(), textPrompt("and now"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	for _, b := range m.Requests[4].Messages[len(m.Requests[4].Messages)-1].Blocks {
		if strings.Contains(b.Text, "Changed since") {
			t.Fatalf("told twice: %q", b.Text)
		}
	}
}

// A read of several parts is titled with every path it names, and watches
// each file among them: a change to one is told, and a part refused because
// its file does not exist is never told as deleted.
func TestReadOfSeveralPartsIsTitledAndWatchedPerFile(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "theirs.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("r1", "read", map[string]any{"paths": []any{"theirs.txt", map[string]any{"path": "missing.txt", "lines": "1"}}})),
		fake.Say("read"),
		fake.Say("noted"),
	}
	c := newTestChat(t, ws, m, nil)
	var title string
	if _, err := c.Prompt(context.Background(), textPrompt("read them"), func(u acp.SessionUpdate) {
		if u.ToolCall != nil {
			title = u.ToolCall.Title
		}
	}); err != nil {
		t.Fatal(err)
	}
	if title != "Read theirs.txt, missing.txt" {
		t.Fatalf("the read's title is %q", title)
	}
	if err := os.WriteFile(filepath.Join(ws, "theirs.txt"), []byte("changed by the user\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitNoticed(t, c)
	// Every watched file is checked, as after an overflow of events.
	c.watch.mu.Lock()
	for f := range c.watch.files {
		c.watch.dirty[f] = true
	}
	c.watch.mu.Unlock()
	if _, err := c.Prompt(context.Background(), textPrompt("again"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	user := m.Requests[2].Messages[len(m.Requests[2].Messages)-1]
	if last := user.Blocks[len(user.Blocks)-1]; last.Text != changeNote([]string{"theirs.txt"}) {
		t.Fatalf("want the model told of theirs.txt alone: %+v", user.Blocks)
	}
}

// Near the window, the turns before the current one are replaced by the
// model's summary, which names the files read with their tags and keeps the
// plan the user sees; the system prompt is kept, the client is told, and a
// stored chat loads compacted.
func TestCompactionSummarisesOlderTurns(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	full := func(text string) func(providers.Request) providers.Response {
		return func(r providers.Request) providers.Response {
			resp := fake.Say(text)(r)
			resp.Usage = providers.Usage{Input: 900}
			return resp
		}
	}
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("r1", "read", map[string]any{"path": "a.txt"}),
			fake.Use("p1", "plan", map[string]any{"entries": []any{map[string]any{"content": "report on a.txt", "status": "in_progress"}}})),
		full("read it"),
		fake.Say("SUMMARY: the user had a.txt read."),
		fake.Say("next answer"),
	}
	c := NewChat(Options{Session: openSession(ws), Provider: m, Endpoint: Endpoint{Provider: "test", Model: "m"},
		Model: ModelInfo{Window: 1000}, Store: store})
	defer c.Close()
	if _, err := c.Prompt(context.Background(), textPrompt("read a"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	var u updates
	if _, err := c.Prompt(context.Background(), textPrompt("go on"), u.emit); err != nil {
		t.Fatal(err)
	}
	sum := m.Requests[2]
	if len(sum.Tools) != 0 || sum.Messages[len(sum.Messages)-1].Blocks[0].Text != summarise {
		t.Fatalf("the summary request: %+v", sum)
	}
	next := m.Requests[3]
	first := next.Messages[0].Blocks[0].Text
	if len(next.Messages) != 2 || !strings.Contains(first, "SUMMARY: the user had a.txt read.") || !strings.Contains(first, "a.txt#") ||
		!strings.Contains(first, "- [in_progress] report on a.txt") || next.System != m.Requests[0].System {
		t.Fatalf("after compaction the model got %d messages, first %q", len(next.Messages), first)
	}
	told := false
	for _, x := range u.all {
		if x.AgentThoughtChunk != nil && x.AgentThoughtChunk.Meta != nil {
			told = true
		}
	}
	if !told {
		t.Fatal("the client was not told of the compaction")
	}
	_, msgs, err := store.Load(c.ID)
	if err != nil || len(msgs) != 3 || !strings.Contains(msgs[0].Blocks[0].Text, "SUMMARY") {
		t.Fatalf("the stored chat loads %d messages (%v), want the summary, the prompt and the answer", len(msgs), err)
	}
}

// A response the provider paused is continued in the same turn.
func TestPausedResponseIsContinued(t *testing.T) {
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		func(r providers.Request) providers.Response {
			resp := fake.Say("first half, ")(r)
			resp.Stop = providers.Paused
			return resp
		},
		fake.Say("second half."),
	}
	c := newTestChat(t, t.TempDir(), m, nil)
	var u updates
	if stop, err := c.Prompt(context.Background(), textPrompt("long"), u.emit); stop != acp.StopReasonEndTurn || err != nil {
		t.Fatalf("stop %q err %v", stop, err)
	}
	if got := u.text(); got != "first half, second half." || len(m.Requests) != 2 {
		t.Fatalf("answer %q after %d calls", got, len(m.Requests))
	}
}

// A provider refusing the key is one sentence naming the variable to set.
func TestRefusedKeyNamesTheVariable(t *testing.T) {
	srv, err := scripted.Start(scripted.Script{Format: scripted.OpenAIChat, Responses: []scripted.Response{{Status: 401}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	end := Endpoint{Provider: "work", API: APIOpenAIChat, URL: srv.URL(), Key: "wrong", KeyEnv: "WORK_KEY", Model: "m"}
	c := NewChat(Options{Session: openSession(t.TempDir()), Provider: NewProvider(end, 0), Endpoint: end})
	defer c.Close()
	_, err = c.Prompt(context.Background(), textPrompt("hi"), func(acp.SessionUpdate) {})
	if err == nil || err.Error() != "work refused the API key in WORK_KEY; set WORK_KEY to a valid key where tandem is started" {
		t.Fatalf("err: %v", err)
	}
	if len(srv.Requests()) != 1 {
		t.Fatalf("a refused key was tried %d times", len(srv.Requests()))
	}
}

// Every tool's call starts with a kind ACP knows, so an editor can show it.
func TestEveryToolCallStartsWithAnACPKind(t *testing.T) {
	known := []acp.ToolKind{acp.ToolKindRead, acp.ToolKindEdit, acp.ToolKindDelete, acp.ToolKindMove, acp.ToolKindSearch,
		acp.ToolKindExecute, acp.ToolKindThink, acp.ToolKindFetch, acp.ToolKindSwitchMode, acp.ToolKindOther}
	s := tools.Open(tools.Options{Roots: []string{t.TempDir()}})
	defer s.Close()
	for _, tl := range tools.List(s) {
		u := toolCallStarted(providers.Block{Kind: providers.ToolUse, ToolID: "c1", ToolName: tl.Name, Input: tl.Examples[0]}, s.Roots)
		if u.ToolCall == nil || !slices.Contains(known, u.ToolCall.Kind) {
			t.Errorf("%s starts as %+v; want one of ACP's kinds", tl.Name, u.ToolCall)
		}
	}
}

// A tool call's locations are absolute paths, live and when the chat is
// replayed (session/load): ACP's paths are absolute, and editors take a
// location for the file's path, so the model's relative path is resolved
// as the tool resolves it.
func TestToolCallLocationsAreAbsolute(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "sub", "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "b.txt")
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("r1", "read", map[string]any{"path": "sub/a.txt"})),
		fake.Call(fake.Use("w1", "write", map[string]any{"path": elsewhere, "content": "two\n"})),
		fake.Say("done"),
	}
	c := newTestChat(t, ws, m, nil)
	var live []acp.SessionUpdate
	if _, err := c.Prompt(context.Background(), textPrompt("go"), func(u acp.SessionUpdate) { live = append(live, u) }); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"r1": filepath.Join(ws, "sub", "a.txt"), "w1": elsewhere}
	for name, us := range map[string][]acp.SessionUpdate{"live": live, "replayed": c.Replay()} {
		got := map[string]string{}
		for _, u := range us {
			if u.ToolCall != nil {
				for _, l := range u.ToolCall.Locations {
					got[string(u.ToolCall.ToolCallId)] += l.Path
				}
			}
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s tool call locations %v; want %v", name, got, want)
		}
	}
}
