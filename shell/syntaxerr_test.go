package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
)

// A script that does not parse runs as `bash -c` runs it: every command
// line before the error (a command spanning lines whole, its here-document
// too), each step gated as always; nothing of the error's own line or after
// it; then bash's message, status 2, and a note that tells the model what
// ran and what to do.
func TestLaw_syntax_error_runs_only_the_lines_before_it(t *testing.T) {
	sb := newTestbed(t)
	script := "touch before\nif true; then\n  cat > inside <<EOF\nbody\nEOF\nfi\ntouch same; fi; touch same2\ntouch after\n"
	res := runScript(t, script, sb.opts(approvals.DefaultAuto, nil))
	for name, want := range map[string]bool{"before": true, "inside": true, "same": false, "same2": false, "after": false} {
		if _, err := os.Stat(filepath.Join(sb.root, name)); (err == nil) != want {
			t.Errorf("%s made: %v, want %v\n%s", name, err == nil, want, Render(res))
		}
	}
	const msg = "bash: -c: line 7: syntax error near unexpected token `fi'\nbash: -c: line 7: `touch same; fi; touch same2'\n"
	text := Render(res)
	if res.End != Exited || res.Status != 2 || res.Output.Text != msg || !strings.HasPrefix(res.SyntaxError, "line 7: ") {
		t.Errorf("want exit 2 with bash's message:\n%s", text)
	}
	if !strings.Contains(text, "syntax error at line 7: ") || !strings.Contains(text, "The lines before it ran") || !strings.Contains(text, "Fix the syntax and run what did not run.") {
		t.Errorf("the note does not say what ran and what to do:\n%s", text)
	}

	// The lines before the error are steps as any: a no stops them, and
	// the error is never reached.
	a := answering(approvals.Deny)
	res = runScript(t, "touch denied\nfi\n", sb.opts(approvals.Of(approvals.Read), a))
	if _, err := os.Stat(filepath.Join(sb.root, "denied")); err == nil || res.End != Refused || len(a.asked()) != 1 || res.SyntaxError != "" {
		t.Errorf("a denied step before the error: %s", Render(res))
	}

	// An error on the first line: nothing ran.
	res = runScript(t, "touch never; fi\n", sb.opts(approvals.DefaultAuto, nil))
	if text := Render(res); res.Status != 2 || len(res.Steps) != 0 || !strings.Contains(text, "Nothing ran;") || !strings.Contains(text, "Fix the syntax and call again.") {
		t.Errorf("an error on the first line:\n%s", text)
	}
}

// An error inside [[ ]] is reported in bash's own words, without the line
// quoted, and the script stops with the last command's status, not 2; a
// script read from stdin names its line too, as bash does.
func TestCondSyntaxErrorKeepsTheStatus(t *testing.T) {
	sb := newTestbed(t)
	res := runScript(t, "touch before\nfalse\n[[ a ; ]]\ntouch after\n", sb.opts(approvals.DefaultAuto, nil))
	const msg = "bash: -c: line 3: unexpected token `;', conditional binary operator expected\n"
	if _, err := os.Stat(filepath.Join(sb.root, "after")); err == nil || res.End != Exited || res.Status != 1 || res.Output.Text != msg || !strings.HasPrefix(res.SyntaxError, "line 3: ") {
		t.Errorf("want exit 1 with bash's message %q:\n%s", msg, Render(res))
	}
	res = runScript(t, "bash <<'EOF'\n[[ a =~ c a ]]\nEOF\necho $?\nbash <<'EOF'\necho (\nEOF\n", sb.opts(approvals.DefaultAuto, nil))
	const nested = "bash: line 1: syntax error in conditional expression\n0\nbash: line 1: syntax error near unexpected token `newline'\nbash: line 1: `echo ('\n"
	if res.Output.Text != nested {
		t.Errorf("a script from stdin: %q, want %q", res.Output.Text, nested)
	}
}
