package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/bridge/core"
	"github.com/tandemdev/tandem/mcpclient"
)

// applyLocked is the one writer of the core's state: it steps the core with
// ev and starts each effect, never waiting for one. rq is the request a
// Request event is about; the Authorize that admits it binds it to its id.
// b.mu must be held.
func (b *Bridge) applyLocked(ev core.Event, rq *request) core.Effects {
	effs := b.st.Step(ev)
	for _, e := range effs.List() {
		if e.Kind == core.Authorize && rq != nil {
			rq.id, rq.owner = e.ID, e.Owner
			b.reqs[e.ID] = rq
		}
		r := b.reqs[e.ID]
		switch e.Kind {
		case core.Authorize:
			ctx, cancel := context.WithCancel(context.Background())
			r.withdraw = cancel
			b.wg.Add(1)
			go b.authorize(ctx, r, b.owners[e.Owner])
		case core.Call:
			ctx, cancel := context.WithCancel(context.Background())
			r.cancel = cancel
			b.wg.Add(1)
			go b.call(ctx, r, b.owners[e.Owner])
		case core.Withdraw:
			r.withdraw()
		case core.Cancel:
			r.cancel()
		case core.Reply:
			b.wg.Add(1)
			go b.reply(r, e.Outcome)
		case core.Log:
			if e.Log == core.OwnerRejected || e.Log == core.OwnerUnknown {
				b.logf("mcp-call owner=%d kind=%s", e.Owner, e.Log)
			} else {
				b.logf("mcp-call id=%d kind=%s", e.ID, e.Log)
			}
		}
	}
	// A request the core let go is gone from the shell too.
	switch ev.Kind {
	case core.Authorized, core.CallFinished, core.ReplyDone, core.ClientGone:
		if r := b.reqs[ev.ID]; r != nil && b.st.Stage(ev.ID) == 0 {
			delete(b.reqs, ev.ID)
			r.withdraw()
			if r.cancel != nil {
				r.cancel()
			}
			r.conn.Close()
		}
	}
	return effs
}

func (b *Bridge) step(ev core.Event) {
	b.mu.Lock()
	b.applyLocked(ev, nil)
	b.mu.Unlock()
}

// authorize is the permission adapter: the tool and its arguments go
// through the owner's approvals route as a question, unless the user's own
// settings auto-allow the tool or the session allowed it before. Only an
// allow answers yes.
func (b *Bridge) authorize(ctx context.Context, r *request, o Owner) {
	defer b.wg.Done()
	allow := b.permit(ctx, r, o)
	b.step(core.Event{Kind: core.Authorized, ID: r.id, Allow: allow})
}

func (b *Bridge) permit(ctx context.Context, r *request, o Owner) bool {
	if o.Asker == nil {
		o.Asker = approvals.Nobody // an owner the shell no longer knows answers nothing
	}
	refuse := func(st Status, reason string) bool {
		r.refusal = &Header{Status: st, Reason: reason}
		return false
	}
	switch r.op {
	case OpList:
		return true // listing runs no tool; starting a workspace server still asks
	case OpOpen, OpTool, OpClose:
		return permitSession(r, o, refuse)
	case OpCall:
	default:
		return refuse(StatusInvalid, fmt.Sprintf("The operation %q is unknown; run `tandem mcp call SERVER/TOOL JSON` or `tandem mcp list`.", r.op))
	}
	server, tool, err := ParseTool(r.tool)
	if err != nil {
		return refuse(StatusInvalid, err.Error()+"; name the tool as SERVER/TOOL, as `tandem mcp list` prints it.")
	}
	if len(r.args) == 0 {
		r.args = json.RawMessage("{}")
	}
	if t := bytes.TrimSpace(r.args); len(t) == 0 || t[0] != '{' {
		return refuse(StatusInvalid, "The arguments must be one JSON object, such as '{\"message\":\"hi\"}'; pass it as the second argument or on standard input with -.")
	}
	if err := b.serversOf(o).Check(withOwner(ctx, o), server, tool); err != nil {
		switch {
		case ctx.Err() != nil:
			return false // withdrawn: the core abandons the request
		case errors.Is(err, mcpclient.ErrUnknownServer), errors.Is(err, mcpclient.ErrUnknownTool):
			return refuse(StatusInvalid, err.Error()+".")
		case errors.Is(err, mcpclient.ErrNotApproved):
			return refuse(StatusDenied, err.Error()+"; nothing ran. Ask the user to allow the server when tandem asks, or to add it to their user settings.")
		}
		return refuse(StatusFailed, err.Error())
	}
	if b.autoAllowed(server, tool) {
		return true
	}
	key := allowKey(o.Session, r.tool)
	b.mu.Lock()
	done := b.allowed[key]
	b.mu.Unlock()
	if done {
		return true
	}
	var args bytes.Buffer
	if json.Compact(&args, r.args) != nil {
		args.Reset()
		args.Write(r.args)
	}
	q := approvals.Question{
		ID:       fmt.Sprintf("mcp-call-%d", r.id),
		Session:  o.Session,
		ToolCall: o.ToolCall,
		Who:      o.Who,
		Kind:     approvals.KindMCP,
		Steps: []approvals.Step{{
			Text:    approvals.Show([]string{r.tool, args.String()}),
			Effects: approvals.Of(approvals.Exec),
		}},
	}
	a := o.Asker.Ask(ctx, q)
	switch {
	case a == approvals.AllowSession:
		b.mu.Lock()
		b.allowed[key] = true
		b.mu.Unlock()
		return true
	case a.Allows():
		return true
	case a == approvals.Deny:
		return refuse(StatusDenied, fmt.Sprintf("The user denied the MCP tool %s with these arguments; nothing ran. Do not run it again unless the user asks for it.", r.tool))
	}
	return refuse(StatusDenied, fmt.Sprintf("No one could answer the permission question for the MCP tool %s; nothing ran. Ask the user to answer from the editor, or to list the tool in mcp.autoAllow of their user settings.", r.tool))
}

// permitSession checks a request of a tools session. Its tools ask their
// own questions through their session's gate, so nothing is asked here.
func permitSession(r *request, o Owner, refuse func(Status, string) bool) bool {
	switch {
	case o.Tools == nil:
		return refuse(StatusInvalid, "This tandem serves no tools sessions to this token; run `tandem mcp serve` in an editor terminal opened by tandem.")
	case r.op != OpOpen && r.session == "":
		return refuse(StatusInvalid, "The request names no tools session; send open first and name the session it returns.")
	case r.op == OpTool && r.tool == "":
		return refuse(StatusInvalid, "The request names no tool; name one of the tools open returned.")
	}
	if r.op == OpTool && len(r.args) > 0 {
		if t := bytes.TrimSpace(r.args); len(t) == 0 || t[0] != '{' {
			return refuse(StatusInvalid, "The arguments must be one JSON object; send the tool's arguments as an object.")
		}
	}
	return true
}

func (b *Bridge) autoAllowed(server, tool string) bool {
	for _, p := range b.settings.AutoAllow {
		if p == server+"/"+tool || p == server+"/*" {
			return true
		}
	}
	return false
}

// ListEntry is one tool in `tandem mcp list`'s reply.
type ListEntry struct {
	Server      string `json:"server"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// ListReply is the body of a list request's reply.
type ListReply struct {
	Tools    []ListEntry `json:"tools"`
	Problems []string    `json:"problems,omitempty"` // config errors and servers that did not start
}

// call is the call adapter: the MCP call (or listing) with the request's
// cancel, ending in CallFinished with its outcome. The result stays here,
// by id, until the reply writes it.
func (b *Bridge) call(ctx context.Context, r *request, o Owner) {
	defer b.wg.Done()
	ctx = withOwner(ctx, o)
	outcome := core.OK
	switch r.op {
	case OpList:
		r.result = b.list(ctx, b.serversOf(o))
	case OpOpen, OpTool, OpClose:
		res, err := sessionOp(ctx, r, o.Tools)
		if err != nil {
			outcome, r.reason = core.Failed, err.Error()
		}
		r.result = res
	default:
		server, tool, _ := ParseTool(r.tool)
		res, err := b.serversOf(o).Call(ctx, server, tool, r.args)
		switch {
		case err != nil:
			outcome, r.reason = core.Failed, err.Error()
		case res.IsError:
			outcome, r.result = core.ToolError, res.Bytes
		default:
			r.result = res.Bytes
		}
	}
	b.step(core.Event{Kind: core.CallFinished, ID: r.id, Outcome: outcome})
}

type peerKey struct{}

// OnPeerExit calls gone, unless stop is called first, once the process
// that sent the open request (the request ctx serves) has exited: a
// `tandem mcp serve` killed before it closed its session, say. Where the
// process is unknown, gone is never called: the session ends with its
// owner.
func OnPeerExit(ctx context.Context, gone func()) (stop func()) {
	pid, _ := ctx.Value(peerKey{}).(int)
	if pid <= 0 {
		return func() {}
	}
	return watchExit(pid, gone)
}

func sessionOp(ctx context.Context, r *request, t Tools) ([]byte, error) {
	switch r.op {
	case OpOpen:
		return t.Open(context.WithValue(ctx, peerKey{}, r.peer))
	case OpTool:
		return t.Call(approvals.WithWho(ctx, r.client), r.session, r.tool, r.args)
	}
	return nil, t.Close(r.session)
}

func (b *Bridge) list(ctx context.Context, srv Servers) []byte {
	cfg := srv.Config()
	out := ListReply{Tools: []ListEntry{}}
	for _, p := range cfg.Problems {
		out.Problems = append(out.Problems, p.Error())
	}
	for _, l := range mcpclient.ListAll(ctx, cfg.Names(), srv.Tools, mcpclient.ListTimeout) {
		if l.Err != nil {
			out.Problems = append(out.Problems, l.Err.Error())
			continue
		}
		for _, t := range l.Tools {
			desc, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
			out.Tools = append(out.Tools, ListEntry{Server: l.Server, Name: t.Name, Description: desc})
		}
	}
	data, _ := json.Marshal(out)
	return data
}

// reply writes the outcome to the client and reports whether it arrived
// whole; a lost reply is logged by the core, never retried.
func (b *Bridge) reply(r *request, o core.Outcome) {
	defer b.wg.Done()
	var h Header
	var body []byte
	switch o {
	case core.OK:
		h, body = Header{Status: StatusOK}, r.result
	case core.ToolError:
		h, body = Header{Status: StatusToolError, Reason: "The MCP tool " + r.tool + " ran and reported an error; its text is on standard output. Fix the arguments or ask the user."}, r.result
	case core.Failed:
		h = Header{Status: StatusFailed, Reason: r.reason}
	default:
		h = Header{Status: StatusDenied, Reason: "The MCP call was not allowed; nothing ran."}
		if r.refusal != nil {
			h = *r.refusal
		}
	}
	if uc, ok := r.conn.(*net.UnixConn); ok && len(body) > 1<<20 {
		_ = uc.SetWriteBuffer(4 << 20) // fewer round trips for a large result
	}
	err := writeReply(r.conn, h, body)
	r.result = nil
	b.step(core.Event{Kind: core.ReplyDone, ID: r.id, Lost: err != nil})
}

type ownerKey struct{}

var startQuestions atomic.Uint64

func withOwner(ctx context.Context, o Owner) context.Context {
	return context.WithValue(ctx, ownerKey{}, o)
}

// AskServerStart is the mcpclient.AskStart of a bridge's manager: starting a
// server a workspace file names is asked of the owner whose call needs it,
// through its approvals route, as a question of its session. A start
// outside a bridge call (no owner) is not allowed.
func AskServerStart(ctx context.Context, d mcpclient.Def) (bool, error) {
	o, ok := ctx.Value(ownerKey{}).(Owner)
	if !ok || o.Asker == nil {
		return false, nil
	}
	q := approvals.Question{
		ID:       fmt.Sprintf("mcp-server-%d", startQuestions.Add(1)),
		Session:  o.Session,
		ToolCall: o.ToolCall,
		Who:      o.Who,
		Kind:     approvals.KindMCP,
		Steps: []approvals.Step{{
			Text:    "start MCP server " + d.Name + " from " + d.Source + ": " + d.Describe(),
			Effects: approvals.Of(approvals.Exec),
		}},
	}
	return o.Asker.Ask(ctx, q).Allows(), nil
}
