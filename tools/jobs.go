package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tandemdev/tandem/refusal"
	"github.com/tandemdev/tandem/shell"
)

func init() { register(jobsTool) }

var jobsTool = spec[jobsArgs]{
	Tool: Tool{
		Name:        "jobs",
		DisplayName: "Background jobs",
		Description: `List, show or kill the session's jobs: bash scripts that outlived their call's budget. ` +
			`{"action":"list"} lists them with their state; {"action":"show","id":"job-1"} shows one job's steps and output (first and last parts when long); ` +
			`{"action":"kill","id":"job-1"} stops it and every process it started, and shows how it ended. A job's end is also reported when it settles.`,
		Examples:    examples(`{}`, `{"action":"show","id":"job-1"}`, `{"action":"kill","id":"job-1"}`),
		Destructive: true, // kill stops a job's processes
	},
	run: runJobs,
	refine: func(s *jsonschema.Schema) {
		s.Properties["action"].Enum = []any{"list", "show", "kill"}
	},
}

// jobsArgs are jobs' arguments.
type jobsArgs struct {
	Action string `json:"action,omitempty" jsonschema:"What to do; default list."`
	ID     string `json:"id,omitempty" jsonschema:"The job, for show and kill."`
}

func runJobs(_ context.Context, s *Session, a jobsArgs) Result {
	jobs := s.Jobs()
	switch a.Action {
	case "", "list":
		list := jobs.List()
		if len(list) == 0 {
			return Result{Text: "no jobs: every bash call of this session finished within its budget\n", Structured: jobList{Jobs: []shell.JobInfo{}}}
		}
		var b strings.Builder
		infos := make([]shell.JobInfo, 0, len(list))
		for _, j := range list {
			in := j.Info()
			infos = append(infos, in)
			state := in.State
			if in.State != "running" {
				state = fmt.Sprintf("%s, exit status %d", in.State, in.Status)
			}
			fmt.Fprintf(&b, "%s  %s  %.0fs  %d steps  %s\n", in.ID, state, in.Seconds, len(in.Steps), oneLine(in.Command))
		}
		return Result{Text: b.String(), Structured: jobList{Jobs: infos}}
	case "show", "kill":
		j, ok := jobs.Get(a.ID)
		if !ok {
			return Refused(refusal.New(refusal.NotFound, fmt.Sprintf("There is no job %q in this session. Call jobs {\"action\":\"list\"} for the ids.", a.ID)))
		}
		if a.Action == "kill" {
			j.Run.Kill()
		}
		in := j.Info()
		if in.State == "running" {
			head := fmt.Sprintf("%s is running (%.0fs since it started): %s", j.ID, in.Seconds, oneLine(j.Command))
			return Result{Text: shell.RenderProgress(head, in.Steps, in.Output), Structured: in}
		}
		return Result{Text: j.ID + ": " + shell.Render(j.Run.Result()), Structured: in}
	}
	return Refused(refusal.New(refusal.Invalid, fmt.Sprintf("Unknown action %q. Use list, show or kill.", a.Action)))
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", "; ")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// jobList is the list's structured content: an object, as MCP requires of
// structuredContent.
type jobList struct {
	Jobs []shell.JobInfo `json:"jobs"`
}
