package lspserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tandemdev/tandem/bridge"
	"github.com/tandemdev/tandem/tools"
	"github.com/tandemdev/tandem/tools/mcpbridge"
)

// The MCP-call bridge of one editor connection (see mcpbridge): started on
// first use, stopped with the connection, which stops every MCP server it
// started.
//
// Owners: each bash call and `mcp` call of a session (mcpbridge.Open; an
// ACP session's roster holds the mcpServers its session/new named), and
// the editor's integrated terminals (tandem/terminalEnv, revoked when the
// connection ends), and the discovery entries of the workspace roots. The
// last two serve tools sessions to `tandem mcp serve` (see hostedTools).
type serverBridge struct {
	mcp *mcpbridge.Bridge

	mu        sync.Mutex
	terminal  *bridge.Registration
	hosts     []*hostedTools
	withdraws []func() // the discovery entries written
}

// hostLocked is a new owner's tools sessions, closed with the connection.
// sb.mu must be held.
func (sb *serverBridge) hostLocked(s *Server) *hostedTools {
	h := &hostedTools{s: s, sessions: map[string]*tools.Session{}}
	sb.hosts = append(sb.hosts, h)
	return h
}

// close withdraws the discovery entries and closes every hosted session;
// the bridge itself stops after (its connections wait for their calls).
func (sb *serverBridge) close() {
	sb.mu.Lock()
	ws, hosts := sb.withdraws, sb.hosts
	sb.withdraws, sb.hosts = nil, nil
	sb.mu.Unlock()
	for _, w := range ws {
		w()
	}
	for _, h := range hosts {
		h.closeAll()
	}
}

// announce writes a discovery entry for each workspace root, so a `tandem
// mcp serve` started outside the editor's terminals, in one of them, finds
// this editor. Nothing when the user disabled the bridge.
func (s *Server) announce() {
	b := s.bridge.mcp.Get()
	roots := s.Roots()
	if b == nil || len(roots) == 0 {
		return
	}
	sb := &s.bridge
	sb.mu.Lock()
	defer sb.mu.Unlock()
	reg, err := b.AddOwner(bridge.Owner{Session: "discovered", Asker: s.router, Tools: sb.hostLocked(s)})
	if err != nil {
		s.log.Warn("no discovery entry: the bridge took no owner", "err", err)
		return
	}
	sb.withdraws = append(sb.withdraws, reg.Revoke)
	for _, r := range roots {
		w, err := bridge.Announce(r, reg.Env())
		if err != nil {
			s.log.Warn("no discovery entry for a workspace folder", "err", err)
			continue
		}
		sb.withdraws = append(sb.withdraws, w)
	}
}

// maxHosted bounds the sessions one owner holds: each holds memory and
// may run jobs, and a session whose client cannot be watched (no peer
// credentials) stays open until the editor's connection ends.
const maxHosted = 32

// hostedTools is one owner's tools sessions (bridge.Tools), each opened for
// one MCP client of `tandem mcp serve` as the editor's own sessions are:
// the editor's buffers, applyEdit, prompts and settings.
type hostedTools struct {
	s        *Server
	mu       sync.Mutex
	sessions map[string]*tools.Session
	closed   bool
}

var errHostClosed = errors.New("the editor's tandem is stopping; its tools sessions are closed. Start the agent again from a running editor's terminal")

func (h *hostedTools) Open(ctx context.Context) ([]byte, error) {
	roots := h.s.Roots()
	if len(roots) == 0 {
		return nil, errors.New("the editor named no workspace folder; open a folder in the editor, then start the agent again")
	}
	h.mu.Lock()
	n, closed := len(h.sessions), h.closed
	h.mu.Unlock()
	if closed {
		return nil, errHostClosed
	}
	if n >= maxHosted {
		return nil, fmt.Errorf("this editor already serves %d agents' sessions; quit an agent (its session ends with it) and start it again", n)
	}
	sess := h.s.openTools("", roots, nil)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		sess.Close()
		return nil, errHostClosed
	}
	h.sessions[sess.ID] = sess
	h.mu.Unlock()
	// A client killed before it closed its session does not leave it open.
	sess.OnClose(bridge.OnPeerExit(ctx, func() { _ = h.Close(sess.ID) }))
	h.s.log.Info("session opened for mcp serve", "session", sess.ID, "roots", len(roots))
	return json.Marshal(bridge.OpenReply{Session: sess.ID, Tools: tools.MCPTools(sess)})
}

func (h *hostedTools) session(id string) (*tools.Session, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if sess := h.sessions[id]; sess != nil {
		return sess, nil
	}
	if h.closed {
		return nil, errHostClosed
	}
	return nil, fmt.Errorf("there is no open tools session %q here; restart the MCP server to open a new one", id)
}

func (h *hostedTools) Call(ctx context.Context, id, tool string, args json.RawMessage) ([]byte, error) {
	sess, err := h.session(id)
	if err != nil {
		return nil, err
	}
	return json.Marshal(tools.Call(ctx, sess, tool, args).MCP())
}

func (h *hostedTools) Close(id string) error {
	sess, err := h.session(id)
	if err != nil {
		return err
	}
	h.mu.Lock()
	delete(h.sessions, id)
	h.mu.Unlock()
	sess.Close()
	return nil
}

func (h *hostedTools) closeAll() {
	h.mu.Lock()
	ss := h.sessions
	h.sessions, h.closed = nil, true
	h.mu.Unlock()
	for _, sess := range ss {
		sess.Close()
	}
}

// tandem/terminalEnv: the variables the editor puts into the integrated
// terminals it opens, so `tandem mcp call` works there. One owner per
// connection, revoked when the connection ends. An empty object means no
// bridge (disabled in the user's settings).
func (s *Server) terminalEnv(_ context.Context, params json.RawMessage) (any, error) {
	var p struct{}
	if len(params) > 0 && string(params) != "null" {
		if err := decodeParams("tandem/terminalEnv", params, &p); err != nil {
			return nil, err
		}
	}
	env := map[string]string{}
	b := s.bridge.mcp.Get()
	if b == nil {
		return map[string]any{"env": env}, nil
	}
	sb := &s.bridge
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.terminal == nil {
		reg, err := b.AddOwner(bridge.Owner{Session: "terminal", Asker: s.router, Tools: sb.hostLocked(s)})
		if err != nil {
			return nil, errorf("The MCP bridge took no terminal owner (%v); the terminal gets no bridge. Reload the editor window to start a new tandem.", err)
		}
		sb.terminal = reg
	}
	for _, kv := range sb.terminal.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return map[string]any{"env": env}, nil
}
