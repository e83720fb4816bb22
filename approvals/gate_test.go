package approvals

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tandemdev/tandem/refusal"
)

// every effect set, for exhaustive checks of the pure decision.
func everySet() []Effects {
	out := make([]Effects, 0, 1<<len(effectNames))
	for s := Effects(0); s <= All; s++ {
		out = append(out, s)
	}
	return out
}

func TestParseAuto(t *testing.T) {
	got, err := ParseAuto([]string{"read", "write", "exec", "net", "outside", "protected"})
	if err != nil || got != Grantable {
		t.Fatalf("ParseAuto(six names) = %v, %v; want %v", got, err, Grantable)
	}
	// Writes outside the workspace and to protected paths ask by default.
	if got, err := ParseAuto([]string{"read", "write", "exec", "net"}); err != nil || got != DefaultAuto {
		t.Fatalf("ParseAuto(four names) = %v, %v; want the default %v", got, err, DefaultAuto)
	}
	// The error names every name the setting takes.
	if _, err := ParseAuto([]string{"rm"}); err == nil || !strings.Contains(err.Error(), "outside, protected") {
		t.Errorf("ParseAuto(rm) error %v does not name outside and protected", err)
	}
	for _, bad := range [][]string{{"read", "secret"}, {"Read"}, {"rm"}, {""}} {
		got, err := ParseAuto(bad)
		var ue *UnknownEffectError
		if !errors.As(err, &ue) || got != 0 {
			t.Errorf("ParseAuto(%q) = %v, %v; want an *UnknownEffectError and no set", bad, got, err)
		}
	}
	if _, err := ParseAuto([]string{"secret"}); err == nil || !strings.Contains(err.Error(), "never") {
		t.Errorf("ParseAuto(secret) error %v does not say secret can never run unasked", err)
	}
	if got, err := ParseAuto(nil); err != nil || got != 0 {
		t.Errorf("ParseAuto(nil) = %v, %v; want the empty set (everything asks)", got, err)
	}
}

func TestEffectsString(t *testing.T) {
	for _, s := range everySet() {
		back, err := ParseEffects(s.Names())
		if err != nil || back != s {
			t.Fatalf("ParseEffects(%v.Names()) = %v, %v", s, back, err)
		}
	}
	if got := Of(Write, Outside).String(); got != "write+outside" {
		t.Errorf("String = %q", got)
	}
}

// TestLaw_auto_needs_every_effect: one effect outside the auto set, or an
// ungrantable one, makes the step ask.
func TestLaw_auto_needs_every_effect(t *testing.T) {
	for _, auto := range everySet() {
		for _, e := range everySet() {
			within := true
			for _, x := range e.List() {
				if !auto.Has(x) || x == Secret {
					within = false
				}
			}
			if got := Decide(auto, false, e); (got == Runs) != within {
				t.Fatalf("Decide(auto=%v, %v) = %v; every effect within the grantable auto set is %v", auto, e, got, within)
			}
		}
	}
}

// TestLaw_auto_never_sensitive: a step with secret asks whatever the auto
// set holds.
func TestLaw_auto_never_sensitive(t *testing.T) {
	for _, auto := range everySet() {
		for _, e := range everySet() {
			if e.Has(Secret) && Decide(auto, false, e) != NeedsYes {
				t.Fatalf("Decide(auto=%v, %v) runs a secret step unasked", auto, e)
			}
		}
	}
	g := NewGate("s", All, nil, nil)
	if g.Auto().Has(Secret) {
		t.Fatal("a gate made with secret in its auto set keeps it")
	}
	g.SetAuto(All)
	if g.Auto().Has(Secret) {
		t.Fatal("SetAuto keeps secret")
	}
}

// countingAsker answers with a fixed answer and counts questions.
type countingAsker struct {
	answer Answer
	asked  atomic.Int32
	last   Question
}

func (a *countingAsker) Ask(_ context.Context, q Question) Answer {
	a.asked.Add(1)
	a.last = q
	return a.answer
}

// TestLaw_auto_runs_within: a step within the auto set runs and uses no
// answer.
func TestLaw_auto_runs_within(t *testing.T) {
	for _, auto := range everySet() {
		for _, e := range everySet() {
			if !e.Within(auto &^ Of(Secret)) {
				continue
			}
			a := &countingAsker{answer: Deny}
			g := NewGate("s", auto, nil, a)
			if err := g.Check(context.Background(), KindShell, Step{Text: "x", Effects: e}); err != nil {
				t.Fatalf("auto=%v step %v: %v", auto, e, err)
			}
			if a.asked.Load() != 0 {
				t.Fatalf("auto=%v step %v asked", auto, e)
			}
		}
	}
}

// TestLaw_held_needs_a_yes: a step not within the auto set runs only on a
// yes; a denial or no answer stops it with the matching refusal.
func TestLaw_held_needs_a_yes(t *testing.T) {
	for _, auto := range everySet() {
		for _, e := range everySet() {
			if e.Within(auto &^ Of(Secret)) {
				continue
			}
			for _, ans := range []Answer{Unanswered, AllowOnce, AllowSession, Deny} {
				a := &countingAsker{answer: ans}
				g := NewGate("s", auto, nil, a)
				err := g.Check(context.Background(), KindShell, Step{Text: "x", Effects: e})
				if a.asked.Load() != 1 {
					t.Fatalf("auto=%v step %v: asked %d times", auto, e, a.asked.Load())
				}
				if ans.Allows() != (err == nil) {
					t.Fatalf("auto=%v step %v answer %v: err %v", auto, e, ans, err)
				}
				var r *Refused
				if err != nil && (!errors.As(err, &r) || r.Step != 0 || r.Answer != ans) {
					t.Fatalf("answer %v: refusal %#v", ans, err)
				}
				if err != nil {
					want := refusal.Unanswered
					if ans == Deny {
						want = refusal.Denied
					}
					if r.Refusal.Code != want {
						t.Fatalf("answer %v: code %v, want %v", ans, r.Refusal.Code, want)
					}
				}
			}
		}
	}
}

// The steps of a pipeline are asked in one question, in order, before any
// runs; an allowance is scoped to the exact step text and effect set.
func TestGateAsksPipelineOnceAndScopesAllowance(t *testing.T) {
	a := &countingAsker{answer: AllowSession}
	g := NewGate("s1", Of(Read), nil, a)
	steps := []Step{{Text: "cat a", Effects: Of(Read)}, {Text: "tee /tmp/x", Effects: Of(Write, Outside)}}
	if err := g.Check(context.Background(), KindShell, steps...); err != nil {
		t.Fatal(err)
	}
	if a.asked.Load() != 1 || len(a.last.Steps) != 2 || a.last.Steps[1].Text != "tee /tmp/x" || a.last.Session != "s1" {
		t.Fatalf("question %+v asked %d times", a.last, a.asked.Load())
	}
	a.answer = Deny
	if err := g.Check(context.Background(), KindShell, steps[1]); err != nil {
		t.Fatalf("an allowed-for-session step asked again: %v", err)
	}
	other := Step{Text: "tee /tmp/x", Effects: Of(Write, Outside, Protected)}
	err := g.Check(context.Background(), KindShell, other)
	var r *Refused
	if !errors.As(err, &r) || r.Answer != Deny {
		t.Fatalf("same text, other effects: %v, want a denial", err)
	}
	if err := g.Check(context.Background(), KindShell, Step{Text: "tee /tmp/y", Effects: Of(Write, Outside)}); err == nil {
		t.Fatal("the allowance covered another command")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a.answer = AllowOnce
	before := a.asked.Load()
	if err := g.Check(ctx, KindShell, other); !errors.As(err, &r) || r.Answer != Unanswered || a.asked.Load() != before {
		t.Fatalf("a cancelled step: %v, asked %d more", err, a.asked.Load()-before)
	}
}

func TestRenderEndsWithTheNextAction(t *testing.T) {
	s := Step{Text: "rm -rf /tmp/x", Effects: Of(Write, Outside)}
	d := Render(KindShell, s, Deny, Of(Read))
	if d.Code != refusal.Denied || !strings.HasPrefix(d.Text, "(write+outside) it needs the user's approval") ||
		!strings.HasSuffix(d.Text, "Do not try it again unless the user asks for it.") || !strings.Contains(d.Text, s.Text) {
		t.Errorf("denied: %+v", d)
	}
	u := Render(KindDocument, Step{Text: "write /etc/x", Effects: Of(Write, Outside)}, Unanswered, Of(Read, Write))
	if u.Code != refusal.Unanswered || !strings.HasPrefix(u.Text, "(write+outside) it needs the user's approval") ||
		!strings.Contains(u.Text, "allow outside in shell.autoEffects") || !strings.HasSuffix(u.Text, "or use read-only steps.") ||
		!strings.Contains(u.Text, "document access") {
		t.Errorf("unanswered: %+v", u)
	}
	sec := Render(KindShell, Step{Text: "cat ~/.ssh/id", Effects: Of(Read, Secret)}, Unanswered, DefaultAuto)
	if strings.Contains(sec.Text, "shell.autoEffects") {
		t.Errorf("a secret step suggests a setting that cannot allow it: %s", sec.Text)
	}
}

func TestAnswerOptionKinds(t *testing.T) {
	for _, a := range []Answer{AllowOnce, AllowSession, Deny} {
		back, err := AnswerOfOption(a.OptionKind())
		if err != nil || back != a {
			t.Errorf("%v → %s → %v, %v", a, a.OptionKind(), back, err)
		}
	}
	if Unanswered.OptionKind() != OptionRejectOnce {
		t.Error("unanswered must pass through as a one-time rejection")
	}
	if a, _ := AnswerOfOption(OptionRejectAlways); a != Deny {
		t.Error("reject_always is not a denial")
	}
	if _, err := AnswerOfOption("yes"); err == nil {
		t.Error("an unknown option kind was accepted")
	}
}

// A read-only gate (plan mode) refuses at once every step with an effect
// beyond reading, asking nobody; a reading step runs as before, and a
// secret read is still asked.
func TestReadOnlyGateRefusesAllButReading(t *testing.T) {
	for e := Effects(0); e <= All; e++ {
		a := &countingAsker{answer: AllowOnce}
		g := NewGate("s", All, nil, a)
		g.SetReadOnly(true)
		err := g.Check(context.Background(), KindShell, Step{Text: "x", Effects: e})
		var r *Refused
		reads := e&^Of(Read, Secret) == 0
		switch {
		case !reads && (!errors.As(err, &r) || r.Refusal.Code != refusal.PlanMode || a.asked.Load() != 0):
			t.Fatalf("%v: %v (asked %d), want a plan_mode refusal without a question", e, err, a.asked.Load())
		case reads && err != nil:
			t.Fatalf("%v: %v", e, err)
		case reads && e.Has(Secret) != (a.asked.Load() == 1):
			t.Fatalf("%v: asked %d", e, a.asked.Load())
		}
	}
}
