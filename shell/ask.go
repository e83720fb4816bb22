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

// TerminalAsker returns an Asker that asks on the terminal when in is one
// (`tandem tool` run by a person). Otherwise it returns nil: nobody can
// answer, and every question is unanswered at once. Enter alone answers
// no.
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
	fmt.Fprintf(t.out, "\n%s\n\nAllow? [y] once, [s] for this session, [n] no (Enter: no): ", approvals.QuestionText(q))
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
