package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/refusal"
	"github.com/tandemdev/tandem/shell"
)

// DefaultBudget is how long a bash call blocks before its script becomes a
// job, when the setting shell.budgetSeconds is not set.
const DefaultBudget = 30 * time.Second

func init() { register(bashTool) }

var bashTool = spec[bashArgs]{
	Tool: Tool{
		Name:        "bash",
		DisplayName: "Run a bash script",
		OpenWorld:   true, // programs reach the network and anything the user allows
		Description: `Run a bash script in the workspace root. tandem interprets it itself: every command that actually runs — in loops, functions, eval, $(…), pipelines, behind env, xargs, sh -c — is checked with its real arguments just before it runs, and one that needs the user's approval (by default: a secret such as ~/.ssh, writes outside the workspace and /tmp, to .git or ~/.bashrc) is asked in the editor first. ` +
			`A refused step stops the script there; earlier steps' changes stay. cd and export last for this call only. Processes get the environment without credentials, in a sandbox holding them to what their step may do. ` +
			`If a step needs more (its result says what the sandbox held), call again with "with": the access and a one-line reason; the user is asked once. ` +
			`The result gives how it ended, each step's status and the output (stdout and stderr together; head and tail kept when long). ` +
			`A script running 30 s (shell.budgetSeconds, questions not counted) becomes a job (see the jobs tool). ` +
			"`tandem mcp call SERVER/TOOL '{…}' > out.json`" + ` in a step puts an MCP tool's result in a file, out of this conversation.`,
		Examples: examples(`{"command":"go test ./..."}`,
			`{"command":"curl -sI https://go.dev","with":{"access":["net"],"reason":"check that the site answers"}}`),
		Destructive: true,
		Kind:        KindExecute,
		Aliases:     []string{"run", "shell", "exec"},
	},
	run:   runBash,
	title: func(a bashArgs) string { return firstLine(a.Command) },
	refine: func(s *jsonschema.Schema) {
		with := s.Properties["with"]
		with.Properties["access"].Items = &jsonschema.Schema{Enum: []any{"secret", "outside", "protected", "net"}}
		// Left out to keep the roster lean: the decoder refuses other keys.
		with.AdditionalProperties = nil
	},
}

// bashArgs are bash's arguments.
type bashArgs struct {
	Command string   `json:"command" jsonschema:"The bash script to run."`
	With    *askMore `json:"with,omitempty"`
}

// jobSettled is what the front door is told of a job that ended.
func jobSettled(s *Session, job *shell.Job) JobSettled {
	res := job.Run.Result()
	return JobSettled{Session: s.ID, Job: job.ID, Command: job.Command, End: string(res.End), Status: res.Status, Text: shell.Render(res)}
}

func runBash(ctx context.Context, s *Session, a bashArgs) Result {
	if a.Command == "" {
		return Refused(refusal.New(refusal.Invalid, "The command is empty. Pass the bash script to run in \"command\"."))
	}
	if len(s.Roots) == 0 {
		return Refused(refusal.New(refusal.Invalid, "This session has no workspace root to run in. Open a session on a workspace folder and call again."))
	}
	var extra []string
	release := func() {}
	if s.opts.BashEnv != nil {
		var r func()
		if extra, r = s.opts.BashEnv(ctx, s); r != nil {
			release = r
		}
	}
	grant, err := a.With.ask(ctx, s, a.Command)
	if err != nil {
		release()
		return Refused(err)
	}
	// The script may outlive the call as a job, so the call's end does not
	// end it (a cancel kills it below); the call's values, such as the tool
	// call its questions name, go with it.
	box, _ := s.Sandbox()
	rule, _ := envRule(s.opts.Settings)
	run, err := shell.Start(context.WithoutCancel(ctx), a.Command, shell.Options{
		Dir: s.Roots[0], Env: os.Environ(), EnvRule: rule, ExtraEnv: extra, Gate: s.Gate(), Sandbox: box, Grant: grant,
	})
	if err != nil {
		release()
		return Refused(err)
	}
	wait, _ := budget(s.opts.Settings)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var idle <-chan struct{}
	for {
		select {
		case <-run.Done():
			release()
			return bashResult(run.Result())
		case <-ctx.Done():
			run.Kill()
			release()
			return Refused(refusal.New(refusal.Cancelled, "The call was cancelled and the script stopped; its processes are gone. Earlier steps' changes stay. Call again if the user still wants it run."))
		case <-timer.C:
		case <-idle:
		}
		// The budget is running time: while the user is asked the call
		// waits for the answer, and detaches only once no question is open.
		left, asking := run.Detach(wait)
		if idle = asking; asking != nil {
			continue
		}
		if left > 0 {
			timer.Reset(left)
			continue
		}
		job := s.Jobs().Add(run, a.Command)
		go func() {
			<-run.Done()
			release()
		}()
		steps, out := run.Progress()
		head := fmt.Sprintf("detached: the script still runs, as job %s; %s. Call jobs {\"action\":\"show\",\"id\":%q} to see it, or {\"action\":\"kill\",\"id\":%q} to stop it. A job asks the user nothing: a later step that needs a yes is refused.", job.ID, s.jobEndTold(job.ID), job.ID, job.ID)
		return Result{
			Text: shell.RenderProgress(head, steps, out),
			// note: a client that gives its model only the structured
			// content (Codex) must still tell it where the end is told.
			Structured: map[string]any{"end": "detached", "job": job.ID, "note": head, "steps": steps, "output": out},
		}
	}
}

// askMore is bash's "with": the access a script asks beyond what its steps
// are allowed, so the sandbox lets its programs have it, and why. The
// model asks; only the user's yes grants it, once for the whole script.
type askMore struct {
	Access []string `json:"access"`
	Reason string   `json:"reason"`
}

// widenable is what "with" may ask: what the sandbox holds back. exec,
// read and write are the gate's alone.
var widenable = approvals.Of(approvals.Secret, approvals.Outside, approvals.Protected, approvals.Net)

// ask puts the question to the user and returns what the script's
// processes may have beyond their steps' own: nothing without "with".
func (m *askMore) ask(ctx context.Context, s *Session, script string) (approvals.Effects, error) {
	if m == nil {
		return 0, nil
	}
	effs, err := approvals.ParseEffects(m.Access)
	if err != nil || effs == 0 || !effs.Within(widenable) {
		return 0, refusal.New(refusal.Invalid, `"with" asks for access among secret, outside, protected and net, e.g. {"access":["net"],"reason":"fetch the module list"}. Call again with those.`)
	}
	reason := strings.TrimSpace(m.Reason)
	if reason == "" || strings.ContainsAny(reason, "\n\r") || utf8.RuneCountInString(reason) > 200 {
		return 0, refusal.New(refusal.Invalid, `"with" needs a reason of one line (at most 200 characters) that tells the user why the script needs this access. Call again with one.`)
	}
	step := approvals.Step{Text: fmt.Sprintf("run with %s (%s): %s", strings.Join(effs.Names(), ", "), reason, firstLine(script)), Effects: effs}
	if err := s.Gate().Check(ctx, approvals.KindShell, step); err != nil {
		var r *approvals.Refused
		if errors.As(err, &r) {
			return 0, refusal.New(r.Refusal.Code, fmt.Sprintf("The user did not allow the script to run with %s; nothing ran. Run it without \"with\" (the sandbox then holds it), or ask the user what they prefer.", strings.Join(effs.Names(), ", ")))
		}
		return 0, err
	}
	return effs, nil
}

// firstLine is the script's first line, marked when more follow.
func firstLine(script string) string {
	first, rest, _ := strings.Cut(strings.TrimSpace(script), "\n")
	if rest != "" {
		first += " …"
	}
	return first
}

func bashResult(res shell.Result) Result {
	r := Result{Text: shell.Render(res), Structured: res}
	if res.End == shell.Refused || res.End == shell.Bounded {
		r.IsError, r.Code = true, res.Refusal.Code
	}
	if res.End == shell.Failed {
		r.IsError, r.Code = true, refusal.Failed
	}
	return r
}
