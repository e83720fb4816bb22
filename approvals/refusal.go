// Package approvals owns what may run without asking: effects and the auto
// set, the path policy, questions and their routing to whoever can answer, and
// the one renderer of refusal texts. It imports no other tandem package.
package approvals

// Code is the typed reason of a refusal. Clients and tests match on it; the
// text beside it is for the model.
type Code string

// The refusal codes every front door shares.
const (
	CodeEscapes    Code = "escapes"    // a repo:// path leaves the workspace root
	CodeScheme     Code = "scheme"     // an unknown path scheme
	CodeNotFound   Code = "not_found"  // the path does not exist
	CodeNotSeen    Code = "not_seen"   // an edit anchors on lines the model has not seen
	CodeStaleTag   Code = "stale_tag"  // a tag the session never saw, or forgot
	CodeConflict   Code = "conflict"   // the file changed under the edit
	CodeDenied     Code = "denied"     // the user said no
	CodeUnanswered Code = "unanswered" // nobody who could answer did
	CodeBusy       Code = "busy"       // a bound was reached; safe to retry later
	CodeInvalid    Code = "invalid"    // the arguments do not fit the tool's schema
	CodeTooLarge   Code = "too_large"  // over the size limit
	CodeEncoding   Code = "encoding"   // binary or not UTF-8
	CodeUnknown    Code = "unknown_tool"
	CodeCancelled  Code = "cancelled"
	CodeFailed     Code = "failed" // an operation failed for a reason outside tandem (I/O)
	// CodeApprovalGone answers a client that answers a question already
	// settled (answered elsewhere, its step ended, cancelled).
	CodeApprovalGone Code = "approval_gone"
)

// Refusal is an error the model sees: a typed code and one or two sentences
// that end with the next valid action.
type Refusal struct {
	Code Code
	Text string
}

func (r *Refusal) Error() string { return string(r.Code) + ": " + r.Text }

// Refuse builds a refusal. text must end with what the model should do next.
func Refuse(code Code, text string) *Refusal { return &Refusal{Code: code, Text: text} }
