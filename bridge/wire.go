// Package bridge lets commands that run inside a tandem session — the agent's
// shell steps and the editor's integrated terminal — call the user's MCP tools
// through the session, so a large result can go to a file or a pipe instead of
// into the model's context.
//
// The decisions (who may call, when a call runs, what a reply carries) live in
// the pure core, bridge/core. This package is the I/O shell around it: the
// private Unix socket, the wire format, the `tandem mcp call` client, and the
// adapters that ask the approvals route and call the user's MCP servers
// through package mcpclient.
//
// Whoever may call is an owner (Owner), registered with its own token: one
// running bash call, one editor session's integrated terminals, or the
// editor's discovery entries, which a `tandem mcp serve` outside the
// editor's terminals finds (Announce, Discover).
package bridge

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/tandemdev/tandem/mcpclient"
)

// The environment variables a command inside a session finds the bridge by.
// A session without a bridge sets neither, and the client says so.
const (
	EnvSocket = "TANDEM_MCP_SOCKET"
	EnvToken  = "TANDEM_MCP_TOKEN"
)

// WireVersion is the protocol version the request line carries. A client of
// another tandem build is refused `unsupported_version`, but only after its
// token was checked, so a stranger learns nothing.
const WireVersion = 1

// Bounds of the wire.
const (
	MaxRequestLine = 1 << 20             // one request line, newline included
	MaxHeaderLine  = 16 << 10            // one reply header line
	MaxResult      = mcpclient.MaxResult // a result's bytes, as the MCP client bounds them
)

// Request is the one line a client sends. Args stays raw: the bridge passes
// it to the permission question and the MCP server untouched.
type Request struct {
	Version int             `json:"v"`
	Token   string          `json:"token"`
	Op      string          `json:"op"`             // one of the Op constants
	Tool    string          `json:"tool,omitempty"` // server/tool for "call"; a tandem tool's name for "tool"
	Args    json.RawMessage `json:"args,omitempty"`
	Session string          `json:"session,omitempty"` // the tools session of "tool" and "close"
	// Client names the MCP client a "tool" call comes from, for its
	// questions ("Claude Code").
	Client string `json:"client,omitempty"`
}

// The request operations. open, tool and close serve tandem's own tools
// through the session's tandem (`tandem mcp serve` attached to an editor):
// open opens a tools session owned by the token, tool calls one of its
// tools, close ends it.
const (
	OpCall  = "call"
	OpList  = "list"
	OpOpen  = "open"
	OpTool  = "tool"
	OpClose = "close"
)

// Status is the outcome a reply header announces. The client maps each to
// its exit code.
type Status string

// The statuses, in the order the client documents its exit codes.
const (
	StatusOK          Status = "ok"           // the result follows
	StatusFailed      Status = "failed"       // the server is down, slow or failing; Reason has its text
	StatusInvalid     Status = "invalid"      // the request itself is wrong (unknown tool, bad line)
	StatusClosed      Status = "closed"       // the session's bridge is stopped
	StatusUnknownUser Status = "unauthorized" // the token is not in force
	StatusVersion     Status = "unsupported_version"
	StatusBusy        Status = "busy"       // every slot is taken; nothing ran
	StatusDenied      Status = "denied"     // the permission check said no
	StatusToolError   Status = "tool_error" // the tool ran and reported an error; its text follows
)

// Header is the JSON line that precedes a reply's bytes. Bytes is exact: the
// client writes nothing until it has read that many.
type Header struct {
	Status Status `json:"status"`
	Bytes  int    `json:"bytes"`
	Reason string `json:"reason,omitempty"` // one line for a human or a model; never a token or a result
}

// errLineTooLong is a request line past MaxRequestLine.
var errLineTooLong = errors.New("the request line is longer than 1 MiB")

// readLine reads one newline-terminated line of at most max bytes (newline
// included) and returns it without the newline.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > max {
			return nil, errLineTooLong
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(line) >= max { // no room left for the newline
				return nil, errLineTooLong
			}
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// writeReply writes a header and its bytes, in one vectored write.
func writeReply(w io.Writer, h Header, body []byte) error {
	h.Bytes = len(body)
	h.Reason = oneLine(h.Reason)
	line, err := json.Marshal(h)
	if err != nil {
		return err
	}
	bufs := net.Buffers{append(line, '\n'), body}
	_, err = bufs.WriteTo(w)
	return err
}

// oneLine squeezes a reason onto one line of at most 500 bytes, so an MCP
// server's multi-line error text still fits the client's one-line stderr.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 500 {
		cut := 497
		for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

// ParseTool splits "server/tool". The server name cannot hold a slash; the
// tool name may.
func ParseTool(s string) (server, tool string, err error) {
	server, tool, ok := strings.Cut(s, "/")
	if !ok || server == "" || tool == "" {
		return "", "", fmt.Errorf("%q is not SERVER/TOOL", s)
	}
	return server, tool, nil
}
