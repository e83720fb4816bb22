package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/shell"
)

// HookRun is one run of a hook: a command the settings (agent.hooks) run
// at an event of the agent's.
type HookRun struct {
	Event   string // afterEdit, beforeBash or turnEnd
	Command string
	// Workspace marks a hook a workspace's settings added: every step it
	// runs is asked, whatever the auto set holds.
	Workspace bool
	Env       []string      // the event's TANDEM_* variables
	Timeout   time.Duration // the run is killed past it
}

// Who is how the hook is named in the questions its steps raise.
func (h HookRun) Who() string {
	from := "your settings"
	if h.Workspace {
		from = "the workspace's settings"
	}
	return fmt.Sprintf("the %s hook `%s` (from %s)", h.Event, firstLine(h.Command), from)
}

// RunHook runs a hook's command in the session's first root through the
// gated shell, as bash runs a script: every step classified with its real
// arguments, asked when the gate asks (all of them for a workspace's hook),
// in the sandbox, with the environment free of credentials. It never
// becomes a job: it ends, or is killed when ctx ends (stop) or its Timeout
// passes; timedOut says which.
func RunHook(ctx context.Context, s *Session, h HookRun) (res shell.Result, timedOut bool, err error) {
	if len(s.Roots) == 0 {
		return shell.Result{}, false, errors.New("the session has no workspace root to run hooks in")
	}
	gate := s.Gate()
	if h.Workspace {
		gate = gate.Asking()
	}
	box, _ := s.Sandbox()
	rule, _ := envRule(s.opts.Settings)
	run, err := shell.Start(approvals.WithWho(context.WithoutCancel(ctx), h.Who()), h.Command, shell.Options{
		Dir: s.Roots[0], Env: os.Environ(), EnvRule: rule, ExtraEnv: h.Env, Gate: gate, Sandbox: box,
	})
	if err != nil {
		return shell.Result{}, false, err
	}
	timer := time.NewTimer(h.Timeout)
	defer timer.Stop()
	select {
	case <-run.Done():
	case <-ctx.Done():
		run.Kill()
	case <-timer.C:
		timedOut = true
		run.Kill()
	}
	<-run.Done()
	return run.Result(), timedOut, nil
}
