package acpserver

import (
	"context"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/approvals"
)

// asker asks the client a session's questions as
// session/request_permission. A chat's tools session has the same ID as its
// ACP session, so a question names the session it belongs to.
type asker struct{ conn *acp.AgentSideConnection }

// permissionOptions are the four answers. Each option's id is its kind, so
// an answer maps back through approvals.AnswerOfOption. tandem remembers no
// rejection, so the reject-always option says that tandem will ask again.
var permissionOptions = []acp.PermissionOption{
	{OptionId: approvals.OptionAllowOnce, Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow once"},
	{OptionId: approvals.OptionAllowAlways, Kind: acp.PermissionOptionKindAllowAlways, Name: "Allow for this session"},
	{OptionId: approvals.OptionRejectOnce, Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject"},
	{OptionId: approvals.OptionRejectAlways, Kind: acp.PermissionOptionKindRejectAlways, Name: "Reject (tandem asks again next time)"},
}

// step is a bash step as the client receives it in a question's rawInput,
// with its effects given by name.
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
		// The client already shows the model's tool call: ask the question
		// in that call, and leave the call's status as it is.
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

// toolKind returns the ACP tool kind of what asks the question: execute for
// a shell step, read or edit for a document access, fetch for a fetch,
// other for an MCP call.
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
	case approvals.KindFetch:
		return acp.ToolKindFetch
	}
	return acp.ToolKindOther
}
