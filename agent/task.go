package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/refusal"
	"github.com/tandemdev/tandem/tools"
)

// The task tool is the chat's own, like plan: it starts a subagent, a
// sub-turn with a conversation of its own on the read-only tools, so the
// model can search and read widely without filling its own context. Only
// the subagent's final answer comes back. The subagent has its own seen
// store (tools.Session.Sub): an edit by the parent anchored on lines only
// the subagent read is refused as unseen.

const taskToolName = "task"

// maxTaskAnswer bounds the subagent's answer the parent's model gets, in
// bytes; a longer one is cut, and says so.
const maxTaskAnswer = 20000

var taskTool = providers.Tool{
	Name: taskToolName,
	Description: `Start a subagent to search and read for you, and get back only its final answer: use it for a question that needs many reads or searches (where is X handled, which files use Y, how does Z work), so they do not fill your context. ` +
		`Several task calls in one response run side by side: split independent questions into one task each. ` +
		`The subagent starts fresh: it sees only your prompt, not this conversation, so say everything it needs and what its answer should contain (paths and line numbers). ` +
		`It can read, grep, glob and fetch, never change files or run commands. Lines it read are not lines you have seen: read them yourself before you edit them. ` +
		fmt.Sprintf(`Its answer is cut at %d bytes. `, maxTaskAnswer) +
		`{"description": 3 to 5 words the user sees, "prompt": the subagent's task}.`,
	InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "description": {"type": "string", "description": "3 to 5 words the user sees"},
    "prompt": {"type": "string", "description": "the task, with all the subagent needs to know"}
  },
  "required": ["description", "prompt"],
  "additionalProperties": false
}`),
}

type taskArgs struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
}

// parseTask reads a task call's arguments, or returns the refusal saying
// what to send instead.
func parseTask(input json.RawMessage) (taskArgs, string) {
	var a taskArgs
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, fmt.Sprintf("The task's arguments do not fit (%v). Call task with {\"description\":\"…\",\"prompt\":\"…\"}.", err)
	}
	if strings.TrimSpace(a.Prompt) == "" {
		return a, `The task has no prompt. Call task again with {"description":"…","prompt":"what the subagent should find out"}.`
	}
	return a, ""
}

// taskTitle is what the user reads of a task call.
func taskTitle(input json.RawMessage) string {
	var a taskArgs
	_ = json.Unmarshal(input, &a)
	if a.Description == "" {
		return "Subagent"
	}
	return "Subagent: " + a.Description
}

// subagentSystem is the subagent's system prompt.
func subagentSystem(roots, names []string) string {
	return "You are a subagent of tandem's coding agent: it gave you one task, to search and read for it. " +
		"You have only these tools: " + strings.Join(names, ", ") + "; you cannot change files or run commands, and you cannot start another subagent. " +
		"Work until you can answer, then end with your final answer as text: it is all the other agent gets of your work, so make it complete and concise — " +
		"the facts found, with paths and line numbers, and what you could not find.\n\nWorkspace roots: " + strings.Join(roots, ", ") + "\n"
}

// nested tags the subagent's tool calls with the task's call, so a client
// shows them under it: ACP has no nesting, so _meta.tandem.parent names it.
func nested(parent string, emit func(acp.SessionUpdate)) func(acp.SessionUpdate) {
	tag := func(meta map[string]any) map[string]any {
		if meta == nil {
			meta = map[string]any{}
		}
		t, _ := meta["tandem"].(map[string]any)
		if t == nil {
			t = map[string]any{}
		}
		t["parent"] = parent
		meta["tandem"] = t
		return meta
	}
	return func(u acp.SessionUpdate) {
		switch {
		case u.ToolCall != nil:
			u.ToolCall.Meta = tag(u.ToolCall.Meta)
		case u.ToolCallUpdate != nil:
			u.ToolCallUpdate.Meta = tag(u.ToolCallUpdate.Meta)
		}
		emit(u)
	}
}

// runTask runs a task call: the subagent's turn, shown under the call, and
// its answer as the call's result.
func (c *Chat) runTask(ctx context.Context, use providers.Block, emit func(acp.SessionUpdate)) providers.Block {
	id := acp.ToolCallId(callID(use))
	done := func(text string, isError bool) providers.Block {
		status := acp.ToolCallStatusCompleted
		if isError {
			status = acp.ToolCallStatusFailed
		}
		emit(acp.UpdateToolCall(id, acp.WithUpdateStatus(status), acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(text))})))
		return providers.Block{Kind: providers.ToolResult, ToolID: use.ToolID, CallID: use.CallID, Text: text, IsError: isError}
	}
	if ctx.Err() != nil {
		return done(notRunCancelled, true)
	}
	a, refused := parseTask(use.Input)
	if refused != "" {
		return done(tools.Refused(refusal.New(refusal.Invalid, refused)).Text, true)
	}
	emit(acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusInProgress)))
	sub := c.opts.Session.Sub()
	defer sub.Close()
	answer, err := c.subTurn(ctx, sub, callID(use), a.Prompt, nested(callID(use), emit))
	switch {
	case ctx.Err() != nil:
		return done("The user stopped the turn while the subagent worked; it gave no answer. Wait for their next message.", true)
	case err != nil:
		return done(fmt.Sprintf("The subagent failed: %v. Do the search yourself, or call task again.", err), true)
	}
	return done(boundAnswer(answer), false)
}

// boundAnswer cuts a subagent's answer to maxTaskAnswer bytes, saying so.
func boundAnswer(text string) string {
	if len(text) <= maxTaskAnswer {
		return text
	}
	cut := maxTaskAnswer
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + fmt.Sprintf("\n[cut: the subagent's answer was %d bytes; the first %d are shown. Ask a narrower task for the rest.]", len(text), cut)
}

// subTurn runs the subagent's conversation until it answers: the model
// calls only the read-only tools, in sub, and each message is kept in the
// chat's file under the task's call.
func (c *Chat) subTurn(ctx context.Context, sub *tools.Session, parent, prompt string, emit func(acp.SessionUpdate)) (string, error) {
	system := subagentSystem(sub.Roots, c.subNames())
	messages := []providers.Message{{Role: providers.User, Blocks: []providers.Block{{Kind: providers.Text, Text: prompt}}}}
	c.keepSub(parent, messages[0], emit)
	for calls := 0; ; {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		var named []string
		var shown []acp.ToolCallId
		resp, err := c.opts.Provider.Stream(ctx, providers.Request{
			Model: c.opts.Endpoint.Model, System: system, Messages: messages, Tools: c.subRoster, MaxTokens: c.opts.MaxTokens,
		}, func(ev providers.Event) {
			switch ev.Kind {
			case providers.ToolCall:
				call := *ev.Call
				call.CallID = c.ids.next(call.ToolID)
				named = append(named, call.CallID)
				shown = append(shown, acp.ToolCallId(call.CallID))
				emit(toolCallStarted(call, sub.Roots))
			case providers.Retrying:
				if ev.Retry.Restart {
					for _, id := range shown {
						emit(acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusFailed)))
					}
				}
				named, shown = nil, nil
			}
		})
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if err != nil {
			return "", c.explain(err)
		}
		c.ids.name(resp.Message, named)
		messages = append(messages, resp.Message)
		c.keepSub(parent, resp.Message, emit)
		emit(c.subUsage(resp.Usage))
		if resp.Stop == providers.Paused {
			continue
		}
		uses := toolUses(resp.Message)
		if len(uses) == 0 {
			return answerText(resp.Message), nil
		}
		if calls+len(uses) > c.opts.MaxToolCalls {
			return "", fmt.Errorf("it reached its limit of %d tool calls without an answer", c.opts.MaxToolCalls)
		}
		calls += len(uses)
		results := providers.Message{Role: providers.User, Blocks: make([]providers.Block, len(uses))}
		var wg sync.WaitGroup // every tool it has only reads: all run side by side
		for i, u := range uses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results.Blocks[i] = c.runSubTool(ctx, sub, u, emit)
			}()
		}
		wg.Wait()
		messages = append(messages, results)
		c.keepSub(parent, results, emit)
	}
}

// answerText is an answer's text, without tandem's notes.
func answerText(m providers.Message) string {
	var parts []string
	for _, b := range m.Blocks {
		if b.Kind == providers.Text && !b.Note {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "")
}

// runSubTool runs one of the subagent's calls in its session: a tool not
// in its set is refused, whatever the model sent.
func (c *Chat) runSubTool(ctx context.Context, sub *tools.Session, use providers.Block, emit func(acp.SessionUpdate)) providers.Block {
	id := acp.ToolCallId(callID(use))
	if use.InputError != "" {
		return unreadable(use, emit)
	}
	var res tools.Result
	switch {
	case ctx.Err() != nil:
		res = tools.Result{Text: notRunCancelled, IsError: true}
	case !c.subagentHas(use.ToolName):
		res = tools.Refused(refusal.New(refusal.Unknown, fmt.Sprintf(
			"A subagent has no %s tool: it only reads (%s). Answer with what you found, and say what the other agent should do itself.", use.ToolName, strings.Join(c.subNames(), ", "))))
	default:
		emit(acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusInProgress)))
		res = tools.Call(approvals.WithToolCall(ctx, callID(use)), sub, use.ToolName, use.Input)
	}
	status := acp.ToolCallStatusCompleted
	if res.IsError {
		status = acp.ToolCallStatusFailed
	}
	emit(acp.UpdateToolCall(id, acp.WithUpdateStatus(status),
		acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(res.Text))}), acp.WithUpdateRawOutput(rawOutput(res))))
	return providers.Block{Kind: providers.ToolResult, ToolID: use.ToolID, CallID: use.CallID, Text: res.Text, IsError: res.IsError}
}

// subagentHas reports whether a subagent may call the tool named name.
func (c *Chat) subagentHas(name string) bool {
	for _, t := range c.subRoster {
		if t.Name == name {
			return true
		}
	}
	return false
}

func (c *Chat) subNames() []string {
	out := make([]string, len(c.subRoster))
	for i, t := range c.subRoster {
		out[i] = t.Name
	}
	return out
}

// subUsage counts a subagent's model call in the chat's cost; the context
// meter stays the parent's, whose context the subagent did not fill.
func (c *Chat) subUsage(u providers.Usage) acp.SessionUpdate {
	up := c.charge(u)
	up.UsageUpdate.Meta["tandem"].(map[string]any)["subagent"] = true
	return up
}

// subRecord is one message of a subagent's conversation in the chat's
// file, under its task call: a reopened chat shows the subagent's calls.
type subRecord struct {
	Parent  string            `json:"parent"`
	Message providers.Message `json:"message"`
}

// keepSub keeps a message of the subagent's conversation under its task
// call, in memory and in the chat's file.
func (c *Chat) keepSub(parent string, m providers.Message, emit func(acp.SessionUpdate)) {
	c.ckMu.Lock()
	if c.subs == nil {
		c.subs = map[string][]providers.Message{}
	}
	c.subs[parent] = append(c.subs[parent], m)
	c.ckMu.Unlock()
	c.save(record{Sub: &subRecord{Parent: parent, Message: m}}, false, emit)
}

// subCalls are the ids of every subagent's tool calls.
func (c *Chat) subCalls() map[string]bool {
	c.ckMu.Lock()
	defer c.ckMu.Unlock()
	out := map[string]bool{}
	for _, messages := range c.subs {
		for _, m := range messages {
			for _, u := range toolUses(m) {
				out[callID(u)] = true
			}
		}
	}
	return out
}

// subReplay is a task call's subagent as the live chat showed it: its
// tool calls, the answers to their questions, and their results, under
// the call.
func (c *Chat) subReplay(parent string, answers map[string][]acp.SessionUpdate) []acp.SessionUpdate {
	c.ckMu.Lock()
	messages := c.subs[parent]
	c.ckMu.Unlock()
	var out []acp.SessionUpdate
	emit := nested(parent, func(u acp.SessionUpdate) { out = append(out, u) })
	for _, m := range messages {
		for _, b := range m.Blocks {
			switch b.Kind {
			case providers.ToolUse:
				emit(toolCallStarted(b, c.opts.Session.Roots))
			case providers.ToolResult:
				status := acp.ToolCallStatusCompleted
				if b.IsError {
					status = acp.ToolCallStatusFailed
				}
				emit(acp.UpdateToolCall(acp.ToolCallId(callID(b)), acp.WithUpdateStatus(status),
					acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(b.Text))})))
				for _, a := range answers[callID(b)] {
					emit(a)
				}
			}
		}
	}
	return out
}
