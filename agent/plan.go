package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
)

// The plan tool is the chat's own, not a tools-registry tool: it touches no
// file and asks nothing. The model keeps the steps of a larger task in it,
// and the client shows them as ACP's plan — the user sees what the agent
// means to do and how far it got, and the plan outlives compaction.

const planToolName = "plan"

var planTool = providers.Tool{
	Name: planToolName,
	Description: `Show the user the steps of a task that takes several steps, and keep them current: call it with the whole list each time a step starts or ends. ` +
		`Each entry is {"content": what the step does, "status": "pending" | "in_progress" | "completed", "priority": "high" | "medium" | "low" (default medium)}. ` +
		`Skip it for a task of one or two steps.`,
	InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "entries": {
      "type": "array",
      "minItems": 1,
      "items": {
        "type": "object",
        "properties": {
          "content": {"type": "string"},
          "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
          "priority": {"type": "string", "enum": ["high", "medium", "low"]}
        },
        "required": ["content", "status"],
        "additionalProperties": false
      }
    }
  },
  "required": ["entries"],
  "additionalProperties": false
}`),
}

// parsePlan reads a plan call's entries, or returns the refusal saying
// what to send instead.
func parsePlan(input json.RawMessage) ([]acp.PlanEntry, string) {
	var a struct {
		Entries []struct {
			Content  string `json:"content"`
			Status   string `json:"status"`
			Priority string `json:"priority"`
		} `json:"entries"`
	}
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Sprintf("The plan's arguments do not fit (%v). Call plan with {\"entries\":[{\"content\":\"…\",\"status\":\"pending\"}]}.", err)
	}
	if len(a.Entries) == 0 {
		return nil, `The plan has no entries. Call plan with every step of the task, e.g. {"entries":[{"content":"…","status":"in_progress"}]}.`
	}
	out := make([]acp.PlanEntry, 0, len(a.Entries))
	for i, e := range a.Entries {
		status := acp.PlanEntryStatus(e.Status)
		switch status {
		case acp.PlanEntryStatusPending, acp.PlanEntryStatusInProgress, acp.PlanEntryStatusCompleted:
		default:
			return nil, fmt.Sprintf("entries[%d].status is %q, not pending, in_progress or completed. Call plan again with one of them.", i, e.Status)
		}
		prio := acp.PlanEntryPriority(e.Priority)
		switch prio {
		case "":
			prio = acp.PlanEntryPriorityMedium
		case acp.PlanEntryPriorityHigh, acp.PlanEntryPriorityMedium, acp.PlanEntryPriorityLow:
		default:
			return nil, fmt.Sprintf("entries[%d].priority is %q, not high, medium or low. Call plan again with one of them, or leave it out.", i, e.Priority)
		}
		if strings.TrimSpace(e.Content) == "" {
			return nil, fmt.Sprintf("entries[%d].content is empty. Call plan again saying what each step does.", i)
		}
		out = append(out, acp.PlanEntry{Content: e.Content, Status: status, Priority: prio})
	}
	return out, ""
}

// runPlan shows the plan the model sent and keeps it for compaction. It
// shows no tool call: the client shows the plan itself.
func (c *Chat) runPlan(ctx context.Context, use providers.Block, emit func(acp.SessionUpdate)) providers.Block {
	if ctx.Err() != nil {
		return providers.Block{Kind: providers.ToolResult, ToolID: use.ToolID, CallID: use.CallID, IsError: true, Text: notRunCancelled}
	}
	entries, refusal := parsePlan(use.Input)
	if refusal != "" {
		return providers.Block{Kind: providers.ToolResult, ToolID: use.ToolID, CallID: use.CallID, Text: refusal, IsError: true}
	}
	c.planMu.Lock()
	c.plan = entries
	c.planMu.Unlock()
	emit(acp.UpdatePlan(entries...))
	done := 0
	for _, e := range entries {
		if e.Status == acp.PlanEntryStatusCompleted {
			done++
		}
	}
	return providers.Block{Kind: providers.ToolResult, ToolID: use.ToolID, CallID: use.CallID, Text: fmt.Sprintf("The user sees the plan: %d of %d steps done.", done, len(entries))}
}

// planText is the current plan as the compaction summary keeps it; "" when
// there is none.
func (c *Chat) planText() string {
	c.planMu.Lock()
	defer c.planMu.Unlock()
	if len(c.plan) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("The plan the user sees (update it with the plan tool):")
	for _, e := range c.plan {
		fmt.Fprintf(&b, "\n- [%s] %s", e.Status, e.Content)
	}
	return b.String()
}
