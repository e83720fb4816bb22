package agent

import (
	"context"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
)

// The plan a model keeps reaches the client as ACP's plan update, not as a
// tool call; a malformed plan is refused with the call to send instead,
// and nothing is shown; a reloaded chat replays the plan and keeps it.
func TestPlanIsShownAsThePlan(t *testing.T) {
	ws := t.TempDir()
	store, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("p0", "plan", map[string]any{"entries": []any{map[string]any{"content": "find the bug", "status": "done"}}})),
		fake.Call(fake.Use("p1", "plan", map[string]any{"entries": []any{
			map[string]any{"content": "find the bug", "status": "completed", "priority": "high"},
			map[string]any{"content": "fix it", "status": "in_progress"},
		}})),
		fake.Say("Working on it."),
	}
	c := NewChat(Options{Session: openSession(ws), Provider: m, Endpoint: Endpoint{Provider: "test", Model: "m"}, Store: store})
	var u updates
	if _, err := c.Prompt(context.Background(), textPrompt("fix the bug"), u.emit); err != nil {
		t.Fatal(err)
	}
	if r := lastResult(m.Requests[1], "p0"); !strings.Contains(r, `entries[0].status is "done"`) || !strings.Contains(r, "Call plan again") {
		t.Fatalf("the bad plan's refusal: %q", r)
	}
	if r := lastResult(m.Requests[2], "p1"); r != "The user sees the plan: 1 of 2 steps done." {
		t.Fatalf("the plan's result: %q", r)
	}
	var plans []*acp.SessionUpdatePlan
	for _, x := range u.all {
		if x.Plan != nil {
			plans = append(plans, x.Plan)
		}
		if (x.ToolCall != nil && strings.HasPrefix(string(x.ToolCall.ToolCallId), "p")) ||
			(x.ToolCallUpdate != nil && strings.HasPrefix(string(x.ToolCallUpdate.ToolCallId), "p")) {
			t.Fatalf("a plan call was shown as a tool call: %+v", x)
		}
	}
	if len(plans) != 1 || len(plans[0].Entries) != 2 || plans[0].Entries[1].Priority != acp.PlanEntryPriorityMedium ||
		plans[0].Entries[0].Status != acp.PlanEntryStatusCompleted {
		t.Fatalf("plan updates: %+v", plans)
	}
	c.Close()

	again, err := ResumeChat(Options{Session: openSession(ws), Provider: m, Endpoint: Endpoint{Provider: "test", Model: "m"}, Store: store}, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	replayed := 0
	for _, x := range again.Replay() {
		if x.Plan != nil {
			replayed++
		}
		if x.ToolCallUpdate != nil && strings.HasPrefix(string(x.ToolCallUpdate.ToolCallId), "p") {
			t.Fatalf("the replay shows a plan call's result: %+v", x)
		}
	}
	if replayed != 1 || !strings.Contains(again.planText(), "- [in_progress] fix it") {
		t.Fatalf("replayed %d plans; kept plan %q", replayed, again.planText())
	}
}
