package bridge

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"time"

	"github.com/tandemdev/tandem/bridge/core"
)

// ReadTimeout bounds how long a client may take to send its request line.
const ReadTimeout = 10 * time.Second

// request is the shell's side of one admitted request: what the core never
// sees (the connection, the tool, its arguments, its result), keyed by id.
type request struct {
	id      core.RequestID
	conn    net.Conn
	op      string
	tool    string // server/tool, or a tandem tool's name
	args    json.RawMessage
	session string // a tools session's id
	client  string // the MCP client of a tool call, by name
	peer    int    // the process that sent an open, 0 if unknown
	owner   core.OwnerID

	withdraw context.CancelFunc // ends the permission check (and its prompt)
	cancel   context.CancelFunc // ends the MCP call

	// The adapters set these before they answer the core; the reply reads
	// them.
	refusal *Header // why the request was not allowed (denied, unknown tool, …)
	result  []byte
	reason  string // a failed call's error text
}

// serve runs as one connection's goroutine: it reads one request line and
// writes one reply.
func (b *Bridge) serve(c net.Conn) {
	defer b.wg.Done()
	defer func() {
		b.mu.Lock()
		b.conns--
		b.mu.Unlock()
	}()
	_ = c.SetReadDeadline(time.Now().Add(b.readLimit))
	r := bufio.NewReaderSize(c, 64<<10)
	line, err := readLine(r, MaxRequestLine)
	if errors.Is(err, io.EOF) {
		c.Close() // connected and left without a word: a liveness probe
		return
	}
	if err != nil {
		kind := "read_failed"
		switch {
		case errors.Is(err, errLineTooLong):
			kind = "line_too_long"
		case errors.Is(err, os.ErrDeadlineExceeded):
			kind = "read_timeout"
		}
		b.logf("mcp-call kind=%s", kind)
		if kind != "read_failed" {
			_ = writeReply(c, Header{Status: StatusInvalid, Reason: "The request line was too long or too slow; send one JSON line of at most 1 MiB. Run `tandem mcp call TOOL JSON`."}, nil)
		}
		c.Close()
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		b.logf("mcp-call kind=bad_line")
		_ = writeReply(c, Header{Status: StatusInvalid, Reason: "The request line is not valid JSON; run `tandem mcp call TOOL JSON` instead of writing to the socket."}, nil)
		c.Close()
		return
	}
	var tok core.Token
	if raw, err := hex.DecodeString(req.Token); err == nil && len(raw) == core.TokenSize {
		copy(tok[:], raw)
	} else if req.Token == "" {
		tok = b.peerToken(c)
	} // otherwise tok stays the zero token, which no owner holds, so the core refuses it as unauthorized
	version := uint32(0)
	if req.Version > 0 && req.Version <= 1<<31 {
		version = uint32(req.Version)
	}
	rq := &request{conn: c, op: req.Op, tool: req.Tool, args: req.Args, session: req.Session, client: req.Client}
	if req.Op == OpOpen {
		rq.peer = peerPID(c)
	}

	b.mu.Lock()
	effs := b.applyLocked(core.Event{Kind: core.Request, Token: tok, Version: version}, rq)
	b.mu.Unlock()
	for _, e := range effs.List() {
		if e.Kind == core.Refuse {
			st := refusalStatus[e.Reason]
			_ = writeReply(c, Header{Status: st, Reason: reasonText(st)}, nil)
			c.Close()
			return
		}
	}
	// The request is admitted. Watch the connection: if it ends before the
	// reply, that is ClientGone; a second line is a protocol error that
	// ends the connection.
	var one [1]byte
	n, _ := r.Read(one[:])
	if n > 0 {
		b.logf("mcp-call id=%d kind=second_line", rq.id)
		c.Close()
	}
	b.mu.Lock()
	b.applyLocked(core.Event{Kind: core.ClientGone, ID: rq.id}, nil)
	b.mu.Unlock()
}

// peerToken returns the ByPeer owner's token when the kernel names c's
// sender a process of this user, else the zero token.
func (b *Bridge) peerToken(c net.Conn) core.Token {
	uid, ok := peerUID(c)
	b.mu.Lock()
	defer b.mu.Unlock()
	if !ok || uid != os.Getuid() || b.byPeer == nil {
		return core.Token{}
	}
	return *b.byPeer
}

var refusalStatus = map[core.Reason]Status{
	core.Closed:       StatusClosed,
	core.Unauthorized: StatusUnknownUser,
	core.BadVersion:   StatusVersion,
	core.Busy:         StatusBusy,
}

// reasonText returns the one line a client prints for a refusal: what
// happened and the next valid action. It never names a token or a result.
func reasonText(s Status) string {
	switch s {
	case StatusClosed:
		return "The tandem session's MCP bridge is stopped; nothing ran. Run the command again from a running tandem session."
	case StatusUnknownUser:
		return "This command is not inside a running tandem shell step or editor terminal (its access ended with the step that started it); nothing ran. Run it from a current shell step."
	case StatusVersion:
		return "This tandem mcp call is another version than the tandem session; nothing ran. Run the tandem of the session (the one on the session's PATH)."
	case StatusBusy:
		return "Too many MCP calls are running in this session; nothing ran, so it is safe to run the command again in a moment."
	}
	return string(s)
}
