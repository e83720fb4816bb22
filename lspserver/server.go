// Package lspserver is `tandem lsp`: one editor's JSON-RPC connection over
// stdio with LSP framing. It owns the lifecycle, mirrors the editor's buffers
// into a documents.Overlay, serves the agent-side methods (tandem/openSession,
// tandem/callTool, …) over the one tool registry, and carries server→client
// calls through Client.
//
// Dispatch is tandem's own rather than protocol.ServerHandler's: notifications
// run inline and in order, each request in its own goroutine, and
// $/cancelRequest is routed here for numeric and string ids alike. The
// method table is methods.go.
package lspserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/tandemdev/tandem/agent"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/tools"
	"github.com/tandemdev/tandem/tools/mcphub"
)

// Options configure one server.
type Options struct {
	Log        *slog.Logger     // never sees file contents; nil discards
	Settings   *config.Settings // with the user file loaded; nil starts empty
	Cwd        string           // the root when the client names no workspace
	Version    string           // reported in serverInfo
	LogPath    string           // where the log goes, told to the user at start
	MaxMessage int64            // cap on one incoming message; 0 means MaxMessage
	// Connect reaches the agent's models. If it is nil, every prompt is
	// refused with a message that no provider is reachable.
	Connect agent.Connector
	// SettingsErr is why the user config file did not load. The log alone
	// is not enough: the user would believe settings apply that do not, so
	// the editor shows it once initialized.
	SettingsErr error

	// requests, if not nil, replaces the request table of methods.go, so
	// that tests can serve extra methods.
	requests map[string]handlerFunc
	// callTimeout replaces CallTimeout, so a test need not wait for it.
	callTimeout time.Duration
}

type state uint8

const (
	stateNew state = iota
	stateRunning
	stateShutdown
)

// Server is the state of one connection.
type Server struct {
	opts     Options
	log      *slog.Logger
	conn     jsonrpc2.Conn
	client   *Client
	buffers  *documents.Overlay
	settings *config.Settings
	requests map[string]handlerFunc
	router   *router        // asks the editor the sessions' questions
	hub      connHub        // the MCP servers and the call bridge, started on first use
	agent    *agent.Service // the agent's sessions (chat.go)

	mu       sync.Mutex
	state    state
	roots    []string
	sessions map[string]*tools.Session
	inflight map[jsonrpc2.ID]context.CancelFunc
	running  sync.WaitGroup // requests in flight; shutdown waits for them
	exitCode int
	exited   bool
	// configFetching reports whether a workspace/configuration fetch is
	// running; configStale, whether a change was announced since it
	// started.
	configFetching, configStale bool
	// editorReports: the editor took the registration for file events, so
	// it reports the changes in every folder, those added later too.
	editorReports bool
	exit          chan struct{} // closed by end: the exit notification, or the editor gone
}

// closeBoth closes the input too, if it can be closed, so a read blocked on
// it ends with the connection.
type closeBoth struct {
	in  io.Reader
	out io.Closer
}

func (c closeBoth) Close() error {
	if rc, ok := c.in.(io.Closer); ok {
		_ = rc.Close()
	}
	return c.out.Close()
}

// Serve runs one connection until `exit` or the end of input and returns the
// process exit status: 0 after a shutdown request, else 1.
func Serve(ctx context.Context, in io.Reader, out io.WriteCloser, opts Options) int {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Settings == nil {
		opts.Settings = config.New()
	}
	agent.SharedWatches().SetLog(opts.Log)
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = MaxMessage
	}
	s := &Server{
		opts:     opts,
		log:      opts.Log,
		buffers:  documents.NewOverlay(),
		settings: opts.Settings,
		requests: opts.requests,
		sessions: map[string]*tools.Session{},
		inflight: map[jsonrpc2.ID]context.CancelFunc{},
		exitCode: 1,
		exit:     make(chan struct{}),
	}
	if s.requests == nil {
		s.requests = requests
	}
	s.router = newRouter(s)
	s.hub.mcp = mcphub.New(mcphub.Options{Settings: s.Settings, Roots: s.Roots, Version: opts.Version, Log: s.log})
	s.agent = s.newAgentService()
	st := newStream(in, out, closeBoth{in, out}, opts.MaxMessage, func(kind, detail string) {
		s.log.Warn("bad input skipped", "kind", kind, "detail", detail)
	})
	// A failed write means the editor is gone (its end of the pipe closed,
	// it was killed): stop as exit does, so every session's processes end.
	st.gone = func(err error) {
		s.log.Warn("the editor is gone: writing to it failed; stopping", "err", err)
		s.end()
	}
	s.conn = jsonrpc2.NewConn(st)
	if opts.callTimeout <= 0 {
		opts.callTimeout = CallTimeout
	}
	s.client = newClient(s.conn, s.log, st.forget, opts.callTimeout)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.conn.Go(ctx, s.dispatch)
	select {
	case <-s.conn.Done():
	case <-s.exit:
	case <-ctx.Done():
	}
	_ = s.conn.Close()
	cancel() // stops every request still running
	s.agent.CloseAll()
	s.closeSessions()
	s.hub.close()
	s.hub.mcp.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.exited && s.state == stateShutdown {
		s.exitCode = 0 // input ended after shutdown: a clean stop without exit
	}
	if err := s.conn.Err(); err != nil && !errors.Is(err, io.EOF) && !s.exited {
		s.log.Info("connection ended", "err", err)
	}
	return s.exitCode
}

// Client returns the connection's way back to the editor.
func (s *Server) Client() *Client { return s.client }

// Settings returns the server's layered settings.
func (s *Server) Settings() *config.Settings { return s.settings }

// Log returns the server's logger; never give it file contents or secrets.
func (s *Server) Log() *slog.Logger { return s.log }

// Roots returns the current workspace folders, in order; relative paths
// resolve against the first.
func (s *Server) Roots() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.roots...)
}

// dispatch routes one incoming request or notification. It always returns
// nil: an error here would make jsonrpc2 drop the connection.
func (s *Server) dispatch(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	method := req.Method()
	call, isCall := req.(*jsonrpc2.Call)
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("panic serving a message", "method", method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if isCall {
				_ = reply(ctx, nil, errorf("tandem failed serving %s (%v); the server keeps running. Report this.", method, p))
			}
		}
	}()
	if lifecycle[method] {
		s.lifecycle(ctx, reply, req)
		return nil
	}
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	switch {
	case st == stateNew:
		if isCall {
			_ = reply(ctx, nil, rpcError(jsonrpc2.ServerNotInitialized, KindNotInitialized,
				"The server is not initialized. Send initialize first."))
		}
		return nil
	case st == stateShutdown && isCall:
		_ = reply(ctx, nil, rpcError(jsonrpc2.InvalidRequest, KindShuttingDown,
			"The server is shutting down and takes no more requests. Send exit, then start a new server."))
		return nil
	}
	if !isCall {
		h := notifications[method]
		if h == nil {
			s.log.Debug("notification ignored", "method", method)
			return nil
		}
		start := time.Now()
		if _, err := h(s, ctx, req.Params()); err != nil {
			// A notification has no reply: the editor's log is where its
			// failure can be seen.
			s.log.Warn("notification failed", "method", method, "err", err)
			s.client.LogMessage(ctx, protocol.MessageTypeError, fmt.Sprintf("tandem could not apply %s: %v", method, err))
		}
		s.client.trace(fmt.Sprintf("handled notification '%s' in %s", method, time.Since(start).Round(time.Microsecond)))
		return nil
	}
	h := s.requests[method]
	if h == nil && notifications[method] != nil {
		_ = reply(ctx, nil, notANotification(method))
		return nil
	}
	if h == nil {
		_ = reply(ctx, nil, rpcError(jsonrpc2.MethodNotFound, KindUnknownMethod,
			"tandem does not serve the method %q. See docs/protocol.md for the methods it serves.", method))
		return nil
	}
	s.run(ctx, reply, call, h)
	return nil
}

// notANotification answers a notification sent as a request (with an id):
// it is refused, so it changes nothing, and its sender hears why.
func notANotification(method string) error {
	return rpcError(jsonrpc2.InvalidRequest, KindInvalidRequest,
		"%s is a notification, so it takes no id and gets no answer; it was not applied. Send it again without an id.", method)
}

// run starts a request in its own goroutine, cancellable by its id.
func (s *Server) run(ctx context.Context, reply jsonrpc2.Replier, call *jsonrpc2.Call, h handlerFunc) {
	id, method := call.ID(), call.Method()
	rctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.inflight[id] = cancel
	s.mu.Unlock()
	s.client.trace(fmt.Sprintf("received request '%s - (%s)'", method, encodeID(id)))
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		start := time.Now()
		defer func() {
			s.mu.Lock()
			delete(s.inflight, id)
			s.mu.Unlock()
			cancel()
		}()
		var (
			res any
			err error
		)
		func() {
			defer func() {
				if p := recover(); p != nil {
					s.log.Error("panic serving a request", "method", method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
					err = errorf("tandem failed serving %s (%v); the server keeps running. Report this.", method, p)
				}
			}()
			res, err = h(s, rctx, call.Params())
		}()
		if rctx.Err() != nil && ctx.Err() == nil {
			err = rpcError(protocol.CodeRequestCancelled, KindCancelled, "The request %s was cancelled.", method)
			res = nil
		}
		if err != nil {
			var rpcErr *jsonrpc2.Error
			if !errors.As(err, &rpcErr) {
				err = errorf("%s failed: %v", method, err)
			}
			s.log.Info("request failed", "method", method, "id", string(encodeID(id)), "err", err, "ms", time.Since(start).Milliseconds())
		} else {
			s.log.Debug("request served", "method", method, "id", string(encodeID(id)), "ms", time.Since(start).Milliseconds())
		}
		s.client.trace(fmt.Sprintf("sending response '%s - (%s)' in %dms", method, encodeID(id), time.Since(start).Milliseconds()))
		if werr := reply(ctx, res, err); werr != nil {
			s.log.Warn("reply not sent", "method", method, "err", werr)
		}
	}()
}

// lifecycle serves initialize, initialized, shutdown, exit and
// $/cancelRequest, inline, so no later message overtakes them.
func (s *Server) lifecycle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) {
	method := req.Method()
	_, isCall := req.(*jsonrpc2.Call)
	if isCall && method != "initialize" && method != "shutdown" {
		_ = reply(ctx, nil, notANotification(method))
		return
	}
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	switch method {
	case "$/cancelRequest":
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(req.Params(), &p); err != nil || len(p.ID) == 0 {
			s.log.Warn("cancel without a usable id ignored")
			return
		}
		id, err := decodeID(p.ID)
		if err != nil {
			s.log.Warn("cancel without a usable id ignored")
			return
		}
		s.mu.Lock()
		cancel := s.inflight[id]
		s.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	case "exit":
		s.end()
	case "initialized":
		if st != stateRunning {
			return
		}
		s.initialized()
	case "initialize":
		if !isCall {
			return
		}
		if st != stateNew {
			_ = reply(ctx, nil, rpcError(jsonrpc2.InvalidRequest, KindInvalidRequest,
				"The server is already initialized. Send other requests, or shutdown and exit."))
			return
		}
		res, err := s.initialize(ctx, req.Params())
		_ = reply(ctx, res, err)
	case "shutdown":
		if !isCall {
			return
		}
		if st == stateNew {
			_ = reply(ctx, nil, rpcError(jsonrpc2.ServerNotInitialized, KindNotInitialized,
				"The server is not initialized. Send initialize first."))
			return
		}
		// Requests still running are cancelled (one may be waiting for a
		// question the closing editor will never answer) and answered
		// before the shutdown reply; the read loop goes on meanwhile.
		s.mu.Lock()
		s.state = stateShutdown
		for _, cancel := range s.inflight {
			cancel()
		}
		s.mu.Unlock()
		go func() {
			s.running.Wait()
			_ = reply(ctx, nil, nil)
		}()
	}
}

// end stops serving, as the exit notification asks: status 0 after a
// shutdown request, else 1.
func (s *Server) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.exited {
		s.exited = true
		if s.state == stateShutdown {
			s.exitCode = 0
		}
		close(s.exit)
	}
}
