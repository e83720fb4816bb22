package approvals

import (
	"context"
	"fmt"
	"strings"
)

// Kind says what asks: a shell step, a document access, an MCP tool call.
type Kind string

// The kinds of what asks.
const (
	KindShell    Kind = "shell"    // a bash step
	KindDocument Kind = "document" // a document tool's access to a path
	KindMCP      Kind = "mcp"      // a call of one of the user's MCP tools
	KindFetch    Kind = "fetch"    // the fetch tool's GET of a URL
)

// StepPath is one path a step names or redirects to, with its class.
type StepPath struct {
	Path  string    `json:"path"`  // as the step wrote it (expanded)
	Real  string    `json:"real"`  // the real path the policy judged
	Class PathClass `json:"class"` // secret, protected, inside, outside, harmless
	// HoldsSecret means the path is a secret or an ancestor of one.
	HoldsSecret bool `json:"holdsSecret,omitempty"`
	// Private means the path is in the home directory, held back from a step
	// without outside (Judgement.Private).
	Private bool `json:"private,omitempty"`
}

// Step is one thing that runs: a simple command with its real expanded
// arguments, or a document access ("write /abs/path").
type Step struct {
	// Text is the step exactly as it will run, each word quoted for bash
	// and every control, bidi or zero-width character escaped as $'…', so
	// what the user approves is what runs.
	Text    string     `json:"text"`
	Effects Effects    `json:"effects"`
	Paths   []StepPath `json:"paths,omitempty"`
	// Host is the host a fetch connects to (KindFetch).
	Host *StepHost `json:"host,omitempty"`
}

// Question is what the user is asked before steps outside the auto set run.
// The steps of one pipeline come in one question, in order.
type Question struct {
	ID      string `json:"id"`      // unique within the server
	Session string `json:"session"` // the session that asks
	Kind    Kind   `json:"kind"`
	Steps   []Step `json:"steps"`
	// ToolCall is the agent's tool call whose steps these are (its model's
	// id), so a chat shows the question in that call; empty outside a chat.
	ToolCall string `json:"toolCall,omitempty"`
	// Who asks, as a person names it ("Claude Code", "a command in the
	// editor's terminal"); empty: tandem's own agent.
	Who string `json:"who,omitempty"`
}

type whoKey struct{}

// WithWho marks ctx as running a call of who (an MCP client by its name):
// the questions its steps raise say so.
func WithWho(ctx context.Context, who string) context.Context {
	if who == "" {
		return ctx
	}
	return context.WithValue(ctx, whoKey{}, who)
}

// WhoOf returns who ctx runs a call of, or "".
func WhoOf(ctx context.Context) string {
	who, _ := ctx.Value(whoKey{}).(string)
	return who
}

type toolCallKey struct{}

// WithToolCall marks ctx as running the agent's tool call id: the questions
// its steps raise name it.
func WithToolCall(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, toolCallKey{}, id)
}

// ToolCallOf returns the tool call ctx runs, or "".
func ToolCallOf(ctx context.Context) string {
	id, _ := ctx.Value(toolCallKey{}).(string)
	return id
}

// Answer is the user's answer to a question.
type Answer uint8

const (
	// Unanswered means nobody who could answer did (there was no client,
	// every client closed the question, or the step was cancelled). It
	// counts as a denial.
	Unanswered Answer = iota
	// AllowOnce runs these steps this time.
	AllowOnce
	// AllowSession runs them, and runs the same exact step text with the
	// same effect set unasked for the rest of the session.
	AllowSession
	// Deny stops the script at the step.
	Deny
)

func (a Answer) String() string {
	switch a {
	case AllowOnce:
		return "allow"
	case AllowSession:
		return "allow_session"
	case Deny:
		return "deny"
	}
	return "unanswered"
}

// Allows reports whether the steps run.
func (a Answer) Allows() bool { return a == AllowOnce || a == AllowSession }

// Option kinds of the agents' permission protocols (ACP and alike).
const (
	OptionAllowOnce    = "allow_once"
	OptionAllowAlways  = "allow_always"
	OptionRejectOnce   = "reject_once"
	OptionRejectAlways = "reject_always"
)

// OptionKind maps an answer to the agents' option kind. Unanswered is a
// one-time rejection: nobody decided anything for later.
func (a Answer) OptionKind() string {
	switch a {
	case AllowOnce:
		return OptionAllowOnce
	case AllowSession:
		return OptionAllowAlways
	}
	return OptionRejectOnce
}

// AnswerOfOption reads an option kind. "allow_always" is scoped to the
// session and the exact step; tandem remembers no rejection, so both reject
// kinds are Deny. Any other string is an error.
func AnswerOfOption(kind string) (Answer, error) {
	switch kind {
	case OptionAllowOnce:
		return AllowOnce, nil
	case OptionAllowAlways:
		return AllowSession, nil
	case OptionRejectOnce, OptionRejectAlways:
		return Deny, nil
	}
	return Unanswered, fmt.Errorf("unknown option kind %q; expected %s, %s, %s or %s",
		kind, OptionAllowOnce, OptionAllowAlways, OptionRejectOnce, OptionRejectAlways)
}

// Asker routes a question to whoever can answer it. The LSP server implements
// it over its attached clients.
//
// Ask returns the first answer of any client that can answer. With no client
// that can answer it returns Unanswered at once: no session ever waits for a
// client that cannot answer. When ctx ends (the step was cancelled, the call
// ended) Ask withdraws the question from every client, tells them it is
// settled, and returns Unanswered. Ask is called from many goroutines.
type Asker interface {
	Ask(ctx context.Context, q Question) Answer
}

// Nobody is the Asker of a session no one can answer for (a standalone
// session without a terminal): every question is Unanswered at once.
var Nobody Asker = nobody{}

type nobody struct{}

func (nobody) Ask(context.Context, Question) Answer { return Unanswered }

// AskerFunc adapts a function to Asker.
type AskerFunc func(ctx context.Context, q Question) Answer

// Ask calls f.
func (f AskerFunc) Ask(ctx context.Context, q Question) Answer { return f(ctx, q) }

// QuestionText renders a question as a person reads it in a prompt: who
// asks, each step exactly as it will run (escaped by Show), its effects and
// the classes of the paths that are not plain workspace paths. Every prompt
// renders its question here (the editor's, the terminal's), so a shell step,
// a document access and an MCP call read the same wherever they ask.
func QuestionText(q Question) string {
	var b strings.Builder
	what := "run"
	switch q.Kind {
	case KindDocument:
		what = "access"
	case KindMCP:
		what = "call"
	case KindFetch:
		what = "fetch"
	}
	who := q.Who
	if who == "" {
		who = "the agent"
	}
	if len(q.Steps) == 1 {
		fmt.Fprintf(&b, "tandem: %s (session %s) asks to %s:\n", who, q.Session, what)
	} else {
		fmt.Fprintf(&b, "tandem: %s (session %s) asks to %s these %d steps together:\n", who, q.Session, what, len(q.Steps))
	}
	for _, s := range q.Steps {
		fmt.Fprintf(&b, "\n%s\n  effects: %s", s.Text, strings.Join(s.Effects.Names(), ", "))
		for _, p := range s.Paths {
			if p.Class == PathInside || p.Class == PathHarmless {
				continue
			}
			if p.Private {
				fmt.Fprintf(&b, "\n  %s, in the home directory (outside lets the step read it): %s", p.Class, Show([]string{p.Real}))
				continue
			}
			fmt.Fprintf(&b, "\n  %s: %s", p.Class, Show([]string{p.Real}))
		}
		b.WriteString("\n")
	}
	// Said in words that fit every client's label for the answer (Allow
	// for this session, Always accept, All yes, allow_session).
	b.WriteString("\nAllowing always (for this session) lets these exact steps with these effects run again unasked until the session ends.")
	return b.String()
}
