package approvals

import (
	"context"
	"errors"
	"testing"

	"github.com/tandemdev/tandem/internal/lawhit"
	"github.com/tandemdev/tandem/refusal"
)

// The pure halves of the script gate laws: a runner that checks each step
// with the gate before it runs it and stops at the first refusal, over every
// script of up to four steps drawn from representative effect sets, several
// auto sets, and every sequence of answers. The runner's own tests check the
// same laws end to end.

var lawEffects = []Effects{0, Of(Read), Of(Write), Of(Write, Outside), Of(Exec), Of(Read, Secret), Of(Write, Protected)}
var lawAutos = []Effects{0, Of(Read), Of(Read, Write), DefaultAuto}
var lawAnswers = []Answer{AllowOnce, AllowSession, Deny, Unanswered}

type gateRun struct {
	ran     []int
	answer  map[int]Answer // the answer to the question asked before step i
	stopped int            // -1 when the script finished
	refused *Refused
	yeses   int
	asked   int
}

// runScript runs steps through a fresh gate, answering questions in order.
func runScript(auto Effects, steps []Step, answers []Answer) gateRun {
	r := gateRun{stopped: -1, answer: map[int]Answer{}}
	cur := 0
	a := AskerFunc(func(context.Context, Question) Answer {
		ans := Unanswered
		if r.asked < len(answers) {
			ans = answers[r.asked]
		}
		r.asked++
		r.answer[cur] = ans
		if ans.Allows() {
			r.yeses++
		}
		return ans
	})
	g := NewGate("s", auto, nil, a)
	for i, s := range steps {
		cur = i
		if err := g.Check(context.Background(), KindShell, s); err != nil {
			r.stopped = i
			errors.As(err, &r.refused)
			return r
		}
		r.ran = append(r.ran, i)
	}
	return r
}

// pipelineRun checks steps as one pipeline (one question for all).
func pipelineRun(auto Effects, steps []Step, answer Answer) (asked int, q Question, err error) {
	g := NewGate("s", auto, nil, AskerFunc(func(_ context.Context, qq Question) Answer {
		asked++
		q = qq
		return answer
	}))
	err = g.Check(context.Background(), KindShell, steps...)
	return asked, q, err
}

// eachScript calls fn for every script of up to 4 steps and answer sequence.
func eachScript(fn func(auto Effects, steps []Step, answers []Answer, r gateRun)) {
	var steps []Step
	var rec func(n int)
	rec = func(n int) {
		for _, auto := range lawAutos {
			for _, ans := range answerSeqs(len(steps)) {
				fn(auto, steps, ans, runScript(auto, steps, ans))
			}
		}
		if n == 0 {
			return
		}
		for i, e := range lawEffects {
			// Repeated text: AllowSession of one step covers its repeats.
			steps = append(steps, Step{Text: string(rune('a' + i%3)), Effects: e})
			rec(n - 1)
			steps = steps[:len(steps)-1]
		}
	}
	rec(4)
}

func answerSeqs(n int) [][]Answer {
	out := [][]Answer{nil}
	for i := 0; i < n && i < 2; i++ {
		var next [][]Answer
		for _, s := range out {
			for _, a := range lawAnswers {
				next = append(next, append(append([]Answer{}, s...), a))
			}
		}
		out = next
	}
	return out
}

// TestLaw_gate_prefix_decisions: the steps that ran are the first steps of
// the script, in order; a pipeline refused at step k had every step before k
// within the auto set, and k is the first that needed a yes.
func TestLaw_gate_prefix_decisions(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"script stopped early": 1000, "pipeline refused at a step": 1000})
	eachScript(func(auto Effects, steps []Step, answers []Answer, r gateRun) {
		if len(r.ran) < len(steps) {
			hits.Hit("script stopped early")
		}
		for i, k := range r.ran {
			if k != i {
				t.Fatalf("auto %v steps %v answers %v: ran %v", auto, steps, answers, r.ran)
			}
		}
		for _, a := range lawAnswers {
			_, _, err := pipelineRun(auto, steps, a)
			var ref *Refused
			if !errors.As(err, &ref) {
				continue
			}
			hits.Hit("pipeline refused at a step")
			for i := 0; i < ref.Step; i++ {
				if Decide(auto, false, steps[i].Effects) != Runs {
					t.Fatalf("pipeline %v refused at %d, but step %d needed a yes first", steps, ref.Step, i)
				}
			}
			if Decide(auto, false, steps[ref.Step].Effects) != NeedsYes {
				t.Fatalf("pipeline %v refused at %d, which needed no yes", steps, ref.Step)
			}
		}
	})
}

// TestLaw_gate_needs_yes_decisions: gated steps run no more often than the
// user said yes.
func TestLaw_gate_needs_yes_decisions(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"gated step ran on its yes": 1000, "gated step ran on an earlier session yes": 100})
	eachScript(func(auto Effects, steps []Step, answers []Answer, r gateRun) {
		for _, k := range r.ran {
			if Decide(auto, false, steps[k].Effects) == Runs {
				continue
			}
			if a, asked := r.answer[k]; asked && a.Allows() {
				hits.Hit("gated step ran on its yes")
				continue
			}
			hits.Hit("gated step ran on an earlier session yes")
			covered := false
			for _, j := range r.ran[:k] {
				covered = covered || r.answer[j] == AllowSession && steps[j].Text == steps[k].Text && steps[j].Effects == steps[k].Effects
			}
			if !covered {
				t.Fatalf("auto %v steps %v answers %v: gated step %d ran without a yes", auto, steps, answers, k)
			}
		}
	})
}

// TestLaw_gate_deny_stops_decisions: at a denial or no answer, the steps
// before ran and the refused step and all after did not; the refusal says
// which.
func TestLaw_gate_deny_stops_decisions(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"stopped by a deny": 1000, "stopped unanswered": 1000})
	eachScript(func(auto Effects, steps []Step, answers []Answer, r gateRun) {
		if r.stopped < 0 {
			return
		}
		if len(r.ran) != r.stopped {
			t.Fatalf("stopped at %d but ran %v", r.stopped, r.ran)
		}
		last := Unanswered
		if r.asked <= len(answers) {
			last = answers[r.asked-1]
		}
		want := refusal.Unanswered
		if last == Deny {
			want = refusal.Denied
			hits.Hit("stopped by a deny")
		} else {
			hits.Hit("stopped unanswered")
		}
		if r.refused == nil || r.refused.Refusal.Code != want || r.refused.Answer.Allows() {
			t.Fatalf("steps %v answers %v: refusal %+v, want code %v", steps, answers, r.refused, want)
		}
	})
}

// TestLaw_gate_finish_runs_all_decisions: a script that finished ran every
// step.
func TestLaw_gate_finish_runs_all_decisions(t *testing.T) {
	n := 0
	hits := lawhit.New(t, map[string]int{"pipeline ran within the auto set": 1000, "pipeline ran on one yes": 1000})
	eachScript(func(auto Effects, steps []Step, answers []Answer, r gateRun) {
		n++
		if r.stopped < 0 && len(r.ran) != len(steps) {
			t.Fatalf("finished but ran %v of %d", r.ran, len(steps))
		}
		// A pipeline that may run: every step within the auto set, or one
		// question holding every step, answered yes.
		for _, a := range lawAnswers {
			asked, q, err := pipelineRun(auto, steps, a)
			if err != nil {
				continue
			}
			within := true
			for _, s := range steps {
				within = within && Decide(auto, false, s.Effects) == Runs
			}
			if !within && (asked != 1 || !a.Allows() || len(q.Steps) != len(steps)) {
				t.Fatalf("pipeline %v under %v ran on answer %v after %d questions of %d steps", steps, auto, a, asked, len(q.Steps))
			}
			if within && asked != 0 {
				t.Fatalf("pipeline %v within %v asked", steps, auto)
			}
			if within {
				hits.Hit("pipeline ran within the auto set")
			} else {
				hits.Hit("pipeline ran on one yes")
			}
		}
	})
	if n < 10000 {
		t.Fatalf("explored only %d runs", n)
	}
}
