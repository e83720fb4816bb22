package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The timeouts tandem gives a server, and the result limit.
const (
	StartTimeout = 30 * time.Second
	CallTimeout  = 60 * time.Second
	// MaxResult is the largest result a call returns (see ResultBytes).
	MaxResult = 16 << 20
	// maxFrame is the largest reply a server may send: a result of
	// MaxResult can arrive twice over, as text content and as structured
	// content, escaped or base64-encoded. The go-sdk closes the session on
	// a larger one.
	maxFrame = 3 * MaxResult
)

// Errors the bridge maps onto its statuses. Any other error is a failure of
// the server, and its text is the reason.
var (
	ErrUnknownServer = errors.New("no such MCP server")
	ErrUnknownTool   = errors.New("no such MCP tool")
	ErrNotApproved   = errors.New("the user did not allow this MCP server to start")
	ErrClosed        = errors.New("tandem is stopping its MCP servers")
)

// AskStart asks the user whether a server a workspace file names may start.
// It returns true only for an allow. When ctx ends, it withdraws its
// question and returns.
type AskStart func(ctx context.Context, d Def) (bool, error)

// Options configure a Manager. A zero timeout takes tandem's default
// (StartTimeout, CallTimeout).
type Options struct {
	Version      string    // tandem's version, sent as the client implementation's
	Approved     *Approved // remembered approvals; nil remembers nothing
	Ask          AskStart  // nil: workspace servers that were never approved do not start
	StartTimeout time.Duration
	CallTimeout  time.Duration
	Log          *slog.Logger // what servers do that the user may want to know; nil: discarded
}

// Manager owns the connections to the configured servers of one tandem
// process. Servers start on first use and stop on Close.
type Manager struct {
	cfg  Config
	opts Options
	// ctx ends on Close: it bounds every start and approval question, so
	// stopping never waits for a server that is still starting.
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	live   map[string]*server
	closed bool
}

// NewManager returns a manager of the servers in cfg. Nothing starts yet.
func NewManager(cfg Config, opts Options) *Manager {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = StartTimeout
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = CallTimeout
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{cfg: cfg, opts: opts, ctx: ctx, cancel: cancel, live: map[string]*server{}}
}

// Config returns what the manager is configured with now.
func (m *Manager) Config() Config {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cfg
}

// Reconfigure takes cfg as the servers from now on, when a file that names
// them changed: a server that went, or whose definition changed, is stopped
// (a call on it ends with it) and the next use of its name starts the new
// one; a new server starts on its first use; the rest run on untouched.
func (m *Manager) Reconfigure(cfg Config) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.cfg = cfg
	var stale []*server
	for name, s := range m.live {
		if d, ok := cfg.Servers[name]; !ok || d.Hash() != s.def.Hash() {
			stale = append(stale, s)
			delete(m.live, name)
		}
	}
	m.mu.Unlock()
	for _, s := range stale {
		s.stop()
	}
}

// server is one configured server and, while it runs, its session.
type server struct {
	def Def

	startMu sync.Mutex // one start at a time: one question, one process

	mu    sync.Mutex
	cs    *mcp.ClientSession
	proc  *process    // nil for http and sse
	tools []*mcp.Tool // cached listing of the running session
}

func (m *Manager) server(name string) (*server, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	if s, ok := m.live[name]; ok {
		return s, nil
	}
	d, ok := m.cfg.Servers[name]
	if !ok {
		return nil, fmt.Errorf("%w %q; run `tandem mcp list` for the servers and tools", ErrUnknownServer, name)
	}
	s := &server{def: d}
	m.live[name] = s
	return s, nil
}

// session returns the server's running session, starting the server first
// if it is not running. ctx bounds the approval question only; the start
// itself has its own timeout so a caller that goes away does not leave a
// half-started server.
func (m *Manager) session(ctx context.Context, name string) (*server, *mcp.ClientSession, error) {
	s, err := m.server(name)
	if err != nil {
		return nil, nil, err
	}
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if m.ctx.Err() != nil {
		return nil, nil, ErrClosed
	}
	s.mu.Lock()
	cs := s.cs
	s.mu.Unlock()
	if cs != nil {
		return s, cs, nil
	}
	if s.def.Workspace && (m.opts.Approved == nil || !m.opts.Approved.Has(s.def)) {
		if m.opts.Ask == nil {
			return nil, nil, fmt.Errorf("%w: %s names %q and it was never approved", ErrNotApproved, s.def.Source, name)
		}
		ctx, cancel := context.WithCancel(ctx)
		defer context.AfterFunc(m.ctx, cancel)()
		ok, err := m.opts.Ask(ctx, s.def)
		cancel()
		if m.ctx.Err() != nil {
			return nil, nil, ErrClosed // the question was withdrawn by Close, not answered
		}
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return nil, nil, fmt.Errorf("%w (%q from %s)", ErrNotApproved, name, s.def.Source)
		}
		if m.opts.Approved != nil {
			if err := m.opts.Approved.Add(s.def); err != nil {
				return nil, nil, fmt.Errorf("remembering the approval of %q: %v", name, err)
			}
		}
	}
	cs, err = m.start(s)
	if err != nil {
		return nil, nil, err
	}
	return s, cs, nil
}

func (m *Manager) start(s *server) (*mcp.ClientSession, error) {
	r, err := s.def.resolve()
	if err != nil {
		return nil, fmt.Errorf("MCP server %q cannot start: %v", s.def.Name, err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "tandem", Version: m.opts.Version}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			s.mu.Lock()
			s.tools = nil
			s.mu.Unlock()
		},
	})
	ctx, cancel := context.WithTimeout(m.ctx, m.opts.StartTimeout)
	defer cancel()

	var transport mcp.Transport
	var p *process
	httpClient := &http.Client{Transport: headerTransport{headers: r.headers, base: http.DefaultTransport}}
	switch s.def.Type {
	case "http":
		transport = &mcp.StreamableClientTransport{Endpoint: r.url, HTTPClient: httpClient, DisableStandaloneSSE: true, MaxEventSize: maxFrame}
	case "sse":
		transport = &sseTransport{mcp.SSEClientTransport{Endpoint: r.url, HTTPClient: httpClient, MaxEventSize: maxFrame}}
	default:
		name := s.def.Name
		skipped := func(line []byte) {
			if len(line) > 200 {
				line = line[:200]
			}
			m.opts.Log.Info("MCP server wrote a line on standard output that is not JSON-RPC; skipped it", "server", name, "line", strings.TrimSpace(string(line)))
		}
		var stdio *mcp.IOTransport
		if p, stdio, err = startProcess(r, skipped); err != nil {
			return nil, fmt.Errorf("MCP server %q did not start: %v", name, err)
		}
		stdio.MaxLineLength = maxFrame
		transport = stdio
	}
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		if p != nil {
			p.kill()
		}
		why := err.Error()
		switch {
		case m.ctx.Err() != nil:
			return nil, ErrClosed
		case ctx.Err() != nil:
			why = fmt.Sprintf("it did not finish starting within %s", m.opts.StartTimeout)
		}
		if p != nil {
			if last := p.tail.lastLine(); last != "" {
				why += "; its last error output: " + last
			}
		}
		return nil, fmt.Errorf("MCP server %q did not start: %s", s.def.Name, why)
	}
	s.mu.Lock()
	s.cs, s.proc, s.tools = cs, p, nil
	s.mu.Unlock()
	go func() {
		_ = cs.Wait()
		s.ended(cs)
	}()
	return cs, nil
}

// ended forgets a session that closed (the server exited, or a frame over
// the limit closed it), so the next use starts the server again.
func (s *server) ended(cs *mcp.ClientSession) {
	s.mu.Lock()
	if s.cs != cs {
		s.mu.Unlock()
		return
	}
	p := s.proc
	s.cs, s.proc, s.tools = nil, nil, nil
	s.mu.Unlock()
	if p != nil {
		p.kill()
	}
}

// stopGrace is how long a stopping server may take to exit after SIGTERM.
const stopGrace = 2 * time.Second

// stop closes the session and stops the server with its process group. A
// start in progress ends first: the manager's context is already done.
func (s *server) stop() {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	s.mu.Lock()
	cs, p := s.cs, s.proc
	s.cs, s.proc, s.tools = nil, nil, nil
	s.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
	if p != nil {
		p.stop(stopGrace)
	}
}

// serverEnviron returns tandem's environment as a server gets it: without
// the bridge's own variables, because a server is not a command of the
// session.
func serverEnviron() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TANDEM_MCP_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// sseTransport is the go-sdk's SSE client with a stream that outlives the
// start: the SDK binds its GET stream, which is the session, to Connect's
// context, and here that context only bounds the start.
type sseTransport struct{ mcp.SSEClientTransport }

func (t *sseTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stream, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	conn, err := t.SSEClientTransport.Connect(stream)
	if !stop() && err == nil { // the start ended while connecting
		conn.Close()
		return nil, ctx.Err()
	}
	return conn, err
}

type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range h.headers {
		req.Header.Set(k, v)
	}
	return h.base.RoundTrip(req)
}

// Close stops every server the manager started, each with its process
// group, and refuses further use.
func (m *Manager) Close() {
	m.cancel()
	m.mu.Lock()
	m.closed = true
	live := m.live
	m.live = map[string]*server{}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range live {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.stop()
		}()
	}
	wg.Wait()
}

// Tools lists the tools of one server, starting it if needed.
func (m *Manager) Tools(ctx context.Context, name string) ([]*mcp.Tool, error) {
	s, cs, err := m.session(ctx, name)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	cached := s.tools
	s.mu.Unlock()
	if cached != nil {
		return cached, nil
	}
	cctx, cancel := context.WithTimeout(ctx, m.opts.CallTimeout)
	defer cancel()
	var tools []*mcp.Tool
	for t, err := range cs.Tools(cctx, nil) {
		if err != nil {
			return nil, m.callError(cctx, name, err)
		}
		tools = append(tools, t)
	}
	if tools == nil {
		tools = []*mcp.Tool{}
	}
	s.mu.Lock()
	if s.cs == cs {
		s.tools = tools
	}
	s.mu.Unlock()
	return tools, nil
}

// Check reports whether server/tool exists, starting the server if needed
// (which may ask the user). A call is admitted only for a tool that exists.
func (m *Manager) Check(ctx context.Context, server, tool string) error {
	tools, err := m.Tools(ctx, server)
	if err != nil {
		return err
	}
	for _, t := range tools {
		if t.Name == tool {
			return nil
		}
	}
	return fmt.Errorf("%w %q on server %q; run `tandem mcp list` for its tools", ErrUnknownTool, tool, server)
}

// Result is a call's outcome as bytes for the caller's standard output.
type Result struct {
	Bytes   []byte
	IsError bool // the tool ran and reported an error; Bytes hold its text
}

// Call runs one tool call within the call timeout. A server that is down,
// slow or failing gives an error with its text; a tool's own error is a
// Result with IsError set.
func (m *Manager) Call(ctx context.Context, server, tool string, args json.RawMessage) (Result, error) {
	_, cs, err := m.session(ctx, server)
	if err != nil {
		return Result{}, err
	}
	cctx, cancel := context.WithTimeout(ctx, m.opts.CallTimeout)
	defer cancel()
	var a any
	if len(args) > 0 {
		a = args
	}
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: a})
	if err != nil {
		return Result{}, m.callError(cctx, server, err)
	}
	b, err := ResultBytes(res)
	if err != nil {
		return Result{}, fmt.Errorf("MCP tool %s/%s: %v", server, tool, err)
	}
	return Result{Bytes: b, IsError: res.IsError}, nil
}

func (m *Manager) callError(ctx context.Context, server string, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("MCP server %q did not answer within %s", server, m.opts.CallTimeout)
	case errors.Is(ctx.Err(), context.Canceled):
		return ctx.Err()
	case strings.Contains(err.Error(), "exceeded the configured maximum line length"):
		// The go-sdk's error is unexported; its text is the only signal.
		return fmt.Errorf("MCP server %q sent a reply over %d MiB; the connection was closed and the server restarts on next use, so ask the tool for less", server, maxFrame>>20)
	case errors.Is(err, mcp.ErrConnectionClosed):
		return fmt.Errorf("MCP server %q closed the connection (it exited, or sent a reply over %d MiB)", server, maxFrame>>20)
	}
	return fmt.Errorf("MCP server %q: %v", server, err)
}
