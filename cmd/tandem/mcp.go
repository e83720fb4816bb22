package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/tandemdev/tandem/bridge"
	"github.com/tandemdev/tandem/mcpinstall"
	"github.com/tandemdev/tandem/mcpserver"
	"github.com/tandemdev/tandem/tools"
)

var mcpCommand = command{
	name:    "mcp",
	usage:   "tandem mcp call SERVER/TOOL [JSON|-] | list | serve [--root DIR] | install",
	summary: "Call the user's MCP tools from inside a tandem session, list them, serve tandem's tools over MCP, or add that server to agents' configurations.",
	help: `tandem mcp call SERVER/TOOL [JSON | -]
    Calls an MCP tool through the tandem session this command runs in (an
    agent shell step, or an editor terminal opened by tandem). JSON is the
    tool's arguments as one object ("-" reads it from standard input;
    omitted means {}). Standard output gets the whole result, or nothing:
    it is written only after the complete reply arrived, so
    "tandem mcp call srv/tool '{}' > out.txt" never leaves half a result.
    The call is never retried. Exit status, with one line on standard error
    for every status but 0:
      0 ok                      4 busy (nothing ran; safe to run again)
      1 failed (server error)   5 denied (the permission check said no)
      2 usage (bad tool/JSON)   6 tool error (the tool's text is on stdout)
      3 no tandem bridge here, or another tandem version

tandem mcp list
    Prints the tools the session's bridge can reach: server, name, and the
    first line of the description. The servers start together, and the
    listing waits 30 s at most in all: a server not ready by then, and one
    that failed, is named on standard error.

tandem mcp serve [--root DIR]
    Serves tandem's own tools (the same registry as "tandem tool") as an MCP
    server on standard input and output. In an editor terminal opened by
    tandem, or in a folder an editor with tandem has open, it serves them
    through that editor's tandem: reads see unsaved buffers, edits of open
    files go through the editor, questions appear in the editor. Otherwise
    it serves a standalone session on DIR (default: the current directory;
    / and the home directory are refused) with the user's settings, asking
    questions of the MCP client when it takes elicitations.

` + mcpInstallHelp,
	run: runMCP,
}

// Exit codes of tandem mcp call.
const (
	exitNoBridge  = 3
	exitBusy      = 4
	exitDenied    = 5
	exitToolError = 6
)

var statusExit = map[bridge.Status]int{
	bridge.StatusOK:          exitOK,
	bridge.StatusFailed:      exitError,
	bridge.StatusInvalid:     exitUsage,
	bridge.StatusClosed:      exitNoBridge,
	bridge.StatusUnknownUser: exitNoBridge,
	bridge.StatusVersion:     exitNoBridge,
	bridge.StatusBusy:        exitBusy,
	bridge.StatusDenied:      exitDenied,
	bridge.StatusToolError:   exitToolError,
}

func runMCP(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "tandem mcp: say call, list, serve or install; run `tandem mcp --help`")
		return exitUsage
	}
	switch args[0] {
	case "call":
		return mcpCall(args[1:], os.Stdin, os.Stdout, os.Stderr)
	case "list":
		if len(args) != 1 {
			fmt.Fprintln(os.Stderr, "tandem mcp list: takes no arguments")
			return exitUsage
		}
		return mcpList(os.Stdout, os.Stderr)
	case "serve":
		return mcpServe(args[1:])
	case "install":
		return mcpInstall(args[1:], os.Stdout, os.Stderr)
	}
	fmt.Fprintf(os.Stderr, "tandem mcp: unknown subcommand %q; say call, list, serve or install\n", args[0])
	return exitUsage
}

func mcpCall(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// One short-lived call holding at most one 16 MiB reply: collecting
	// garbage would only cost time.
	debug.SetGCPercent(-1)
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "tandem mcp call: "+format+"\n", a...)
		return code
	}
	if len(args) < 1 || len(args) > 2 {
		return fail(exitUsage, "usage: tandem mcp call SERVER/TOOL [JSON | -]")
	}
	if _, _, err := bridge.ParseTool(args[0]); err != nil {
		return fail(exitUsage, "%v; name the tool as `tandem mcp list` prints it", err)
	}
	raw := json.RawMessage("{}")
	if len(args) == 2 {
		raw = json.RawMessage(args[1])
		if args[1] == "-" {
			b, err := io.ReadAll(io.LimitReader(stdin, bridge.MaxRequestLine+1))
			if err != nil {
				return fail(exitError, "reading the arguments: %v", err)
			}
			raw = b
		}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return fail(exitUsage, "the arguments are not one JSON object; pass them like '{\"message\":\"hi\"}'")
	}
	env, err := bridge.EnvFromOS()
	if err != nil {
		return fail(exitNoBridge, "%v", err)
	}
	h, body, err := bridge.Send(context.Background(), env, bridge.Request{Op: bridge.OpCall, Tool: args[0], Args: raw})
	if err != nil {
		if errors.Is(err, bridge.ErrNoBridge) {
			return fail(exitNoBridge, "%v", err)
		}
		if errors.Is(err, bridge.ErrSessionEnded) {
			return fail(exitError, "%v; the call may have run, check before running it again", err)
		}
		return fail(exitError, "%v", err)
	}
	code, ok := statusExit[h.Status]
	if !ok {
		return fail(exitNoBridge, "the session answered %q, which this tandem does not know; it may be another version", h.Status)
	}
	if h.Status == bridge.StatusOK || h.Status == bridge.StatusToolError {
		if _, err := stdout.Write(body); err != nil {
			return fail(exitError, "writing the result: %v", err)
		}
		// An error text is for reading, not a file's bytes: end its line so
		// the reason on stderr does not run into it where both are shown.
		if h.Status == bridge.StatusToolError && len(body) > 0 && body[len(body)-1] != '\n' {
			fmt.Fprintln(stdout)
		}
	}
	if code != exitOK {
		fmt.Fprintf(stderr, "tandem mcp call: %s: %s\n", h.Status, h.Reason)
	}
	return code
}

func mcpList(stdout, stderr io.Writer) int {
	env, err := bridge.EnvFromOS()
	if err != nil {
		fmt.Fprintln(stderr, "tandem mcp list:", err)
		return exitNoBridge
	}
	h, body, err := bridge.Send(context.Background(), env, bridge.Request{Op: bridge.OpList})
	if err != nil {
		fmt.Fprintln(stderr, "tandem mcp list:", err)
		if errors.Is(err, bridge.ErrNoBridge) {
			return exitNoBridge
		}
		return exitError
	}
	if h.Status != bridge.StatusOK {
		fmt.Fprintf(stderr, "tandem mcp list: %s: %s\n", h.Status, h.Reason)
		if c, ok := statusExit[h.Status]; ok {
			return c
		}
		return exitError
	}
	var lr bridge.ListReply
	if err := json.Unmarshal(body, &lr); err != nil {
		fmt.Fprintln(stderr, "tandem mcp list: the session sent a list this tandem cannot read; it may be another version")
		return exitNoBridge
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, t := range lr.Tools {
		fmt.Fprintf(tw, "%s/%s\t%s\n", t.Server, t.Name, oneLine(t.Description))
	}
	tw.Flush()
	for _, p := range lr.Problems {
		fmt.Fprintln(stderr, "tandem mcp list:", p)
	}
	return exitOK
}

// mcpServe parses the command line and serves tandem's tools over MCP on
// standard input and output (package mcpserver).
func mcpServe(args []string) int {
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "tandem mcp serve: "+format+"\n", a...)
		return code
	}
	root, err := os.Getwd()
	switch {
	case len(args) == 2 && args[0] == "--root":
		root, err = filepath.Abs(args[1])
	case len(args) != 0:
		return fail(exitUsage, "usage: tandem mcp serve [--root DIR]")
	}
	if err != nil {
		return fail(exitError, "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = mcpserver.Serve(ctx, mcpserver.Options{
		Root:         root,
		Version:      tandemVersion(),
		Warn:         os.Stderr,
		Instructions: mcpinstall.Instructions(),
		Standalone: func(door tools.Options) (*tools.Session, error) {
			return openStandalone("tandem mcp serve", root, door)
		},
	}, mcpserver.Stdio(os.Stdin, os.Stdout))
	var unsafe *mcpserver.UnsafeRootError
	switch {
	case errors.As(err, &unsafe):
		code := fail(exitUsage, "%v", err)
		// An agent that started it shows its own "connection closed"
		// rather than this line: answer its initialize with the reason.
		if fi, serr := os.Stdin.Stat(); serr == nil && fi.Mode()&os.ModeCharDevice == 0 {
			mcpserver.Refuse(os.Stdin, os.Stdout, "tandem mcp serve: "+err.Error())
		}
		return code
	case err != nil:
		return fail(exitError, "%v", err)
	}
	return exitOK
}

// oneLine shortens a tool's description to its first sentence on one line,
// at most 100 characters: `tandem mcp list` output goes into the agent's
// context, and the full descriptions of a few servers fill kilobytes.
func oneLine(description string) string {
	s := strings.Join(strings.Fields(description), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if r := []rune(s); len(r) > 100 {
		s = strings.TrimSpace(string(r[:99])) + "…"
	}
	return s
}
