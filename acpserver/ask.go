package acpserver

import (
	"context"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/approvals"
)

// asker asks the client a session's questions as
// session/request_permission. A chat's tools session is named as its ACP
// session, so a question names the session it belongs to.
type asker struct{ conn *acp.AgentSideConnection }

// permissionOptions are the four answers, each option's id its kind, so an
// answer maps back through approvals.AnswerOfOption. tandem keeps no
// rejection, so rejecting "always" says it will ask again.
var permissionOptions = []acp.PermissionOption{
	{OptionId: approvals.OptionAllowOnce, Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow once"},
	{OptionId: approvals.OptionAllowAlways, Kind: acp.PermissionOptionKindAllowAlways, Name: "Allow for this session"},
	{OptionId: approvals.OptionRejectOnce, Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject"},
	{OptionId: approvals.OptionRejectAlways, Kind: acp.PermissionOptionKindRejectAlways, Name: "Reject (tandem asks again next time)"},
}

// step is a step as the client gets it in rawInput: its effects by name.
type step struct {
	Text    string               `json:"text"`
	Effects []string             `json:"effects"`
	Paths   []approvals.StepPath `json:"paths"`
}

// Ask sends q and waits for the client's answer. When ctx ends (the turn
// was cancelled, the session closed) the request is withdrawn
// ($/cancel_request) and the answer is Unanswered at once: tandem never
// waits for the client's "cancelled". A "cancelled" outcome, an unknown
// option and a connection gone are Unanswered too.
func (a asker) Ask(ctx context.Context, q approvals.Question) approvals.Answer {
	steps := make([]step, 0, len(q.Steps))
	for _, s := range q.Steps {
		paths := s.Paths
		if paths == nil {
			paths = []approvals.StepPath{}
		}
		steps = append(steps, step{Text: s.Text, Effects: s.Effects.Names(), Paths: paths})
	}
	call := acp.ToolCallUpdate{
		ToolCallId: acp.ToolCallId(q.ID),
		Title:      acp.Ptr(approvals.QuestionText(q)),
		Kind:       acp.Ptr(toolKind(q)),
		Status:     acp.Ptr(acp.ToolCallStatusPending),
		RawInput:   map[string]any{"kind": q.Kind, "steps": steps},
	}
	if q.ToolCall != "" {
		// The model's call the client already shows: the question is asked
		// in it, and its status stays as it is.
		call.ToolCallId, call.Status = acp.ToolCallId(q.ToolCall), nil
	}
	resp, err := a.conn.RequestPermission(ctx, acp.RequestPermissionRequest{
		SessionId: acp.SessionId(q.Session),
		ToolCall:  call,
		Options:   permissionOptions,
	})
	if err != nil || resp.Outcome.Selected == nil {
		return approvals.Unanswered
	}
	answer, err := approvals.AnswerOfOption(string(resp.Outcome.Selected.OptionId))
	if err != nil {
		return approvals.Unanswered
	}
	return answer
}

// toolKind is the ACP kind of what asks: a shell step executes; a document
// access reads or edits; an MCP call is other.
func toolKind(q approvals.Question) acp.ToolKind {
	switch q.Kind {
	case approvals.KindShell:
		return acp.ToolKindExecute
	case approvals.KindDocument:
		changes := approvals.Of(approvals.Write, approvals.Outside, approvals.Protected)
		for _, s := range q.Steps {
			if s.Effects&changes != 0 {
				return acp.ToolKindEdit
			}
		}
		return acp.ToolKindRead
	}
	return acp.ToolKindOther
}
