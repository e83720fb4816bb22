package lspserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/refusal"
)

// Questions to the editor. A session's gate asks through the server's
// router; the router asks every attached client that can answer and the
// first answer wins:
//
//   - a client that declared capabilities.experimental.tandem.approvals: true
//     gets tandem/askApproval (the question with its structured steps,
//     effects and paths) and tandem/approvalSettled when the question is over
//     for any reason;
//   - any other client gets window/showMessageRequest (Warning; "Allow",
//     "Deny", "Allow for this session");
//   - a client that declared approvals: false answers nothing, so with no
//     other client its questions are unanswered at once.
//
// Any client may also answer with tandem/answerApproval; an answer to a
// question that is no longer pending gets the error approval_gone.

// CodeApprovalGone is the JSON-RPC error code of an answer to a question
// that is no longer pending (data.code "approval_gone").
const CodeApprovalGone jsonrpc2.Code = -32052

// The actions of the plain prompt (window/showMessageRequest), and the
// answer each one gives.
const (
	actionAllow   = "Allow"
	actionDeny    = "Deny"
	actionSession = "Allow for this session"
)

// askParams is tandem/askApproval's params.
type askParams struct {
	ID       string         `json:"id"`
	Session  string         `json:"session"`
	ToolCall string         `json:"toolCall,omitempty"` // the chat's tool call that asks
	Who      string         `json:"who,omitempty"`      // who asks, when not the agent
	Kind     approvals.Kind `json:"kind"`
	Steps    []askStep      `json:"steps"`
	// Options are the answers the client may give, as the agents' protocols
	// name them.
	Options []string `json:"options"`
}

type askStep struct {
	Text    string               `json:"text"`
	Effects []string             `json:"effects"`
	Paths   []approvals.StepPath `json:"paths"`
}

// answer is the result of tandem/askApproval, and the answer field of
// tandem/answerApproval's params: one of the four option kinds, or null
// when the user closed the question without answering.
type answerParams struct {
	ID     string  `json:"id"`
	Answer *string `json:"answer"`
}

// router is one server's way to ask questions. It implements approvals.Asker.
type router struct {
	s *Server

	mu      sync.Mutex
	pending map[string]*pendingQuestion
}

type pendingQuestion struct {
	answer chan approvals.Answer // buffered 1: the first answer
}

// offer gives the question an answer; only the first answer offered
// counts.
func (p *pendingQuestion) offer(a approvals.Answer) bool {
	select {
	case p.answer <- a:
		return true
	default:
		return false
	}
}

func newRouter(s *Server) *router {
	return &router{s: s, pending: map[string]*pendingQuestion{}}
}

// rich reports whether the client takes tandem/askApproval; silent reports
// whether the client declared that it answers no question.
func (r *router) clientMode() (rich, silent bool) {
	raw, ok := r.s.client.Capability("experimental.tandem.approvals")
	if !ok {
		return false, false
	}
	switch strings.TrimSpace(string(raw)) {
	case "false", "null":
		return false, true
	}
	return true, false
}

// Ask routes q to the clients that can answer and returns the first answer.
// It returns Unanswered at once when no client can answer, and Unanswered
// when every client closed the question. When ctx ends (the step was
// cancelled), it withdraws the question and returns Unanswered.
func (r *router) Ask(ctx context.Context, q approvals.Question) approvals.Answer {
	rich, silent := r.clientMode()
	if silent {
		return approvals.Unanswered
	}
	p := &pendingQuestion{answer: make(chan approvals.Answer, 1)}
	r.mu.Lock()
	r.pending[q.ID] = p
	r.mu.Unlock()

	askCtx, withdraw := context.WithCancel(ctx)
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		var a approvals.Answer
		var ok bool
		if rich {
			a, ok = r.askRich(askCtx, q)
		} else {
			a, ok = r.askBaseline(askCtx, q)
		}
		if ok {
			p.offer(a)
		}
	}()

	a := approvals.Unanswered
	select {
	case a = <-p.answer:
	case <-closed:
		// The client closed it without answering; an answer that raced in
		// through tandem/answerApproval still counts.
		select {
		case a = <-p.answer:
		default:
		}
	case <-ctx.Done():
	}
	r.mu.Lock()
	delete(r.pending, q.ID)
	r.mu.Unlock()
	withdraw() // cancels the client's request ($/cancelRequest)
	if rich {
		r.s.client.Notify(context.Background(), "tandem/approvalSettled", map[string]any{
			"id": q.ID, "answer": a.OptionKind(), "settled": a.String(),
		})
	}
	return a
}

func (r *router) askRich(ctx context.Context, q approvals.Question) (approvals.Answer, bool) {
	params := askParams{ID: q.ID, Session: q.Session, ToolCall: q.ToolCall, Who: q.Who, Kind: q.Kind,
		Options: []string{approvals.OptionAllowOnce, approvals.OptionAllowAlways, approvals.OptionRejectOnce, approvals.OptionRejectAlways}}
	for _, s := range q.Steps {
		paths := s.Paths
		if paths == nil {
			paths = []approvals.StepPath{}
		}
		params.Steps = append(params.Steps, askStep{Text: s.Text, Effects: s.Effects.Names(), Paths: paths})
	}
	var res *answerParams
	if err := r.s.client.Ask(ctx, "tandem/askApproval", params, &res); err != nil || res == nil || res.Answer == nil {
		return 0, false
	}
	a, err := approvals.AnswerOfOption(*res.Answer)
	if err != nil {
		r.s.log.Warn("approval answer not understood", "err", err)
		return 0, false
	}
	return a, true
}

func (r *router) askBaseline(ctx context.Context, q approvals.Question) (approvals.Answer, bool) {
	params := protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: approvals.QuestionText(q),
		Actions: []protocol.MessageActionItem{{Title: actionAllow}, {Title: actionDeny}, {Title: actionSession}},
	}
	var res *protocol.MessageActionItem
	if err := r.s.client.Ask(ctx, "window/showMessageRequest", params, &res); err != nil || res == nil {
		return 0, false
	}
	switch res.Title {
	case actionAllow:
		return approvals.AllowOnce, true
	case actionSession:
		return approvals.AllowSession, true
	case actionDeny:
		return approvals.Deny, true
	}
	return 0, false
}

// answer serves tandem/answerApproval.
func (r *router) answer(id string, kind *string) error {
	if kind == nil {
		return invalidParams("tandem/answerApproval", fmt.Errorf("answer is missing; send allow_once, allow_always, reject_once or reject_always"))
	}
	a, err := approvals.AnswerOfOption(*kind)
	if err != nil {
		return invalidParams("tandem/answerApproval", err)
	}
	r.mu.Lock()
	p := r.pending[id]
	r.mu.Unlock()
	if p == nil || !p.offer(a) {
		return rpcError(CodeApprovalGone, string(refusal.ApprovalGone),
			"The question %q is no longer pending (answered, its step ended, or cancelled); drop it. Nothing further is needed.", id)
	}
	return nil
}

func (s *Server) answerApproval(_ context.Context, params json.RawMessage) (any, error) {
	var p answerParams
	if err := decodeParams("tandem/answerApproval", params, &p); err != nil {
		return nil, err
	}
	if err := s.router.answer(p.ID, p.Answer); err != nil {
		return nil, err
	}
	return map[string]any{}, nil
}
