package shell

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tandemdev/tandem/approvals"
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

// sandbox is a workspace and a home of its own, and the environment a
// session there would have.
type sandbox struct {
	root, home string
	env        []string
}

// tb is what the helpers need of a test, a benchmark or a rapid check.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

func newSandbox(t tb) *sandbox {
	t.Helper()
	base, err := os.MkdirTemp("", "tandem-shell-")
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := t.(interface{ Cleanup(func()) }); ok {
		c.Cleanup(func() { os.RemoveAll(base) })
	}
	sb := &sandbox{root: filepath.Join(base, "work"), home: filepath.Join(base, "home")}
	for _, d := range []string{sb.root, sb.home, filepath.Join(sb.home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(sb.home, ".ssh", "id_ed25519"), []byte("PRIVATE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sb.env = []string{"HOME=" + sb.home, "PATH=" + os.Getenv("PATH"), "LANG=C"}
	return sb
}

func (sb *sandbox) gate(auto approvals.Effects, a approvals.Asker) *approvals.Gate {
	p := approvals.NewPolicy(approvals.PolicyConfig{Roots: []string{sb.root}, Home: sb.home, Env: sb.env})
	return approvals.NewGate("test", auto, p, a)
}

func (sb *sandbox) opts(auto approvals.Effects, a approvals.Asker) Options {
	return Options{Dir: sb.root, Env: sb.env, Gate: sb.gate(auto, a)}
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
