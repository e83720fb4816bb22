package shell

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"

	"github.com/tandemdev/tandem/approvals"
)

// QuestionText is a question as a person reads it in a prompt: who asks,
// each step exactly as it will run (escaped by approvals.Show), its effects
// and the classes of the paths that are not plain workspace paths.
func QuestionText(q approvals.Question) string {
	var b strings.Builder
	what := "run"
	switch q.Kind {
	case approvals.KindDocument:
		what = "access"
	case approvals.KindMCP:
		what = "call"
	}
	if len(q.Steps) == 1 {
		fmt.Fprintf(&b, "tandem: the agent (session %s) asks to %s:\n", q.Session, what)
	} else {
		fmt.Fprintf(&b, "tandem: the agent (session %s) asks to %s these %d steps together:\n", q.Session, what, len(q.Steps))
	}
	for _, s := range q.Steps {
		fmt.Fprintf(&b, "\n%s\n  effects: %s", s.Text, strings.Join(s.Effects.Names(), ", "))
		for _, p := range s.Paths {
			if p.Class == approvals.PathInside || p.Class == approvals.PathHarmless {
				continue
			}
			fmt.Fprintf(&b, "\n  %s: %s", p.Class, approvals.Show([]string{p.Real}))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n\"Allow for this session\" allows these exact steps with these effects again without asking.")
	return b.String()
}

// TerminalAsker asks on the terminal when in is one (`tandem tool` run by a
// person), and returns nil otherwise: then nobody can answer and every
// question is unanswered at once. Enter alone answers no.
func TerminalAsker(in *os.File, out io.Writer) approvals.Asker {
	if !term.IsTerminal(int(in.Fd())) {
		return nil
	}
	return &terminal{in: bufio.NewReader(in), out: out}
}

type terminal struct {
	mu  sync.Mutex // one question at a time
	in  *bufio.Reader
	out io.Writer
}

func (t *terminal) Ask(ctx context.Context, q approvals.Question) approvals.Answer {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.out, "\n%s\n\nAllow? [y] once, [s] for this session, [n] no (Enter: no): ", QuestionText(q))
	line := make(chan string, 1)
	go func() {
		s, _ := t.in.ReadString('\n')
		line <- s
	}()
	select {
	case <-ctx.Done():
		fmt.Fprintln(t.out, "\n(the question was withdrawn)")
		return approvals.Unanswered
	case s := <-line:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "y", "yes":
			return approvals.AllowOnce
		case "s", "session":
			return approvals.AllowSession
		}
		return approvals.Deny
	}
}
