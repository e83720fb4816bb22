package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent"
	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/shell"
	"github.com/tandemdev/tandem/tools"
)

var chatCommand = command{
	name:    "chat",
	usage:   "tandem chat -p PROMPT [--model PROVIDER/MODEL] [--cwd DIR]",
	summary: "Run the agent headless on one prompt: the answer streams to standard output.",
	help: `The agent works in DIR (default: the current directory) with the same
tools, gate and settings as in the editor. Its answer streams to standard
output; each tool call, the usage and any status go to standard error.
Questions are asked on the terminal when there is one; without one they are
unanswered, so a step outside your auto set is refused.
The model is --model, else agent.model from your user settings
(docs/settings.md); its API key comes only from the environment.
Exit status: 0 when the model ended the turn, 1 on an error or a turn that
stopped early (limits, refusal), 2 for bad usage, 130 when interrupted.`,
	run: runChat,
}

func runChat(args []string) int {
	fs := flag.NewFlagSet("tandem chat", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	prompt := fs.String("p", "", "")
	model := fs.String("model", "", "")
	cwd := fs.String("cwd", "", "")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 || *prompt == "" {
		fmt.Fprintln(os.Stderr, "tandem chat: usage: tandem chat -p PROMPT [--model PROVIDER/MODEL] [--cwd DIR]")
		return exitUsage
	}
	if *cwd != "" {
		if err := os.Chdir(*cwd); err != nil {
			fmt.Fprintln(os.Stderr, "tandem chat:", err)
			return exitUsage
		}
	}
	s, err := standaloneSession("tandem chat", shell.TerminalAsker(os.Stdin, os.Stderr), false)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tandem chat:", err)
		return exitError
	}
	for _, p := range agent.SettingsProblems(s.Settings()) {
		fmt.Fprintln(os.Stderr, "tandem chat:", p)
	}
	provider, end, err := agent.Connect(s.Settings(), *model)
	if err != nil {
		s.Close()
		var none *agent.NoModelError
		if errors.As(err, &none) {
			fmt.Fprintf(os.Stderr, "tandem chat: no model is set: pass --model PROVIDER/MODEL, or set agent.model in %s (for example \"anthropic/claude-sonnet-4-5\" with ANTHROPIC_API_KEY in the environment)\n", none.File)
			return exitError
		}
		fmt.Fprintln(os.Stderr, "tandem chat:", err)
		return exitError
	}
	store, err := agent.UserStore()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tandem chat: the chat is not kept:", err)
	}
	// A service of one session, so a prompt runs commands (/NAME) as in
	// the editors' chats.
	svc := agent.NewService(func(agent.Opening) (*tools.Session, error) { return s, nil },
		func(st *config.Settings, name string) (providers.Provider, agent.Endpoint, error) {
			if name == "" {
				return provider, end, nil
			}
			return agent.Connect(st, name)
		}, store)
	defer svc.CloseAll()
	sess, err := svc.New(s.Roots[0], nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tandem chat:", err)
		return exitError
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	p := &printer{out: os.Stdout, status: os.Stderr, root: s.Roots[0]}
	resp, err := svc.Prompt(ctx, sess.SessionId, []acp.ContentBlock{acp.TextBlock(*prompt)}, p.update)
	reason := resp.StopReason
	p.endLine()
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, "tandem chat:", err)
		return exitError
	case reason == acp.StopReasonCancelled:
		fmt.Fprintln(os.Stderr, "tandem chat: stopped")
		return 130
	case reason != acp.StopReasonEndTurn:
		fmt.Fprintf(os.Stderr, "tandem chat: the turn stopped early: %s\n", reason)
		return exitError
	}
	return exitOK
}

// printer shows a turn's updates on a terminal or in a log: the answer on
// out, everything else on status.
type printer struct {
	out, status io.Writer
	root        string
	midLine     bool // out's last write did not end a line
	titles      map[acp.ToolCallId]string
}

// underTask sets a subagent's call under its task's, named by the task's
// description: the subagents of one response run side by side, and their
// calls' lines interleave.
func (p *printer) underTask(meta map[string]any) string {
	indent := subagentIndent(meta)
	if indent == "" {
		return ""
	}
	parent, _ := meta["tandem"].(map[string]any)["parent"].(string)
	if task := strings.TrimPrefix(p.titles[acp.ToolCallId(parent)], "Subagent: "); task != "" {
		return indent + "[" + task + "] "
	}
	return indent
}

func (p *printer) update(u acp.SessionUpdate) {
	switch {
	case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
		t := u.AgentMessageChunk.Content.Text.Text
		fmt.Fprint(p.out, t)
		p.midLine = t != "" && !strings.HasSuffix(t, "\n")
	case u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil:
		p.endLine()
		fmt.Fprintf(p.status, "  … %s\n", strings.TrimSpace(u.AgentThoughtChunk.Content.Text.Text))
	case u.ToolCall != nil:
		p.endLine()
		if p.titles == nil {
			p.titles = map[acp.ToolCallId]string{}
		}
		p.titles[u.ToolCall.ToolCallId] = u.ToolCall.Title
		fmt.Fprintf(p.status, "%s→ %s\n", p.underTask(u.ToolCall.Meta), p.relative(u.ToolCall.Title))
	case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
		switch *u.ToolCallUpdate.Status {
		case acp.ToolCallStatusCompleted:
			fmt.Fprintf(p.status, "%s  ✓ %s\n", p.underTask(u.ToolCallUpdate.Meta), p.relative(p.titles[u.ToolCallUpdate.ToolCallId]))
		case acp.ToolCallStatusFailed:
			fmt.Fprintf(p.status, "%s  ✗ %s%s\n", p.underTask(u.ToolCallUpdate.Meta), p.relative(p.titles[u.ToolCallUpdate.ToolCallId]), refusalCode(u.ToolCallUpdate.RawOutput))
		}
	case u.UsageUpdate != nil:
		p.endLine()
		in, _ := u.UsageUpdate.Meta["tandem"].(map[string]any)
		fmt.Fprintf(p.status, "  (context %d tokens; this call: %v in, %v cached, %v out)\n", u.UsageUpdate.Used, in["input"], in["cacheRead"], in["output"])
	}
}

// relative shortens the workspace root out of a title.
func (p *printer) relative(title string) string {
	return strings.ReplaceAll(title, p.root+string(filepath.Separator), "")
}

func refusalCode(raw any) string {
	if m, ok := raw.(map[string]any); ok {
		if code, ok := m["code"]; ok {
			return fmt.Sprintf(" (%v)", code)
		}
	}
	return ""
}

func (p *printer) endLine() {
	if p.midLine {
		fmt.Fprintln(p.out)
		p.midLine = false
	}
}
