// Package mcpserver is tandem's MCP front door, `tandem mcp serve`: the one
// tool registry served over MCP. In an editor terminal opened by tandem, or
// in a folder an editor with tandem has open, it is served through that
// editor's tandem (over the MCP-call bridge's socket), so reads see unsaved
// buffers, edits of open files go through the editor, and questions appear
// there. Otherwise it serves a standalone session on the folder and asks its
// questions of the MCP client as elicitations.
package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/bridge"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/refusal"
	"github.com/tandemdev/tandem/tools"
)

// Options is what the command line gives the server.
type Options struct {
	Root    string    // the folder served; Serve looks for its editor's tandem from there
	Version string    // tandem's version, sent to the MCP client
	Warn    io.Writer // where Serve reports a failed attach before it serves standalone
	// Instructions tell the client's model how to work with the tools
	// (MCP's server instructions).
	Instructions string
	// Standalone opens the session to serve when no editor's tandem is
	// found, with door's options: an asker that asks the MCP client, and
	// jobs' ends told to it.
	Standalone func(door tools.Options) (*tools.Session, error)
}

// UnsafeRootError is the error for a folder Serve refuses to serve
// standalone; Why says why.
type UnsafeRootError struct{ Root, Why string }

func (e *UnsafeRootError) Error() string {
	return fmt.Sprintf("refusing to serve %s: %s. Run it in a project folder, or pass --root PROJECT", e.Root, e.Why)
}

// Serve serves tandem's tools on transport until the client goes or ctx
// ends: through the editor's tandem when it finds one (the terminal's
// bridge variables, else a discovery entry of the root's folder), else in a
// standalone session on the root.
func Serve(ctx context.Context, o Options, transport mcp.Transport) error {
	var srv *mcp.Server
	if a, err := attach(ctx, o.Root); err == nil {
		defer a.close()
		srv = newServer(o, a.tools, a.call)
	} else {
		if !errors.Is(err, bridge.ErrNoBridge) && o.Warn != nil {
			fmt.Fprintf(o.Warn, "tandem mcp serve: the editor's tandem did not open a session (%v); serving standalone\n", err)
		}
		if why := unsafeRoot(o.Root); why != "" {
			return &UnsafeRootError{Root: o.Root, Why: why}
		}
		// The transport carries the protocol: questions go to the MCP
		// client as elicitations when it can take them, and a job's end
		// as a log message besides the next result.
		var jobEnds logJobEnds
		s, err := o.Standalone(tools.Options{Asker: elicitAsker{}, JobSettled: jobEnds.log, JobEndsInResults: true})
		if err != nil {
			return err
		}
		defer s.Close()
		srv = newServer(o, tools.MCPTools(s), func(ctx context.Context, name string, args json.RawMessage) *mcp.CallToolResult {
			return tools.Call(ctx, s, name, args).MCP()
		})
		jobEnds.srv.Store(srv)
	}
	if err := srv.Run(ctx, transport); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// unsafeRoot returns why root must not be served standalone, or "" when it
// may be. It matters because every file under the root is in the agent's
// reach.
func unsafeRoot(root string) string {
	if root == "/" {
		return "it is the whole file system"
	}
	if home, err := config.Home(); err == nil && home == root {
		return "it is your home directory, with your credentials and every project in it"
	}
	return ""
}

// undeclared are the method families of capabilities tandem does not
// declare: the go-sdk would answer them with empty lists, as if it had
// some to give.
var undeclared = map[string]bool{"resources": true, "prompts": true, "completion": true}

// newServer returns an MCP server that lists the tools in list and runs
// each call through call, with the way to ask the MCP client in the
// context (for elicitAsker). A call of a tool not in list goes to call as well, so
// its refusal is a tool error that a model can read and go on from; the
// go-sdk alone would answer it with a protocol error.
func newServer(o Options, list []*mcp.Tool, call func(context.Context, string, json.RawMessage) *mcp.CallToolResult) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tandem", Version: o.Version}, &mcp.ServerOptions{Instructions: o.Instructions})
	known := map[string]bool{}
	var parked parkedCalls
	handle := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx = approvals.WithWho(ctx, clientName(req.ClientInfo()))
		switch {
		case req.Params.RequestState != "":
			return parked.resume(ctx, req), nil
		case !canElicit(req):
			return call(ctx, req.Params.Name, req.Params.Arguments), nil
		case roundTrips(req):
			return parked.start(ctx, req.Params.Name, req.Params.Arguments, call), nil
		}
		return call(context.WithValue(ctx, askKey{}, elicitDirectly(req.Session)), req.Params.Name, req.Params.Arguments), nil
	}
	for _, t := range list {
		known[t.Name] = true
		srv.AddTool(t, handle)
	}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && !known[r.Params.Name] {
				return handle(ctx, r)
			}
			if family, _, _ := strings.Cut(method, "/"); undeclared[family] {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("Method not found: tandem declares no %s capability; it serves tools", family)}
			}
			return next(ctx, method, req)
		}
	})
	return srv
}

// attached is a `tandem mcp serve` that the editor's tandem serves: one
// tools session there, opened with the terminal's bridge token (or, found
// through a discovery entry, admitted by peer credentials).
type attached struct {
	env     bridge.Env
	session string
	tools   []*mcp.Tool
}

// attach opens a session in the editor's tandem found from the terminal's
// variables, else from the discovery entry of root or a parent.
func attach(ctx context.Context, root string) (*attached, error) {
	env, err := bridge.EnvFromOS()
	if err != nil {
		if env, _, err = bridge.Discover(root); err != nil {
			return nil, err
		}
	}
	h, body, err := bridge.Send(ctx, env, bridge.Request{Op: bridge.OpOpen})
	if err != nil {
		return nil, err
	}
	if h.Status != bridge.StatusOK {
		return nil, fmt.Errorf("%s: %s", h.Status, h.Reason)
	}
	var r bridge.OpenReply
	if err := json.Unmarshal(body, &r); err != nil || r.Session == "" {
		return nil, errors.New("its reply is not a session; it may be another tandem version")
	}
	return &attached{env: env, session: r.Session, tools: r.Tools}, nil
}

// call runs a tool in the editor's session. If the editor goes away, the
// result is a tool error saying so: the model can tell the user, and
// nothing is half-written (the editor's tandem applies an edit whole or
// not at all).
func (a *attached) call(ctx context.Context, name string, args json.RawMessage) *mcp.CallToolResult {
	h, body, err := bridge.Send(ctx, a.env, bridge.Request{Op: bridge.OpTool, Session: a.session, Tool: name, Args: args, Client: approvals.WhoOf(ctx)})
	refused := func(code refusal.Code, text string) *mcp.CallToolResult {
		return tools.Refused(refusal.New(code, text)).MCP()
	}
	switch {
	case ctx.Err() != nil:
		return refused(refusal.Cancelled, "The call was cancelled; the editor's tandem stopped it. Read the files it names again before repeating it.")
	case errors.Is(err, bridge.ErrNoBridge):
		return refused(refusal.Failed, "The editor's tandem is gone (the editor was closed or reloaded); nothing ran. Ask the user to restart the agent from the editor's terminal.")
	case errors.Is(err, bridge.ErrSessionEnded):
		return refused(refusal.Failed, "The editor's tandem ended during the call (the editor was closed or reloaded); each file it touched is either wholly changed or untouched. Ask the user to restart the agent from the editor's terminal, then read the files again before repeating the call.")
	case err != nil:
		return refused(refusal.Failed, err.Error())
	case h.Status == bridge.StatusBusy:
		return refused(refusal.Busy, h.Reason)
	case h.Status != bridge.StatusOK:
		return refused(refusal.Failed, h.Reason)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(body, &res); err != nil {
		return refused(refusal.Failed, "The editor's tandem sent a result this tandem cannot read; it may be another version. Ask the user to run the agent with the editor's tandem.")
	}
	return &res
}

func (a *attached) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _, _ = bridge.Send(ctx, a.env, bridge.Request{Op: bridge.OpClose, Session: a.session})
}

// logJobEnds tells the MCP clients of srv, as a log message, that a job
// ended (when a client set a logging level, as MCP's logging asks).
// Revision 2026-07-28 deprecates logging but keeps it working; clients of
// the earlier revisions (most today) show it, and the next tool result
// tells the model either way.
type logJobEnds struct{ srv atomic.Pointer[mcp.Server] }

func (l *logJobEnds) log(j tools.JobSettled) {
	srv := l.srv.Load()
	if srv == nil {
		return
	}
	for ss := range srv.Sessions() {
		//lint:ignore SA1019 deprecated, not removed: see logJobEnds
		_ = ss.Log(context.Background(), &mcp.LoggingMessageParams{Level: "notice", Logger: "tandem/jobs", Data: j})
	}
}

// knownClients are the names agents give themselves in clientInfo, as
// their users know them.
var knownClients = map[string]string{
	"claude-code":      "Claude Code",
	"codex-mcp-client": "Codex",
}

// clientName is the MCP client as its questions name it, from its
// clientInfo: the name its users know it by, else its title or name as
// sent, on one line of at most 60 characters (a client's own words must not
// pass for the question's); "" when it sent none.
func clientName(info *mcp.Implementation) string {
	if info == nil {
		return ""
	}
	if known := knownClients[info.Name]; known != "" {
		return known
	}
	name := cmp.Or(info.Title, info.Name)
	name = strings.Join(strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) }), " ")
	if r := []rune(name); len(r) > 60 {
		name = string(r[:59]) + "…"
	}
	return name
}
