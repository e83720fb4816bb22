package lspserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Client is the server's way to the editor: server→client requests and
// notifications, and what the editor said it supports. Requests may only be
// made from request handlers and goroutines, never inline from a
// notification handler (the read loop would wait on itself).
type Client struct {
	conn    jsonrpc2.Conn
	log     *slog.Logger
	forget  func(jsonrpc2.ID) // tells the stream to stop awaiting the answer to a call tandem gave up on
	slots   chan struct{}     // one per request awaiting an answer, not counting questions
	timeout time.Duration     // CallTimeout, except in tests

	mu       sync.Mutex
	caps     map[string]any // the client's capabilities, as sent
	name     string
	version  string
	traceTo  string                        // $/setTrace value: off, messages, verbose
	progress map[string]context.CancelFunc // cancellable progress tokens
	seq      atomic.Int64
}

// CallTimeout bounds how long tandem waits for the editor to answer one of
// its requests, except a question for the user (see Ask). An editor that
// never answers must not hold a goroutine per request for ever.
const CallTimeout = 30 * time.Second

// maxOutstanding is how many of tandem's requests, not counting questions,
// may await the editor's answer at once. One more request fails at once.
const maxOutstanding = 64

// ErrTooManyRequests is the error of a request not sent because
// maxOutstanding requests already await the editor's answer.
var ErrTooManyRequests = errors.New("the editor has not answered tandem's earlier requests")

func newClient(conn jsonrpc2.Conn, log *slog.Logger, forget func(jsonrpc2.ID), timeout time.Duration) *Client {
	return &Client{conn: conn, log: log, forget: forget, slots: make(chan struct{}, maxOutstanding), timeout: timeout,
		traceTo: "off", progress: map[string]context.CancelFunc{}}
}

// Call sends a request to the editor and waits for its answer, decoded into
// result, for CallTimeout at most. Cancelling ctx (or the timeout) sends
// $/cancelRequest and returns ctx's error. With maxOutstanding requests
// already waiting it fails at once with ErrTooManyRequests.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	select {
	case c.slots <- struct{}{}:
	default:
		return ErrTooManyRequests
	}
	defer func() { <-c.slots }()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	return c.call(ctx, method, params, result)
}

// Ask is Call for a question to the user: it waits as long as the user
// takes, until ctx ends (the question settled elsewhere, its step was
// cancelled, the session closed).
func (c *Client) Ask(ctx context.Context, method string, params, result any) error {
	return c.call(ctx, method, params, result)
}

func (c *Client) call(ctx context.Context, method string, params, result any) error {
	id, err := c.conn.Call(ctx, method, params, result)
	c.forget(id)
	if ctx.Err() != nil {
		// Tell the editor that tandem gave up on the request: the editor
		// may still be showing it or working on it.
		_ = c.conn.Notify(context.WithoutCancel(ctx), "$/cancelRequest", &protocol.CancelParams{ID: id})
	}
	return err
}

// Notify sends a notification to the editor.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	return c.conn.Notify(ctx, method, params)
}

// Name and Version are the editor's clientInfo, when it sent one.
func (c *Client) Name() string    { c.mu.Lock(); defer c.mu.Unlock(); return c.name }
func (c *Client) Version() string { c.mu.Lock(); defer c.mu.Unlock(); return c.version }

// Capability returns the client capability at a dotted path of the
// initialize request's capabilities, such as "window.workDoneProgress" or
// "experimental.tandem.questions".
func (c *Client) Capability(path string) (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var cur any = c.caps
	for _, part := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	raw, err := json.Marshal(cur)
	return raw, err == nil
}

// Supports reports whether the capability at path is present and not false
// or null.
func (c *Client) Supports(path string) bool {
	raw, ok := c.Capability(path)
	return ok && string(raw) != "false" && string(raw) != "null"
}

// LogMessage sends window/logMessage. Never pass file contents or secrets.
func (c *Client) LogMessage(ctx context.Context, typ protocol.MessageType, text string) {
	if err := c.Notify(ctx, "window/logMessage", protocol.LogMessageParams{Type: typ, Message: text}); err != nil {
		c.log.Debug("logMessage not sent", "err", err)
	}
}

// ShowMessage sends window/showMessage, for what the user should see.
func (c *Client) ShowMessage(ctx context.Context, typ protocol.MessageType, text string) {
	if err := c.Notify(ctx, "window/showMessage", protocol.ShowMessageParams{Type: typ, Message: text}); err != nil {
		c.log.Debug("showMessage not sent", "err", err)
	}
}

func (c *Client) setTrace(v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch v {
	case "messages", "verbose":
		c.traceTo = v
	default:
		c.traceTo = "off"
	}
}

// trace sends $/logTrace when the client asked for traces. Trace messages
// name methods and ids, never params.
func (c *Client) trace(message string) {
	c.mu.Lock()
	on := c.traceTo != "off"
	c.mu.Unlock()
	if on {
		_ = c.Notify(context.Background(), "$/logTrace", map[string]string{"message": message})
	}
}

// Progress is one window/workDoneProgress report shown by the editor. A nil
// *Progress (the client does not support progress) accepts every call and
// does nothing.
type Progress struct {
	c     *Client
	token any
}

// StartProgress begins a cancellable progress report titled title. A token
// the client sent with the request (workDoneToken) is used as is; otherwise
// one is created with window/workDoneProgress/create when the client
// supports it. Cancelling the progress in the editor calls cancel.
func (c *Client) StartProgress(ctx context.Context, clientToken json.RawMessage, title string, cancel context.CancelFunc) *Progress {
	var token any
	switch {
	case len(clientToken) > 0 && string(clientToken) != "null":
		token = clientToken
	case c.Supports("window.workDoneProgress"):
		name := fmt.Sprintf("tandem-%d", c.seq.Add(1))
		if err := c.Call(ctx, "window/workDoneProgress/create", map[string]string{"token": name}, nil); err != nil {
			c.log.Debug("progress not created", "err", err)
			return nil
		}
		token = name
	default:
		return nil
	}
	p := &Progress{c: c, token: token}
	c.mu.Lock()
	c.progress[tokenKey(token)] = cancel
	c.mu.Unlock()
	p.send("begin", map[string]any{"title": title, "cancellable": true})
	return p
}

// End finishes the progress report.
func (p *Progress) End(message string) {
	if p == nil {
		return
	}
	p.c.mu.Lock()
	delete(p.c.progress, tokenKey(p.token))
	p.c.mu.Unlock()
	p.send("end", map[string]any{"message": message})
}

func (p *Progress) send(kind string, value map[string]any) {
	value["kind"] = kind
	if err := p.c.Notify(context.Background(), "$/progress", map[string]any{"token": p.token, "value": value}); err != nil {
		p.c.log.Debug("progress not sent", "err", err)
	}
}

// cancelProgress serves window/workDoneProgress/cancel.
func (c *Client) cancelProgress(token json.RawMessage) {
	c.mu.Lock()
	cancel := c.progress[tokenKey(token)]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// tokenKey is a progress token's JSON text, so "7", 7 and a created name
// each match what the client echoes back.
func tokenKey(token any) string {
	raw, _ := json.Marshal(token)
	return string(raw)
}

func (s *Server) setTrace(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Value string `json:"value"`
	}
	if err := decodeParams("$/setTrace", params, &p); err != nil {
		return nil, err
	}
	s.client.setTrace(p.Value)
	return nil, nil
}

func (s *Server) cancelProgress(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Token json.RawMessage `json:"token"`
	}
	if err := decodeParams("window/workDoneProgress/cancel", params, &p); err != nil {
		return nil, err
	}
	s.client.cancelProgress(p.Token)
	return nil, nil
}
