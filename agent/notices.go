package agent

import (
	"fmt"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/approvals"
)

// A notice is something the user saw in a chat besides its messages — an
// answer to a question, a restore, a model switch — kept in the chat's
// file at the place it came, so that a reopened chat shows what the live
// one showed. The model is told none of them (a restore's note to the
// model is a note block of the next prompt).
type notice struct {
	Kind   string `json:"kind"`             // noticeAnswer, noticeRestore or noticeModel
	Text   string `json:"text"`             // as the user reads it; for noticeModel the model, PROVIDER/MODEL
	Call   string `json:"call,omitempty"`   // noticeAnswer: the tool call the question was asked in
	Answer string `json:"answer,omitempty"` // noticeAnswer: allow_once, allow_always, reject_once, or "" when none came
	Turn   *int   `json:"turn,omitempty"`   // noticeRestore: the turn restored to before; noticeRewind: the turn cut back to before; noticeKeep: the turn reviewed
	Path   string `json:"path,omitempty"`   // noticeKeep: the file
	Hunks  []int  `json:"hunks,omitempty"`  // noticeKeep: the hunks kept, indices into Changes' list
}

const (
	noticeAnswer  = "answer"
	noticeRestore = "restore"
	noticeModel   = "model"
	noticeRewind  = "rewind" // the conversation cut back (see rewind.go)
	noticeKeep    = "keep"   // hunks of a turn the user kept in its review (see review.go)
)

// placedNotice is a notice and the index of the message it came before.
type placedNotice struct {
	at int
	notice
}

// usageRecord is the context the chat's last model call used, the model's
// window and the chat's cost so far (0 when the prices are unknown): the
// meter a reopened chat shows.
type usageRecord struct {
	Used int     `json:"used"`
	Size int     `json:"size"`
	Cost float64 `json:"cost,omitempty"`
}

// keep records n in the chat and its file, before the next message.
func (c *Chat) keep(n notice) {
	c.ckMu.Lock()
	c.notices = append(c.notices, placedNotice{at: len(c.messages), notice: n})
	c.ckMu.Unlock()
	c.save(record{Notice: &n}, false, func(acp.SessionUpdate) {})
}

// answered keeps the answer to a question the chat's gate asked.
func (c *Chat) answered(q approvals.Question, a approvals.Answer) {
	steps := make([]string, len(q.Steps))
	for i, s := range q.Steps {
		steps[i] = s.Text
	}
	n := notice{Kind: noticeAnswer, Call: q.ToolCall, Text: answerWords(a) + ": " + strings.Join(steps, "; ")}
	if a != approvals.Unanswered {
		n.Answer = a.OptionKind()
	}
	c.keep(n)
}

func answerWords(a approvals.Answer) string {
	switch a {
	case approvals.AllowOnce:
		return "Allowed once"
	case approvals.AllowSession:
		return "Allowed for this session"
	case approvals.Deny:
		return "Denied"
	}
	return "Not answered"
}

// noticeUpdate is how a notice is replayed: an answer on the card of the
// tool call it was asked in (`_meta.tandem.answer`), anything else as the
// agent's text marked `_meta.tandem.notice` with its kind; a model switch
// is shown by the session's model option and a keep by the review
// (`_tandem/changes`), not in the log.
func noticeUpdate(n notice) (acp.SessionUpdate, bool) {
	switch {
	case n.Kind == noticeModel, n.Kind == noticeKeep: // shown by the model option, and by the review
		return acp.SessionUpdate{}, false
	case n.Kind == noticeAnswer && n.Call != "":
		u := acp.UpdateToolCall(acp.ToolCallId(n.Call))
		u.ToolCallUpdate.Meta = map[string]any{"tandem": map[string]any{"answer": n.Answer, "answerText": n.Text}}
		return u, true
	}
	u := noticeText(n.Kind, n.Text)
	if n.Turn != nil {
		u.AgentMessageChunk.Meta["tandem"].(map[string]any)["turn"] = *n.Turn
	}
	return u, true
}

// noticeText is a notice in the agent's text, on lines of its own.
func noticeText(kind, text string) acp.SessionUpdate {
	u := acp.UpdateAgentMessageText("\n\n(" + strings.TrimSuffix(text, "\n") + ")\n\n")
	u.AgentMessageChunk.Meta = map[string]any{"tandem": map[string]any{"notice": kind, "text": text}}
	return u
}

// cutNotice is how a turn cut short is replayed, from the note ending its
// answer: "Stopped." for the user's stop, else why it was cut.
func cutNotice(b providers.Block) acp.SessionUpdate {
	why := cutWhy(b.Text)
	if why == stoppedByUser {
		return noticeText("stopped", "Stopped.")
	}
	return noticeText("cut", fmt.Sprintf("The turn was cut: %s", why))
}

// usageUpdate is the meter a usage record shows.
func usageUpdate(u usageRecord) acp.SessionUpdate {
	up := &acp.SessionUsageUpdate{SessionUpdate: "usage_update", Used: u.Used, Size: u.Size}
	if u.Cost > 0 {
		up.Cost = &acp.Cost{Amount: u.Cost, Currency: "USD"}
	}
	return acp.SessionUpdate{UsageUpdate: up}
}
