package tools

import (
	"context"
	"fmt"
	"os"
	"strings"
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

// HookOutcome is how a hook's run went.
type HookOutcome struct {
	// Text says it in a few lines for the model or the user: the command,
	// then its run rendered as bash's (bounded the same way).
	Text string
	// OK means it ran to its end with status 0; Quiet that it did so
	// writing nothing (a formatter with nothing to say).
	OK, Quiet bool
}

// RunHook runs a hook's command in the session's first root through the
// gated shell, as bash runs a script: every step classified with its real
// arguments, asked when the gate asks (all of them for a workspace's hook),
// in the sandbox, with the environment free of credentials. It never
// becomes a job: it ends, or is killed when ctx ends (stop) or its Timeout
// passes.
func RunHook(ctx context.Context, s *Session, h HookRun) HookOutcome {
	head := fmt.Sprintf("The %s hook `%s`", h.Event, h.Command)
	if len(s.Roots) == 0 {
		return HookOutcome{Text: head + " did not run: the session has no workspace root to run it in."}
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
		return HookOutcome{Text: fmt.Sprintf("%s could not start: %v.", head, err)}
	}
	timer := time.NewTimer(h.Timeout)
	defer timer.Stop()
	timedOut := false
	select {
	case <-run.Done():
	case <-ctx.Done():
		run.Kill()
	case <-timer.C:
		timedOut = true
		run.Kill()
	}
	<-run.Done()
	res := run.Result()
	shown := strings.TrimRight(shell.Render(res), "\n")
	if timedOut {
		return HookOutcome{Text: fmt.Sprintf("%s ran past its %v and was stopped:\n%s", head, h.Timeout, shown)}
	}
	if res.SyntaxError != "" {
		return HookOutcome{Text: fmt.Sprintf("%s does not parse as bash (%s); tell the user to fix it in agent.hooks:\n%s", head, res.SyntaxError, shown)}
	}
	ok := (res.End == shell.Finished || res.End == shell.Exited) && res.Status == 0
	return HookOutcome{Text: fmt.Sprintf("%s:\n%s", head, shown), OK: ok, Quiet: ok && res.Output.Total == 0}
}
