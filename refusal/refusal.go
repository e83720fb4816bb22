// Package refusal holds what every refusal a model sees is made of: a typed
// code that clients and tests match on, and one or two sentences that end
// with the next valid action. It is a leaf: every package that refuses
// imports it, and it imports nothing of tandem.
package refusal

// Code is the typed reason of a refusal.
type Code string

// The refusal codes every front door shares.
const (
	Escapes    Code = "escapes"    // a repo:// path leaves the workspace root
	Scheme     Code = "scheme"     // an unknown path scheme
	NotFound   Code = "not_found"  // the path does not exist
	NotSeen    Code = "not_seen"   // an edit anchors on lines the model has not seen
	StaleTag   Code = "stale_tag"  // a tag the session never saw, or forgot
	Conflict   Code = "conflict"   // the file changed under the edit
	Denied     Code = "denied"     // the user said no
	PlanMode   Code = "plan_mode"  // plan mode runs only steps that read
	Unanswered Code = "unanswered" // nobody who could answer did
	Busy       Code = "busy"       // a bound was reached; safe to retry later
	Invalid    Code = "invalid"    // the arguments do not fit the tool's schema
	TooLarge   Code = "too_large"  // over the size limit
	Encoding   Code = "encoding"   // binary or not UTF-8
	Unknown    Code = "unknown_tool"
	Cancelled  Code = "cancelled"
	Failed     Code = "failed" // an operation failed for a reason outside tandem (I/O)
	// Hook: a beforeBash hook of the user's settings refused the call.
	Hook Code = "hook"
	// Swapped: a file the shell opens itself was not the one judged when
	// it opened (a link or another file put in its place in between).
	Swapped Code = "swapped"
	// ApprovalGone answers a client that answers a question already
	// settled (answered elsewhere, its step ended, cancelled).
	ApprovalGone Code = "approval_gone"
	// Unsupported: a shell step asks for what tandem's shell cannot do as
	// bash would (umask with a new mask); the text names what does the
	// same.
	Unsupported Code = "unsupported"
)

// Error is a refusal as a Go error.
type Error struct {
	Code Code   `json:"code"`
	Text string `json:"text"`
}

func (r *Error) Error() string { return string(r.Code) + ": " + r.Text }

// New builds a refusal. text must end with what the model should do next.
func New(code Code, text string) *Error { return &Error{Code: code, Text: text} }
