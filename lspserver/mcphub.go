package lspserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tandemdev/tandem/bridge"
	"github.com/tandemdev/tandem/tools"
	"github.com/tandemdev/tandem/tools/mcphub"
)

// connHub is the MCP hub of one editor connection (see package mcphub). It
// starts on first use and stops with the connection, and stopping it
// stops every MCP server it started.
//
// An owner is one registration with the MCP-call bridge (bridge.Owner):
// whoever may call through it. This connection's owners are each bash call
// and `mcp` call of a session (mcphub.Open; an ACP session's roster holds
// the mcpServers its session/new named), the editor's integrated
// terminals (tandem/terminalEnv, revoked when the connection ends), and
// the discovery entries of the workspace roots. The last two also open
// tools sessions for `tandem mcp serve` (see hostedTools).
type connHub struct {
	mcp *mcphub.Hub

	mu       sync.Mutex
	terminal *bridge.Registration
	hosts    []*hostedTools
	// discovery is the owner of the discovery entries. It admits callers
	// by their peer credentials, so no entry file holds a token. entries
	// maps each root to the function that withdraws its entry. Both are
	// nil until announce first runs.
	discovery *bridge.Registration
	entries   map[string]func()
}

// hostLocked returns a new, empty set of tools sessions for one owner; the
// connection's end closes them. ch.mu must be held.
func (ch *connHub) hostLocked(s *Server) *hostedTools {
	h := &hostedTools{s: s, sessions: map[string]*tools.Session{}}
	ch.hosts = append(ch.hosts, h)
	return h
}

// close withdraws the discovery entries and closes every hosted session.
// The bridge itself stops later, once its connections' calls have ended.
func (ch *connHub) close() {
	ch.mu.Lock()
	entries, owner, hosts := ch.entries, ch.discovery, ch.hosts
	ch.entries, ch.discovery, ch.hosts = nil, nil, nil
	ch.mu.Unlock()
	for _, withdraw := range entries {
		withdraw()
	}
	if owner != nil {
		owner.Revoke()
	}
	for _, h := range hosts {
		h.closeAll()
	}
}

// announce writes a discovery entry for each workspace root, so that a
// `tandem mcp serve` started in one of the roots, but outside the editor's
// terminals, finds this editor. It runs once the client is initialized,
// and again when the folders change: it adds an entry for each added
// folder and withdraws the entry of each removed one. It does nothing when
// the user disabled the bridge.
func (s *Server) announce() {
	b := s.hub.mcp.Get()
	if b == nil {
		return
	}
	ch := &s.hub
	ch.mu.Lock()
	defer ch.mu.Unlock()
	roots := s.Roots() // read under ch.mu, so the announce of the latest folders finishes last
	if ch.discovery == nil {
		reg, err := b.AddOwner(bridge.Owner{Session: "discovered", Asker: s.router, Tools: ch.hostLocked(s), ByPeer: true})
		if err != nil {
			s.log.Warn("no discovery entry: the bridge took no owner", "err", err)
			return
		}
		ch.discovery, ch.entries = reg, map[string]func(){}
	}
	for root, withdraw := range ch.entries {
		if !slices.Contains(roots, root) {
			withdraw()
			delete(ch.entries, root)
		}
	}
	for _, r := range roots {
		if ch.entries[r] != nil {
			continue
		}
		withdraw, err := bridge.Announce(r, ch.discovery.Socket())
		if err != nil {
			s.log.Warn("no discovery entry for a workspace folder", "folder", r, "err", err)
			continue
		}
		ch.entries[r] = withdraw
	}
}

// reannounce updates the discovery entries after the workspace folders
// change, if the first announce has run.
func (s *Server) reannounce() {
	s.hub.mu.Lock()
	started := s.hub.discovery != nil
	s.hub.mu.Unlock()
	if started {
		s.announce()
	}
}

// maxHosted bounds the tools sessions one owner holds. Each holds memory
// and may run jobs, and a session whose client cannot be watched (no peer
// credentials) stays open until the editor's connection ends.
const maxHosted = 32

// hostedTools holds one owner's tools sessions (it is the owner's
// bridge.Tools). Each session is opened for one MCP client of `tandem mcp
// serve` in the same way as the editor's own sessions: with the editor's
// buffers, applyEdit, prompts and settings.
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
	sess := h.s.openTools("", roots, nil, true)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		sess.Close()
		return nil, errHostClosed
	}
	h.sessions[sess.ID] = sess
	h.mu.Unlock()
	// Close the session when its client exits, so a client killed before
	// it closed its session does not leave the session open.
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

// terminalEnv serves tandem/terminalEnv: it returns the variables the
// editor puts into the integrated terminals it opens, so that `tandem mcp
// call` works there. The terminals of one connection share one owner,
// revoked when the connection ends. An empty object means there is no
// bridge (the user's settings disabled it).
func (s *Server) terminalEnv(_ context.Context, params json.RawMessage) (any, error) {
	var p struct{}
	if len(params) > 0 && string(params) != "null" {
		if err := decodeParams("tandem/terminalEnv", params, &p); err != nil {
			return nil, err
		}
	}
	env := map[string]string{}
	b := s.hub.mcp.Get()
	if b == nil {
		return map[string]any{"env": env}, nil
	}
	ch := &s.hub
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.terminal == nil {
		reg, err := b.AddOwner(bridge.Owner{Session: "terminal", Who: "a command in the editor's terminal", Asker: s.router, Tools: ch.hostLocked(s)})
		if err != nil {
			return nil, errorf("The MCP bridge took no terminal owner (%v); the terminal gets no bridge. Reload the editor window to start a new tandem.", err)
		}
		ch.terminal = reg
	}
	for _, kv := range ch.terminal.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return map[string]any{"env": env}, nil
}
