package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/edits"
	"github.com/tandemdev/tandem/refusal"
	"github.com/tandemdev/tandem/tools"
)

// DefaultMaxToolCalls is how many tool calls one turn may make when the
// setting agent.maxToolCalls is not set.
const DefaultMaxToolCalls = 100

// Options is what a chat is made of.
type Options struct {
	// Session is the chat's tools session, opened by the front door like
	// every other (settings loaded, asker wired); the chat closes it.
	Session  *tools.Session
	Provider providers.Provider
	Endpoint Endpoint // where Provider reaches the model; named in usage and errors
	// System is the system prompt (see SystemPrompt). It and the roster
	// are fixed for the chat's life, so the provider's prompt cache holds.
	System       string
	MaxToolCalls int       // per turn; 0 is DefaultMaxToolCalls
	MaxTokens    int       // output tokens per model call; 0 is the provider's default
	Model        ModelInfo // the model's window and prices, for usage and cost; zero unknown
	// Store keeps the chat on disk as it goes; nil keeps it in memory only.
	Store *Store
	// PlanMode starts the chat in plan mode (see SetPlanMode).
	PlanMode bool
	// Watches tells the chat of files changed under it; nil is the
	// process's shared one (SharedWatches).
	Watches *Watches
}

// Chat is one conversation with the agent.
type Chat struct {
	ID     string
	opts   Options
	roster []providers.Tool
	// subRoster is a subagent's: the read-only tools, without task.
	subRoster []providers.Tool
	planNote  string // opens each prompt in plan mode

	mu       sync.Mutex // one turn at a time
	messages []providers.Message
	meterMu  sync.Mutex // the meter: subagents running side by side charge it
	cost     float64    // dollars so far, when the model's prices are known
	journal  *journal   // the chat's file, from its first message; nil unstored
	saveMu   sync.Mutex // the writes of concurrent calls' records, and unsaved
	unsaved  error      // why the last write of the chat's file failed, told once
	dropped  []dropped  // the damaged lines its file had when loaded, told in the replay
	// befores are the calls a crash cut, found in the file: resolved into
	// checkpoints by the next turn or restore that holds the file.
	befores  []beforeRecord
	planMode atomic.Bool
	cfgMu    sync.Mutex // the model: switched between turns, read at any time
	next     *Options   // a model switch asked for, applied at the next turn's start
	notes    []string   // told to the model at the start of the next prompt
	title    string     // the first prompt's words, the chat's name in its file

	planMu sync.Mutex
	plan   []acp.PlanEntry // the plan the user sees, kept through compaction

	turnOf []int    // each message's turn if it is a prompt, else -1
	ids    *callIDs // the ids of the chat's tool calls for clients

	ckMu    sync.Mutex                     // turns and notices are written by concurrent calls (and jobs); messages' writes hold it too
	turns   [][]turnChange                 // each turn's changes, the checkpoints
	notices []placedNotice                 // what the user saw besides the messages, for the replay
	subs    map[string][]providers.Message // the subagents' conversations, by their task call

	lastModel string       // the model the chat's file names last, PROVIDER/MODEL
	lastUsage *usageRecord // the meter after the last model call, kept at a turn's end

	watch     *watcher // the files the chat read, for changes under it
	compactAt float64  // share of the window at which older turns are summarised
	lastUsed  int      // tokens the last model call used: the context's size
}

// NewChat starts a chat. Its roster is the tools its session lists now, and
// stays so.
//
// What Options leave unset comes from the session's settings: the tool-call
// limit (agent.maxToolCalls), the model's window and prices (agent.models,
// else the built-in table) and the system prompt (SystemPrompt). A bad
// setting leaves the default; SettingsProblems names it.
func NewChat(o Options) *Chat {
	st := o.Session.Settings()
	if o.MaxToolCalls <= 0 {
		o.MaxToolCalls, _ = maxToolCalls(st)
	}
	if o.Model == (ModelInfo{}) {
		o.Model, _ = Model(st, o.Endpoint.String())
	}
	if o.System == "" {
		o.System = SystemPrompt(o.Session.Roots)
	}
	if o.Watches == nil {
		o.Watches = SharedWatches()
	}
	c := &Chat{ID: o.Session.ID, opts: o, watch: newWatcher(o.Watches), ids: newCallIDs()}
	c.compactAt, _ = compactAt(st)
	var reading []string
	for _, t := range tools.List(o.Session) {
		c.roster = append(c.roster, providers.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema()})
		if t.ReadOnly {
			reading = append(reading, t.Name)
			c.subRoster = append(c.subRoster, c.roster[len(c.roster)-1])
		}
	}
	c.roster = append(c.roster, planTool, taskTool)
	reading = append(reading, taskToolName)
	c.planNote = planModeNote(reading)
	c.SetPlanMode(o.PlanMode)
	o.Session.Gate().OnAnswer(c.answered)
	return c
}

// planModeNote opens every prompt of a chat in plan mode: the model is
// told which of its tools still run, and the roster and system prompt stay
// as they were (the prompt cache holds).
func planModeNote(readOnly []string) string {
	return "(Plan mode is on: only reading runs — " + strings.Join(readOnly, ", ") + ", and bash steps that only read. Investigate and answer with a plan; do not try to change files.)"
}

// PlanMode reports whether the chat is in plan mode.
func (c *Chat) PlanMode() bool { return c.planMode.Load() }

// Model names the chat's model, or the one it switches to at its next turn.
func (c *Chat) Model() string {
	c.cfgMu.Lock()
	defer c.cfgMu.Unlock()
	if c.next != nil {
		return c.next.Endpoint.String()
	}
	return c.opts.Endpoint.String()
}

// SetModel switches the model from the next turn on; the conversation goes
// on with it.
func (c *Chat) SetModel(p providers.Provider, e Endpoint) {
	info, _ := Model(c.opts.Session.Settings(), e.String())
	c.cfgMu.Lock()
	c.next = &Options{Provider: p, Endpoint: e, Model: info}
	c.cfgMu.Unlock()
}

// switchModel applies a model switch asked for; called at a turn's start.
func (c *Chat) switchModel() {
	c.cfgMu.Lock()
	defer c.cfgMu.Unlock()
	if c.next != nil {
		c.opts.Provider, c.opts.Endpoint, c.opts.Model = c.next.Provider, c.next.Endpoint, c.next.Model
		c.next = nil
	}
}

// SetPlanMode turns plan mode on or off for the next turns: while on, only
// steps that read run (the chat's gate refuses the others at once, without
// asking), and each prompt tells the model so.
func (c *Chat) SetPlanMode(on bool) {
	c.planMode.Store(on)
	c.opts.Session.SetReadOnly(on)
}

// ResumeChat continues a stored chat: its messages are the conversation so
// far, and new ones are appended to its file. The calls a crash cut short
// become checkpoints at once unless another process holds the chat (its
// turn may still be running them).
func ResumeChat(o Options, id string) (*Chat, error) {
	l, err := o.Store.load(id)
	if err != nil {
		return nil, err
	}
	c := NewChat(o)
	c.ID = l.info.ID
	c.use(l)
	if c.journal, err = o.Store.journal(l.info, l.size); err != nil {
		return nil, err
	}
	if len(c.befores) > 0 {
		if err := c.begin(func(acp.SessionUpdate) {}); err == nil {
			c.end()
		}
	}
	return c, nil
}

// use makes a chat's history what its file holds.
func (c *Chat) use(l loaded) {
	c.turnOf, c.dropped, c.befores, c.ids = l.turnOf, l.dropped, l.befores, l.ids
	c.ckMu.Lock()
	c.messages, c.turns, c.notices, c.subs = l.messages, l.turns, l.notices, l.subs
	c.ckMu.Unlock()
	c.lastModel = l.info.Model
	for _, n := range l.notices {
		if n.Kind == noticeModel {
			c.lastModel = n.Text
		}
	}
	if l.usage != nil {
		c.lastUsage, c.lastUsed, c.cost = l.usage, l.usage.Used, l.usage.Cost
	}
	c.replan()
}

// replan makes the plan the user sees the last one the conversation holds.
func (c *Chat) replan() {
	c.planMu.Lock()
	defer c.planMu.Unlock()
	c.plan = nil
	for _, m := range c.messages {
		for _, b := range m.Blocks {
			if b.Kind == providers.ToolUse && b.ToolName == planToolName {
				if entries, refusal := parsePlan(b.Input); refusal == "" {
					c.plan = entries
				}
			}
		}
	}
}

// begin starts a write of the chat's file by a turn or a restore: it takes
// the file's lock (refusing while another process runs a turn of the
// chat), goes on from what the file holds when another process added to
// it since (telling the client what was added), and turns the calls a
// crash cut into checkpoints. end ends it.
func (c *Chat) begin(emit func(acp.SessionUpdate)) error {
	if c.journal == nil {
		return nil
	}
	changed, err := c.journal.own()
	if err != nil {
		return err
	}
	if changed {
		l, err := c.opts.Store.load(c.ID)
		if err != nil {
			c.end()
			return err
		}
		had := len(c.messages)
		c.use(l)
		if lost := c.journal.dropPending(); lost > 0 {
			// Written after the other process's turns, they would break
			// the conversation's order.
			emit(acp.UpdateAgentThoughtText(fmt.Sprintf("(%d records of this chat that could not be saved here were dropped: the chat went on in another tandem meanwhile)\n", lost)))
			c.unsaved = nil
		}
		emit(acp.UpdateAgentThoughtText(fmt.Sprintf("(this chat went on in another tandem since it was opened here; it now has %d messages, %d before, and this turn goes on from them)\n", len(c.messages), had)))
		for _, u := range c.replay(had) {
			emit(u)
		}
	}
	for _, b := range c.befores {
		c.recordCall(b.Turn, b.Call, recovered(b), emit)
	}
	c.befores = nil
	return nil
}

// end ends what begin started.
func (c *Chat) end() {
	if c.journal != nil {
		c.journal.release()
	}
}

// Messages is the conversation so far.
func (c *Chat) Messages() []providers.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]providers.Message(nil), c.messages...)
}

// Close ends the chat: its session closes, and with it every process its
// tools started.
func (c *Chat) Close() {
	c.watch.close()
	c.opts.Session.Close()
	if c.journal != nil {
		_ = c.journal.close()
	}
}

// add puts a message into the conversation and, for a stored chat, into
// its file; turn is the prompt's turn for a prompt, else -1. A chat whose
// file cannot be made goes on in memory, and says so once.
func (c *Chat) add(m providers.Message, turn int, emit func(acp.SessionUpdate)) {
	c.ckMu.Lock() // a notice may be placed at any time (a job's question after its turn)
	c.messages = append(c.messages, m)
	c.ckMu.Unlock()
	c.turnOf = append(c.turnOf, turn)
	if c.opts.Store == nil || c.journal == nil && c.unsaved != nil { // its file could not be made
		return
	}
	if c.journal == nil {
		info := ChatInfo{ID: c.ID, Title: c.title, Model: c.opts.Endpoint.String(), Created: time.Now().UTC()}
		if len(c.opts.Session.Roots) > 0 {
			info.Cwd = c.opts.Session.Roots[0]
		}
		j, err := c.opts.Store.journal(info, 0)
		if err == nil {
			_, err = j.own() // a new chat: nobody else knows its file yet
		}
		if err != nil {
			c.unsaved = err
			emit(acp.UpdateAgentThoughtText(fmt.Sprintf("(this chat cannot be saved: %v; it goes on in memory only)\n", err)))
			return
		}
		c.journal = j
	}
	rec := record{Message: &m}
	if turn >= 0 {
		rec.Turn = &turn
	}
	c.save(rec, false, emit)
}

// save writes a record to the chat's file. A write that fails (a full
// disk) is told once, and kept to be written before the next record: the
// file never skips a record, and catches up once it can.
func (c *Chat) save(r record, durable bool, emit func(acp.SessionUpdate)) error {
	if c.journal == nil {
		return nil
	}
	c.saveMu.Lock()
	defer c.saveMu.Unlock()
	err := c.journal.write(r, durable)
	switch {
	case err != nil && c.unsaved == nil:
		emit(acp.UpdateAgentThoughtText(fmt.Sprintf("(this chat could not be saved just now: %v; what is missing is written with its next message, and the chat goes on)\n", err)))
	case err == nil && c.unsaved != nil:
		emit(acp.UpdateAgentThoughtText("(this chat is saved again: what it could not save before is in its file now)\n"))
	}
	c.unsaved = err
	return err
}

// Prompt runs one turn: the user's prompt, then model calls and the tools
// they ask for, until the model ends the turn or a limit or ctx stops it.
// Every update goes to emit, in order. An error is a turn that failed (the
// provider refused the key, retries ran out); cancelling ctx is not an
// error but the stop reason cancelled.
func (c *Chat) Prompt(ctx context.Context, prompt []acp.ContentBlock, emit func(acp.SessionUpdate)) (acp.StopReason, error) {
	_, stop, err := c.prompt(ctx, -1, prompt, emit)
	return stop, err
}

// Resend runs a turn whose prompt replaces that of turn: the conversation
// is first cut back to just before it (see rewind), then the turn runs as
// Prompt's. A turn whose prompt the conversation no longer holds is
// refused, and nothing is cut.
func (c *Chat) Resend(ctx context.Context, turn int, prompt []acp.ContentBlock, emit func(acp.SessionUpdate)) (acp.StopReason, error) {
	_, stop, err := c.prompt(ctx, turn, prompt, emit)
	return stop, err
}

// prompt is Prompt, or Resend when replaces is a turn (not -1), also
// naming the turn it ran (-1 when none started).
func (c *Chat) prompt(ctx context.Context, replaces int, prompt []acp.ContentBlock, emit func(acp.SessionUpdate)) (turn int, _ acp.StopReason, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	emit = oneAtATime(emit)
	c.switchModel()
	if err := c.begin(emit); err != nil {
		return -1, "", err
	}
	defer c.end()
	defer func() {
		if turn >= 0 && err == nil && ctx.Err() == nil {
			c.turnEnd(ctx, turn, emit)
		}
	}()
	if model := c.opts.Endpoint.String(); model != c.lastModel {
		if c.journal != nil { // a new chat's file names its model
			c.keep(notice{Kind: noticeModel, Text: model})
		}
		c.lastModel = model
	}
	defer func() {
		if c.lastUsage != nil {
			c.save(record{Usage: c.lastUsage}, false, emit)
		}
	}()
	user, err := c.userMessage(ctx, prompt)
	if err != nil {
		return -1, "", err
	}
	if replaces >= 0 {
		if err := c.rewind(replaces, emit); err != nil {
			return -1, "", err
		}
	}
	if c.journal == nil {
		c.title = title(prompt)
	}
	if c.planMode.Load() {
		user.Blocks = append([]providers.Block{{Kind: providers.Text, Text: c.planNote, Note: true}}, user.Blocks...)
	}
	for _, n := range c.notes {
		user.Blocks = append([]providers.Block{{Kind: providers.Text, Text: n, Note: true}}, user.Blocks...)
	}
	c.notes = nil
	c.ckMu.Lock()
	turn = len(c.turns)
	c.turns = append(c.turns, nil)
	c.ckMu.Unlock()
	c.add(c.withChanges(user), turn, emit)
	calls := 0
	for {
		if ctx.Err() != nil {
			c.cut("", stoppedByUser, emit)
			return turn, acp.StopReasonCancelled, nil
		}
		c.compact(ctx, c.lastUsed, emit)
		var streamed strings.Builder // the text last shown of this call, kept if the call is cut
		restarted := false           // a retry voided what streamed; it stays shown until new text
		var shownCalls []acp.ToolCallId
		var named []string // this answer's calls' ids for the client, in order (see nameCalls)
		resp, err := c.opts.Provider.Stream(ctx, providers.Request{
			Model: c.opts.Endpoint.Model, System: c.opts.System, Messages: sendable(c.messages),
			Tools: c.roster, MaxTokens: c.opts.MaxTokens,
		}, func(ev providers.Event) {
			switch ev.Kind {
			case providers.TextDelta:
				if restarted {
					streamed.Reset()
					restarted = false
				}
				streamed.WriteString(ev.Text)
			case providers.ToolCall:
				call := *ev.Call
				call.CallID = c.ids.next(call.ToolID)
				named = append(named, call.CallID)
				ev.Call = &call
				if call.ToolName != planToolName {
					shownCalls = append(shownCalls, acp.ToolCallId(call.CallID))
				}
			case providers.Retrying:
				if ev.Retry.Restart {
					restarted = true
					for _, id := range shownCalls {
						emit(acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusFailed)))
					}
				}
				shownCalls, named = nil, nil
			}
			c.relay(ev, emit)
		})
		if ctx.Err() != nil {
			c.cut(streamed.String(), stoppedByUser, emit)
			return turn, acp.StopReasonCancelled, nil
		}
		if err != nil {
			err = c.explain(err)
			c.cut(streamed.String(), "the model's answer failed: "+err.Error(), emit)
			return turn, "", err
		}
		c.ids.name(resp.Message, named)
		c.add(resp.Message, -1, emit)
		emit(c.usage(resp.Usage))
		switch resp.Stop {
		case providers.Paused:
			continue // the provider paused a long turn: ask it to go on
		case providers.MaxTokens:
			return turn, acp.StopReasonMaxTokens, nil
		case providers.Refusal:
			return turn, acp.StopReasonRefusal, nil
		case providers.ContextWindow:
			return turn, acp.StopReasonMaxTokens, nil
		}
		uses := toolUses(resp.Message)
		if len(uses) == 0 {
			return turn, acp.StopReasonEndTurn, nil
		}
		if calls+len(uses) > c.opts.MaxToolCalls {
			// The calls asked for are answered, so the chat stays a
			// valid conversation for the next turn.
			c.add(notRun(uses, fmt.Sprintf(
				"Not run: this turn reached its limit of %d tool calls. Tell the user what is done and what is left; they can continue in a new turn.", c.opts.MaxToolCalls)), -1, emit)
			for _, u := range uses {
				if u.ToolName != planToolName {
					emit(acp.UpdateToolCall(acp.ToolCallId(callID(u)), acp.WithUpdateStatus(acp.ToolCallStatusFailed)))
				}
			}
			return turn, acp.StopReasonMaxTurnRequests, nil
		}
		calls += len(uses)
		c.add(c.withChanges(c.runTools(ctx, turn, uses, emit)), -1, emit)
	}
}

// sendable is a history as providers accept it, even where a chat's file
// lost a record: it starts with a user's message, and every tool call is
// answered in the next message by a result, the only place a result may
// stand (Anthropic refuses any other history with a 400). A history that is
// so already comes back as it is, so the provider's prompt cache holds.
func sendable(in []providers.Message) []providers.Message {
	out := make([]providers.Message, 0, len(in)+1)
	if len(in) > 0 && in[0].Role != providers.User {
		out = append(out, providers.Message{Role: providers.User, Blocks: []providers.Block{{Kind: providers.Text, Text: lostStart}}})
	}
	for _, m := range in {
		var calls []providers.Block
		if len(out) > 0 {
			calls = toolUses(out[len(out)-1])
		}
		if m.Role == providers.User {
			m.Blocks = answered(calls, m.Blocks)
		} else if len(calls) > 0 {
			out = append(out, providers.Message{Role: providers.User, Blocks: answered(calls, nil)})
		}
		out = append(out, m)
	}
	return out
}

// lostStart opens a history whose first prompt its file lost.
const lostStart = "(The start of this chat was lost from its file.)"

// answered is a user message's blocks after calls: a result for each call
// first (a lost one answered as lost), then the rest; a result of no call
// is left out. Blocks that are so already come back as they are.
func answered(calls, blocks []providers.Block) []providers.Block {
	ids := map[string]bool{}
	for _, u := range calls {
		ids[u.ToolID] = true
	}
	results := map[string]providers.Block{}
	var rest []providers.Block
	inOrder := true
	for i, b := range blocks {
		if b.Kind != providers.ToolResult {
			rest = append(rest, b)
			continue
		}
		if !ids[b.ToolID] || i >= len(calls) || calls[i].ToolID != b.ToolID {
			inOrder = false
		}
		if ids[b.ToolID] {
			results[b.ToolID] = b
		}
	}
	if inOrder && len(results) == len(calls) && len(blocks)-len(rest) == len(calls) {
		return blocks
	}
	out := make([]providers.Block, 0, len(calls)+len(rest))
	for _, u := range calls {
		r, ok := results[u.ToolID]
		if !ok {
			r = providers.Block{Kind: providers.ToolResult, ToolID: u.ToolID, CallID: u.CallID, IsError: true, Text: "This call's result was lost from the chat's file; run it again if you still need it."}
		}
		out = append(out, r)
	}
	out = append(out, rest...)
	if len(out) == 0 {
		out = append(out, providers.Block{Kind: providers.Text, Text: "(A message here was lost from the chat's file.)", Note: true})
	}
	return out
}

// stoppedByUser is why a turn the user stopped was cut.
const stoppedByUser = "the user stopped the turn here"

// cutMark is how a cut turn's answer ends for the model; cutWhy reads it
// back.
func cutMark(why string) string { return cutPrefix + why + "]" }

const cutPrefix = "[cut: "

func cutWhy(text string) string {
	return strings.TrimSuffix(strings.TrimPrefix(text, cutPrefix), "]")
}

// cut ends a turn stopped or failed while the model was to answer: the
// text it streamed is kept as its answer, marked as cut, so a reload shows
// it and the conversation still alternates (the next prompt follows an
// answer, never another prompt).
func (c *Chat) cut(streamed, why string, emit func(acp.SessionUpdate)) {
	if n := len(c.messages); strings.TrimSpace(streamed) == "" && n > 0 && c.messages[n-1].Role == providers.Assistant {
		return // stopped after an answer (a paused one): nothing to keep, and the order holds
	}
	m := providers.Message{Role: providers.Assistant}
	if strings.TrimSpace(streamed) != "" {
		m.Blocks = append(m.Blocks, providers.Block{Kind: providers.Text, Text: streamed})
	}
	m.Blocks = append(m.Blocks, providers.Block{Kind: providers.Text, Text: cutMark(why), Note: true})
	c.add(m, -1, emit)
}

// relay turns a provider event into the client's update.
func (c *Chat) relay(ev providers.Event, emit func(acp.SessionUpdate)) {
	switch ev.Kind {
	case providers.TextDelta:
		emit(acp.UpdateAgentMessageText(ev.Text))
	case providers.ThinkingDelta:
		emit(acp.UpdateAgentThoughtText(ev.Text))
	case providers.ToolCall:
		if ev.Call.ToolName != planToolName { // shown as the plan, not as a call
			emit(toolCallStarted(*ev.Call, c.opts.Session.Roots))
		}
	case providers.Retrying:
		if ev.Retry.Restart {
			// The cut answer stays shown, marked where the next one starts.
			emit(acp.UpdateAgentMessageText(fmt.Sprintf("\n\n(%s; answering again…)\n\n", ev.Retry.Reason)))
		}
		// A status the user sees, never a silent wait.
		emit(acp.UpdateAgentThoughtText(fmt.Sprintf("(%s: %s; trying again in %s, attempt %d)\n",
			c.opts.Endpoint, ev.Retry.Reason, ev.Retry.Wait.Round(100e6), ev.Retry.Attempt)))
	}
}

// explain turns a provider's failure into one sentence saying what to do.
func (c *Chat) explain(err error) error {
	if errors.Is(err, providers.ErrAuth) {
		if c.opts.Endpoint.KeyEnv != "" {
			return fmt.Errorf("%s refused the API key in %s; set %s to a valid key where tandem is started", c.opts.Endpoint.Provider, c.opts.Endpoint.KeyEnv, c.opts.Endpoint.KeyEnv)
		}
		return fmt.Errorf("%s refused the request as unauthorised; give the provider an apiKeyEnv in agent.providers", c.opts.Endpoint.Provider)
	}
	if errors.Is(err, providers.ErrStalled) {
		return fmt.Errorf("%s: %w; send the prompt again, or, if the model is slow to start answering, raise agent.idleTimeoutSeconds", c.opts.Endpoint, err)
	}
	return fmt.Errorf("%s: %w", c.opts.Endpoint, err)
}

// usage is the context the last call used, the window's size, and the
// chat's cost so far when the model's prices are known.
func (c *Chat) usage(u providers.Usage) acp.SessionUpdate {
	c.meterMu.Lock()
	c.lastUsed = u.Input + u.CacheRead + u.CacheCreate + u.Output
	c.meterMu.Unlock()
	return c.charge(u)
}

// charge adds a model call's cost to the chat's and is the meter's update:
// the context used by the last call of the chat's own, and the cost so far.
func (c *Chat) charge(u providers.Usage) acp.SessionUpdate {
	c.meterMu.Lock()
	defer c.meterMu.Unlock()
	defer func() { c.lastUsage = &usageRecord{Used: c.lastUsed, Size: c.opts.Model.Window, Cost: c.cost} }()
	up := &acp.SessionUsageUpdate{
		SessionUpdate: "usage_update", Used: c.lastUsed, Size: c.opts.Model.Window,
		Meta: map[string]any{"tandem": map[string]any{"input": u.Input, "output": u.Output, "cacheRead": u.CacheRead, "cacheCreate": u.CacheCreate}},
	}
	if p := c.opts.Model.Price; p.Known() {
		c.cost += p.Cost(u)
		up.Cost = &acp.Cost{Amount: c.cost, Currency: "USD"}
	}
	return acp.SessionUpdate{UsageUpdate: up}
}

// withChanges adds to a user message the one line naming the files the
// chat read that changed under it since, if any did.
func (c *Chat) withChanges(m providers.Message) providers.Message {
	if files := c.watch.changed(c.opts.Session.Seen, c.opts.Session.Roots); len(files) > 0 {
		m.Blocks = append(m.Blocks, providers.Block{Kind: providers.Text, Text: changeNote(files), Note: true})
	}
	return m
}

// watchFiles watches the files a call read or changed.
func (c *Chat) watchFiles(use providers.Block, res tools.Result) {
	for _, fc := range res.Changes {
		c.watch.add(fc.Path)
	}
	// A read's paths are files the model now has rows of.
	t, _ := tools.Lookup(use.ToolName)
	if t.Kind != tools.KindRead || res.IsError {
		return
	}
	for _, p := range t.Paths(use.Input) {
		// A part of a read of several may be refused for a file that does
		// not exist: watched, it would be reported as deleted.
		if abs, err := documents.Resolve(c.opts.Session.Roots, p); err == nil {
			if _, err := os.Lstat(abs); err == nil {
				c.watch.add(abs)
			}
		}
	}
}

// oneAtATime is emit called by one goroutine at a time: calls that run
// side by side report through it, and a client's handler (a printer, a
// connection) need not be safe for concurrent use.
func oneAtATime(emit func(acp.SessionUpdate)) func(acp.SessionUpdate) {
	var mu sync.Mutex
	return func(u acp.SessionUpdate) {
		mu.Lock()
		defer mu.Unlock()
		emit(u)
	}
}

// toolUses are the tool calls of an assistant message, in order.
func toolUses(m providers.Message) []providers.Block {
	var out []providers.Block
	for _, b := range m.Blocks {
		if b.Kind == providers.ToolUse {
			out = append(out, b)
		}
	}
	return out
}

// notRun answers every call with the same refusal text.
func notRun(uses []providers.Block, text string) providers.Message {
	m := providers.Message{Role: providers.User}
	for _, u := range uses {
		m.Blocks = append(m.Blocks, providers.Block{Kind: providers.ToolResult, ToolID: u.ToolID, CallID: u.CallID, Text: text, IsError: true})
	}
	return m
}

// sideBySide reports whether a call may run beside others like it: a
// read-only tool's, the plan's, or a task's (whose subagent has only the
// read-only tools) change nothing and ask nothing but a secret read or a
// fetch, which the gate serialises as any question.
func sideBySide(name string) bool {
	t, _ := tools.Lookup(name)
	return t.ReadOnly || name == planToolName || name == taskToolName
}

// maxTasksAtOnce bounds the subagents one response starts side by side:
// each streams from the provider, and a provider limits a key's requests.
const maxTasksAtOnce = 4

// notRunCancelled answers a call the turn's stop kept from starting.
const notRunCancelled = "Not run: the user stopped the turn. Wait for their next message."

// runTools runs one response's calls and returns their results as one user
// message, in the calls' order. Consecutive calls that change nothing
// (sideBySide) run concurrently, at most maxTasksAtOnce of them tasks;
// every other call runs alone, in order. Once ctx ends, the
// calls not started are answered as not run.
func (c *Chat) runTools(ctx context.Context, turn int, uses []providers.Block, emit func(acp.SessionUpdate)) providers.Message {
	results := make([]providers.Block, len(uses))
	for i := 0; i < len(uses); {
		j := i + 1
		if sideBySide(uses[i].ToolName) {
			for j < len(uses) && sideBySide(uses[j].ToolName) {
				j++
			}
		}
		var wg sync.WaitGroup
		tasks := make(chan struct{}, maxTasksAtOnce)
		for k := i; k < j; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if uses[k].ToolName == taskToolName {
					select {
					case tasks <- struct{}{}:
						defer func() { <-tasks }()
					case <-ctx.Done(): // runTask answers it as not run
					}
				}
				results[k] = c.runTool(ctx, turn, uses[k], emit)
			}()
		}
		wg.Wait()
		i = j
	}
	return providers.Message{Role: providers.User, Blocks: results}
}

// runTool runs one call through the registry and reports it.
func (c *Chat) runTool(ctx context.Context, turn int, use providers.Block, emit func(acp.SessionUpdate)) providers.Block {
	if use.InputError != "" {
		return unreadable(use, emit)
	}
	if use.ToolName == planToolName {
		return c.runPlan(ctx, use, emit)
	}
	if use.ToolName == taskToolName {
		return c.runTask(ctx, use, emit)
	}
	id := acp.ToolCallId(callID(use))
	if ctx.Err() != nil {
		emit(acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusFailed)))
		return providers.Block{Kind: providers.ToolResult, ToolID: use.ToolID, CallID: use.CallID, IsError: true, Text: notRunCancelled}
	}
	t, _ := tools.Lookup(use.ToolName)
	if t.Kind == tools.KindEdit {
		if err := c.saveBefore(turn, callID(use), t.Paths(use.Input), emit); err != nil {
			emit(acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusFailed)))
			return providers.Block{Kind: providers.ToolResult, ToolID: use.ToolID, CallID: use.CallID, IsError: true, Text: fmt.Sprintf(
				"Not run: the chat could not record what the files hold now (%v), so this change could not be undone. Tell the user; try again once the chat can be saved.", err)}
		}
	}
	emit(acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusInProgress)))
	ctx = approvals.WithToolCall(ctx, callID(use))
	var res tools.Result
	if r := c.hooksBefore(ctx, use); r != nil {
		res = tools.Refused(r)
	} else {
		res = tools.Call(ctx, c.opts.Session, use.ToolName, use.Input)
	}
	if t.Kind == tools.KindEdit && !res.IsError {
		res.Text += c.afterEdit(ctx, res.Changes)
	}
	if t.Kind == tools.KindEdit || len(res.Changes) > 0 {
		c.recordCall(turn, callID(use), callChanges(callID(use), res.Changes), emit)
	}
	c.watchFiles(use, res)
	status := acp.ToolCallStatusCompleted
	if res.IsError {
		status = acp.ToolCallStatusFailed
	}
	content := []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(res.Text))}
	for _, fc := range res.Changes {
		content = append(content, diff(fc))
	}
	emit(acp.UpdateToolCall(id, acp.WithUpdateStatus(status), acp.WithUpdateContent(content),
		acp.WithUpdateRawOutput(rawOutput(res))))
	return c.withImages(providers.Block{Kind: providers.ToolResult, ToolID: use.ToolID, CallID: use.CallID, Text: res.Text, IsError: res.IsError}, res.Images)
}

// unreadable answers a call whose arguments are not a JSON object, as
// Claude Code and Codex do: it does not run, the model is told the parse
// error, and the turn goes on so that it can call again.
func unreadable(use providers.Block, emit func(acp.SessionUpdate)) providers.Block {
	res := tools.Refused(refusal.New(refusal.Invalid, fmt.Sprintf(
		"The arguments of this %s call are not a JSON object (%s), so it did not run. Call %s again with its arguments as one JSON object.",
		use.ToolName, use.InputError, use.ToolName)))
	if use.ToolName != planToolName { // the plan is shown as a plan, not as a call
		emit(acp.UpdateToolCall(acp.ToolCallId(callID(use)), acp.WithUpdateStatus(acp.ToolCallStatusFailed),
			acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(res.Text))}), acp.WithUpdateRawOutput(rawOutput(res))))
	}
	return providers.Block{Kind: providers.ToolResult, ToolID: use.ToolID, CallID: use.CallID, Text: res.Text, IsError: true}
}

// diff is a changed file as the client shows it: its text before (none
// for a created file) and after.
func diff(fc edits.FileChange) acp.ToolCallContent {
	if fc.Before == nil {
		return acp.ToolDiffContent(fc.Path, string(fc.After))
	}
	return acp.ToolDiffContent(fc.Path, string(fc.After), string(fc.Before))
}

// rawOutput is a result's machine-readable part for the client: its
// structured content and, on a refusal, its code.
func rawOutput(res tools.Result) map[string]any {
	out := map[string]any{}
	if res.Structured != nil {
		out["structured"] = res.Structured
	}
	if res.Code != "" {
		out["code"] = res.Code
	}
	return out
}

// toolCallStarted is the tool_call update for a call the model asked for:
// its kind, a title a person reads, and the paths it names, resolved
// against roots as the tool resolves them: ACP's paths are absolute, and
// clients take a location for the file's path (CodeCompanion listed each
// edited file twice, once as written and once from the diff's absolute
// path). A path that does not resolve is left out; the tool refuses it.
func toolCallStarted(use providers.Block, roots []string) acp.SessionUpdate {
	var args map[string]any
	_ = json.Unmarshal(use.Input, &args)
	t, _ := tools.Lookup(use.ToolName)
	opts := []acp.ToolCallStartOpt{acp.WithStartKind(acp.ToolKind(t.Kind)), acp.WithStartStatus(acp.ToolCallStatusPending), acp.WithStartRawInput(args)}
	var locs []acp.ToolCallLocation
	for _, p := range t.Paths(use.Input) {
		if abs, err := documents.Resolve(roots, p); err == nil {
			locs = append(locs, acp.ToolCallLocation{Path: abs})
		}
	}
	if len(locs) > 0 {
		opts = append(opts, acp.WithStartLocations(locs))
	}
	title := t.Title(use.Input)
	if use.ToolName == taskToolName {
		title = taskTitle(use.Input)
	}
	return acp.StartToolCall(acp.ToolCallId(callID(use)), title, opts...)
}
