package approvals

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tandemdev/tandem/refusal"
)

// Need is what a step needs before it runs.
type Need uint8

const (
	// Runs means every effect is in the auto set, or the session already
	// allowed this exact step: it runs, and no answer is needed.
	Runs Need = iota
	// NeedsYes means the step runs only on a yes; any other answer stops
	// the script at this step.
	NeedsYes
)

// Decide is the gate's whole decision. It is pure, so that a test can check
// it over every input. The auto set never grants Secret, whatever auto
// holds. allowed says the session answered AllowSession to this exact step
// before.
func Decide(auto Effects, allowed bool, e Effects) Need {
	if allowed || e.Within(auto&^Effects(Secret)) {
		return Runs
	}
	return NeedsYes
}

// Access is what a document tool does to a path.
type Access uint8

const (
	AccessRead   Access = iota // read a file
	AccessList                 // list a directory, glob
	AccessSearch               // search a file or directory tree (grep)
	AccessWrite                // create, change, move or delete
)

func (a Access) String() string {
	return [...]string{"read", "list", "search", "write"}[a]
}

// AccessEffects returns the effects of a document access, by the path
// policy's table. A harmless path has none. A read, list or search has the
// effect read; it adds secret when the path is a secret, or when a list or
// search covers a path that holds one, and otherwise outside when the path
// is private (in the home, held back from a step). A write has the effect
// write, adds outside, protected or secret by the path's class, and adds
// secret when the path holds one.
func AccessEffects(a Access, j Judgement) Effects {
	if j.Class == PathHarmless {
		return 0
	}
	if a != AccessWrite {
		e := Of(Read)
		switch {
		case j.Class == PathSecret || (a != AccessRead && j.HoldsSecret):
			e |= Of(Secret)
		case j.Private:
			e |= Of(Outside)
		}
		return e
	}
	e := Of(Write)
	switch j.Class {
	case PathOutside:
		e |= Of(Outside)
	case PathProtected:
		e |= Of(Protected)
	case PathSecret:
		e |= Of(Secret)
	}
	if j.HoldsSecret {
		e |= Of(Secret)
	}
	return e
}

// Gate is one session's gate: its auto set, the steps the user allowed for
// the session, and where its questions go. It is safe for concurrent use.
type Gate struct {
	session string
	policy  *Policy
	asker   Asker

	mu      sync.Mutex
	auto    Effects
	allowed map[string]bool // allowKey of steps answered AllowSession
	// readOnly, when set, refuses without a question every step that does
	// more than read (plan mode); a secret read is still asked about, and a
	// fetch's net judged as ever (readOnlyRuns).
	readOnly bool
	answered func(Question, Answer) // told each answer (OnAnswer)
	// askAll asks about every step, whatever the auto set holds: the gate
	// of what a workspace's settings run (Asking).
	askAll bool
}

var questionSeq atomic.Uint64

// NewGate makes the gate of a session. auto comes from the user's own
// settings only (ParseAuto); secret is dropped from it. A nil asker stands
// for Nobody.
func NewGate(session string, auto Effects, policy *Policy, asker Asker) *Gate {
	if asker == nil {
		asker = Nobody
	}
	return &Gate{session: session, policy: policy, asker: asker, auto: auto &^ Effects(Secret), allowed: map[string]bool{}}
}

// OnAnswer has f told each question the gate asks and the answer it got,
// as it comes: a chat keeps them, so that a reopened chat shows what the
// user answered.
func (g *Gate) OnAnswer(f func(Question, Answer)) {
	g.mu.Lock()
	g.answered = f
	g.mu.Unlock()
}

// Asking returns a gate that asks the user about every step, even one the
// auto set or an earlier "allow for this session" would let run: the gate
// of commands a workspace's settings add (hooks), since a repository the
// user opens may never widen what runs unasked. It shares g's policy,
// asker and plan mode as they are now, and remembers no answer beyond
// itself.
func (g *Gate) Asking() *Gate {
	g.mu.Lock()
	defer g.mu.Unlock()
	return &Gate{session: g.session, policy: g.policy, asker: g.asker, auto: g.auto, allowed: map[string]bool{},
		readOnly: g.readOnly, answered: g.answered, askAll: true}
}

// Policy returns the path policy the gate's steps are judged by.
func (g *Gate) Policy() *Policy { return g.policy }

// Auto returns the current auto set.
func (g *Gate) Auto() Effects {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.auto
}

// SetAuto replaces the auto set when the user's settings change; secret is
// dropped.
func (g *Gate) SetAuto(auto Effects) {
	g.mu.Lock()
	g.auto = auto &^ Effects(Secret)
	g.mu.Unlock()
}

// SetReadOnly(true) makes the gate refuse at once every step with an effect
// beyond reading (a secret read is still asked about, and a fetch's net
// judged as ever); SetReadOnly(false) lifts that.
func (g *Gate) SetReadOnly(on bool) {
	g.mu.Lock()
	g.readOnly = on
	g.mu.Unlock()
}

// allowKey is what "allow for this session" remembers of a step: its text,
// its effects and the real paths (or a fetch host's class) it was judged
// by. The text alone is not enough: `cat x`, allowed while x links to
// ~/.ssh/id_ed25519.pub, must ask again once x links to ~/.ssh/id_ed25519.
func allowKey(kind Kind, s Step) string {
	var b strings.Builder
	b.WriteString(string(kind) + "\x00" + s.Effects.String() + "\x00" + s.Text)
	for _, p := range s.Paths {
		b.WriteString("\x00" + p.Real)
	}
	// A fetch allowed while its host resolved to a public address asks
	// again once the name leads to this machine or the user's network (a
	// public host's addresses may change from call to call).
	if s.Host != nil {
		b.WriteString("\x00" + string(s.Host.Class))
	}
	return b.String()
}

// Refused is the error of a gate that did not let steps run. It unwraps to
// the refusal the model sees.
type Refused struct {
	Step    int    // index of the first checked step that needed a yes
	Answer  Answer // Deny or Unanswered
	Refusal *refusal.Error
}

func (r *Refused) Error() string { return r.Refusal.Error() }
func (r *Refused) Unwrap() error { return r.Refusal }

// Check lets steps run or stops them. Steps within the auto set or allowed
// for the session run without asking; the others are asked about together,
// in order, in one question (a pipeline is asked about before any of its
// steps runs). It returns nil when every step may run, else a *Refused
// naming the first step that needed a yes, rendered by Render (or by
// RenderReadOnly in plan mode).
func (g *Gate) Check(ctx context.Context, kind Kind, steps ...Step) error {
	g.mu.Lock()
	if g.readOnly {
		for i, s := range steps {
			if s.Effects&^readOnlyRuns(kind) != 0 {
				g.mu.Unlock()
				return &Refused{Step: i, Answer: Deny, Refusal: RenderReadOnly(kind, s)}
			}
		}
	}
	first := -1
	for i, s := range steps {
		if g.askAll || Decide(g.auto, g.allowed[allowKey(kind, s)], s.Effects) == NeedsYes {
			first = i
			break
		}
	}
	g.mu.Unlock()
	if first < 0 {
		return nil
	}
	q := Question{
		ID:       fmt.Sprintf("%s-%d", g.session, questionSeq.Add(1)),
		Session:  g.session,
		Kind:     kind,
		Steps:    steps,
		ToolCall: ToolCallOf(ctx),
		Who:      WhoOf(ctx),
	}
	a := Unanswered
	if ctx.Err() == nil {
		a = g.asker.Ask(ctx, q)
	}
	g.mu.Lock()
	answered := g.answered
	g.mu.Unlock()
	if answered != nil {
		answered(q, a)
	}
	if a.Allows() {
		if a == AllowSession {
			g.mu.Lock()
			for _, s := range steps {
				g.allowed[allowKey(kind, s)] = true
			}
			g.mu.Unlock()
		}
		return nil
	}
	if a != Deny {
		a = Unanswered
	}
	return &Refused{Step: first, Answer: a, Refusal: Render(kind, steps[first], a, g.Auto())}
}

// AccessText returns how a document access is shown in a question: the verb
// and the real path, escaped like a shell word.
func AccessText(a Access, real string) string {
	return a.String() + " " + Show([]string{real})
}

// Access gates one document access. It resolves path once (relative paths
// from dir), asks when the access's effects are not all in the auto set (a
// read of a secret always asks; a write to a secret always asks), and
// returns the resolution the access must then use. A write whose path
// looped is never Inside. Without a yes it returns a *Refused.
func (g *Gate) Access(ctx context.Context, a Access, dir, path string) (RealPath, error) {
	j := g.policy.Examine(dir, path)
	s := Step{
		Text:    AccessText(a, j.Path),
		Effects: AccessEffects(a, j),
		Paths:   []StepPath{{Path: path, Real: j.Path, Class: j.Class, HoldsSecret: j.HoldsSecret, Private: j.Private}},
	}
	if err := g.Check(ctx, KindDocument, s); err != nil {
		return j.RealPath, err
	}
	return j.RealPath, nil
}

// readOnlyRuns are the effects a read-only gate (plan mode) still judges
// as usual for a kind of step: reading, and for a fetch the network — a
// fetch only reads a page, and sends nothing of the workspace but the URL
// the question shows, where a program's net (curl -d @file) can send
// anything.
func readOnlyRuns(kind Kind) Effects {
	if kind == KindFetch {
		return Of(Read, Secret, Net)
	}
	return Of(Read, Secret)
}

// RenderReadOnly returns the refusal of a step that a read-only gate (plan
// mode) stopped; its text ends with what to do instead.
func RenderReadOnly(kind Kind, s Step) *refusal.Error {
	what := "`" + s.Text + "`"
	if kind == KindDocument {
		what = "the document access " + what
	}
	return refusal.New(refusal.PlanMode, fmt.Sprintf("(%s) plan mode runs only steps that read: %s did not run, and nobody was asked. Put the change in your plan instead; it runs once the user leaves plan mode.", s.Effects, what))
}

// Render writes the refusal text of whatever the gate stopped: a shell
// step, a document access, or an MCP call that did not run. Every refusal
// of the gate is written here. The text opens with the effects, and ends
// with the next valid action.
func Render(kind Kind, s Step, a Answer, auto Effects) *refusal.Error {
	what := "`" + s.Text + "`"
	switch kind {
	case KindDocument:
		what = "the document access " + what
	case KindMCP:
		what = "the tool call " + what
	}
	open := fmt.Sprintf("(%s) it needs the user's approval", s.Effects)
	if a == Deny {
		return refusal.New(refusal.Denied, fmt.Sprintf("%s, and the user denied it: %s did not run. Do not try it again unless the user asks for it.", open, what))
	}
	// Unanswered is both a question the user closed and one nobody could
	// be asked: the next step names what to do in either case.
	next := "if no one can be asked here, ask the user to run you in the terminal of an editor with tandem, where they can answer it"
	if grant := s.Effects &^ auto &^ Effects(Secret); grant != 0 && !s.Effects.Has(Secret) {
		next += ", or to allow " + strings.Join(grant.Names(), " and ") + " in shell.autoEffects in their user settings"
	}
	return refusal.New(refusal.Unanswered, fmt.Sprintf("%s, and no answer came (the question was dismissed, or no one could answer it): %s did not run. If the user dismissed it, ask them in your reply whether it should run, and call again only if they say so; %s; or use read-only steps.", open, what, next))
}
