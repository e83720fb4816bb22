package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/internal/lawhit"
	"github.com/tandemdev/tandem/refusal"
)

// The gate laws, checked end to end: generated scripts run for real, each
// logical step leaves a file behind when it runs, and every question gets a
// drawn answer. A step is either within the default auto set (a write in
// the workspace) or one that always asks (a write under ~/.ssh), and it
// reaches the gate in one of many shapes: plain, behind env, nice, timeout,
// command or exec, in sh -c, eval, a function, a loop, a command
// substitution, a pipeline, xargs, or find -exec.

type lawStep struct {
	asks  bool
	shape int
	piped bool // joined to the step before by |: one pipeline, one question
}

// pipeShapes are the shapes whose first action in a pipeline stage is the
// step's own program, so a pipeline of them is one question. (A stage that
// runs a harmless command first — `if true; then …` — is asked at that
// command; its later commands are asked as they come, while the other
// stages run. docs/tools.md says so.)
var pipeShapes = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}

var shapes = []func(cmd string) string{
	func(c string) string { return c },
	func(c string) string { return "env " + c },
	func(c string) string { return "nice -n 1 " + c },
	func(c string) string { return "timeout 10 " + c },
	func(c string) string { return "command " + c },
	func(c string) string { return "(exec " + c + ")" },
	func(c string) string { return "sh -c '" + c + "'" },
	func(c string) string { return "bash -c '" + c + "'" },
	func(c string) string { return "eval '" + c + "'" },
	func(c string) string { return "run " + c },
	func(c string) string { return "for _ in 1; do " + c + "; done" },
	func(c string) string { return ": $(" + c + ")" },
	func(c string) string { return "echo go | " + c + " | cat" },
	func(c string) string { return "if true; then { " + c + "; }; fi" },
}

// touchStep is step i's command; its target proves it ran.
func (s lawStep) command(i int) string {
	target := fmt.Sprintf("ran.%d", i)
	if s.asks {
		target = fmt.Sprintf("\"$HOME/.ssh/ran.%d\"", i)
	}
	switch s.shape {
	case len(shapes):
		return fmt.Sprintf("printf '%%s\\n' ran.%d | xargs -I{} touch %s", i, strings.Replace(target, fmt.Sprintf("ran.%d", i), "{}", 1))
	case len(shapes) + 1:
		return fmt.Sprintf("find . -maxdepth 0 -exec touch %s \\;", target)
	}
	return shapes[s.shape]("touch " + target)
}

type lawCase struct {
	steps     []lawStep
	answers   []approvals.Answer // the answer to the n-th question; Deny past the end
	res       Result
	ran       []bool
	asked     int
	questions []approvals.Question
}

func drawLawCase(t *rapid.T) *lawCase {
	n := rapid.IntRange(1, 6).Draw(t, "steps")
	c := &lawCase{}
	for i := range n {
		c.steps = append(c.steps, lawStep{
			asks:  rapid.Bool().Draw(t, "asks"),
			piped: i > 0 && rapid.IntRange(0, 3).Draw(t, "piped") == 0,
		})
	}
	for i := range c.steps {
		if c.steps[i].piped || (i+1 < n && c.steps[i+1].piped) {
			c.steps[i].shape = rapid.SampledFrom(pipeShapes).Draw(t, "shape")
		} else {
			c.steps[i].shape = rapid.IntRange(0, len(shapes)+1).Draw(t, "shape")
		}
	}
	for range n {
		c.answers = append(c.answers, rapid.SampledFrom([]approvals.Answer{approvals.AllowOnce, approvals.Deny, approvals.Unanswered}).Draw(t, "answer"))
	}
	return c
}

func (c *lawCase) script() string {
	var b strings.Builder
	b.WriteString("run() { \"$@\"; }\n")
	for i, s := range c.steps {
		switch {
		case s.piped:
			b.WriteString(" | ")
		case i > 0:
			b.WriteString([]string{"; ", "\n", " && "}[i%3])
		}
		b.WriteString(s.command(i))
	}
	return b.String()
}

func (c *lawCase) run(t *rapid.T) {
	sb := newTestbed(t)
	a := &asker{}
	a.answer = func(approvals.Question) approvals.Answer {
		k := len(a.questions) - 1 // called with the question recorded
		if k < len(c.answers) {
			return c.answers[k]
		}
		return approvals.Deny
	}
	c.res = runScript(t, c.script(), sb.opts(approvals.DefaultAuto, a))
	c.questions = a.asked()
	c.asked = len(c.questions)
	for i, s := range c.steps {
		p := filepath.Join(sb.root, fmt.Sprintf("ran.%d", i))
		if s.asks {
			p = filepath.Join(sb.home, ".ssh", fmt.Sprintf("ran.%d", i))
		}
		_, err := os.Stat(p)
		c.ran = append(c.ran, err == nil)
	}
}

// firstRefused is, as the law's model computes it, the first step that
// needed a yes and did not get one, and the first step of its pipeline
// (none of which runs); -1, -1 when every question got a yes.
func (c *lawCase) firstRefused() (step, from int) {
	q := 0
	for i := 0; i < len(c.steps); {
		end := i + 1
		for end < len(c.steps) && c.steps[end].piped {
			end++
		}
		for k := i; k < end; k++ {
			if !c.steps[k].asks {
				continue
			}
			if q >= len(c.answers) || !c.answers[q].Allows() {
				return k, i
			}
			q++
			break
		}
		i = end
	}
	return -1, -1
}

func TestLaw_gate_prefix(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"stopped before its end": 30, "ran every step": 15})
	rapid.Check(t, func(rt *rapid.T) {
		c := drawLawCase(rt)
		c.run(rt)
		m := 0
		for m < len(c.ran) && c.ran[m] {
			m++
		}
		hits.Hit(map[bool]string{true: "ran every step", false: "stopped before its end"}[m == len(c.ran)])
		for i := m; i < len(c.ran); i++ {
			if c.ran[i] {
				rt.Fatalf("step %d ran after step %d did not: ran=%v\nscript:\n%s\nresult: %+v", i, m, c.ran, c.script(), c.res)
			}
		}
		// The steps the result reports as run are a prefix of those that passed the gate.
		seenNotRun := false
		for _, s := range c.res.Steps {
			if !s.Ran {
				seenNotRun = true
			} else if seenNotRun && c.res.End == Refused {
				rt.Fatalf("result lists a run step after a step that did not run: %+v", c.res.Steps)
			}
		}
	})
}

func TestLaw_gate_needs_yes(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"a gated step ran": 8})
	rapid.Check(t, func(rt *rapid.T) {
		c := drawLawCase(rt)
		c.run(rt)
		// A yes approves every step of its question that needed one.
		yes := 0
		for k, q := range c.questions {
			if k < len(c.answers) && c.answers[k].Allows() {
				for _, st := range q.Steps {
					if st.Effects.Has(approvals.Secret) {
						yes++
					}
				}
			}
		}
		gatedRan := 0
		for i, s := range c.steps {
			if s.asks && c.ran[i] {
				gatedRan++
			}
		}
		if gatedRan > 0 {
			hits.Hit("a gated step ran")
		} else {
			hits.Hit("no gated step ran")
		}
		if gatedRan > yes {
			rt.Fatalf("%d gated steps ran on %d yes answers\nscript:\n%s\nresult: %+v", gatedRan, yes, c.script(), c.res)
		}
	})
}

func TestLaw_gate_deny_stops(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"denied": 10, "unanswered": 8})
	rapid.Check(t, func(rt *rapid.T) {
		c := drawLawCase(rt)
		c.run(rt)
		k, from := c.firstRefused()
		if k < 0 {
			return
		}
		for i := range c.steps {
			if (i < from) != c.ran[i] {
				rt.Fatalf("refused at step %d (its pipeline from step %d), but step %d ran=%v\nscript:\n%s\nresult: %+v", k, from, i, c.ran[i], c.script(), c.res)
			}
		}
		if c.res.End != Refused {
			rt.Fatalf("a refused script ended %q", c.res.End)
		}
		want := refusal.Denied
		if q := c.asked - 1; c.answers[q] == approvals.Unanswered {
			want = refusal.Unanswered
		}
		hits.Hit(map[bool]string{true: "denied", false: "unanswered"}[want == refusal.Denied])
		if c.res.Refusal.Code != want {
			rt.Fatalf("refusal code %q, want %q", c.res.Refusal.Code, want)
		}
		if s := c.res.Steps[c.res.RefusedAt-1]; s.Ran || !strings.Contains(s.Text, fmt.Sprintf("ran.%d", k)) {
			rt.Fatalf("the refused step is %+v, want step %d's", s, k)
		}
	})
}

func TestLaw_gate_finish_runs_all(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"finished": 15})
	rapid.Check(t, func(rt *rapid.T) {
		c := drawLawCase(rt)
		c.run(rt)
		if c.res.End != Finished {
			return
		}
		hits.Hit("finished")
		for i, r := range c.ran {
			if !r {
				rt.Fatalf("finished, but step %d did not run\nscript:\n%s\nresult: %+v", i, c.script(), c.res)
			}
		}
		if c.res.Status != 0 {
			rt.Fatalf("finished with status %d: %+v", c.res.Status, c.res)
		}
	})
}
