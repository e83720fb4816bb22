package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tandemdev/tandem/jsonlines"
)

// maxLine is the longest line tandem reads as one message, as the go-sdk's
// own stdio transport; a longer line is answered and skipped.
const maxLine = mcp.DefaultMaxLineLength

// Stdio is MCP's stdio transport (one JSON-RPC message per line) on r and
// w, made to outlive a client's mistakes: the go-sdk's own ends the session
// on a line that is not one message, losing every reply still in flight.
// Here such a line is answered (package jsonlines: a parse error, an
// invalid request for a batch — MCP dropped them in revision 2025-06-18 —
// or for what is not a message), and so is a request made before
// initialize, and the session goes on.
func Stdio(r io.ReadCloser, w io.Writer) mcp.Transport { return &stdio{r: r, w: w} }

type stdio struct {
	r io.ReadCloser
	w io.Writer
}

func (t *stdio) Connect(context.Context) (mcp.Connection, error) {
	out := jsonlines.NewWriter(t.w)
	c := &lineConn{in: t.r, lines: jsonlines.NewReader(t.r, out, maxLine, "MCP"), out: out, incoming: make(chan jsonrpc.Message), closed: make(chan struct{})}
	go c.readLines()
	return c, nil
}

type lineConn struct {
	in       io.ReadCloser
	lines    *jsonlines.Reader
	out      *jsonlines.Writer
	incoming chan jsonrpc.Message
	readErr  error // set before incoming is closed
	closed   chan struct{}
	once     sync.Once

	// initialized is set once initialize came: before it, the go-sdk
	// refuses every other call with a code of 0, which no client can
	// tell apart; the transport answers those itself.
	initialized bool
}

func (c *lineConn) SessionID() string { return "" }

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case msg, ok := <-c.incoming:
		if !ok {
			return nil, c.readErr
		}
		return msg, nil
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	_, err = c.out.Write(append(data, '\n'))
	return err
}

func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.in.Close()
}

// readLines passes each message on, answering the requests that must not
// reach the go-sdk.
func (c *lineConn) readLines() {
	for {
		line, err := c.lines.Next()
		if err != nil {
			c.readErr = err
			close(c.incoming)
			return
		}
		if msg := c.judge(line); msg != nil {
			select {
			case c.incoming <- msg:
			case <-c.closed:
				return
			}
		}
	}
}

// judge returns the message line holds, or answers it and returns nil.
func (c *lineConn) judge(line []byte) jsonrpc.Message {
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.out.Answer(nil, jsonlines.CodeInvalidRequest, "Invalid Request: the line is not a JSON-RPC 2.0 message ("+err.Error()+")")
		return nil
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return msg
	}
	switch {
	case req.Method == "initialize":
		c.initialized = true
	case !c.initialized && req.Method != "ping" && !statelessCall(req):
		c.out.Answer(rawID(req.ID), jsonlines.CodeInvalidRequest, fmt.Sprintf("Invalid Request: %s came before initialize; send initialize, then notifications/initialized, then %s", req.Method, req.Method))
		return nil
	}
	return msg
}

// statelessCall reports whether req names its protocol revision in its
// _meta, as the stateless revision's requests do instead of initialize.
func statelessCall(req *jsonrpc.Request) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(req.Params, &p)
	_, ok := p.Meta[mcp.MetaKeyProtocolVersion]
	return ok
}

func rawID(id jsonrpc.ID) json.RawMessage {
	b, _ := json.Marshal(id.Raw())
	return b
}

// Refuse answers the first request on r with a JSON-RPC error carrying
// reason, for a server that cannot start: a client that shows only "the
// connection closed" for a server that exits at once shows the reason
// instead. It returns after that answer or at the end of r.
func Refuse(r io.Reader, w io.Writer, reason string) {
	out := jsonlines.NewWriter(w)
	lines := jsonlines.NewReader(r, out, maxLine, "MCP")
	for {
		line, err := lines.Next()
		if err != nil {
			return
		}
		if msg, derr := jsonrpc.DecodeMessage(line); derr == nil {
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
				out.Answer(rawID(req.ID), codeCannotServe, reason)
				return
			}
		}
	}
}

// codeCannotServe is the JSON-RPC server error of a server that refused to
// start (JSON-RPC leaves -32000 to -32099 to implementations).
const codeCannotServe = -32000
