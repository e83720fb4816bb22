package shell

import (
	"fmt"
	"strings"
)

// How many steps a rendered result lists: the first and the last ones, and
// every failed or refused one up to a bound; the rest are counted.
const (
	listFirst  = 10
	listLast   = 10
	listFailed = 20
	stepChars  = 300
)

// Render returns the text a model reads of a run's end: how it ended, its
// steps with their exit statuses, and its output with every dropped byte
// counted.
func Render(res Result) string {
	var b strings.Builder
	b.WriteString(endLine(res))
	b.WriteString("\n")
	if res.Sandbox != "" {
		b.WriteString("sandbox: " + res.Sandbox + "\n")
	}
	if res.SyntaxError != "" {
		b.WriteString(syntaxNote(res))
	}
	writeSteps(&b, res.Steps, false)
	if res.Unrecorded > 0 {
		fmt.Fprintf(&b, "  … and %d more steps, not recorded: a result lists the first %d steps of a script\n", res.Unrecorded, StepsRecorded)
	}
	writeOutput(&b, res.Output, "output")
	return b.String()
}

// syntaxNote says that the script stopped at a syntax error, what ran and
// what to do next.
func syntaxNote(res Result) string {
	if len(res.Steps) == 0 && res.Unrecorded == 0 {
		return fmt.Sprintf("syntax error at %s. Nothing ran; bash stops there with status 2. Fix the syntax and call again.\n", res.SyntaxError)
	}
	return fmt.Sprintf("syntax error at %s. The lines before it ran, as bash runs them, and nothing after it; bash stops there with status 2. Fix the syntax and run what did not run.\n", res.SyntaxError)
}

// endLine returns how a run ended, as the first line of its result says it.
func endLine(res Result) string {
	switch res.End {
	case Finished:
		return fmt.Sprintf("finished: exit status %d", res.Status)
	case Exited:
		return fmt.Sprintf("exited: exit status %d", res.Status)
	case Refused:
		return fmt.Sprintf("refused at step %d (%s): %s", res.RefusedAt, res.Refusal.Code, res.Refusal.Text)
	case Killed:
		return "killed: the script was stopped before its end; its processes are gone"
	case Bounded:
		return fmt.Sprintf("bounded (%s): %s", res.Refusal.Code, res.Refusal.Text)
	case Failed:
		return "failed: " + res.Error
	}
	return ""
}

// RenderProgress returns the text of a run still going on: its steps and its
// output so far, under head.
func RenderProgress(head string, steps []Step, out Output) string {
	var b strings.Builder
	b.WriteString(head)
	b.WriteString("\n")
	writeSteps(&b, steps, true)
	writeOutput(&b, out, "output so far")
	return b.String()
}

// writeSteps lists steps; running says the script still runs, so a step
// that has not ended is running, not one that did not run.
func writeSteps(b *strings.Builder, steps []Step, running bool) {
	if len(steps) == 0 {
		b.WriteString("steps: none ran\n")
		return
	}
	fmt.Fprintf(b, "steps (%d):\n", len(steps))
	show := make([]bool, len(steps))
	failed := 0
	for i, s := range steps {
		if i < listFirst || i >= len(steps)-listLast {
			show[i] = true
		} else if (s.Status > 0 || (!s.Ran && !running)) && failed < listFailed {
			show[i], failed = true, failed+1
		}
	}
	skipped := 0
	for i, s := range steps {
		if !show[i] {
			skipped++
			continue
		}
		if skipped > 0 {
			fmt.Fprintf(b, "  … %d more steps\n", skipped)
			skipped = 0
		}
		text := s.Text
		if len(text) > stepChars {
			text = text[:stepChars] + "…"
		}
		fmt.Fprintf(b, "  %d. %s", s.N, text)
		switch {
		case s.Refused:
			b.WriteString("  → refused")
		case !s.Ran && running:
			b.WriteString("  → running")
		case !s.Ran:
			b.WriteString("  → did not run")
		case s.Status >= 0:
			fmt.Fprintf(b, "  → %d", s.Status)
		}
		b.WriteString("\n")
	}
}

func writeOutput(b *strings.Builder, o Output, label string) {
	switch {
	case o.Total == 0:
		fmt.Fprintf(b, "%s: none\n", label)
	case o.Dropped > 0:
		fmt.Fprintf(b, "%s (%d bytes; the first and last %d kept, %d bytes and %d lines dropped from the middle; to see them, run it again with its output redirected to a file (> out.log 2>&1) and read the file in ranges):\n%s",
			label, o.Total, o.Total-o.Dropped, o.Dropped, o.DroppedLines, o.Text)
	default:
		fmt.Fprintf(b, "%s (%d bytes):\n%s", label, o.Total, o.Text)
	}
	if o.Total > 0 && !strings.HasSuffix(o.Text, "\n") {
		b.WriteString("\n[no newline at the end of the output]\n")
	}
}
