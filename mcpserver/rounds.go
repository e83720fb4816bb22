package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/refusal"
	"github.com/tandemdev/tandem/tools"
)

// Questions asked over MCP's multi round-trip requests (revision
// 2026-07-28, which Claude Code speaks). A client of that revision takes no
// request from the server: a call that needs the user's answer ends with
// "input required" and the question, and the client sends the call again
// with the answer. tandem's gate asks in the middle of a call (before a
// script's third step, when two have run), so a call is never run again
// from its start: it stays parked at its question, and the answer that
// comes with the retry is handed to it. The retry's requestState names the
// parked call; it is random and held only in this process.

// questionWait is how long a parked question waits for the client's retry.
// No request is in flight meanwhile, so nothing else would end the wait of
// a client that dropped the call; past it the question is unanswered and
// the call ends as the gate then decides.
const questionWait = 10 * time.Minute

// askKey carries, in a call's context, how the call's questions reach the
// MCP client.
type askKey struct{}

type askFunc func(context.Context, approvals.Question) approvals.Answer

// elicitAsker asks a standalone session's questions of the MCP client, the
// way the call's context says (a server-initiated elicitation, or a multi
// round-trip); with no way, nobody can answer.
type elicitAsker struct{}

func (elicitAsker) Ask(ctx context.Context, q approvals.Question) approvals.Answer {
	if ask, ok := ctx.Value(askKey{}).(askFunc); ok {
		return ask(ctx, q)
	}
	return approvals.Unanswered
}

// The answers a question offers, mapped to the gate's.
var elicitAnswers = map[string]approvals.Answer{
	"allow":         approvals.AllowOnce,
	"allow_session": approvals.AllowSession,
	"deny":          approvals.Deny,
}

var elicitSchema = json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string","title":"Allow?","description":"allow: this time; allow_session: this and the same step again in this session; deny: no","enum":["allow","allow_session","deny"]}},"required":["answer"]}`)

func elicitParams(q approvals.Question) *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: approvals.QuestionText(q), RequestedSchema: elicitSchema}
}

// elicitAnswer is the gate's answer in a client's reply: a declined form is
// a no; a cancelled one, or any answer not offered, is unanswered.
func elicitAnswer(res *mcp.ElicitResult) approvals.Answer {
	switch {
	case res == nil, res.Action != "accept" && res.Action != "decline":
		return approvals.Unanswered
	case res.Action == "decline":
		return approvals.Deny
	}
	s, _ := res.Content["answer"].(string)
	return elicitAnswers[s]
}

// canElicit reports whether the client of req takes form questions, from
// the request's own capabilities (revision 2026-07-28) or initialize's.
func canElicit(req *mcp.CallToolRequest) bool {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	// Neither mode named means form, as before modes existed.
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

// roundTrips reports whether the client of req takes questions as multi
// round-trips, as the go-sdk decides when it marks a result input-required.
func roundTrips(req *mcp.CallToolRequest) bool {
	p := req.Session.InitializeParams()
	return p != nil && p.ProtocolVersion >= "2026-07-28"
}

// elicitDirectly asks through ss as a server-initiated elicitation, for
// clients of the revisions before 2026-07-28.
func elicitDirectly(ss *mcp.ServerSession) askFunc {
	return func(ctx context.Context, q approvals.Question) approvals.Answer {
		res, err := ss.Elicit(ctx, elicitParams(q))
		if err != nil {
			return approvals.Unanswered
		}
		return elicitAnswer(res)
	}
}

// parkedCalls are the calls of one server waiting at a question for the
// client's retry, by requestState.
type parkedCalls struct {
	mu     sync.Mutex
	parked map[string]*roundCall
}

// roundCall is one tool call run across round trips.
type roundCall struct {
	state     string
	name      string
	args      json.RawMessage
	questions chan pendingQuestion     // the call's next question
	done      chan *mcp.CallToolResult // its result; buffered
	cancel    context.CancelFunc       // stops the call
	asked     pendingQuestion          // the question the client was sent
	count     int                      // questions asked so far, for their ids
}

type pendingQuestion struct {
	id      string
	q       approvals.Question
	answers chan approvals.Answer // buffered: a late answer never blocks
}

// start runs a call whose questions go back to the client as round trips,
// and returns its result or its first question.
func (p *parkedCalls) start(ctx context.Context, name string, args json.RawMessage, call func(context.Context, string, json.RawMessage) *mcp.CallToolResult) *mcp.CallToolResult {
	c := &roundCall{state: newState(), name: name, args: args, questions: make(chan pendingQuestion), done: make(chan *mcp.CallToolResult, 1)}
	// The call outlives this request when it parks at a question; the
	// context keeps the request's values, not its end.
	run, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.cancel = cancel
	run = context.WithValue(run, askKey{}, askFunc(c.ask))
	go func() {
		c.done <- call(run, name, args)
		cancel()
		// A result nobody came back for is let go.
		time.AfterFunc(questionWait, func() { p.take(c.state) })
	}()
	return p.wait(ctx, c)
}

// ask hands q to the request serving the call and waits for the answer
// the client's retry brings.
func (c *roundCall) ask(ctx context.Context, q approvals.Question) approvals.Answer {
	timer := time.NewTimer(questionWait)
	defer timer.Stop()
	pq := pendingQuestion{q: q, answers: make(chan approvals.Answer, 1)}
	select {
	case c.questions <- pq:
	case <-ctx.Done():
		return approvals.Unanswered
	case <-timer.C:
		return approvals.Unanswered
	}
	select {
	case a := <-pq.answers:
		return a
	case <-ctx.Done():
	case <-timer.C:
	}
	return approvals.Unanswered
}

// resume hands the answer in req to the call its requestState names and
// returns the call's result or its next question.
func (p *parkedCalls) resume(ctx context.Context, req *mcp.CallToolRequest) *mcp.CallToolResult {
	c := p.take(req.Params.RequestState)
	if c == nil {
		return tools.Refused(refusal.New(refusal.Invalid, "This answer is for a question tandem no longer holds: it was answered already, waited longer than "+questionWait.String()+", or tandem restarted. Nothing ran on it. Call the tool again without requestState.")).MCP()
	}
	if req.Params.Name != c.name || !sameJSON(req.Params.Arguments, c.args) {
		p.park(c)
		return tools.Refused(refusal.New(refusal.Invalid, fmt.Sprintf("The call sent with this answer is not the one the question was asked for (%s with other arguments); the answer was not taken. Send the answer with the same call, or call the tool again without requestState.", c.name))).MCP()
	}
	resp, ok := req.Params.InputResponses[c.asked.id]
	if !ok {
		// No answer to the question: ask it again.
		p.park(c)
		return c.inputRequired()
	}
	res, _ := resp.(*mcp.ElicitResult)
	c.asked.answers <- elicitAnswer(res)
	return p.wait(ctx, c)
}

// wait returns the call's result, or parks it at its next question and
// returns that question as input required. When the request is cancelled
// the call is stopped.
func (p *parkedCalls) wait(ctx context.Context, c *roundCall) *mcp.CallToolResult {
	select {
	case res := <-c.done:
		return res
	case pq := <-c.questions:
		c.count++
		pq.id = fmt.Sprintf("question-%d", c.count)
		c.asked = pq
		p.park(c)
		return c.inputRequired()
	case <-ctx.Done():
		c.cancel()
		return tools.Refused(refusal.New(refusal.Cancelled, "The call was cancelled and stopped; read the files it names again before repeating it.")).MCP()
	}
}

func (c *roundCall) inputRequired() *mcp.CallToolResult {
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{c.asked.id: elicitParams(c.asked.q)}, RequestState: c.state}
}

func (p *parkedCalls) park(c *roundCall) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.parked == nil {
		p.parked = map[string]*roundCall{}
	}
	p.parked[c.state] = c
}

// take removes and returns the call parked under state, so that one
// request at a time serves it.
func (p *parkedCalls) take(state string) *roundCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.parked[state]
	delete(p.parked, state)
	return c
}

func newState() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// sameJSON reports whether a and b are the same JSON value (whitespace
// and key order aside).
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}
