package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/tandemdev/tandem/refusal"
	"github.com/tandemdev/tandem/shell"
)

// DefaultBudget is how long a bash call blocks before its script becomes a
// job, when the setting shell.budgetSeconds is not set.
const DefaultBudget = 30 * time.Second

var bashTool = Tool{
	Name: "bash",
	Description: `Run a bash script in the workspace root. tandem interprets it itself: every command that actually runs — in loops, functions, eval, $(…), pipelines, and behind env, xargs, find -exec, sh -c — is checked with its real arguments just before it runs, and one that needs the user's approval (by default: touching a secret such as ~/.ssh, writing outside the workspace and /tmp, or to .git or ~/.bashrc; shell.autoEffects may change that) is asked in the editor first. ` +
		`A refused step stops the script there; earlier steps' changes stay. cd and export last for this call only. Processes get the environment without credentials. ` +
		`The result says how the script ended (finished, exited, refused at step N), each step with its exit status, and the output (stdout and stderr together), keeping its first and last parts when long and counting what was dropped. ` +
		`A script still running after the budget (shell.budgetSeconds, default 30 s) becomes a job: the call returns its output so far and the job id, and the jobs tool shows or kills it. ` +
		`Inside an editor, steps can call the user's MCP tools: ` + "`tandem mcp list`" + ` lists them and ` + "`tandem mcp call SERVER/TOOL '{…}' > out.json`" + ` writes one result to a file, so a large result stays out of this conversation; read or grep the file for what you need.`,
	InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The bash script to run."}
  },
  "required": ["command"],
  "additionalProperties": false
}`),
	Handler: runBash,
}

// jobSettled is what the front door is told of a job that ended.
func jobSettled(s *Session, job *shell.Job) JobSettled {
	res := job.Run.Result()
	return JobSettled{Session: s.ID, Job: job.ID, Command: job.Command, End: string(res.End), Status: res.Status, Text: shell.Render(res)}
}

func runBash(ctx context.Context, s *Session, args json.RawMessage) Result {
	var a struct {
		Command string `json:"command"`
	}
	if err := decode("bash", args, &a); err != nil {
		return Refused(err)
	}
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
	// The script may outlive the call as a job, so the call's end does not
	// end it (a cancel kills it below); the call's values, such as the tool
	// call its questions name, go with it.
	box, _ := s.Sandbox()
	run, err := shell.Start(context.WithoutCancel(ctx), a.Command, shell.Options{
		Dir: s.Roots[0], Env: os.Environ(), ExtraEnv: extra, Gate: s.Gate(), Sandbox: box,
	})
	if err != nil {
		release()
		var se *shell.SyntaxError
		if errors.As(err, &se) {
			return Refused(refusal.New(refusal.Invalid, fmt.Sprintf("The script does not parse as bash (%v); nothing ran. Fix the syntax and call again.", se.Err)))
		}
		return Refused(err)
	}
	wait, _ := budget(s.opts.Settings)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-run.Done():
		release()
		return bashResult(run.Result())
	case <-ctx.Done():
		run.Kill()
		release()
		return Refused(refusal.New(refusal.Cancelled, "The call was cancelled and the script stopped; its processes are gone. Earlier steps' changes stay. Call again if the user still wants it run."))
	case <-timer.C:
		job := s.Jobs().Add(run, a.Command)
		go func() {
			<-run.Done()
			release()
		}()
		steps, out := run.Progress()
		head := fmt.Sprintf("detached: the script still runs, as job %s; its end will be reported. Call jobs {\"action\":\"show\",\"id\":%q} to see it, or {\"action\":\"kill\",\"id\":%q} to stop it.", job.ID, job.ID, job.ID)
		return Result{
			Text:       shell.RenderProgress(head, steps, out),
			Structured: map[string]any{"end": "detached", "job": job.ID, "steps": steps, "output": out},
		}
	}
}

func bashResult(res shell.Result) Result {
	r := Result{Text: shell.Render(res), Structured: res}
	if res.End == shell.Refused {
		r.IsError, r.Code = true, res.Refusal.Code
	}
	if res.End == shell.Failed {
		r.IsError, r.Code = true, refusal.Failed
	}
	return r
}
