package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine is the longest line tandem reads as one message, as the go-sdk's
// own stdio transport; a longer line is answered and skipped.
const maxLine = mcp.DefaultMaxLineLength

// Stdio is MCP's stdio transport (one JSON-RPC message per line) on r and
// w, made to outlive a client's mistakes: the go-sdk's own ends the session
// on a line that is not one message, losing every reply still in flight.
// Here such a line is answered with a JSON-RPC error — a parse error for
// what is not JSON, an invalid request for a batch (MCP dropped batches in
// revision 2025-06-18) or for a request made before initialize — and the
// session goes on.
func Stdio(r io.ReadCloser, w io.Writer) mcp.Transport { return &stdio{r: r, w: w} }

type stdio struct {
	r io.ReadCloser
	w io.Writer
}

func (t *stdio) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{in: t.r, out: t.w, incoming: make(chan jsonrpc.Message), closed: make(chan struct{})}
	go c.readLines()
	return c, nil
}

type lineConn struct {
	in       io.ReadCloser
	out      io.Writer
	writeMu  sync.Mutex
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
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.out.Write(append(data, '\n'))
	return err
}

func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.in.Close()
}

// readLines reads the input line by line, passing each message on and
// answering every line that is not one.
func (c *lineConn) readLines() {
	br := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		if tooLong {
			c.answer(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: the line is over %d MiB, more than one message may be; it was skipped", maxLine>>20))
		} else if line = bytes.TrimSpace(line); len(line) > 0 {
			if msg := c.judge(line); msg != nil {
				select {
				case c.incoming <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			c.readErr = err
			close(c.incoming)
			return
		}
	}
}

// readLine reads one line without its end; a line longer than maxLine is
// read to its end and dropped.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		part, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(part) > maxLine {
				tooLong, line = true, nil
			} else {
				line = append(line, part...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

// judge returns the message line holds, or answers it and returns nil.
func (c *lineConn) judge(line []byte) jsonrpc.Message {
	if !json.Valid(line) {
		c.answer(jsonrpc.ID{}, jsonrpc.CodeParseError, "Parse error: the line is not JSON; send one JSON-RPC message per line")
		return nil
	}
	if line[0] == '[' {
		c.answer(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "Invalid Request: MCP has no JSON-RPC batches since revision 2025-06-18; send each message on its own line")
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.answer(idOf(line), jsonrpc.CodeInvalidRequest, "Invalid Request: the line is not a JSON-RPC 2.0 message ("+err.Error()+")")
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
		c.answer(req.ID, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: %s came before initialize; send initialize, then notifications/initialized, then %s", req.Method, req.Method))
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

// idOf is the id of a JSON object that is not a valid message, when it has
// a usable one; else the null id.
func idOf(line []byte) jsonrpc.ID {
	var v struct{ ID any }
	_ = json.Unmarshal(line, &v)
	id, err := jsonrpc.MakeID(v.ID)
	if err != nil {
		return jsonrpc.ID{}
	}
	return id
}

// answer writes an error response, with the null id when the request's is
// not known, as JSON-RPC 2.0 says (the go-sdk's encoder would leave the id
// out).
func (c *lineConn) answer(id jsonrpc.ID, code int64, message string) {
	data, _ := json.Marshal(struct {
		Version string        `json:"jsonrpc"`
		ID      any           `json:"id"`
		Error   jsonrpc.Error `json:"error"`
	}{"2.0", id.Raw(), jsonrpc.Error{Code: code, Message: message}})
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, _ = c.out.Write(append(data, '\n'))
}

// Refuse answers the first request on r with a JSON-RPC error carrying
// reason, for a server that cannot start: a client that shows only "the
// connection closed" for a server that exits at once shows the reason
// instead. It returns after that answer or at the end of r.
func Refuse(r io.Reader, w io.Writer, reason string) {
	c := &lineConn{out: w}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		if !tooLong {
			if msg, derr := jsonrpc.DecodeMessage(bytes.TrimSpace(line)); derr == nil {
				if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
					c.answer(req.ID, codeCannotServe, reason)
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// codeCannotServe is the JSON-RPC server error of a server that refused to
// start (JSON-RPC leaves -32000 to -32099 to implementations).
const codeCannotServe = -32000
