package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tandemdev/tandem/bridge"
	"github.com/tandemdev/tandem/refusal"
)

// maxMCPText bounds an MCP result's text in the model's context; the rest
// is reachable through `tandem mcp call … > file` in a bash step.
const maxMCPText = 64 << 10

// mcpTool reaches the user's MCP tools through the front door's bridge with
// one roster entry: the roster stays fixed for a chat's life (so the
// provider's prompt cache holds), however many servers and tools there are.
// Each call goes through the bridge like `tandem mcp call` does: the same
// permission (mcp.autoAllow, else a question), the same limits.
func init() { register(mcpTool) }

var mcpTool = spec[mcpArgs]{
	Tool: Tool{
		Name:        "mcp",
		DisplayName: "Call a user's MCP tool",
		OpenWorld:   true, // a user's server may reach anything
		Description: `Use the user's MCP tools (the servers configured in their settings or the workspace's .mcp.json, and those their editor named for this chat). ` +
			`{"action":"list"} lists them as SERVER/TOOL with one line each; {"action":"call","tool":"SERVER/TOOL","arguments":{…}} calls one and returns its result (its first 64 KiB; for a larger result run ` + "`tandem mcp call SERVER/TOOL '{…}' > out.json`" + ` in bash and read the file). ` +
			`Starting a workspace's server, and a call the user has not allowed in advance, are asked in the editor.`,
		Examples:    examples(`{"action":"list"}`, `{"action":"call","tool":"github/search_issues","arguments":{"query":"is:open label:bug"}}`),
		Destructive: true, // a user's tool may do anything
		Available:   func(s *Session) bool { return s.opts.BashEnv != nil },
	},
	run: runMCP,
	refine: func(s *jsonschema.Schema) {
		s.Properties["action"].Enum = []any{"list", "call"}
	},
}

// mcpArgs are the mcp tool's arguments.
type mcpArgs struct {
	Action    string          `json:"action,omitempty" jsonschema:"list the tools, or call one; default list"`
	Tool      string          `json:"tool,omitempty" jsonschema:"SERVER/TOOL, as list shows it (call only)"`
	Arguments json.RawMessage `json:"arguments,omitempty" jsonschema:"the tool's arguments (call only)"`
}

func runMCP(ctx context.Context, s *Session, a mcpArgs) Result {
	req := bridge.Request{Op: bridge.OpList}
	switch a.Action {
	case "", "list":
	case "call":
		if a.Tool == "" {
			return Refused(refusal.New(refusal.Invalid, `call needs "tool" as SERVER/TOOL. List the tools with {"action":"list"}, then call one.`))
		}
		req = bridge.Request{Op: bridge.OpCall, Tool: a.Tool, Args: a.Arguments}
		if len(req.Args) == 0 {
			req.Args = json.RawMessage("{}")
		}
	default:
		return Refused(refusal.New(refusal.Invalid, fmt.Sprintf("The action %q is not list or call. Call mcp with one of them.", a.Action)))
	}
	vars, release := s.opts.BashEnv(ctx, s)
	if release != nil {
		defer release()
	}
	env, err := bridge.EnvFromList(vars)
	if err != nil {
		return Refused(refusal.New(refusal.Failed, "The user's MCP tools cannot be reached: the MCP bridge is off in their settings (mcp.bridge). Tell the user, and go on without them."))
	}
	h, body, err := bridge.Send(ctx, env, req)
	switch {
	case ctx.Err() != nil:
		return Refused(refusal.New(refusal.Cancelled, "The call was cancelled and withdrawn. Call again if the user still wants it."))
	case errors.Is(err, bridge.ErrSessionEnded):
		return Refused(refusal.New(refusal.Failed, "The MCP bridge ended during the call; it may have run. Check before calling again."))
	case err != nil:
		return Refused(refusal.New(refusal.Failed, err.Error()+". Try again later."))
	}
	if req.Op == bridge.OpList && h.Status == bridge.StatusOK {
		return mcpList(body)
	}
	return mcpReply(h, body)
}

// mcpList renders the bridge's list for the model.
func mcpList(body []byte) Result {
	var lr bridge.ListReply
	if err := json.Unmarshal(body, &lr); err != nil {
		return Refused(refusal.New(refusal.Failed, "The MCP bridge sent a list this tandem cannot read. Try again."))
	}
	var b strings.Builder
	if len(lr.Tools) == 0 {
		b.WriteString("no MCP tools: the user has configured no server, or none started\n")
	}
	for _, t := range lr.Tools {
		first, _, _ := strings.Cut(strings.Join(strings.Fields(t.Description), " "), ". ")
		fmt.Fprintf(&b, "%s/%s  %s\n", t.Server, t.Name, first)
	}
	for _, p := range lr.Problems {
		fmt.Fprintf(&b, "problem: %s\n", p)
	}
	return Result{Text: b.String(), Structured: lr}
}

// mcpReply turns a call's reply into a result: the tool's text, bounded; a
// refusal of the bridge keeps its reason.
func mcpReply(h bridge.Header, body []byte) Result {
	switch h.Status {
	case bridge.StatusOK, bridge.StatusToolError:
		text := string(body)
		if len(text) > maxMCPText {
			text = text[:maxMCPText] + fmt.Sprintf("\n(%d more bytes not shown: run the call with `tandem mcp call … > out.json` in bash and read the file)\n", len(body)-maxMCPText)
		}
		return Result{Text: text, IsError: h.Status == bridge.StatusToolError}
	case bridge.StatusDenied:
		return Refused(refusal.New(refusal.Denied, h.Reason))
	case bridge.StatusBusy:
		return Refused(refusal.New(refusal.Busy, h.Reason))
	case bridge.StatusInvalid:
		return Refused(refusal.New(refusal.Invalid, h.Reason))
	}
	return Refused(refusal.New(refusal.Failed, h.Reason))
}
