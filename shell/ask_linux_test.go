package shell

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/internal/prereq"
)

// openPTY opens a pseudo-terminal pair: what a person types goes into the
// master, the asker reads the slave.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		prereq.Missing(t, "a pseudo-terminal (/dev/ptmx)", err.Error())
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// tandem tool asks on the terminal when stdin is one: y allows once, s for
// the session, anything else — Enter alone too — is no. Without a terminal
// nobody can answer.
func TestTerminalAskerAnswersFromTheTerminal(t *testing.T) {
	q := approvals.Question{ID: "q1", Session: "s1", Kind: approvals.KindShell,
		Steps: []approvals.Step{{Text: "cat /home/me/.ssh/id_ed25519", Effects: approvals.Of(approvals.Read, approvals.Secret)}}}
	for typed, want := range map[string]approvals.Answer{"y\n": approvals.AllowOnce, "s\n": approvals.AllowSession, "\n": approvals.Deny, "yes please\n": approvals.Deny} {
		master, slave := openPTY(t)
		var shown bytes.Buffer
		a := TerminalAsker(slave, &shown)
		if a == nil {
			t.Fatal("a terminal was not taken as one")
		}
		master.WriteString(typed)
		if got := a.Ask(context.Background(), q); got != want {
			t.Errorf("typed %q: %v, want %v", typed, got, want)
		}
		if !strings.Contains(shown.String(), "cat /home/me/.ssh/id_ed25519\n  effects: read, secret") || !strings.Contains(shown.String(), "(Enter: no)") {
			t.Errorf("prompt:\n%s", shown.String())
		}
	}
	// A withdrawn question is unanswered.
	_, slave := openPTY(t)
	a := TerminalAsker(slave, &bytes.Buffer{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if got := a.Ask(ctx, q); got != approvals.Unanswered {
		t.Errorf("withdrawn: %v", got)
	}
	r, w, _ := os.Pipe()
	defer r.Close()
	defer w.Close()
	if TerminalAsker(r, &bytes.Buffer{}) != nil {
		t.Error("a pipe was taken as a terminal")
	}
}
