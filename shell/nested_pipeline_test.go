package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandemdev/tandem/approvals"
)

// runWithin runs a script and fails the test if it has not ended within d.
func runWithin(t *testing.T, d time.Duration, script string, o Options) Result {
	t.Helper()
	res, hung, err := runBounded(script, d, o)
	switch {
	case err != nil:
		t.Fatalf("start %q: %v", script, err)
	case hung:
		t.Fatalf("%q still runs after %v: steps %+v, output %q", script, d, res.Steps, res.Output.Text)
	}
	return res
}

// A pipeline that is a stage of another pipeline (in a subshell or a brace
// group, first or last) finishes as in bash, with every step gated.
func TestNestedPipelinesFinish(t *testing.T) {
	for _, c := range []struct{ script, out string }{
		{`( echo sub | tr a-z A-Z ) | cat`, "SUB\n"},
		{`{ tr a b < f | grep x; } | sort`, "bx\n"},
		{`echo hi | { cat | tr a-z A-Z; }`, "HI\n"},
		{`echo hi | ( cat | ( tr a-z A-Z | cat ) ) | cat`, "HI\n"},
		{`{ echo a | cat; echo b; } | { cat | sort -r; }`, "b\na\n"},
		{`seq 1 20000 | { cat | wc -l; }`, "20000\n"},
		{`( seq 1 20000 | cat ) | tail -n 1`, "20000\n"},
		{`{ seq 1 100000 2>&1 >/dev/null | cat; } | cat; echo end`, "end\n"},
	} {
		sb := newTestbed(t)
		os.WriteFile(filepath.Join(sb.root, "f"), []byte("ax\nc\n"), 0o644)
		res := runWithin(t, 10*time.Second, c.script, sb.opts(approvals.DefaultAuto, nil))
		if res.End != Finished || res.Status != 0 || res.Output.Text != c.out {
			t.Errorf("%s: got %s", c.script, Render(res))
		}
		for _, s := range res.Steps {
			if !s.Ran {
				t.Errorf("%s: step %+v did not run", c.script, s)
			}
		}
	}
}

// A step that needs a yes inside a nested pipeline is asked before it runs;
// refused, it never runs and the script stops there.
func TestNestedPipelineStepsAreGated(t *testing.T) {
	for _, script := range []string{
		`( echo sub | touch "$HOME/.ssh/x" ) | cat`,
		`{ touch "$HOME/.ssh/x" | grep x; } | sort`,
		`echo hi | { cat | touch "$HOME/.ssh/x"; }`,
		`echo hi | ( cat | ( touch "$HOME/.ssh/x" | cat ) ) | cat`,
	} {
		sb := newTestbed(t)
		a := answering(approvals.Deny)
		res := runWithin(t, 10*time.Second, script+`; touch after`, sb.opts(approvals.DefaultAuto, a))
		if res.End != Refused {
			t.Errorf("%s: ended %s, want refused: %s", script, res.End, Render(res))
		}
		if _, err := os.Stat(filepath.Join(sb.home, ".ssh", "x")); err == nil {
			t.Errorf("%s: the refused step ran", script)
		}
		if _, err := os.Stat(filepath.Join(sb.root, "after")); err == nil {
			t.Errorf("%s: the script went on after the refusal", script)
		}
		asked := false
		for _, q := range a.asked() {
			for _, s := range q.Steps {
				asked = asked || strings.Contains(s.Text, ".ssh/x")
			}
		}
		if !asked {
			t.Errorf("%s: the step was never asked: %+v", script, a.asked())
		}
	}
}

// set -x shows a pipeline's commands as the script wrote them: the marker
// tandem puts in each stage is its own, never traced. set -v prints the
// script's own lines.
func TestPipelineTraceShowsScriptCommands(t *testing.T) {
	sb := newTestbed(t)
	res := runWithin(t, 10*time.Second, "set -xv\necho a | tr a b | sort | grep -v .", sb.opts(approvals.DefaultAuto, nil))
	out := res.Output.Text
	if strings.Contains(out, stageMarker) {
		t.Errorf("the trace shows the stage marker: %q", out)
	}
	for _, want := range []string{"echo a | tr a b | sort | grep -v .\n", "+ echo a\n", "+ tr a b\n", "+ sort\n", "+ grep -v .\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output %q lacks %q", out, want)
		}
	}
}
