package shell

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/sandbox"
)

// asker records every question and answers each with its answer function.
type asker struct {
	mu        sync.Mutex
	questions []approvals.Question
	answer    func(approvals.Question) approvals.Answer
}

func (a *asker) Ask(_ context.Context, q approvals.Question) approvals.Answer {
	a.mu.Lock()
	a.questions = append(a.questions, q)
	a.mu.Unlock()
	if a.answer == nil {
		return approvals.Unanswered
	}
	return a.answer(q)
}

func (a *asker) asked() []approvals.Question {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]approvals.Question(nil), a.questions...)
}

func answering(ans approvals.Answer) *asker {
	return &asker{answer: func(approvals.Question) approvals.Answer { return ans }}
}

// testbed is a workspace and a home of its own, and the environment a
// session there would have.
type testbed struct {
	root, home, tmp string
	env             []string
	scratch         []string // the policy's scratch places: its tmp, unless a test sets more
	box             *sandbox.Sandbox
}

// tb is what the helpers need of a test, a benchmark or a rapid check.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

func newTestbed(t tb) *testbed {
	t.Helper()
	base, err := os.MkdirTemp("", "tandem-shell-")
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := t.(interface{ Cleanup(func()) }); ok {
		c.Cleanup(func() { os.RemoveAll(base) })
	}
	sb := &testbed{root: filepath.Join(base, "work"), home: filepath.Join(base, "home"), tmp: filepath.Join(base, "tmp")}
	for _, d := range []string{sb.root, sb.home, sb.tmp, filepath.Join(sb.home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(sb.home, ".ssh", "id_ed25519"), []byte("PRIVATE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sb.env = []string{"HOME=" + sb.home, "PATH=" + os.Getenv("PATH"), "LANG=C", "TMPDIR=" + sb.tmp}
	sb.scratch = []string{sb.tmp}
	sb.rebox(t)
	return sb
}

// rebox makes the testbed's sandbox from its policy as it is now. Every
// process runs sandboxed, as in a session: the shell's tests check that
// the sandbox keeps what they rely on.
func (sb *testbed) rebox(t tb) {
	old := sb.box
	var err error
	sb.box, err = sandbox.New(sb.policy())
	if err != nil && os.Getenv("TANDEM_TEST_NO_LANDLOCK") != "1" {
		t.Fatalf("%v (set TANDEM_TEST_NO_LANDLOCK=1 on a machine known to lack Landlock)", err)
	}
	old.Close()
	if c, ok := t.(interface{ Cleanup(func()) }); ok {
		c.Cleanup(sb.box.Close)
	}
}

func (sb *testbed) policy() *approvals.Policy {
	return approvals.NewPolicy(approvals.PolicyConfig{Roots: []string{sb.root}, Home: sb.home, Env: sb.env, Scratch: sb.scratch})
}

func (sb *testbed) gate(auto approvals.Effects, a approvals.Asker) *approvals.Gate {
	return approvals.NewGate("test", auto, sb.policy(), a)
}

func (sb *testbed) opts(auto approvals.Effects, a approvals.Asker) Options {
	return Options{Dir: sb.root, Env: sb.env, Gate: sb.gate(auto, a), Sandbox: sb.box}
}

// runScript runs a script to its end (at most a minute).
func runScript(t tb, script string, o Options) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := Start(ctx, script, o)
	if err != nil {
		t.Fatalf("start %q: %v", script, err)
	}
	return r.Result()
}

// runBounded runs a script for at most d. A script still running then is
// killed and reported as hung, with the steps and output it had so far: a
// pipeline whose stages wait on each other never ends.
func runBounded(script string, d time.Duration, o Options) (res Result, hung bool, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := Start(ctx, script, o)
	if err != nil {
		return Result{}, false, err
	}
	select {
	case <-r.Done():
		return r.Result(), false, nil
	case <-time.After(d):
		steps, out := r.Progress()
		r.Kill()
		return Result{Steps: steps, Output: out}, true, nil
	}
}
