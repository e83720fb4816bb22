package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/edits"
	"github.com/tandemdev/tandem/refusal"
	"github.com/tandemdev/tandem/tools"
)

// The events a hook runs at (agent.hooks).
const (
	hookAfterEdit  = "afterEdit"  // an edit call's files landed
	hookBeforeBash = "beforeBash" // a bash call is about to run
	hookTurnEnd    = "turnEnd"    // a turn ended, not stopped
)

// Bounds of a hook's run: it blocks the turn, so it never runs unbounded.
const (
	defaultHookTimeout = 60 * time.Second
	maxHookTimeout     = 600 * time.Second
)

// hook is one entry of agent.hooks.
type hook struct {
	On      string  `json:"on"`
	Run     string  `json:"run"`
	Timeout float64 `json:"timeout,omitempty"` // seconds
}

// hooks reads agent.hooks: the user's own entries, then those only a
// workspace-level source adds, marked so that each of their steps is
// asked. An entry that is not valid is left out, and a value that is not
// such a list adds nothing; the error says so (SettingsProblems).
func hooks(st *config.Settings) ([]tools.HookRun, error) {
	var out []tools.HookRun
	var problems []string
	user, _ := st.User("agent.hooks")
	read := func(v config.Value, workspace bool) {
		var list []hook
		if err := v.Decode(&list); err != nil {
			problems = append(problems, fmt.Sprintf("agent.hooks (%s) must be a list of {\"on\", \"run\"}", v.Source))
			return
		}
		for i, h := range list {
			timeout := defaultHookTimeout
			if h.Timeout != 0 {
				timeout = time.Duration(h.Timeout * float64(time.Second))
			}
			switch {
			case h.On != hookAfterEdit && h.On != hookBeforeBash && h.On != hookTurnEnd:
				problems = append(problems, fmt.Sprintf("agent.hooks[%d] (%s): \"on\" must be afterEdit, beforeBash or turnEnd", i, v.Source))
			case strings.TrimSpace(h.Run) == "":
				problems = append(problems, fmt.Sprintf("agent.hooks[%d] (%s): \"run\" must be a command", i, v.Source))
			case timeout <= 0 || timeout > maxHookTimeout:
				problems = append(problems, fmt.Sprintf("agent.hooks[%d] (%s): \"timeout\" must be seconds above 0 and at most %d", i, v.Source, int(maxHookTimeout/time.Second)))
			default:
				run := tools.HookRun{Event: h.On, Command: h.Run, Workspace: workspace, Timeout: timeout}
				// Editors send the user's own settings again within the
				// workspace's (VS Code's workspace/configuration): an
				// entry the user's settings hold is the user's.
				if workspace && slices.ContainsFunc(out, func(u tools.HookRun) bool { return !u.Workspace && u.Event == run.Event && u.Command == run.Command }) {
					continue
				}
				out = append(out, run)
			}
		}
	}
	if user.Raw != nil {
		read(user, false)
	}
	if all, ok := st.Get("agent.hooks"); ok && all.Source.Scope() == config.ScopeWorkspace {
		read(all, true)
	}
	if len(problems) > 0 {
		return out, fmt.Errorf("%s; those entries do not run", strings.Join(problems, "; "))
	}
	return out, nil
}

// hooksAt returns the hooks of event in the chat's settings now, each with
// env.
func (c *Chat) hooksAt(event string, env []string) []tools.HookRun {
	all, _ := hooks(c.opts.Session.Settings())
	var out []tools.HookRun
	for _, h := range all {
		if h.Event == event {
			h.Env = append([]string{"TANDEM_EVENT=" + event}, env...)
			out = append(out, h)
		}
	}
	return out
}

// afterEdit runs the afterEdit hooks over an edit call's landed files and
// returns what the model is told with the edit's reply: the output of each
// hook that wrote any or failed, and which files a hook changed (a
// formatter), to be read again before they are edited. A file a hook
// changed gets its new bytes as the call's After, so the call's diff shows
// them and a restore of the turn takes them back with the edit, instead of
// keeping the file as changed by someone else.
func (c *Chat) afterEdit(ctx context.Context, changes []edits.FileChange) string {
	var rel []string
	for _, fc := range changes {
		if fc.After == nil {
			continue
		}
		if r, err := filepath.Rel(c.opts.Session.Roots[0], fc.Path); err == nil {
			rel = append(rel, filepath.ToSlash(r))
		}
	}
	hs := c.hooksAt(hookAfterEdit, []string{"TANDEM_FILES=" + strings.Join(rel, "\n")})
	if len(rel) == 0 || len(hs) == 0 {
		return ""
	}
	var b strings.Builder
	for _, h := range hs {
		if out := tools.RunHook(ctx, c.opts.Session, h); !out.Quiet {
			b.WriteString("\n\n" + out.Text)
		}
	}
	var changed []string
	for i, fc := range changes {
		if fc.After == nil {
			continue
		}
		now, err := os.ReadFile(fc.Path)
		if err == nil && bytes.Equal(now, fc.After) {
			continue
		}
		changes[i].After = now // nil: a hook removed it
		r, _ := filepath.Rel(c.opts.Session.Roots[0], fc.Path)
		changed = append(changed, filepath.ToSlash(r))
	}
	if len(changed) > 0 {
		slices.Sort(changed)
		fmt.Fprintf(&b, "\n\nThe hooks changed %s after this edit: the lines you saw there may be gone. Read it again before you edit it there; an edit anchored on lines that changed is refused.",
			strings.Join(changed, ", "))
	}
	return b.String()
}

// beforeBash runs the beforeBash hooks before a bash call: the first that
// does not end with status 0 refuses the call, with its output as the
// reason.
func (c *Chat) beforeBash(ctx context.Context, input json.RawMessage) *refusal.Error {
	var args struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(input, &args)
	for _, h := range c.hooksAt(hookBeforeBash, []string{"TANDEM_COMMAND=" + args.Command}) {
		if out := tools.RunHook(ctx, c.opts.Session, h); !out.OK {
			return refusal.New(refusal.Hook, fmt.Sprintf("%s\n\nNot run: the beforeBash hook refused this script (it did not end with status 0). Change the script as its output asks, or tell the user what you wanted to run.", out.Text))
		}
	}
	return nil
}

// turnEnd runs the turnEnd hooks once a turn ended; their output is shown
// to the user, each as a card of its own, and never given to the model.
func (c *Chat) turnEnd(ctx context.Context, turn int, emit func(acp.SessionUpdate)) {
	for i, h := range c.hooksAt(hookTurnEnd, nil) {
		id := acp.ToolCallId(fmt.Sprintf("hook-%s-%d-%d", c.ID, turn, i))
		emit(acp.StartToolCall(id, "turnEnd hook: "+h.Command, acp.WithStartKind(acp.ToolKindExecute), acp.WithStartStatus(acp.ToolCallStatusInProgress)))
		out := tools.RunHook(approvals.WithToolCall(ctx, string(id)), c.opts.Session, h)
		status := acp.ToolCallStatusCompleted
		if !out.OK {
			status = acp.ToolCallStatusFailed
		}
		emit(acp.UpdateToolCall(id, acp.WithUpdateStatus(status), acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(out.Text))})))
	}
}

// hooksBefore runs what must pass before a call runs: the beforeBash hooks
// of a bash call.
func (c *Chat) hooksBefore(ctx context.Context, use providers.Block) *refusal.Error {
	if t, _ := tools.Lookup(use.ToolName); t.Name != "bash" {
		return nil
	}
	return c.beforeBash(ctx, use.Input)
}
